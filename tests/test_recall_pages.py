"""Recall pages: a message longer than ``max_tokens`` comes back a page at a time, each naming
the next; a part is asked for by characters, lines or words; the pages are the message."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discourse_memory import Compactor, DiscourseMemory, Options
from discourse_memory.pages import _longest, find_words, line_span, lines_in, pages
from discourse_memory.limits import LIMITS
from discourse_memory.recall import parse_reference

COUNTER = Compactor().counter
COUNT = COUNTER.count


def token_at(i: int) -> str:
    return f"tok-{i * 7919 % 10**8:08x}"


def file_read(lines: int = 1600) -> str:
    """A long file read, one config a line, each with its own token; the one asked for
    (:data:`ASKED` of 1600) is near the end, before the tail a view keeps of a long output."""
    return "\n".join(f"{i:04d}  config_{i} = {{'host': 'db-{i * 7 % 101}.internal', 'port': {5000 + i}, "
                     f"'retries': {i % 9}, 'token': '{token_at(i)}'}}" for i in range(1, lines + 1))


ASKED = 1440
SECRET = token_at(ASKED)


def agent_run(output: str) -> list[dict]:
    call = {"id": "c1", "type": "function",
            "function": {"name": "read_file", "arguments": json.dumps({"path": "a.py"})}}
    return [{"role": "user", "content": "Read a.py, then wait for my question."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": output},
            {"role": "assistant", "content": "It is long; I will page through it."},
            {"role": "user", "content": "Go on."}]


def body(page: str, last: bool) -> str:
    """The message text a page holds: after its header line, before its closing line."""
    text = page.split("\n", 1)[1]
    return text if last else text.rsplit("\n", 1)[0]


def follow(recall, ref: str, max_tokens: int) -> list[str]:
    """The pages from ``ref`` on, following each page's next reference (``more[0]``)."""
    out = []
    got = recall(ref, max_tokens)
    while True:
        assert got.found, got.text
        assert COUNT(got.text) <= max_tokens
        nxt = [r for r in got.more if "@" in r]
        out.append(body(got.text, not nxt))
        if not nxt:
            return out
        assert got.text.endswith(f"(continues: {nxt[0]})")
        got = recall(nxt[0], max_tokens)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("ab 1\n\t.é中🙂-_xyz9")), max_size=600), st.integers(4, 60))
def test_the_pages_of_a_text_are_the_text(text: str, room: int):
    spans = pages(text, room, COUNT)
    assert "".join(text[a:b] for a, b in spans) == text
    assert all(a < b for a, b in spans) and [a for a, _ in spans[1:]] == [b for _, b in spans[:-1]]
    for a, b in spans[:-1]:
        assert COUNT(text[a:b]) <= room
        fits = _longest(text, a, len(text), room, COUNT)  # the most that would fit
        if any(c.isspace() for c in text[a + (fits - a) // 2:fits]):  # a break at whitespace: no word split
            assert text[b - 1].isspace(), (text[a:b], text[b:b + 5])


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(200, 3000), st.integers(LIMITS.page_min_tokens + 60, 1500), st.booleans())
def test_following_a_long_messages_pages_gives_it_back_byte_for_byte(lines: int, max_tokens: int, one_line: bool):
    output = file_read(lines // 10)
    output = output.replace("\n", " ") if one_line else output
    msgs = agent_run(output)
    compactor = Compactor()
    got = follow(lambda r, t: compactor.recall(msgs, r, t), "#2", max_tokens)
    assert "".join(got) == output


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(alphabet=st.sampled_from(list("ab 1\n\r\t.é中🙂-_{}\"x9")), min_size=1, max_size=2500),
       st.integers(LIMITS.page_min_tokens + 40, 300))
def test_a_random_messages_pages_are_it_byte_for_byte(text: str, max_tokens: int):
    msgs = agent_run(text)
    compactor = Compactor()
    assert "".join(follow(lambda r, t: compactor.recall(msgs, r, t), "#2", max_tokens)) == text


def test_a_20k_token_output_pages_to_the_value_near_its_end():
    output = file_read()
    assert COUNT(output) > 20_000
    msgs = agent_run(output)
    view = Compactor(options=Options(recall=True)).compact(msgs, 1_000)
    assert "#2" in view.references and SECRET not in json.dumps(view.messages)
    first = view.recall("#2")  # the tools' default max_tokens
    assert first.text.startswith("#2 tool [lines 1-") and first.more[0].startswith("#2@")
    got = follow(view.recall, "#2", 1000)
    assert len(got) > 20 and "".join(got) == output
    holding = [k for k, page in enumerate(got) if SECRET in page]
    assert len(holding) == 1 and holding[0] >= 0.85 * len(got)  # reached only by paging near to the end


def test_a_part_by_lines_characters_or_words():
    output = file_read()
    msgs = agent_run(output)
    compactor = Compactor()
    lines = output.split("\n")
    tail = compactor.recall(msgs, "#2:L1590-1600")
    assert tail.found and tail.text == "#2 tool [lines 1590-1600 of 1600]:\n" + "\n".join(lines[1589:])
    assert tail.more == ()
    assert SECRET in compactor.recall(msgs, "#2:L1435-1445").text
    assert compactor.recall(msgs, "#2:L1598-").text == compactor.recall(msgs, "#2:l1598-L1600").text
    span = compactor.recall(msgs, "#2@100-160")
    assert span.text == f"#2 tool [lines 2-2 of 1600]:\n{output[100:160]}" and "\n" not in output[100:160]
    words = compactor.recall(msgs, f"#2:{SECRET}")
    assert words.found and words.text.split("\n")[1] == lines[1439]
    phrase = compactor.recall(msgs, "#2:\"'port': 5013\" retries")
    assert phrase.text.split("\n")[1] == lines[12]
    # A range of lines longer than max_tokens pages within the range, not past it.
    ranged = follow(lambda r, t: compactor.recall(msgs, r, t), "#2:L100-400", 500)
    assert "".join(ranged) == "\n".join(lines[99:400]) + "\n"


def test_words_found_in_several_places_name_the_others():
    output = file_read()
    msgs = agent_run(output)
    got = Compactor().recall(msgs, "#2:db-3.internal")
    assert got.found and len(got.more) == 1 + LIMITS.also_named and all(r.startswith("#2@") for r in got.more)
    places = output.count("db-3.internal")  # the first, five named, the rest counted
    assert got.text.endswith(f"{', '.join(got.more[1:])} and {places - 1 - LIMITS.also_named} more places)")
    others = [Compactor().recall(msgs, r, 60) for r in got.more[1:3]]
    assert all("db-3.internal" in o.text.split("\n")[1] for o in others)


@pytest.mark.parametrize("ref, says", [
    ("#2@abc", "is not a reference"),
    ("#2-#4@7", "is not a reference"),
    ("#2:L0", "no line 0"),
    ("#2:L99999", "no line 99999"),
    ("#2@9999999", "nothing at 9999999"),
    ("#2@500-400", "nothing at 500-400"),
    ("#2:zzqx unobtainium", "no 'zzqx unobtainium' in #2"),
    ("#99@5", "no message #99"),
    ("00000000#2@5", "not from this conversation"),
])
def test_bad_part_references_get_a_clear_message(ref: str, says: str):
    msgs = agent_run(file_read(300))
    view = Compactor(options=Options(recall=True)).compact(msgs, 500)
    got = view.recall(ref)
    assert not got.found and says in got.text and got.more == ()


def test_a_tagged_reference_names_tagged_pages():
    msgs = agent_run(file_read(300))
    view = Compactor(options=Options(recall=True)).compact(msgs, 500)
    tag = view.note.split("record ", 1)[1][:8]
    got = view.recall(f"{tag}#2")
    assert got.more == (f"{tag}{view.recall('#2').more[0]}",)  # the same page: its frame is short enough
    nxt = view.recall(got.more[0])
    assert nxt.found and nxt.more[0].startswith(f"{tag}#2@")  # and the next, still bound to this conversation
    assert body(nxt.text, False) == body(view.recall(got.more[0][8:]).text, False)[:len(body(nxt.text, False))]


def test_memory_pages_and_parts_resolve_against_the_whole_history():
    memory = DiscourseMemory(options=Options(recall=True))
    memory.extend(agent_run(file_read(300)))
    memory.view(400)
    first = memory.recall("#2")
    assert first.found and first.more and memory.recall(first.more[0]).found
    assert memory.recall("#2:L300").text.endswith(file_read(300).split("\n")[-1])


def test_the_reference_forms_parse():
    assert parse_reference("#12@5120").chars == (5120, None)
    assert parse_reference(" 1a2b3c4d#12@5120-9000 ").chars == (5120, 9000)
    assert parse_reference("#12:L120-180").lines == (120, 180)
    assert parse_reference("#12:L120-").lines == (120, None)
    assert parse_reference("#12: connection refused").words == "connection refused"
    assert parse_reference("#12-#15").last == 15 and not parse_reference("#12-#15").is_part
    assert parse_reference("connection refused") is None


def test_lines_and_words_helpers():
    text = "a\nb\nc\n"
    assert lines_in(text) == 3 and lines_in("a\nb") == 2 and lines_in("") == 0
    assert line_span(text, 2, 3) == (2, 6) and line_span(text, 3, None) == (4, 6) and line_span(text, 4, 4) is None
    assert find_words("x\nfoo bar\nfoo", "foo bar").at == (2,)
    assert find_words("x", "") is None


def test_messages_beyond_a_horizon_page_and_give_parts_the_same_way():
    # What DiscourseMemory.recall answers for a message beyond its horizon (never analysed).
    from discourse_memory.messages import validate_messages
    from discourse_memory.recall import recall_messages

    output = file_read()
    msgs = validate_messages(agent_run(output))
    lines = output.split("\n")
    part = recall_messages(msgs, parse_reference("#2:L10-12"), COUNT, 1000)
    assert part.found and part.text == "#2 tool [lines 10-12 of 1600]:\n" + "\n".join(lines[9:12]) + "\n"
    got = follow(lambda r, t: recall_messages(msgs, parse_reference(r), COUNT, t), "#2", 1000)
    assert "".join(got) == output
    assert not recall_messages(msgs, parse_reference("#9@5"), COUNT, 1000).found

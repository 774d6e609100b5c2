"""The HTML inspector page: structure, fidelity to the input and to the view, escaping."""

from __future__ import annotations

from dataclasses import replace

import json
import re
import time
from collections import Counter

import pytest

from discourse_memory import BudgetTooSmallError, DiscourseMemory, compact
from discourse_memory.cli import main as cli_main
from discourse_memory.formats import to_internal
from discourse_memory.inspect import DECISIONS, render_html, unit_anchor
from discourse_memory.sample import sample_conversation

from .html_tree import Node, parse


def _texts(messages):
    """The conversation's text: contents (text parts) and tool-call names and arguments."""
    for m in messages:
        c = m.get("content")
        if isinstance(c, str):
            yield c
        elif isinstance(c, list):
            yield from (p if isinstance(p, str) else p.get("text") or "" for p in c)
        for call in m.get("tool_calls") or []:
            yield call["function"]["name"] + call["function"]["arguments"]


@pytest.fixture(scope="module")
def sample():
    messages = sample_conversation(3)
    total = compact(messages, 10**9).tokens_before
    result = compact(messages, int(total * 0.5))  # a budget where every decision occurs
    page = render_html(result, messages)
    return messages, result, page, parse(page)


def _units(root: Node) -> list[Node]:
    return root.find_all(lambda n: n.tag == "span" and "u" in n.classes)


def _tight(messages, extra: int = 5) -> int:
    """A budget just above what the protected messages and the record's frame need."""
    with pytest.raises(BudgetTooSmallError) as info:
        compact(messages, 1)
    return info.value.minimum + extra


def _unit_text(n: Node) -> str:
    """A unit element's text as the reader sees it, without the ↪ link."""
    return n.text(skip=lambda c: c.tag == "a")


def _field(messages, u) -> str:
    m = messages[u.message]
    if u.field.startswith("tool_calls."):
        return m["tool_calls"][int(u.field.split(".")[1])]["function"]["arguments"]
    if u.field == "content":
        return m["content"]
    part = m["content"][int(u.field.split(".")[1])]
    return part if isinstance(part, str) else part["text"]


def test_sample_has_every_decision(sample):
    _, result, _, _ = sample
    counts = result.report.counts
    assert all(counts[d] > 0 for d in DECISIONS), counts  # so the tests below test each kind


def test_every_unit_appears_exactly_once_with_its_decision(sample):
    _, result, _, root = sample
    elements = _units(root)
    ids = [n.attrs["id"] for n in elements]
    assert len(ids) == len(set(ids)), [i for i, c in Counter(ids).items() if c > 1][:5]
    expected = {unit_anchor(u.id): u.decision for u in result.report.units}
    got = {n.attrs["id"]: n.attrs["data-decision"] for n in elements}
    assert got == expected
    # and the element carries nothing but its own unit: no unit inside another
    for n in elements:
        assert not any("u" in a.classes and a.tag == "span" for a in n.ancestors())


def test_unit_text_is_the_exact_source_span(sample):
    messages, result, _, root = sample
    for u in result.report.units:
        n = root.by_id(unit_anchor(u.id))
        assert _unit_text(n) == _field(messages, u)[u.start:u.end], u.id


def test_annotated_message_reproduces_the_original_text(sample):
    messages, _, _, root = sample
    pane = root.by_id("pane-orig")
    for i, m in enumerate(messages):
        art = pane.by_id(f"m-{i}")
        assert art is not None and art.attrs["data-role"] == m["role"]
        body = next(c for c in art.children if isinstance(c, Node) and "mb" in c.classes)
        shown = body.text(skip=lambda c: c.tag == "a" or "fl" in c.classes)
        expected = m["content"] or ""
        for call in m.get("tool_calls") or []:
            expected += f"→ {call['function']['name']}({call['function']['arguments']})"
        assert shown == expected, i


def test_header_numbers(sample):
    _, result, _, root = sample
    header = root.by_id("summary")
    counts = result.report.counts
    for d in DECISIONS:
        assert int(header.attrs[f"data-count-{d}"]) == counts[d]
        assert int(root.by_id(f"count-{d}").text()) == counts[d]
    assert int(header.attrs["data-tokens-before"]) == result.tokens_before
    assert int(header.attrs["data-tokens-after"]) == result.tokens_after
    assert int(header.attrs["data-budget"]) == result.budget
    assert int(header.attrs["data-units"]) == len(result.report.units)
    assert root.by_id("tokens-before").text() == str(result.tokens_before)
    assert root.by_id("tokens-after").text() == str(result.tokens_after)
    assert root.by_id("budget").text() == str(result.budget)


def test_clipped_units_show_the_cut_part_apart(sample):
    messages, result, _, root = sample
    clipped = [u for u in result.report.units if u.decision == "clipped"]
    assert clipped
    for u in clipped:
        assert u.head_end is not None and 0 < u.head_end < u.end - u.start
        n = root.by_id(unit_anchor(u.id))
        cuts = n.find_all(lambda c: "cut" in c.classes)
        assert len(cuts) == 1
        body = _field(messages, u)[u.start:u.end]
        assert cuts[0].text() == body[u.head_end:]
        assert _unit_text(n) == body


def test_clip_head_is_what_the_model_sees(sample):
    messages, result, _, root = sample
    sent = "\n".join(m["content"] for m in result.messages if isinstance(m.get("content"), str))
    for u in (u for u in result.report.units if u.decision == "clipped"):
        head = _field(messages, u)[u.start:u.start + u.head_end].rstrip()
        assert head in sent, u.id


def test_deduplicated_units_link_to_the_copy_that_won(sample):
    _, result, _, root = sample
    by_id = {u.id: u for u in result.report.units}
    dups = [u for u in result.report.units if u.decision == "deduplicated"]
    assert dups
    for u in dups:
        n = root.by_id(unit_anchor(u.id))
        links = n.find_all(lambda c: c.tag == "a")
        assert len(links) == 1 and "newer copy" in links[0].text()
        target = links[0].attrs["href"]
        assert target == "#" + unit_anchor(u.duplicate_of)
        winner = root.by_id(target[1:])
        assert winner is not None and winner.attrs["data-decision"] != "deduplicated"
        assert by_id[u.duplicate_of].message > u.message


def test_literals_are_marked_with_their_status(sample):
    _, result, page, root = sample
    unmarked = root.find_all(lambda n: n.tag == "main")[0].attrs["data-unmarked-literals"]
    code = {"recorded": "r", "kept": "k", "dropped": "x"}
    checked = 0
    for u in result.report.units:
        n = root.by_id(unit_anchor(u.id))
        marks = n.find_all(lambda c: c.tag == "mark")
        default = "k" if u.decision == "kept" else code[unmarked]
        status = Counter((m.text(), (m.attrs.get("class") or default)) for m in marks)
        want = Counter([(t, "r") for t in u.literals_recorded] + [(t, "x") for t in u.literals_dropped]
                       + [(t, "k") for t in u.literals_kept])
        # every mark is a literal of the unit with its status; a literal may go unmarked only
        # where its text could not be placed (overlapping an earlier one)
        assert not (status - want), (u.id, status - want)
        checked += sum(status.values())
        if u.decision == "omitted":
            # (a tool call's name is a literal of the call but not in its arguments text)
            placeable = {t for t in u.literals_recorded if t in n.text()}
            assert placeable <= {m.text() for m in marks}, u.id
    assert checked > 50


def test_record_is_the_note_exactly(sample):
    _, result, _, root = sample
    assert result.note
    assert root.by_id("record").text() == result.note


def test_each_message_shows_its_reference_and_those_handed_out_are_marked():
    messages = sample_conversation(3)
    total = compact(messages, 10**9).tokens_before
    result = compact(messages, int(total * 0.3), recall=True)
    handed_out = set(result.references)
    assert handed_out and len(handed_out) < len(messages)  # some are, some are not: the marks can differ
    root = parse(render_html(result, messages))
    pane = root.by_id("pane-orig")
    for i in range(len(messages)):
        art = pane.by_id(f"m-{i}")
        ref = f"#{i}"
        assert art.attrs["data-ref"] == ref
        shown = next(c for c in art.find_all(lambda n: n.tag == "a" and "ref" in n.classes))
        assert shown.text() == ref and shown.attrs["href"] == f"#m-{i}"
        tags = [t.text() for t in art.find_all(lambda n: "tag" in n.classes)]
        assert ("data-handed-out" in art.attrs) == (ref in handed_out) == (f"recall {ref}" in tags), i
        if ref in handed_out:  # what the reference gives back is this message, in full
            recalled = result.recall(ref, 10**6)
            assert recalled.found and recalled.messages == (i,)
    listed = root.by_id("references").find_all(lambda n: n.tag == "a")
    assert [a.attrs["data-ref"] for a in listed] == list(result.references)
    assert all(root.by_id(a.attrs["href"][1:]).attrs["data-ref"] == a.attrs["data-ref"] for a in listed)


def test_output_pane_is_the_compacted_messages(sample):
    _, result, _, root = sample
    pane = root.by_id("pane-out")
    for j, (m, src) in enumerate(zip(result.messages, result.sources)):
        art = pane.by_id(f"o-{j}")
        assert art.attrs["data-source"] == ("" if src is None else str(src))
        body = next(c for c in art.children if isinstance(c, Node) and "mb" in c.classes)
        expected = m.get("content") or ""
        for call in m.get("tool_calls") or []:
            expected += f"→ {call['function']['name']}({call['function']['arguments']})"
        assert body.text(skip=lambda c: "fl" in c.classes) == expected, j
    note_at = result.sources.index(None)
    assert "note" in pane.by_id(f"o-{note_at}").classes


def test_self_contained(sample):
    _, _, page, root = sample
    assert "<script" not in page.lower()
    assert "<link" not in page.lower()
    assert not re.search(r"(?:src|href)\s*=\s*['\"]?(?:https?:)?//", page)
    assert not re.search(r"url\(", page)
    for n in root.iter():
        if "href" in n.attrs:
            assert n.attrs["href"].startswith("#"), n.attrs["href"]
            assert root.by_id(n.attrs["href"][1:]) is not None, n.attrs["href"]
    assert "default-src 'none'" in page  # and the page forbids loading anything


def test_markup_in_messages_is_escaped():
    evil = "<script>alert('x')</script> <b>bold</b> & <img src=x onerror=alert(1)> \"quoted\" 'single'"
    messages = [
        {"role": "system", "content": "You are <terse>."},
        {"role": "user", "content": evil + " Please check ticket OPS-1234 and version v1.2.3 today."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c<1>", "type": "function",
             "function": {"name": "run<script>", "arguments": json.dumps({"q": "</span><script>x()</script>"})}}]},
        {"role": "tool", "tool_call_id": "c<1>", "content": "</article></main><script>bad()</script> result"},
        {"role": "assistant", "content": "Done: " + evil},
        {"role": "user", "content": "thanks <3"},
    ]
    tight = _tight(messages)
    for budget in (10**6, tight):
        result = compact(messages, budget)
        if budget == tight:
            assert result.report.counts["omitted"] > 0
        page = render_html(result, messages)
        assert "<script" not in page.lower()
        assert "<img" not in page.lower() and "<b>bold" not in page
        assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page or "&lt;script&gt;alert('x')" in page
        root = parse(page)
        # the text reads back exactly
        for u in result.report.units:
            n = root.by_id(unit_anchor(u.id))
            assert _unit_text(n) == _field(messages, u)[u.start:u.end]
        assert not root.find_all(lambda n: n.tag in ("script", "img"))
        assert "run<script>" in root.by_id("pane-orig").text()


def test_fits_budget_nothing_compacted():
    messages = sample_conversation(1)[:6]
    result = compact(messages, 10**9)
    root = parse(render_html(result, messages))
    header = root.by_id("summary")
    assert int(header.attrs["data-count-kept"]) == len(result.report.units) > 0
    assert all(int(header.attrs[f"data-count-{d}"]) == 0 for d in DECISIONS if d != "kept")
    assert root.by_id("no-record") is not None and root.by_id("record") is None


def test_without_original_messages_units_still_appear_once(sample):
    _, result, _, _ = sample
    root = parse(render_html(result))
    got = {n.attrs["id"]: n.attrs["data-decision"] for n in _units(root)}
    assert got == {unit_anchor(u.id): u.decision for u in result.report.units}
    assert "not given" in root.by_id("summary").text()


def test_wrong_original_messages_are_rejected(sample):
    messages, result, _, _ = sample
    changed = [dict(m) for m in messages]
    i = next(k for k, m in enumerate(changed) if isinstance(m.get("content"), str) and len(m["content"]) > 40)
    changed[i]["content"] = "Something else entirely, " + changed[i]["content"][25:]
    with pytest.raises(ValueError, match="do not match"):
        render_html(result, changed)
    with pytest.raises(ValueError, match="do not match"):
        render_html(result, messages[:3])


def test_multipart_content_and_other_parts():
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": [
            {"type": "text", "text": "Look at ticket OPS-77 from 2026-01-02. " * 3},
            {"type": "image_url", "image_url": {"url": "https://example.com/a.png"}},
            "A bare string part mentioning v9.9.9.",
        ]},
        {"role": "assistant", "content": "Noted, OPS-77 it is. The image shows a graph of latency over time."},
        {"role": "user", "content": "Next?"},
    ]
    result = compact(messages, _tight(messages))
    assert result.report.counts["kept"] < len(result.report.units)
    page = render_html(result, messages)
    root = parse(page)
    assert {n.attrs["id"] for n in _units(root)} == {unit_anchor(u.id) for u in result.report.units}
    # The image is counted through a stand-in, its own message after its text (docs/formats.md):
    # the page shows the stand-in, never the payload.
    internal = to_internal(messages)
    image_at = next(i for i, m in enumerate(internal) if m["role"] == "attachments")
    assert "[image]" in root.by_id(f"m-{image_at}").text()
    assert "https://example.com/a.png" not in page
    for u in result.report.units:
        assert _unit_text(root.by_id(unit_anchor(u.id))) == _field(internal, u)[u.start:u.end]


def test_to_html_and_memory_view_match_render_html(sample):
    messages, result, page, _ = sample
    assert result.to_html(messages) == page
    memory = DiscourseMemory(messages)
    view = memory.view(result.budget)
    assert view.to_html(memory.messages) == render_html(view, messages)


def test_cli_inspect_writes_the_page(tmp_path, capsys):
    messages = sample_conversation(2)
    src = tmp_path / "chat.json"
    src.write_text(json.dumps(messages), encoding="utf-8")
    out = tmp_path / "view.html"
    assert cli_main(["inspect", str(src), "--budget", "900", "-o", str(out)]) == 0
    page = out.read_text(encoding="utf-8")
    expected = compact(messages, 900)
    assert page == render_html(expected, messages)
    assert str(out) in capsys.readouterr().out


def test_500_messages_fast_and_small():
    messages = sample_conversation(12)
    while len(messages) < 500:
        messages += sample_conversation(4, seed=len(messages))[1:]
    messages = messages[:500]
    total = compact(messages, 10**9).tokens_before
    result = compact(messages, total // 4)
    _ = result.report
    t = time.perf_counter()
    page = render_html(result, messages)
    elapsed = time.perf_counter() - t
    text = len("".join(_texts(messages)).encode())
    root = parse(page)
    assert len(root.by_id("pane-orig").find_all(lambda n: n.tag == "article")) == 500
    assert len(_units(root)) == len(result.report.units)
    # Short, dense units (about 50 characters each) make this the costliest kind of
    # conversation per character: 6.2x here; the 5x bar for swe_dev is checked in
    # test_inspect_browser.py and benchmarks/bench_inspect.py.
    assert len(page.encode()) < 7 * text, (len(page.encode()), text)
    assert elapsed < 5.0, elapsed  # about 0.1 s here; a generous bound for slow CI machines


def test_a_huge_left_out_message_is_folded_not_written_out():
    from discourse_memory import inspect as dm_inspect

    log = "\n".join(f"2024-05-01 12:00:{i % 60:02d} INFO worker-{i % 8} request req{i:07d} took {i % 300}ms"
                    for i in range(20_000))
    msgs = [{"role": "user", "content": log}, {"role": "assistant", "content": "Looked at it."},
            {"role": "user", "content": "Which request was slowest?"}]
    view = compact(msgs, 300)
    page = view.to_html()
    assert len(page) < len(log) / 4, len(page)
    root = parse(page)
    folds = root.find_all(lambda n: n.tag == "span" and "fold" in n.classes)
    assert folds, "no fold on a page of a 1.5 MB left-out log"
    folded_units = sum(int(n.attrs.get("data-units", 0)) for n in folds)
    shown = {n.attrs["id"] for n in _units(root)}
    units = view.report.units
    # Every unit is on the page or counted by a fold, and every unit the view shows is on it.
    assert len(shown) + folded_units == len(units)
    assert all(dm_inspect.unit_anchor(u.id) in shown for u in units if u.decision in ("kept", "clipped"))
    # The fold keeps both ends of the run: the log's first and last lines are on the page.
    assert "req0000000" in page and "req0019999" in page


def test_a_huge_unit_is_folded_in_its_middle():
    blob = "".join(chr(65 + (i * 7919) % 26) for i in range(200_000))  # one unit: no break, no space
    msgs = [{"role": "user", "content": "start " + blob + " end"}, {"role": "user", "content": "What was it?"}]
    page = compact(msgs, 200).to_html()
    assert len(page) < 50_000, len(page)
    root = parse(page)
    folds = root.find_all(lambda n: n.tag == "span" and "fold" in n.classes)
    assert folds and all(int(n.attrs.get("data-chars", 0)) > 100_000 for n in folds if "data-chars" in n.attrs)
    assert "start " + blob[:100] in page and blob[-100:] + " end" in page


def test_the_list_of_values_dropped_from_the_record_is_folded_when_long():
    words = " ".join(f"ID-{i:06d}-{'x' * 40}" for i in range(3_000))
    msgs = [{"role": "user", "content": words}, {"role": "user", "content": "Which ids?"}]
    view = compact(msgs, 200)
    assert len(view.report.dropped) > 1_000
    page = view.to_html()
    assert len(page) < 100_000, len(page)
    root = parse(page)
    lists = root.find_all(lambda n: n.tag == "div" and "droplist" in n.classes)
    folds = [f for d in lists for f in d.find_all(lambda n: n.tag == "span" and "fold" in n.classes)]
    assert len(folds) == 1
    listed = lists[0].text().split(";")
    assert int(folds[0].attrs["data-values"]) + len(listed) == len(view.report.dropped)


def test_the_pages_a_reference_gives_are_shown():
    from .test_recall_pages import agent_run, file_read

    output = file_read(400)
    messages = agent_run(output)
    result = compact(messages, 800, recall=True)
    assert "#2" in result.references
    root = parse(render_html(result, messages))
    item = next(li for li in root.by_id("pages").find_all(lambda n: n.tag == "li") if li.attrs["data-ref"] == "#2")
    listed = [s.attrs["data-ref"] for s in item.find_all(lambda n: "page" in n.classes)]
    assert listed[0] == "#2" and len(listed) == int(item.attrs["data-pages"]) > 3
    # the pages listed are those a model gets by following each page's next reference, and
    # together they are the message
    got = [result.recall(r) for r in listed]
    assert [g.more[0] for g in got[:-1]] == listed[1:] and not got[-1].more
    bodies = [g.text.split("\n", 1)[1] for g in got]
    assert "".join(b.rsplit("\n", 1)[0] for b in bodies[:-1]) + bodies[-1] == output
    assert "lines 1-" in item.text()
    art = root.by_id("pane-orig").by_id("m-2")
    assert art.attrs["data-pages"] == item.attrs["data-pages"]
    assert f"recall #2 · {len(listed)} pages" in [t.text() for t in art.find_all(lambda n: "tag" in n.classes)]
    assert root.by_id("pane-orig").by_id("m-0").attrs.get("data-pages") is None  # one page: none listed


def test_the_pages_listed_stop_at_a_cap_and_say_so(monkeypatch):
    from discourse_memory import inspect

    from .test_recall_pages import agent_run, file_read

    messages = agent_run(file_read(400))
    result = compact(messages, 800, recall=True)
    monkeypatch.setattr(inspect, "LIMITS", replace(inspect.LIMITS, pages_shown=3))  # fewer than #2's pages
    root = parse(render_html(result, messages))
    assert root.by_id("pages-more") is not None and root.by_id("pages") is None  # no partial list
    assert root.by_id("pane-orig").by_id("m-2").attrs.get("data-pages") is None

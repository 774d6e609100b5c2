"""compact() on every message format: fixtures -> compact -> the provider's shape -> a
validator of that provider's request rules (tests/format_rules.py), with the view's
tokens counted independently."""

from __future__ import annotations

import base64
import copy
import json
import struct
from pathlib import Path

import pytest

from discourse_memory import Compaction, Compactor, InvalidMessageError, InvalidOptionError, compact
from discourse_memory.cli import main, read_input
from discourse_memory.formats import FormatCompaction, count_tokens, detect_format
from discourse_memory.formats.media import (anthropic_image_tokens, image_size, openai_image_tokens, pdf_tokens)
from discourse_memory.formats.sessions import read_claude_code, read_codex

from . import format_rules as rules
from .conftest import COUNTER, assert_tool_pairs, view_tokens

FIXTURES = Path(__file__).parent / "fixtures" / "formats"


def load(name: str):
    return json.loads((FIXTURES / name).read_text())


def lines(name: str) -> list[dict]:
    return [json.loads(x) for x in (FIXTURES / name).read_text().splitlines() if x.strip()]


# name -> (the input given to compact, its format, independent count, validator)
def _openai():
    msgs = load("openai_chat.json")
    return msgs, "openai", lambda r: rules.count_openai(r.messages), lambda r: rules.validate_openai(r.messages)


def _responses():
    body = load("responses_body.json")
    return body, "responses", \
        lambda r: rules.count_responses(r.body["input"], r.body.get("instructions")), \
        lambda r: rules.validate_responses(r.body["input"], body["input"])


def _anthropic():
    body = load("anthropic_body.json")
    return body, "anthropic", lambda r: rules.count_anthropic(r.body["messages"], r.body.get("system")), \
        lambda r: rules.validate_anthropic(r.body["messages"], body["messages"], r.body.get("system"))


def _langchain():
    msgs = load("langchain.json")
    return msgs, "langchain", lambda r: rules.count_langchain(r.messages), lambda r: rules.validate_langchain(r.messages)


def _llamaindex():
    msgs = load("llamaindex.json")
    return msgs, "llamaindex", lambda r: rules.count_llamaindex(r.messages), \
        lambda r: rules.validate_llamaindex(r.messages)


def _claude_code():
    msgs = read_claude_code(lines("claude_code_session.jsonl"))
    return msgs, "anthropic", lambda r: rules.count_anthropic(r.messages), \
        lambda r: rules.validate_anthropic(r.messages, msgs)


def _codex():
    body = read_codex(lines("codex_session.jsonl"))
    return body, "responses", lambda r: rules.count_responses(r.body["input"], r.body.get("instructions")), \
        lambda r: rules.validate_responses(r.body["input"], body["input"])


CASES = {"openai": _openai, "responses": _responses, "anthropic": _anthropic, "langchain": _langchain,
         "llamaindex": _llamaindex, "claude-code": _claude_code, "codex": _codex}
BLOCKS = {"openai": ("content", ("text", "refusal")), "responses": ("content", ("text", "refusal")),
          "anthropic": ("content", ("text",)), "langchain": ("content", ("text", "reasoning")),
          "llamaindex": ("blocks", ("text", "content"))}


def _input_messages(given, fmt):
    if isinstance(given, dict):
        return given["input"] if fmt == "responses" else given["messages"]
    return given


def _independent_before(name, given):
    fake = type("R", (), {})()
    fmt = CASES[name]()[1]
    fake.messages = _input_messages(given, fmt)
    fake.body = given if isinstance(given, dict) else None
    return CASES[name]()[2](fake)


@pytest.mark.parametrize("name", list(CASES))
def test_detected_and_counted(name):
    # (the text, calls and media as each provider's rules count them; the request's framing: below)
    given, fmt, count, _ = CASES[name]()
    r = compact(given, 10**7, message_overhead="none")
    assert isinstance(r, FormatCompaction) and r.format == fmt
    assert r.note is None and r.messages == _input_messages(given, fmt)
    assert r.tokens_before == r.tokens_after == _independent_before(name, given)
    assert count_tokens(given, message_overhead="none") == r.tokens_before
    assert count_tokens(given) == compact(given, 10**7).tokens_before > r.tokens_before


@pytest.mark.parametrize("share", [0.1, 0.25, 0.5, 0.75])
@pytest.mark.parametrize("name", list(CASES))
def test_compacted_view_is_a_valid_request_counted_exactly(name, share):
    given, fmt, count, validate = CASES[name]()
    original = copy.deepcopy(given)
    budget = int(_independent_before(name, given) * share)
    r = compact(given, budget, message_overhead="none")
    assert given == original, "the input was edited"
    assert r.format == fmt and r.note is not None and r.edge_drops == ()
    assert count(r) == r.tokens_after <= budget
    validate(r)
    inputs = _input_messages(given, fmt)
    if r.body is not None:
        assert r.messages == _input_messages(r.body, fmt)
        assert {k: v for k, v in r.body.items() if k not in ("messages", "input", "system", "instructions")} == \
            {k: v for k, v in given.items() if k not in ("messages", "input", "system", "instructions")}
    notes = [m for m, s in zip(r.messages, r.sources) if s is None]
    assert len(notes) == 1 and _note_text(notes[0]) == r.note
    key, text_keys = BLOCKS[fmt]
    for m, s in zip(r.messages, r.sources):
        if s is not None:
            if fmt == "llamaindex" or "blocks" in m:
                rules.assert_derived(m, inputs[s], "blocks", text_keys)
            else:
                rules.assert_derived(m, inputs[s], key, text_keys)
    sources = [s for s in r.sources if s is not None]
    assert sources == sorted(sources) and len(set(sources)) == len(sources)


def _sent(r, fmt):
    """How many messages (items) the request sends, its system or instructions one of them."""
    body = r.body or {}
    return len(r.messages) + bool(body.get("system") if fmt == "anthropic" else body.get("instructions"))


@pytest.mark.parametrize("share", [0.1, 0.25, 0.5])
@pytest.mark.parametrize("name", list(CASES))
def test_by_default_the_budget_bounds_the_request_with_its_framing(name, share):
    # Each provider's framing is on top of the text the rules above count: at least OpenAI's
    # cookbook rule (3 a message, its role, 3 to prime the reply) for every message sent.
    given, fmt, count, validate = CASES[name]()
    budget = int(count_tokens(given) * share)
    r = compact(given, budget)
    validate(r)
    sent = r.body if r.body is not None else r.messages
    assert r.tokens_after == count_tokens(sent, format=fmt) <= budget
    assert r.tokens_after >= count(r) + 4 * _sent(r, fmt) + 3
    assert r.tokens_before == count_tokens(given)


def _note_text(m):
    content = m.get("content", m.get("blocks"))
    if isinstance(content, str):
        return content
    return content[0].get("text")


@pytest.mark.parametrize("name", ["anthropic", "claude-code", "langchain", "llamaindex", "responses", "codex"])
def test_signed_reasoning_is_never_edited(name):
    given, fmt, _, _ = CASES[name]()
    signed = json.dumps(given)
    for share in (0.05, 0.2, 0.4, 0.6):
        r = compact(given, int(_independent_before(name, given) * share))
        for m in r.messages:
            for b in m.get("content", m.get("blocks")) or () if not isinstance(m.get("content"), str) else ():
                if not isinstance(b, dict):
                    continue
                info = b.get("extras") or b.get("additional_information") or {}
                if b.get("type") in ("thinking", "redacted_thinking") or info.get("signature") \
                        or b.get("type") == "reasoning" and fmt == "responses":
                    assert json.dumps(b) in signed, "a signed reasoning block was edited"
            if m.get("type") == "reasoning":
                assert m in _input_messages(given, fmt)


def test_plain_openai_is_the_core_compaction_unchanged():
    from discourse_memory.sample import sample_conversation

    msgs = sample_conversation(3)
    budget = view_tokens(msgs) // 3
    r = compact(msgs, budget)
    assert type(r) is Compaction
    same = compact(msgs, budget, format="openai")
    assert type(same) is Compaction and same.messages == r.messages and same.note == r.note


def test_unknown_format_and_conflicting_messages_are_refused():
    with pytest.raises(InvalidOptionError, match="format"):
        compact([{"role": "user", "content": "hi"}], 100, format="gemini")
    llamaindex = {"role": "user", "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": "hi"}]}
    responses = {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"}
    with pytest.raises(InvalidMessageError, match="one list holds one format"):
        compact([llamaindex, responses], 100)
    # An AI message holding Anthropic's own blocks is still LangChain (its integrations do that)
    anthropic = {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "f", "input": {}}]}
    assert detect_format([anthropic]) == "anthropic"
    assert detect_format([anthropic, {"type": "ai", "content": "x"}]) == "langchain"


@pytest.mark.parametrize("name, fmt", [("openai", "openai"), ("responses", "responses"), ("anthropic", "anthropic"),
                                       ("langchain", "langchain"), ("llamaindex", "llamaindex")])
def test_detect_format_of_each_fixture(name, fmt):
    given = CASES[name]()[0]
    assert detect_format(_input_messages(given, fmt)) == fmt or isinstance(given, dict)


# ---------------------------------------------------------------- the cases

def test_anthropic_huge_tool_result_is_counted_and_paired():
    huge = "\n".join(f"row {i}: order ORD-{100000 + i} shipped to warehouse W{i % 17} at 2024-05-{i % 28 + 1:02d}"
                     for i in range(3000))
    msgs = [
        {"role": "user", "content": "Which orders shipped late? Check the export."},
        {"role": "assistant", "content": [{"type": "text", "text": "Reading the export."},
                                          {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "export.csv"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": huge},
                                     {"type": "text", "text": "Also look at the warehouse W3 rows first."}]},
        {"role": "assistant", "content": [{"type": "text", "text": "W3 shipped 176 orders, 12 of them late."}]},
        {"role": "user", "content": "Now summarise for the customer ORD-100042."},
    ]
    assert rules.count_anthropic(msgs) > 60_000
    r = compact(msgs, 300, message_overhead="none")
    assert rules.count_anthropic(r.messages) == r.tokens_after <= 300
    rules.validate_anthropic(r.messages, msgs)
    for budget in (300, 1500, 8000, 30000):
        r = compact(msgs, budget, message_overhead="none")
        rules.validate_anthropic(r.messages, msgs)
        kept_use = any(b["type"] == "tool_use" for m in r.messages if isinstance(m["content"], list) for b in m["content"])
        kept_result = any(b["type"] == "tool_result" for m in r.messages if isinstance(m["content"], list)
                          for b in m["content"])
        assert kept_use == kept_result
        assert rules.count_anthropic(r.messages) == r.tokens_after <= budget


def test_legacy_function_call_and_reasoning_content_are_counted_and_paired():
    args = json.dumps({"rows": [{"id": f"R{i}", "value": i * 3} for i in range(9000)]})
    msgs = [
        {"role": "user", "content": "Load the rows and check them."},
        {"role": "assistant", "content": None, "function_call": {"name": "load", "arguments": args}},
        {"role": "function", "name": "load", "content": "loaded 9000 rows, 3 invalid: R17, R204, R8812"},
        {"role": "assistant", "content": "Three rows are invalid: R17, R204 and R8812.",
         "reasoning_content": "Let me think about each row. " * 8000},
        {"role": "user", "content": "Fix R17."},
    ]
    assert rules.count_openai(msgs) > 100_000
    for budget in (200, 2000, 60_000):
        r = compact(msgs, budget, message_overhead="none")
        assert rules.count_openai(r.messages) == r.tokens_after <= budget
        rules.validate_openai(r.messages)
        calls = [m for m in r.messages if m.get("function_call")]
        results = [m for m in r.messages if m.get("role") == "function"]
        assert len(calls) == len(results)


def test_an_image_costs_its_documented_tokens():
    img = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00\x00\x00\rIHDR" + struct.pack(">II", 1024, 1024)
                           + b"\x08\x02\x00\x00\x00" + b"\x00" * 8).decode()
    msgs = [{"role": "user", "content": [
        {"type": "text", "text": "What is on this diagram?"},
        {"type": "image_url", "image_url": {"url": "data:image/png;base64," + img, "detail": "high"}}]}]
    # 1024 x 1024 at detail high: 768 x 768, 4 tiles: 85 + 4 * 170 = 765 (OpenAI's own example)
    assert compact(msgs, 10_000, message_overhead="none").tokens_before == \
        COUNTER.count("What is on this diagram?") + 765
    low = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x/y.png", "detail": "low"}}]}]
    assert compact(low, 10_000, message_overhead="none").tokens_before == 85
    # (the request: + 3 for the message, 1 for its role, 3 to prime the reply)
    assert compact(low, 10_000).tokens_before == 85 + 3 + 1 + 3
    anth = [{"role": "user", "content": [{"type": "image", "source": {"type": "base64", "media_type": "image/png",
                                                                       "data": img}}]}]
    # Anthropic: 1024 * 1024 / 750 = 1398.1 -> 1399
    assert compact(anth, 10_000, message_overhead="none").tokens_before == 1399


def test_images_of_an_old_message_can_go_while_its_text_stays():
    given = load("anthropic_body.json")
    r = compact(given, 9000)
    first = r.messages[r.sources.index(0)]
    kinds = [b["type"] for b in first["content"]]
    assert "text" in kinds and "document" not in kinds  # the 9,200-token PDF cannot fit; the task text does


def test_newest_user_message_keeps_its_attachments():
    big = "This is an older line of the conversation about gate B12 and flight LH440. " * 300
    msgs = [{"role": "user", "content": big}, {"role": "assistant", "content": big},
            {"role": "user", "content": [{"type": "text", "text": "What does this screenshot show?"},
                                         {"type": "image", "source": {"type": "url", "url": "https://example.com/s.png"}}]}]
    r = compact(msgs, 2500, message_overhead="none")
    assert r.messages[-1] == msgs[-1]
    assert rules.count_anthropic(r.messages) == r.tokens_after <= 2500


# ---------------------------------------------------------------- media rules

def test_documented_image_examples():
    # OpenAI's examples: 1024x1024 high = 765; 2048x4096 high = 1105; any image at low = 85
    assert openai_image_tokens(1024, 1024, "high") == 765
    assert openai_image_tokens(2048, 4096, "high") == 1105
    assert openai_image_tokens(4000, 3000, "low") == 85
    assert openai_image_tokens(None, None, "auto") == 1445  # unknown: the most a high-detail image costs
    # Anthropic's table: 200x200 ~54, 1000x1000 ~1334, 1092x1092 ~1590
    assert anthropic_image_tokens(200, 200) == 54
    assert anthropic_image_tokens(1000, 1000) == 1334
    assert anthropic_image_tokens(1092, 1092) == 1590
    assert anthropic_image_tokens(4000, 4000) == 1600 and anthropic_image_tokens(None, None) == 1600


def test_image_sizes_are_read_from_headers():
    png = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + struct.pack(">II", 640, 480) + b"\x08\x02\x00\x00\x00"
    gif = b"GIF89a" + struct.pack("<HH", 300, 200) + b"\x00" * 8
    jpeg = b"\xff\xd8" + b"\xff\xe0" + struct.pack(">H", 16) + b"JFIF\x00" + b"\x00" * 9 + \
        b"\xff\xc0" + struct.pack(">HBHHB", 17, 8, 720, 1280, 3) + b"\x00" * 9 + b"\xff\xd9"
    webp = b"RIFF" + struct.pack("<I", 30) + b"WEBPVP8X" + struct.pack("<I", 10) + b"\x00" * 4 + \
        (800 - 1).to_bytes(3, "little") + (600 - 1).to_bytes(3, "little")
    for raw, size in ((png, (640, 480)), (gif, (300, 200)), (jpeg, (1280, 720)), (webp, (800, 600))):
        assert image_size(base64.b64encode(raw).decode()) == size
        assert image_size("data:image/x;base64," + base64.b64encode(raw).decode()) == size
    assert image_size("not base64 at all!") is None


def test_pdf_pages_are_counted():
    data = load("anthropic_body.json")["messages"][0]["content"][1]["source"]["data"]
    assert pdf_tokens(data) == 2 * 4600
    assert pdf_tokens("") == 4600  # unreadable: one page


# ---------------------------------------------------------------- sessions and the CLI

def test_claude_code_session_is_read_as_anthropic_messages():
    msgs = read_claude_code(lines("claude_code_session.jsonl"))
    assert [m["role"] for m in msgs] == ["user", "assistant", "user", "assistant", "user", "assistant", "user",
                                         "assistant", "user"]
    # the four lines of the first response are one message; its two results one user message
    assert [b["type"] for b in msgs[1]["content"]] == ["thinking", "text", "tool_use", "tool_use"]
    assert [b["type"] for b in msgs[2]["content"]] == ["tool_result", "tool_result"]
    assert all("Warmup" not in json.dumps(m) for m in msgs)  # the sidechain line is not this session's context
    assert detect_format(msgs) == "anthropic"


def test_codex_session_is_read_as_a_responses_body():
    body = read_codex(lines("codex_session.jsonl"))
    assert body["instructions"].startswith("You are a coding agent")
    kinds = [it["type"] for it in body["input"]]
    assert kinds == ["message", "message", "reasoning", "function_call", "function_call_output", "function_call",
                     "function_call_output", "reasoning", "custom_tool_call", "custom_tool_call_output", "message",
                     "message"]


def test_cli_inspect_works_on_a_claude_code_session(tmp_path, capsys):
    out = tmp_path / "view.html"
    path = FIXTURES / "claude_code_session.jsonl"
    assert main(["inspect", str(path), "--budget", "2000", "-o", str(out)]) == 0
    page = out.read_text()
    assert "discourse-memory view" in page and "record note" in page
    assert "tokens (budget 2000)" in capsys.readouterr().out


@pytest.mark.parametrize("session, fmt", [("claude_code_session.jsonl", "anthropic"), ("codex_session.jsonl", "responses")])
def test_cli_compact_session_files(session, fmt, capsys):
    path = FIXTURES / session
    assert main(["compact", str(path), "--budget", "2500"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["format"] == fmt and out["tokens_after"] <= 2500
    given, _ = read_input(str(path))
    # (the request: the text the rules count and, by default, its framing)
    if fmt == "anthropic":
        rules.validate_anthropic(out["messages"], given)
        assert rules.count_anthropic(out["messages"]) + 4 * len(out["messages"]) + 3 <= out["tokens_after"]
        assert count_tokens(out["messages"], format=fmt) == out["tokens_after"]
    else:
        rules.validate_responses(out["body"]["input"], given["input"])
        assert rules.count_responses(out["body"]["input"], out["body"].get("instructions")) \
            + 4 * len(out["body"]["input"]) + 3 <= out["tokens_after"]
        assert count_tokens(out["body"], format=fmt) == out["tokens_after"]
    # named instead of detected, and the older --format json spelling
    named = "claude-code" if fmt == "anthropic" else "codex"
    assert main(["compact", str(path), "--budget", "2500", "--format", named, "--output", "text"]) == 0
    assert "tokens, budget 2500]" in capsys.readouterr().out


def test_cli_reads_a_request_body(tmp_path, capsys):
    path = tmp_path / "body.json"
    path.write_text((FIXTURES / "anthropic_body.json").read_text())
    assert main(["compact", str(path), "--budget", "5000", "--format", "anthropic"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["body"]["system"][0]["cache_control"] == {"type": "ephemeral"}
    rules.validate_anthropic(out["body"]["messages"], load("anthropic_body.json")["messages"], out["body"]["system"])


# ---------------------------------------------------------------- reuse, overhead

def test_a_compactor_extends_a_growing_conversation_like_a_fresh_one():
    msgs = read_claude_code(lines("claude_code_session.jsonl"))
    compactor = Compactor()
    for n in range(3, len(msgs) + 1, 2):
        part = msgs[:n]
        got = compactor.compact(part, 1500)
        fresh = Compactor().compact(part, 1500)
        assert got.messages == fresh.messages and got.tokens_after == fresh.tokens_after
        rules.validate_anthropic(got.messages, part)


def test_discourse_memory_keeps_an_anthropic_history():
    from discourse_memory import DiscourseMemory

    msgs = read_claude_code(lines("claude_code_session.jsonl"))
    memory = DiscourseMemory()
    for m in msgs:
        memory.append(m)
    view = memory.view(2000)
    assert view.format == "anthropic" and view.messages == compact(msgs, 2000).messages
    rules.validate_anthropic(view.messages, msgs)


def test_a_callers_message_overhead_is_added_per_internal_message():
    given, fmt, count, _ = _anthropic()
    r = compact(given, 6000, message_overhead=4)
    internal = r.internal
    assert r.tokens_after == count(r) + 4 * len(internal.messages) <= 6000


def test_tool_pairs_hold_in_the_internal_view():
    for name in CASES:
        given = CASES[name]()[0]
        r = compact(given, 3000)
        assert_tool_pairs(r.internal.messages)

"""Fuzzing the segmenter, the literal extractor, ``compact`` and ``DiscourseMemory`` with
hostile input: the outcome is a correct result or a documented error
(``InvalidMessageError`` / ``BudgetTooSmallError``, both ``ValueError``s, or a
``TypeError`` for a wrongly typed argument) with a message; never another exception.

Two kinds of fuzzing:

- a fast, seeded, direct loop (``random.Random``, not hypothesis) for the bulk of the
  cases -- 100,000 texts through ``split_blocks``, ``find_literals``,
  ``find_names_by_pattern`` and ``content_key`` -- plus thousands of texts through
  ``segment_texts`` (spaCy) and of conversations through ``compact``;
- hypothesis for structure (message shapes, budgets, settings), with shrinking.

``test_zz_fuzz_case_count`` (last in this file) checks and prints the total.
"""

from __future__ import annotations

import importlib.util
import json
import os
import random
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discourse_memory import (
    BudgetTooSmallError,
    DiscourseMemory,
    InvalidMessageError,
    compact,
    get_token_counter,
)
from discourse_memory.blocks import split_blocks
from discourse_memory.keys import content_key
from discourse_memory.literals import find_literals, find_names_by_pattern
from discourse_memory.nlp import get_pipeline
from discourse_memory.segment import segment_texts

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("dm_reliability_hostile", HERE / "hostile.py")
hostile = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(hostile)  # type: ignore[union-attr]

COUNTER = get_token_counter()
SEED = int(os.environ.get("DM_FUZZ_SEED", "20261130"))
TEXT_CASES = int(os.environ.get("DM_FUZZ_TEXT_CASES", "100000"))
CASES: dict[str, int] = {}
BLOCK_KINDS = {"heading", "list_item", "table_row", "code", "field", "paragraph", "diff"}


# ---- checks -------------------------------------------------------------------------

def check_spans(text: str, items: list[Any], *, literal: bool) -> None:
    prev_end = 0
    for item in items:
        assert 0 <= item.start <= item.end <= len(text), (item, len(text))
        assert item.start >= prev_end, f"overlapping or unordered: {items}"
        prev_end = item.end
        if literal:
            assert item.end > item.start and text[item.start:item.end] == item.text


def check_text(text: str) -> None:
    blocks = split_blocks(text)
    check_spans(text, blocks, literal=False)
    assert all(b.kind in BLOCK_KINDS for b in blocks)
    check_spans(text, find_literals(text), literal=True)
    check_spans(text, find_names_by_pattern(text), literal=True)
    assert re.fullmatch(r"[0-9a-f]{16}", content_key(text))


def text_tokens(messages: list[dict[str, Any]]) -> int:
    """Tokens of a view, counted the documented way (text + tool-call name + arguments;
    lone surrogates, which UTF-8 cannot encode, count as the '?' they are replaced by)."""
    total = 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            total += _count(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, str):
                    total += _count(part)
                elif isinstance(part, dict) and part.get("type") == "text" and isinstance(part.get("text"), str):
                    total += _count(part["text"])
        for call in m.get("tool_calls") or []:
            fn = call["function"]
            args = fn.get("arguments")
            args = "" if args is None else args if isinstance(args, str) else json.dumps(args, ensure_ascii=False,
                                                                                            sort_keys=True)
            total += _count(fn["name"]) + _count(args)
    return total


def _clean(text: str) -> str:
    return text.encode("utf-8", "replace").decode("utf-8") if isinstance(text, str) else text


def _count(text: str) -> int:
    return COUNTER.count(_clean(text))


def check_result(msgs: list[dict[str, Any]], budget: int, result: Any, *, keep_system: bool = True,
                 keep_last_turn: bool = True, **_: Any) -> None:
    out, sources = result.messages, result.sources
    assert len(out) == len(sources)
    assert text_tokens(out) <= budget, (text_tokens(out), budget)
    assert result.tokens_after <= budget
    notes = [i for i, s in enumerate(sources) if s is None]
    assert len(notes) <= 1
    if notes:  # the note, as a string or (a list-content format) one text block
        content = out[notes[0]]["content"]
        assert content == result.note or content == [{"type": "text", "text": result.note}]
    else:
        assert result.note is None
    shown_calls: set[str] = set()
    last = -1
    for m, s in zip(out, sources):
        if s is None:
            continue
        assert 0 <= s < len(msgs) and s > last, "sources must be increasing input indices"
        last = s
        original = msgs[s]
        assert m["role"] == original["role"]
        for key in original:
            if key not in ("content", "tool_calls"):
                assert m[key] == original[key], f"key {key!r} changed"
        if m.get("tool_calls"):
            assert m["tool_calls"] == original["tool_calls"], "tool calls are kept verbatim or removed"
            shown_calls.update(str(c.get("id")) for c in m["tool_calls"])
    protected = _protected(msgs, result.report.protection, budget)
    for m, s in zip(out, sources):
        if s is not None and m["role"] == "tool" and s not in protected:
            assert str(m.get("tool_call_id")) in shown_calls, "a tool result without its call"
        if s in protected:
            assert m == msgs[s], "protected messages are kept verbatim"


def _protected(msgs: list[dict[str, Any]], protection: str, budget: int) -> set[int]:
    """The messages a view keeps verbatim under the protection its report names (see
    ``Options.strict``): system messages, and the newest turn (from the last user
    message, or the last message if there is none), or the newest message with its
    open tool-call chain, or the newest message alone; but not a tool output (a tool
    message, or a user message after an assistant's code block) over half the budget,
    when the report says so."""
    if protection.startswith("everything"):
        return set(range(len(msgs)))
    large_outputs = "(a tool output over half the budget compacted)" in protection
    protection = protection.replace(" (a tool output over half the budget compacted)", "")
    protection = protection.replace(" (a long system prompt outlined)", "")  # (then named without "system")
    out = {i for i, m in enumerate(msgs) if m.get("role") in ("system", "developer")} \
        if protection.startswith("system") else set()
    if not msgs:
        return out
    last = len(msgs) - 1
    if protection.endswith("newest turn"):
        last_user = max((i for i, m in enumerate(msgs) if m.get("role") == "user"), default=last)
        out.update(range(last_user, len(msgs)))
    elif protection.endswith("tool-call chain"):
        out.add(last)
        out.update(_chain(msgs, last))
    elif protection.endswith("newest message"):
        out.add(last)
    if large_outputs:
        out = {i for i in out if not (text_tokens([msgs[i]]) > budget / 2 and _is_output(msgs, i))}
    return out


def _is_output(msgs: list[dict[str, Any]], i: int) -> bool:
    m = msgs[i]
    if m.get("role") == "tool":
        return True
    if m.get("role") != "user" or i == 0:
        return False
    prev = msgs[i - 1].get("content")
    texts = [prev] if isinstance(prev, str) else [p.get("text", "") if isinstance(p, dict) else str(p)
                                                  for p in prev or [] if isinstance(p, (dict, str))]
    return msgs[i - 1].get("role") == "assistant" and any("```" in t for t in texts if isinstance(t, str))


def _chain(msgs: list[dict[str, Any]], i: int) -> set[int]:
    """The assistant message whose call message ``i`` answers (or ``i`` itself, if it
    holds calls), and every result of its calls."""
    m = msgs[i]
    owner = None
    if m.get("role") == "tool" and m.get("tool_call_id") is not None:
        for j in range(i - 1, -1, -1):
            ids = [str(c.get("id")) for c in msgs[j].get("tool_calls") or [] if isinstance(c, dict) and c.get("id")]
            if str(m["tool_call_id"]) in ids:
                owner = j
                break
    elif m.get("tool_calls"):
        owner = i
    if owner is None:
        return set()
    ids = {str(c.get("id")) for c in msgs[owner].get("tool_calls") or [] if isinstance(c, dict) and c.get("id")}
    out = {owner}
    for j in range(owner + 1, len(msgs)):
        if msgs[j].get("role") == "tool" and str(msgs[j].get("tool_call_id")) in ids:
            out.add(j)
    return out


def run_compact(msgs: Any, budget: Any, **kwargs: Any) -> str:
    """One fuzz case: a correct result or a documented error. Returns the outcome name."""
    try:
        result = compact(msgs, budget, **kwargs)
    except (InvalidMessageError, BudgetTooSmallError) as exc:
        assert str(exc)
        if isinstance(exc, BudgetTooSmallError):
            assert exc.minimum > budget
        return type(exc).__name__
    except (TypeError, ValueError) as exc:
        # Only for wrongly typed arguments, with a message saying which.
        assert str(exc) and re.search(r"budget|note_role|messages|token_counter|clip_tokens", str(exc)), exc
        return type(exc).__name__
    check_result(msgs, budget, result, **kwargs)
    return "ok"


# ---- the bulk: seeded direct loops --------------------------------------------------

def test_direct_fuzz_texts() -> None:
    """100,000 hostile texts through the block splitter and the literal extractors."""
    rng = random.Random(SEED)
    for _ in range(TEXT_CASES):
        check_text(hostile.hostile_text(rng))
    CASES["split_blocks/find_literals/find_names_by_pattern/content_key"] = TEXT_CASES


def test_direct_fuzz_segment_texts() -> None:
    """Hostile texts through the whole segmenter (spaCy sentences, names, literals)."""
    rng = random.Random(SEED + 1)
    nlp = get_pipeline(None)
    n = 0
    for _ in range(40):
        texts = [hostile.hostile_text(rng) for _ in range(100)]
        # spaCy, like the tokenizer, sees text whose lone surrogates were replaced (messages.py).
        texts = [_clean(t) for t in texts]
        for text, pieces in zip(texts, segment_texts(texts, nlp)):
            prev = 0
            for p in pieces:
                assert prev <= p.start < p.end <= len(text)
                prev = p.end
                body = text[p.start:p.end]
                for lit in p.literals:
                    assert body[lit.start:lit.end] == lit.text, (body, lit)
            n += 1
    CASES["segment_texts"] = n


def test_direct_fuzz_compact() -> None:
    """Hostile but well-formed conversations: a correct view or BudgetTooSmallError."""
    rng = random.Random(SEED + 2)
    outcomes: dict[str, int] = {}
    n = 0
    for _ in range(1500):
        msgs = hostile.hostile_conversation(rng)
        total = text_tokens(msgs)
        budget = rng.choice([0, 1, max(0, total // 4), total // 2, max(0, total - 1), total, total + 10, 10**6])
        kwargs = rng.choice([{}, {"keep_last_turn": False}, {"keep_system": False}, {"note_role": "user"}])
        outcome = run_compact(msgs, budget, **kwargs)
        assert outcome in ("ok", "BudgetTooSmallError"), (outcome, msgs)
        outcomes[outcome] = outcomes.get(outcome, 0) + 1
        n += 1
    assert outcomes.get("ok", 0) > n // 3, outcomes
    CASES["compact (direct)"] = n


def test_malformed_messages_raise_invalid_message_error() -> None:
    n = 0
    for bad in hostile.MALFORMED_MESSAGES:
        for position in (0, 1):
            msgs: list[Any] = [{"role": "user", "content": "hello"}]
            msgs.insert(position, bad)
            with pytest.raises(InvalidMessageError, match=rf"message {position}\b"):
                compact(msgs, 100)
            memory = DiscourseMemory()
            with pytest.raises(InvalidMessageError):
                memory.extend(msgs)
            assert len(memory) == 0, "a rejected batch stores nothing"
            n += 2
    for messages in ("a string", b"bytes", {"role": "user", "content": "x"}, 42, None):
        with pytest.raises(InvalidMessageError, match="list of dicts"):
            compact(messages, 100)  # type: ignore[arg-type]
        n += 1
    for budget, error in ((None, TypeError), ("100", TypeError), (1.5, TypeError), (True, TypeError), (-1, ValueError)):
        with pytest.raises(error, match="budget"):
            compact([{"role": "user", "content": "x"}], budget)  # type: ignore[arg-type]
        n += 1
    with pytest.raises(ValueError, match="note_role"):
        compact([{"role": "user", "content": "x " * 50}, {"role": "user", "content": "y"}], 5, note_role="tool")
    CASES["malformed"] = n + 1


# ---- hypothesis: structure ----------------------------------------------------------

_text = st.one_of(
    st.text(max_size=200),
    st.text(alphabet=st.characters(codec="utf-8"), max_size=50),
    st.lists(st.sampled_from(hostile.ATOMS), max_size=30).map("".join),
    st.builds(lambda c, n: c * n, st.sampled_from(hostile.RUN_CHARS), st.integers(0, 400)),
)
_part = st.one_of(
    st.builds(lambda t: {"type": "text", "text": t}, _text),
    _text,
    st.fixed_dictionaries({"type": st.sampled_from(["image_url", "input_audio", "x", ""]), "data": _text}),
    st.just({"type": "text"}),
)
_content = st.one_of(st.none(), _text, st.lists(_part, max_size=4))
_role = st.sampled_from(hostile.ROLES)


@st.composite
def _conversation(draw: Any) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    for i in range(draw(st.integers(0, 8))):
        kind = draw(st.sampled_from(["plain", "plain", "call", "result"]))
        if kind == "call":
            ids = draw(st.lists(st.sampled_from(["a", "b", "c", "🙂", ""]), min_size=1, max_size=3))
            msgs.append({"role": "assistant", "content": draw(_content), "tool_calls": [
                {"id": cid, "type": "function", "function": {"name": draw(_text), "arguments": draw(_text)}}
                for cid in ids]})
        elif kind == "result":
            msgs.append({"role": "tool", "tool_call_id": draw(st.sampled_from(["a", "b", "c", "zz"])),
                         "content": draw(_content)})
        else:
            msgs.append({"role": draw(_role), "content": draw(_content)})
    return msgs


@settings(max_examples=int(os.environ.get("DM_FUZZ_HYPOTHESIS", "400")), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(_conversation(), st.integers(0, 3000), st.booleans(), st.booleans(), st.sampled_from(["system", "user"]))
def test_hypothesis_compact(msgs: list[dict[str, Any]], budget: int, keep_system: bool, keep_last_turn: bool,
                            note_role: str) -> None:
    outcome = run_compact(msgs, budget, keep_system=keep_system, keep_last_turn=keep_last_turn, note_role=note_role)
    assert outcome in ("ok", "BudgetTooSmallError")
    CASES["compact (hypothesis)"] = CASES.get("compact (hypothesis)", 0) + 1


@settings(max_examples=int(os.environ.get("DM_FUZZ_HYPOTHESIS", "400")), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(_text)
def test_hypothesis_texts(text: str) -> None:
    check_text(text)
    CASES["texts (hypothesis)"] = CASES.get("texts (hypothesis)", 0) + 1


@settings(max_examples=int(os.environ.get("DM_FUZZ_HYPOTHESIS_MEMORY", "120")), deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(_conversation(), min_size=1, max_size=4), st.integers(0, 2000))
def test_hypothesis_memory_roundtrip(batches: list[list[dict[str, Any]]], budget: int) -> None:
    """Append hostile batches; every view is a correct result or BudgetTooSmallError;
    the JSON state round-trips to an identical view."""
    memory = DiscourseMemory()
    history: list[dict[str, Any]] = []
    for batch in batches:
        memory.extend(batch)
        history.extend(batch)
        try:
            view = memory.view(budget)
        except BudgetTooSmallError:
            view = None
        if view is not None:
            check_result(history, budget, view)
    state = json.loads(json.dumps(memory.to_dict()))
    restored = DiscourseMemory.from_dict(state)
    assert memory.messages == history
    # JSON has no lone surrogates: a high+low pair of them ("\udbff\udc00", two code
    # points in Python) reads back as the one character they encode. Otherwise exact.
    assert restored.messages == json.loads(json.dumps(history))
    if restored.messages != history:
        CASES["DiscourseMemory (hypothesis)"] = CASES.get("DiscourseMemory (hypothesis)", 0) + 1
        return
    try:
        assert restored.view(budget).messages == memory.view(budget).messages
    except BudgetTooSmallError:
        with pytest.raises(BudgetTooSmallError):
            restored.view(budget)
    CASES["DiscourseMemory (hypothesis)"] = CASES.get("DiscourseMemory (hypothesis)", 0) + 1


def test_zz_fuzz_case_count(record_property: Any) -> None:
    """The bar: at least 100,000 fuzz cases per run, zero unexpected exceptions."""
    if "split_blocks/find_literals/find_names_by_pattern/content_key" not in CASES:
        pytest.skip("run the whole file to count its cases")
    total = sum(CASES.values())
    record_property("fuzz_cases", total)
    print(f"\nfuzz cases run: {total:,} " + json.dumps(CASES))
    assert total >= 100_000 or TEXT_CASES < 100_000

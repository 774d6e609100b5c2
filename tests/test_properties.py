"""Property tests (hypothesis) for compact()'s invariants."""

from __future__ import annotations

from dataclasses import replace

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discourse_memory import BudgetTooSmallError, compact
from discourse_memory.record.text import _quoted
from discourse_memory.json_units import unescaped

from .conftest import assert_tool_pairs, view_text, view_tokens

WORDS = ["deploy", "the", "gateway", "Dana", "Paris", "rollback", "pool", "latency", "ticket",
         "über", "naïve", "東京", "🙂", "quickly", "Mia Li", "status", "and", "of", "a"]
LITERALS = ["v2.3.1", "$1,250.00", "2026-10-08", "OPS-4412", "/etc/gw/config.yaml", "snake_case",
            "user@example.com", "42", "3.5%", "10:30 AM", "HAT136", "https://example.org/x",
            '"two words"', "getUserDetails", "7 May 2023"]

word = st.sampled_from(WORDS + LITERALS)
sentence = st.lists(word, min_size=1, max_size=25).map(lambda ws: " ".join(ws).capitalize() + ".")
paragraph = st.lists(sentence, min_size=1, max_size=5).map(" ".join)
list_block = st.lists(sentence, min_size=1, max_size=5).map(lambda ss: "\n".join(f"- {s}" for s in ss))
table = st.lists(st.tuples(word, word), min_size=1, max_size=4).map(
    lambda rows: "| a | b |\n|---|---|\n" + "\n".join(f"| {x} | {y} |" for x, y in rows))
code = st.lists(sentence, min_size=1, max_size=4).map(lambda ss: "```\n" + "\n".join(ss) + "\n```")
heading = sentence.map(lambda s: "## " + s)
field = st.tuples(st.sampled_from(["Owner", "Port", "Due"]), word).map(lambda kv: f"{kv[0]}: {kv[1]}")
block = st.one_of(paragraph, list_block, table, code, heading, field)
content = st.lists(block, min_size=1, max_size=5).map("\n\n".join)
# A tool's output as text, or wrapped as a shell tool returns it (Codex: a JSON string of lines).
tool_output = st.one_of(content, st.lists(content, min_size=1, max_size=4).map(
    lambda cs: json.dumps({"output": "\n".join(cs), "metadata": {"exit_code": 0, "duration_seconds": 0.4}})))


@st.composite
def conversations(draw):
    msgs = []
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": draw(sentence)})
    call_no = 0
    for _ in range(draw(st.integers(1, 10))):
        kind = draw(st.sampled_from(["chat", "chat", "tool", "repeat"]))
        if kind == "tool":
            ids = []
            calls = []
            for _ in range(draw(st.integers(1, 2))):
                call_no += 1
                ids.append(f"call_{call_no}")
                args = json.dumps({"q": draw(word), "n": draw(st.integers(0, 999))})
                calls.append({"id": ids[-1], "type": "function", "function": {"name": "lookup", "arguments": args}})
            msgs.append({"role": "assistant", "content": None, "tool_calls": calls})
            for i in ids:
                msgs.append({"role": "tool", "tool_call_id": i, "content": draw(tool_output)})
        elif kind == "repeat" and msgs:
            msgs.append({"role": "assistant", "content": draw(st.sampled_from([m for m in msgs if isinstance(m.get("content"), str)] or [{"content": "x"}]))["content"] or "x"})
        else:
            msgs.append({"role": "user", "content": draw(content)})
            msgs.append({"role": "assistant", "content": draw(content)})
    msgs.append({"role": "user", "content": draw(sentence)})
    return msgs


COMMON = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _compact_or_minimum(msgs, budget):
    try:
        return compact(msgs, budget)
    except BudgetTooSmallError as exc:
        assert exc.minimum > budget
        return compact(msgs, exc.minimum)


@COMMON
@given(conversations(), st.floats(0.05, 1.2))
def test_output_fits_the_budget(msgs, share):
    budget = max(1, int(view_tokens(msgs) * share))
    r = _compact_or_minimum(msgs, budget)
    assert view_tokens(r.messages) == r.tokens_after <= r.budget


@COMMON
@given(conversations(), st.floats(0.05, 0.9))
def test_every_literal_is_shown_recorded_or_counted_dropped(msgs, share):
    r = _compact_or_minimum(msgs, max(1, int(view_tokens(msgs) * share)))
    text = view_text(r.messages)
    record = set(r.report.record)
    dropped = set(r.report.dropped)
    system_text = view_text([m for m in msgs if m["role"] == "system"])
    for u in r.report.units:
        sorted_out = u.literals_kept + u.literals_recorded + u.literals_dropped + u.literals_unlisted
        assert sorted(sorted_out) == sorted(dict.fromkeys(sorted_out)), "a literal in two places"
        for lit in u.literals_kept:
            assert lit in text or lit in unescaped(text)  # (a JSON text shows "東京" as it wrote it: \\u6771\\u4eac)
        for lit in u.literals_recorded:
            assert lit in record
        for lit in u.literals_dropped:
            assert lit in dropped
        for lit in u.literals_unlisted:
            # No value: a capitalised word (an opener), a number, words in capitals, a
            # quoted span of code, a tool's name, or something only the system prompt says.
            assert (lit[:1].isupper() or lit.replace(",", "").replace(".", "").lstrip("+-").isdigit()
                    or lit.isupper() or lit[:1] in "\"'`" or lit == "lookup" or lit in system_text), lit
    if r.note is not None:
        for lit in r.report.record:
            # (a quoted string of more than LIMITS.quoted_words words is listed capped, as data)
            assert lit in r.note or _quoted(lit) in r.note, lit
        if dropped:
            assert f"({len(dropped)} more values dropped to fit)" in r.note


@COMMON
@given(conversations(), st.floats(0.05, 0.9))
def test_tool_calls_and_results_stay_paired(msgs, share):
    r = _compact_or_minimum(msgs, max(1, int(view_tokens(msgs) * share)))
    assert_tool_pairs(r.messages)


@COMMON
@given(conversations(), st.floats(0.05, 0.9))
def test_same_input_same_output(msgs, share):
    budget = max(1, int(view_tokens(msgs) * share))
    a = _compact_or_minimum(msgs, budget)
    b = _compact_or_minimum(json.loads(json.dumps(msgs)), budget)
    assert json.dumps(a.messages, sort_keys=True) == json.dumps(b.messages, sort_keys=True)
    assert a.report == b.report


@COMMON
@given(conversations(), st.floats(0.05, 0.9))
def test_protected_messages_are_verbatim(msgs, share):
    r = _compact_or_minimum(msgs, max(1, int(view_tokens(msgs) * share)))
    # (When system + newest turn do not fit, protection drops to the newest message alone,
    # as Options.strict documents: a system message is verbatim only while it is protected.)
    if r.report.protection.startswith("system"):
        for m, src in zip(r.messages, r.sources):
            if src is not None and msgs[src]["role"] == "system":
                assert m == msgs[src]
    assert r.messages[-1] == msgs[-1]


@st.composite
def long_conversations(draw):
    """Conversations long enough to pass a tiny horizon: several drawn ones, chained."""
    msgs = draw(conversations())
    for _ in range(draw(st.integers(2, 5))):
        more = [m for m in draw(conversations()) if m["role"] != "system"]
        msgs += [dict(m, tool_call_id=m["tool_call_id"] + f"_{len(msgs)}") if m.get("role") == "tool" else
                 dict(m, tool_calls=[dict(c, id=c["id"] + f"_{len(msgs)}") for c in m["tool_calls"]])
                 if m.get("tool_calls") else m for m in more]
    return msgs


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(long_conversations(), st.floats(0.05, 0.25))  # (most such views are beyond the horizon)
def test_a_memory_beyond_its_horizon_keeps_every_invariant(msgs, share):
    # A memory's horizon (made tiny: every drawn conversation is "very long") never shows a
    # stub, never breaks a tool pair, fits the budget, names what it left out, and is the
    # same for a memory grown message by message as for one given the history at once.
    from discourse_memory import DiscourseMemory, horizon

    saved = horizon.LIMITS
    horizon.LIMITS = replace(saved, horizon_min_tokens=40, horizon_budgets=0)  # (one horizon at every budget)
    try:
        budget = max(1, int(view_tokens(msgs) * share))
        whole, grown = DiscourseMemory(msgs), DiscourseMemory(msgs[:3])
        for m in msgs[3:]:
            grown.append(m)
            if len(grown) % 4 == 0:
                try:
                    grown.view(budget)
                except BudgetTooSmallError:
                    pass
        try:
            r = whole.view(budget)
        except BudgetTooSmallError as exc:
            assert exc.minimum > budget
            budget = exc.minimum
            r = whole.view(budget)
        assert view_tokens(r.messages) == r.tokens_after <= r.budget
        assert_tool_pairs(r.messages)
        assert all(m is not horizon.STUB and m != horizon.STUB for m in r.messages)
        beyond = whole._last_beyond  # (None when the window fit whole and the view is of all)
        if beyond is not None:
            assert f"messages #{beyond[0]}-#{beyond[1] - 1} beyond the horizon" in r.note
            assert all(s is None or not beyond[0] <= s < beyond[1] for s in r.sources)
        assert json.dumps(grown.view(budget).messages, sort_keys=True) == json.dumps(r.messages, sort_keys=True)
    finally:
        horizon.LIMITS = saved

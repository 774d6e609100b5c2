"""The budget bounds the request: by default each message's framing and the reply priming
count (OpenAI's cookbook rule; see docs/formats.md, "Request framing"), checked against an
independent count of the request (conftest.view_tokens)."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discourse_memory import (BudgetTooSmallError, Compactor, DiscourseMemory, InvalidOptionError, Options, StateError,
                              compact, count_messages)
from discourse_memory.formats import count_tokens

from .conftest import COUNTER, view_tokens
from .test_properties import content, sentence, word


def agent_chat(n_messages: int = 300) -> list[dict]:
    """An OpenAI chat of ``n_messages`` with tool calls: a system prompt, then user turns,
    each answered through a tool call and its result."""
    msgs: list[dict] = [{"role": "system", "content": "You are an airline agent. Look reservations up before "
                                                       "you answer, and never change one without consent."}]
    i = 0
    while len(msgs) < n_messages:
        call = f"call_{i:04d}XyZ"
        msgs += [
            {"role": "user", "content": f"Can you check reservation R{1000 + i} for passenger P{i * 7}? "
                                        f"I fly from JFK on 2024-0{i % 9 + 1}-1{i % 9} and need a seat change."},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": call, "type": "function",
                 "function": {"name": "get_reservation_details", "arguments": json.dumps({"reservation_id": f"R{1000 + i}"})}}]},
            {"role": "tool", "tool_call_id": call, "name": "get_reservation_details", "content": json.dumps(
                {"reservation_id": f"R{1000 + i}", "flight": f"HAT{100 + i}", "origin": "JFK", "seat": f"{i % 30}C",
                 "cabin": "economy", "price": 120 + i, "status": "confirmed"})},
            {"role": "assistant", "content": f"Reservation R{1000 + i} is confirmed on HAT{100 + i}, seat {i % 30}C."},
        ]
        i += 1
    return msgs[:n_messages]


def test_the_issues_bar_300_messages_with_tool_calls_fit_4000_as_openai_counts():
    msgs = agent_chat(300)
    r = compact(msgs, 4000)
    assert view_tokens(r.messages) == r.tokens_after <= 4000
    assert view_tokens(msgs) == r.tokens_before
    # the text alone, counted the old way, no longer is the whole story: the framing is ~15% here
    assert view_tokens(r.messages, framing=False) < r.tokens_after - 3 * len(r.messages)


def test_none_counts_the_text_alone_as_before():
    msgs = agent_chat(120)
    r = compact(msgs, 2000, message_overhead="none")
    assert view_tokens(r.messages, framing=False) == r.tokens_after <= 2000
    assert view_tokens(r.messages) > 2000  # what the issue saw: the request is over


def test_an_int_or_a_function_overrides_with_no_reply_priming():
    msgs = agent_chat(60)
    r = compact(msgs, 1500, message_overhead=4)
    assert view_tokens(r.messages, framing=False) + 4 * len(r.messages) == r.tokens_after <= 1500
    r = compact(msgs, 1500, message_overhead=lambda m: 2 if m.get("role") == "tool" else 1)
    assert view_tokens(r.messages, framing=False) + sum(2 if m.get("role") == "tool" else 1 for m in r.messages) \
        == r.tokens_after <= 1500
    r = compact(msgs, 1500, message_overhead=0)
    assert view_tokens(r.messages, framing=False) == r.tokens_after


def test_the_note_pays_its_framing_and_the_report_counts_the_request():
    msgs = agent_chat(80)
    r = compact(msgs, 1200)
    note = next(m for m, s in zip(r.messages, r.sources) if s is None)
    assert note["content"] == r.note
    assert count_messages(r.messages) == view_tokens(r.messages) == r.tokens_after
    # (a view that fits as it is counts the same way)
    small = agent_chat(8)
    fit = compact(small, 10_000)
    assert fit.note is None and fit.tokens_after == fit.tokens_before == view_tokens(small)


def test_a_budget_below_the_reply_priming_names_the_minimum():
    msgs = agent_chat(8)
    with pytest.raises(BudgetTooSmallError) as info:
        compact(msgs, 2)
    assert info.value.minimum > 3 and info.value.budget == 2
    with pytest.raises(BudgetTooSmallError) as info:
        compact(msgs, 40)
    r = compact(msgs, info.value.minimum)
    assert view_tokens(r.messages) == r.tokens_after <= info.value.minimum


def test_named_rules_are_checked():
    with pytest.raises(InvalidOptionError, match="'auto', 'openai', 'anthropic', 'none'"):
        Options(message_overhead="gpt")
    with pytest.raises(InvalidOptionError):
        compact(agent_chat(4), 100, message_overhead=-1)
    assert Options().message_overhead == "auto"


def test_a_compactor_counts_the_request_too():
    msgs = agent_chat(40)
    compactor = Compactor()
    assert compactor.count_messages(msgs) == view_tokens(msgs) == count_messages(msgs)
    assert count_messages(msgs, options=Options(message_overhead="none")) == view_tokens(msgs, framing=False)
    assert count_tokens(msgs) == view_tokens(msgs)


def test_a_growing_memory_counts_each_new_message_framing():
    # The framing of a memory's messages is a column extended as the history grows: a view
    # after new messages counts theirs too.
    msgs = agent_chat(200)
    memory = DiscourseMemory(msgs[:100])
    first = memory.view(1500)
    assert view_tokens(first.messages) == first.tokens_after <= 1500
    memory.extend(msgs[100:])
    second = memory.view(1500)
    assert view_tokens(second.messages) == second.tokens_after <= 1500
    assert second.tokens_before == view_tokens(msgs)


def test_a_memory_saves_and_restores_its_rule():
    msgs = agent_chat(60)
    for rule in ("auto", "openai", "anthropic", "none"):
        memory = DiscourseMemory(msgs, message_overhead=rule)
        state = json.loads(json.dumps(memory.to_dict()))
        assert state["settings"]["message_overhead"] == rule
        restored = DiscourseMemory.from_dict(state)
        assert restored.options.message_overhead == rule
        assert restored.view(900).messages == memory.view(900).messages
    with pytest.raises(StateError, match="named rule"):
        DiscourseMemory(msgs, message_overhead=3).to_dict()
    old = DiscourseMemory(msgs).to_dict()
    del old["settings"]["message_overhead"]  # a state saved before the rules: its count was the text's
    assert DiscourseMemory.from_dict(old).options.message_overhead == "none"
    old["settings"]["message_overhead"] = "gpt"
    with pytest.raises(StateError, match="message_overhead"):
        DiscourseMemory.from_dict(old)


def test_anthropic_is_at_least_as_strict_as_openai():
    msgs = agent_chat(60)
    openai = compact(msgs, 10**6, message_overhead="openai").tokens_before
    anthropic = compact(msgs, 10**6, message_overhead="anthropic").tokens_before
    assert anthropic > openai > compact(msgs, 10**6, message_overhead="none").tokens_before


@st.composite
def chats_with_calls_and_names(draw):
    msgs: list[dict] = []
    if draw(st.booleans()):
        msgs.append({"role": "system", "content": draw(sentence)})
    call_no = 0
    for _ in range(draw(st.integers(1, 12))):
        if draw(st.booleans()):
            ids = []
            calls = []
            for _ in range(draw(st.integers(1, 3))):
                call_no += 1
                ids.append(draw(st.sampled_from(["call_", "toolu_01", "c"])) + str(call_no))
                args = json.dumps({"q": draw(word), "n": draw(st.integers(0, 10**6))})
                calls.append({"id": ids[-1], "type": "function", "function": {"name": "lookup", "arguments": args}})
            msgs.append({"role": "assistant", "content": draw(st.one_of(st.none(), sentence)), "tool_calls": calls})
            for i in ids:
                result = {"role": "tool", "tool_call_id": i, "content": draw(content)}
                if draw(st.booleans()):
                    result["name"] = "lookup"
                msgs.append(result)
        else:
            user = {"role": "user", "content": draw(content)}
            if draw(st.booleans()):
                user["name"] = draw(st.sampled_from(["ann", "Bob_the_builder", "x"]))
            msgs += [user, {"role": "assistant", "content": draw(content)}]
    msgs.append({"role": "user", "content": draw(sentence)})
    return msgs


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(chats_with_calls_and_names(), st.floats(0.02, 1.2))
def test_property_the_request_as_openai_counts_it_fits_whenever_compact_returns(msgs, share):
    budget = int(view_tokens(msgs) * share)
    try:
        r = compact(msgs, budget)
    except BudgetTooSmallError as exc:
        assert exc.minimum > budget
        return
    assert view_tokens(r.messages) == r.tokens_after <= budget
    assert COUNTER.count(r.note or "") <= r.tokens_after

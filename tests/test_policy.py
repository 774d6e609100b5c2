"""The policy: its weights reach the fit through ``Options``, are checked when made, and a
memory saves and restores the ones that differ from the default."""

from __future__ import annotations

import dataclasses
import json

import pytest

from discourse_memory import DiscourseMemory, InvalidOptionError, Options, Policy, StateError, compact
from discourse_memory.sample import sample_conversation

from .conftest import view_tokens


def _history() -> list[dict]:
    return sample_conversation(60)


def _same(a, b) -> bool:
    return (a.messages, a.note, a.sources) == (b.messages, b.note, b.sources)


def test_the_default_policy_is_the_view_without_one():
    msgs = _history()
    budget = view_tokens(msgs) // 5
    plain = compact(msgs, budget)
    assert _same(plain, compact(msgs, budget, options=Options(policy=Policy())))
    assert _same(plain, compact(msgs, budget, options=Options(policy=None)))
    assert Options().policy == Policy() and Options(policy=None) == Options(policy=Policy())


def test_a_changed_weight_changes_the_view():
    msgs = _history()
    budget = view_tokens(msgs) // 5
    plain = compact(msgs, budget)
    # No first claim for the record and no worth for a listed value: the note loses items.
    changed = compact(msgs, budget, options=Options(policy=Policy(record_share=0.0, record_value=0.0)))
    assert changed.tokens_after <= budget
    assert not _same(plain, changed)


def test_the_focus_reads_its_weights_from_the_policy():
    msgs = _history()
    budget = view_tokens(msgs) // 5
    question = "What is the p99 latency of payments-gw?"
    focused = compact(msgs, budget, focus=question)
    blind = compact(msgs, budget, focus=None)
    assert not _same(focused, blind)
    # A focus needs more strength than any text has: the question is too vague to rank by.
    vague = compact(msgs, budget, focus=question, options=Options(policy=Policy(min_strength=1e9)))
    assert _same(vague, blind)


def test_the_policy_is_not_part_of_the_analysis():
    assert Options(policy=Policy(said=9.0)).analysis_key == Options().analysis_key


@pytest.mark.parametrize("weights, says", [
    ({"said": -1.0}, "policy.said"),
    ({"said": "2.5"}, "policy.said"),
    ({"said": True}, "policy.said"),
    ({"said": float("nan")}, "policy.said"),
    ({"task_lead_tokens": 150.5}, "policy.task_lead_tokens"),
    ({"recent_span": 0.0}, "policy.recent_span"),
    ({"note_cap_held": 0.5}, "policy.note_cap_held"),
    ({"bm25_b": 1.5}, "policy.bm25_b"),
    ({"number_value": 0.0}, "policy.number_value"),
])
def test_a_bad_weight_is_refused_by_name(weights, says):
    with pytest.raises(InvalidOptionError, match=says):
        Policy(**weights)


def test_options_take_a_policy_or_none():
    with pytest.raises(InvalidOptionError, match="policy must be"):
        Options(policy={"said": 3.0})
    with pytest.raises(dataclasses.FrozenInstanceError):
        Policy().said = 3.0  # type: ignore[misc]
    assert Options().replace(policy=Policy(said=3.0)).policy.said == 3.0


def test_a_memory_saves_and_restores_a_changed_policy():
    msgs = _history()
    budget = view_tokens(msgs) // 5
    policy = Policy(said=0.5, recency=2.0, task_lead_tokens=120)
    memory = DiscourseMemory(msgs, options=Options(policy=policy))
    state = json.loads(json.dumps(memory.to_dict()))
    assert state["settings"]["policy"] == {"recency": 2.0, "task_lead_tokens": 120, "said": 0.5}
    restored = DiscourseMemory.from_dict(state)
    assert restored.options.policy == policy
    assert _same(restored.view(budget), memory.view(budget))
    assert not _same(restored.view(budget), DiscourseMemory(msgs).view(budget))


def test_a_default_policy_adds_nothing_to_the_state():
    state = DiscourseMemory([{"role": "user", "content": "hi"}]).to_dict()
    assert "policy" not in state["settings"]
    assert DiscourseMemory.from_dict(state).options.policy == Policy()


@pytest.mark.parametrize("saved, says", [
    ({"sayd": 3.0}, "unknown field 'sayd'"),
    ({"said": "3"}, "settings.policy.said must be a number"),
    ({"said": False}, "settings.policy.said must be a number"),
    ({"task_lead_tokens": 2.5}, "settings.policy.task_lead_tokens must be a whole number"),
    ({"record_share": -0.5}, "settings.policy.record_share must be finite"),
    ([1.0], "settings.policy must be an object"),
])
def test_a_tampered_policy_is_refused(saved, says):
    state = DiscourseMemory([{"role": "user", "content": "hi"}], options=Options(policy=Policy(said=3.0))).to_dict()
    state["settings"]["policy"] = saved
    with pytest.raises(StateError, match=says):
        DiscourseMemory.from_dict(state)


def test_short_messages_open_whole_by_the_policy():
    msgs = _history()
    budget = view_tokens(msgs) // 5
    # No message is short enough to open whole: each unit of it comes back on its own.
    apart = compact(msgs, budget, options=Options(policy=Policy(short_units=0)))
    assert apart.tokens_after <= budget
    assert not _same(compact(msgs, budget), apart)


def test_a_small_tool_output_is_kept_whole_below_result_min_tokens():
    from discourse_memory import BudgetTooSmallError

    result = json.dumps({"service": "payments-gw", "p99_latency_ms": 412, "db": "orders-primary",
                         "region": "eu-west-1", "owner": "team-payments", "ticket": "OPS-4411", "status": "degraded"})
    msgs = [{"role": "user", "content": "Hello, I need help with our payment gateway; it was slow all morning and "
                                        "customers complained about timeouts."},
            {"role": "assistant", "content": "Sorry to hear that. I will look at the gateway's status and latency now."},
            {"role": "user", "content": "Thanks. Please check payments-gw."},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "get_status", "arguments": "{\"service\": \"payments-gw\"}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": result}]
    # Over half the budget but under result_min_tokens: kept verbatim, so the view cannot fit.
    with pytest.raises(BudgetTooSmallError):
        compact(msgs, 100)
    small = compact(msgs, 100, options=Options(policy=Policy(result_min_tokens=0)))
    assert small.tokens_after <= 100 and "tool output over half the budget compacted" in small.report.protection

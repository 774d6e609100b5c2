"""A long-lived memory's horizon: views of a very long history are made of its newest
messages (see discourse_memory/horizon.py). The horizon is made small here, so that a
history of a few hundred messages is "very long"."""

from dataclasses import replace
import pytest

from discourse_memory import DiscourseMemory, compact, horizon
from discourse_memory.sample import sample_conversation

from .conftest import view_tokens

BUDGET = 1000


@pytest.fixture
def small_horizon(monkeypatch):
    monkeypatch.setattr(horizon, "LIMITS", replace(horizon.LIMITS, horizon_min_tokens=1000, horizon_budgets=1))


def _history() -> list[dict]:
    msgs = sample_conversation(6)
    return msgs[:max(i for i, m in enumerate(msgs) if m["role"] == "user") + 1]


def test_a_view_beyond_the_horizon_fits_says_so_and_shows_only_real_messages(small_horizon):
    msgs = _history()
    mem = DiscourseMemory(msgs)
    view = mem.view(BUDGET)
    assert view.tokens_after <= BUDGET
    start = mem._horizon.start
    assert start > 2, "the history is not beyond the horizon: the test shows nothing"
    # the head stays: the system prompt and the first user message (an agent's task)
    assert msgs[0]["role"] == "system" and msgs[1]["role"] == "user"
    assert f"messages #2-#{start - 1} beyond the horizon" in view.note
    # every message shown is one of the history, at its own index
    for m, source in zip(view.messages, view.sources):
        if source is not None:
            assert m.get("content") == msgs[source].get("content") or "…" in str(m.get("content")), source
            assert not 2 <= source < start, source
    assert all(m.get("content") != "" for m in view.messages)
    assert 1 in view.sources or "\n#1 " in view.note  # the task: shown, or its values listed
    # the messages beyond it are reported as left out whole, never lost from the history
    assert set(range(2, start)) <= set(view.report.dropped_messages)
    assert mem.messages == msgs


def test_a_message_beyond_the_horizon_is_recalled_verbatim(small_horizon):
    msgs = _history()
    mem = DiscourseMemory(msgs, recall=True)
    mem.view(BUDGET)
    start = mem._horizon.start
    assert start > 3
    k = next(i for i in range(2, start) if isinstance(msgs[i].get("content"), str) and msgs[i]["content"].strip())
    got = mem.recall(f"#{k}", max_tokens=4000)
    assert msgs[k]["content"] in got.text
    assert got.messages == (k,)


def test_the_horizon_is_a_function_of_the_history_and_the_budget(small_horizon):
    msgs = _history()
    grown = DiscourseMemory(msgs[:40])
    for m in msgs[40:]:  # grown a message at a time, with views on the way
        grown.append(m)
        if len(grown) % 25 == 0:
            grown.view(BUDGET)
    assert grown.view(BUDGET).messages == DiscourseMemory(msgs).view(BUDGET).messages
    restored = DiscourseMemory.from_dict(grown.to_dict())
    assert restored.view(BUDGET).note == grown.view(BUDGET).note


def test_no_horizon_below_it_and_none_for_compact(small_horizon):
    msgs = _history()
    short = msgs[:12]
    assert DiscourseMemory(short).view(200).messages == compact(short, 200).messages
    assert "beyond the horizon" not in (compact(msgs, BUDGET).note or "")


def test_a_budget_larger_than_the_window_gets_no_stub(small_horizon):
    msgs = _history()
    mem = DiscourseMemory(msgs)
    mem.view(BUDGET)
    big = view_tokens(msgs) + 100
    view = mem.view(big)  # the whole history fits: no horizon, nothing left out
    assert [m.get("content") for m in view.messages] == [m.get("content") for m in msgs]


def test_a_query_finds_what_only_messages_beyond_the_horizon_say(small_horizon):
    msgs = _history()
    msgs.insert(3, {"role": "user", "content": "By the way, my locker code is 7731 and my badge says Quillfeather."})
    mem = DiscourseMemory(msgs, recall=True)
    view = mem.view(BUDGET)
    assert mem._horizon.start > 3, "the fact is not beyond the horizon: the test shows nothing"
    assert "Quillfeather" not in "\n".join(str(m.get("content")) for m in view.messages)
    got = mem.recall("what does my badge say, Quillfeather?")
    assert got.found and 3 in got.messages and "locker code is 7731" in got.text
    assert not mem.recall("zygomorphic xylophones").found


def test_an_agents_long_run_of_calls_has_a_horizon_and_no_orphan(small_horizon):
    # A tool agent: one user message, then hundreds of calls and results. Its window starts
    # at a call, never at a result.
    msgs = [{"role": "system", "content": "You are an airline agent."},
            {"role": "user", "content": "Check every reservation of mine and report the totals."}]
    for i in range(150):
        msgs += [{"role": "assistant", "content": None, "tool_calls": [
                     {"id": f"c{i}", "type": "function",
                      "function": {"name": "get_reservation_details", "arguments": f'{{"reservation_id": "R{i:05d}"}}'}}]},
                 {"role": "tool", "tool_call_id": f"c{i}",
                  "content": f'{{"reservation_id": "R{i:05d}", "total": {100 + 7 * i}, "status": "confirmed"}}'}]
    mem = DiscourseMemory(msgs)
    view = mem.view(400)
    start = mem._horizon.start
    assert start > 2 and msgs[start]["role"] == "assistant", start
    assert view.tokens_after <= 400
    shown = [s for s in view.sources if s is not None]
    calls = {m["tool_call_id"] for m, s in zip(view.messages, view.sources) if s is not None and m.get("role") == "tool"}
    made = {c["id"] for m in view.messages for c in m.get("tool_calls") or []}
    assert calls <= made, calls - made  # no result without its call
    assert all(not 2 <= s < start for s in shown)


def test_a_chinese_query_finds_a_message_beyond_the_horizon(small_horizon):
    msgs = _history()
    msgs.insert(3, {"role": "user", "content": "顺便说一下，我的储物柜密码是7731，胸牌上写着羽毛笔。"})
    mem = DiscourseMemory(msgs)
    mem.view(BUDGET)
    assert mem._horizon.start > 3
    got = mem.recall("我的胸牌上写的是什么？")
    assert got.found and 3 in got.messages, got.text

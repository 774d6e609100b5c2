"""DiscourseMemory: history, views, state."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discourse_memory import DiscourseMemory, InvalidMessageError, StateError
from discourse_memory.sample import sample_conversation

from .conftest import view_tokens


def test_view_never_changes_the_history():
    msgs = sample_conversation(3)
    mem = DiscourseMemory(msgs)
    before = mem.messages
    view = mem.view(view_tokens(msgs) // 3)
    assert view.tokens_after <= view_tokens(msgs) // 3
    assert mem.messages == before == msgs
    assert len(mem) == len(msgs)


def test_messages_returns_copies():
    mem = DiscourseMemory([{"role": "user", "content": "hi"}])
    got = mem.messages
    got[0]["content"] = "changed"
    assert mem.messages[0]["content"] == "hi"


def test_view_equals_compact():
    from discourse_memory import compact

    msgs = sample_conversation(2)
    mem = DiscourseMemory()
    for m in msgs:
        mem.append(m)
    budget = view_tokens(msgs) // 2
    assert mem.view(budget).messages == compact(msgs, budget).messages


def test_state_round_trip_restores_identical_view():
    msgs = sample_conversation(3)
    mem = DiscourseMemory(msgs, keep_system=True, clip_tokens=10)
    state = json.loads(json.dumps(mem.to_dict()))
    assert state["schema"] == "discourse-memory/state" and state["version"] == 1
    again = DiscourseMemory.from_dict(state)
    budget = view_tokens(msgs) // 3
    a, b = mem.view(budget), again.view(budget)
    assert json.dumps(a.messages) == json.dumps(b.messages)
    assert a.report == b.report


def test_a_restored_memory_keeps_copies_of_the_states_messages():
    parts = [{"type": "text", "text": "Owner: Dana"}]
    call = {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    state = DiscourseMemory([{"role": "user", "content": "hi"}]).to_dict()
    state["messages"] = [{"role": "user", "content": parts},
                         {"role": "assistant", "content": None, "tool_calls": [call]},
                         {"role": "tool", "tool_call_id": "c1", "content": "found"},
                         {"role": "user", "content": ("a tuple", "of parts")}]  # (a tuple: not JSON's, still copied)
    mem = DiscourseMemory.from_dict(state)
    before = mem.messages
    parts[0]["text"] = "Owner: Mia"
    call["function"]["arguments"] = '{"edited": true}'
    state["messages"][2]["content"] = "edited"
    assert mem.messages == before and before[0]["content"][0]["text"] == "Owner: Dana"
    assert mem.messages[0]["content"] is not parts and mem.messages[1]["tool_calls"][0] is not call


@pytest.mark.parametrize("state, match", [
    ({"schema": "other"}, "not a discourse-memory state"),
    ({"schema": "discourse-memory/state", "version": 99, "settings": {}, "messages": []}, "newer"),
    ({"schema": "discourse-memory/state", "version": 1, "settings": {}, "messages": "x"}, "messages"),
    ({"schema": "discourse-memory/state", "version": 1, "settings": {}, "messages": [{"content": 1}]}, "invalid state"),
    ("not a dict", "not a discourse-memory state"),
])
def test_bad_state_gives_clear_error(state, match):
    with pytest.raises(StateError, match=match):
        DiscourseMemory.from_dict(state)


def test_invalid_append_stores_nothing():
    mem = DiscourseMemory([{"role": "user", "content": "a"}])
    with pytest.raises(InvalidMessageError):
        mem.extend([{"role": "user", "content": "b"}, {"role": 3}])
    assert len(mem) == 1


def test_an_invalid_message_is_named_by_its_place_in_the_history():
    mem = DiscourseMemory([{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}])
    with pytest.raises(InvalidMessageError, match=r"message 3\b"):
        mem.extend([{"role": "user", "content": "c"}, {"role": 3}])
    assert len(mem) == 2


def test_a_memory_validates_each_message_once_as_it_comes_in(monkeypatch):
    import discourse_memory.compaction as compaction

    msgs = sample_conversation(3)
    mem = DiscourseMemory(msgs[:-1])
    budget = view_tokens(msgs) // 3
    fresh = DiscourseMemory.from_dict(mem.to_dict())
    again = DiscourseMemory(msgs[:-1])
    again.view(budget)
    real = compaction.validate_messages
    calls: list[int] = []

    def spy(messages, start=0):
        calls.append(len(messages))
        return real(messages, start)

    monkeypatch.setattr(compaction, "validate_messages", spy)
    first = fresh.view(budget)  # (a restored memory's first view: its whole history)
    again.append(msgs[-1])
    fresh.append(msgs[-1])
    turn, other = again.view(budget), fresh.view(budget)
    assert calls == []
    monkeypatch.setattr(compaction, "validate_messages", real)
    assert first.messages == DiscourseMemory(msgs[:-1]).view(budget).messages
    assert turn.messages == other.messages == compaction.compact(msgs, budget).messages
    # (a compactor given the list itself still validates it)
    monkeypatch.setattr(compaction, "validate_messages", spy)
    compaction.Compactor().compact(msgs, budget)
    assert calls


def test_append_analyses_only_the_new_message(monkeypatch):
    import discourse_memory.units as units

    msgs = sample_conversation(3)
    mem = DiscourseMemory(msgs[:-1])
    mem.view(view_tokens(msgs) // 3)
    seen: list[list[str]] = []
    real = units.segment_texts

    def spy(texts, nlp):
        seen.append(list(texts))
        return real(texts, nlp)

    monkeypatch.setattr(units, "segment_texts", spy)
    mem.append(msgs[-1])
    mem.view(view_tokens(msgs) // 3)
    assert seen == [[msgs[-1]["content"]]]


def test_clear():
    mem = DiscourseMemory(sample_conversation(1))
    mem.clear()
    assert len(mem) == 0 and mem.messages == []


def test_state_with_callable_counter_needs_it_back():
    def words(text: str) -> int:
        return len(text.split())

    mem = DiscourseMemory(sample_conversation(1), token_counter=words)
    state = json.loads(json.dumps(mem.to_dict()))
    with pytest.raises(StateError, match="callable token counter"):
        DiscourseMemory.from_dict(state)
    again = DiscourseMemory.from_dict(state, token_counter=words)
    assert again.view(200).messages == mem.view(200).messages


def test_a_grown_memory_reads_a_code_as_one_given_the_history_at_once():
    # "JFK" first only opened a sentence (a word in capitals for emphasis, then); a later
    # message writes it mid-sentence (a code, a value). A memory that had taken a view before
    # kept the first reading and left "JFK" out of its record, unlisted and uncounted.
    msgs = [{"role": "user", "content": "JFK is where I land on Friday. Please book a car for me there."},
            {"role": "assistant", "content": "Sure, which company do you prefer for the rental car?"},
            {"role": "user", "content": "Any company is fine, the cheapest one please."},
            {"role": "assistant", "content": "Booked: a compact car waiting for you at JFK terminal 4, confirmation QX-7781."},
            {"role": "user", "content": "Thanks a lot!"}]
    whole = DiscourseMemory(msgs).view(54 + 11)  # (+ the request framing of the note, the newest message and the reply)
    grown = DiscourseMemory(msgs[:2])
    try:
        grown.view(20)
    except ValueError:  # (the budget is below what the first messages need: the point is that it read them)
        pass
    for m in msgs[2:]:
        grown.append(m)
    view = grown.view(54 + 11)
    assert view.messages == whole.messages
    assert "JFK" in (whole.note or "")


def test_a_views_inputs_stay_as_they_were_when_later_views_extend_the_history():
    # A memory's views share one input list that later views extend in place (a copy of a long
    # history a turn was walked by the garbage collector): what an older view was made from
    # must not grow with it.
    msgs = sample_conversation(2)
    mem = DiscourseMemory(msgs)
    budget = view_tokens(msgs) // 3
    first = mem.view(budget)
    mem.append({"role": "user", "content": "And what about the invoice INV-2291?"})
    second = mem.view(budget)
    mem.extend([{"role": "assistant", "content": "It was paid on 2024-03-02."}, {"role": "user", "content": "Thanks."}])
    third = mem.view(budget)
    assert first.inputs == msgs
    assert second.inputs == msgs + [{"role": "user", "content": "And what about the invoice INV-2291?"}]
    assert len(third.inputs) == len(msgs) + 3
    assert first.recall("#0").found  # an older view still recalls from what it was made of
    # and each view is still the one a fresh memory makes of the same history
    again = DiscourseMemory(third.inputs[:len(msgs) + 1])
    assert again.view(budget).messages == second.messages


def test_a_memory_cleared_then_refilled_views_only_its_new_history():
    mem = DiscourseMemory(sample_conversation(2))
    mem.view(200)
    mem.clear()
    fresh = sample_conversation(1)
    mem.extend(fresh)
    view = mem.view(view_tokens(fresh) // 2)
    assert view.inputs == fresh
    assert view.messages == DiscourseMemory(fresh).view(view_tokens(fresh) // 2).messages


class _Key(str):
    """A key of a str subclass: the flat message's fast path leaves it to the walk."""


_VALUES = st.one_of(st.text(max_size=3), st.integers(), st.floats(allow_nan=False), st.booleans(), st.none(),
                    st.lists(st.integers(), max_size=2), st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
                    st.tuples(st.integers()), st.builds(object), st.binary(max_size=2))
_KEYS = st.one_of(st.text(max_size=4), st.integers(), st.text(max_size=3).map(_Key), st.none())


@settings(max_examples=300, deadline=None)
@given(value=st.dictionaries(_KEYS, _VALUES, max_size=5), max_values=st.one_of(st.none(), st.integers(0, 7)),
       max_depth=st.integers(0, 3), json_only=st.booleans())
def test_a_flat_message_is_judged_as_the_walk_judges_it(value, max_values, max_depth, json_only):
    # (payload_problem's fast path for a dict of scalars against the walk, which a mapping of
    # another type always takes)
    from types import MappingProxyType

    from discourse_memory.payload import payload_problem

    kw = dict(max_values=max_values, max_depth=max_depth, json_only=json_only)
    assert payload_problem(value, **kw) == payload_problem(MappingProxyType(value), **kw)


def test_a_restored_memory_holds_copies_of_the_states_messages():
    state = DiscourseMemory([{"role": "user", "content": "hi", "name": "Ann"},
                             {"role": "assistant", "content": [{"type": "text", "text": "yes"}]}]).to_dict()
    memory = DiscourseMemory.from_dict(state)
    assert memory.messages == state["messages"]
    for m, kept in zip(state["messages"], memory._messages):
        assert kept == m and kept is not m
    state["messages"][0]["content"] = "changed"
    state["messages"][1]["content"][0]["text"] = "changed"
    assert [m["content"] for m in memory.messages] == ["hi", [{"type": "text", "text": "yes"}]]

"""Recall: what a view left out comes back verbatim, by reference or by query, and
nothing left out is out of reach."""

from __future__ import annotations


import pytest

from discourse_memory import Compactor, DiscourseMemory, InvalidOptionError, Options, compact
from discourse_memory.sample import sample_conversation

from .conftest import SHARED_DATA, view_text


def _reach(view) -> str:
    """All the model can read: the view, then the recall of every reference it hands out."""
    parts = [view_text(view.messages)]
    for ref in view.references:
        got = view.recall(ref, max_tokens=100_000)
        assert got.found, (ref, got.text)
        parts.append(got.text)
    return "\n".join(parts)


def _history_literals(view) -> set[str]:
    return {t for u in view.report.units
            for t in u.literals_kept + u.literals_recorded + u.literals_dropped + u.literals_unlisted}


def test_a_reference_returns_its_message_verbatim_with_role():
    msgs = sample_conversation(1)
    view = compact(msgs, 600, recall=True)
    assert view.references and view.note is not None and "recall #N" in view.note
    ref = view.references[0]
    got = view.recall(ref)
    i = int(ref[1:])
    assert got.found and got.messages == (i,)
    assert got.text.startswith(f"#{i} {msgs[i]['role']}")
    assert (msgs[i]["content"] or "").strip() in got.text


def test_every_literal_of_the_history_is_in_the_view_or_a_recall():
    msgs = sample_conversation(3)
    for budget in (300, 1200, 4000):
        view = compact(msgs, budget, recall=True)
        reach = _reach(view)
        missing = [t for t in _history_literals(view) if t not in reach]
        assert not missing, (budget, missing[:10])


def test_unknown_stale_or_foreign_references_are_refused_clearly():
    msgs = sample_conversation(1)
    view = compact(msgs, 600, recall=True)
    other = compact(sample_conversation(2)[3:], 600, recall=True)
    foreign = other.note.split("record ", 1)[1][:8]
    assert foreign != view.note.split("record ", 1)[1][:8]
    refused = view.recall(f"{foreign}#3")
    assert not refused.found and "not from this conversation" in refused.text
    beyond = view.recall(f"#{len(msgs) + 5}")
    assert not beyond.found and f"#0-#{len(msgs) - 1}" in beyond.text
    empty = view.recall("   ")
    assert not empty.found
    with pytest.raises(InvalidOptionError):
        view.recall("#1", max_tokens=0)


def test_own_tag_binds_a_reference_to_this_conversation():
    msgs = sample_conversation(1)
    view = compact(msgs, 600, recall=True)
    tag = view.note.split("record ", 1)[1][:8]
    assert view.recall(f"{tag}#3").text == view.recall("#3").text


def test_a_query_finds_left_out_units_that_share_its_words():
    msgs = sample_conversation(1)
    view = compact(msgs, 600, recall=True)
    shown = view_text([m for m, src in zip(view.messages, view.sources) if src is not None])
    # a value only the record (or nothing) still states
    lost = sorted(t for u in view.report.units if u.decision == "omitted"
                  for t in u.literals_recorded + u.literals_dropped if t not in shown and len(t) > 4)
    assert lost
    got = view.recall(lost[0])
    assert got.found and lost[0] in got.text


def test_recall_fits_its_token_cap_and_says_how_to_get_the_rest():
    msgs = sample_conversation(3)
    view = compact(msgs, 400, recall=True)
    counter = Compactor().counter
    first, last = view.references[0], view.references[-1]
    got = view.recall(f"{first}-{last}", max_tokens=60)
    assert got.found
    assert counter.count(got.text) <= 60
    assert got.messages and got.messages[0] == int(first[1:]) and got.messages[-1] < int(last[1:])
    assert "not shown to fit: #" in got.text  # the model is told what to ask for next
    tiny = view.recall(first, max_tokens=3)
    assert tiny.found and counter.count(tiny.text) <= 3


def test_memory_recall_resolves_against_the_whole_history():
    memory = DiscourseMemory(options=Options(recall=True))
    msgs = sample_conversation(2)
    memory.extend(msgs)
    view = memory.view(500)
    assert view.references
    ref = view.references[-1]
    assert memory.recall(ref).text == view.recall(ref).text
    memory.append({"role": "user", "content": "one more question"})
    again = memory.recall(ref)  # a reference stays valid as the conversation grows
    assert again.found and again.text == view.recall(ref).text


def _shared(name: str, limit: int) -> list[list[dict]]:
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} is absent (the shared evaluation data)")
    from discourse_memory_evaluation.datasets import load

    return [c.messages for c in load(path)[:limit]]


@pytest.mark.parametrize("name", ["locomo/locomo_dev.json", "agents/tau_airline_dev.jsonl",
                                  "agents/swe_dev.jsonl"])
def test_nothing_left_out_is_out_of_reach_on_real_conversations(name: str):
    # The full check (every conversation, reference cost) is benchmarks/bench_recall.py.
    compactor = Compactor(options=Options(recall=True))
    for msgs in _shared(name, 3):
        budget = max(1, compactor.count_messages(msgs) // 10)
        view = compactor.compact(msgs, budget)
        reach = _reach(view)
        missing = [t for t in _history_literals(view) if t not in reach]
        assert not missing, missing[:10]

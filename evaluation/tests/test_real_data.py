"""Loaders on the shared evaluation data (skipped, with the reason, when it is absent)."""

import os
from pathlib import Path

import pytest

from discourse_memory_evaluation.bench import targets
from discourse_memory_evaluation.datasets import load

# <repository>/../shared/data, or DISCOURSE_MEMORY_EVAL_DATA
DATA = Path(os.environ.get("DISCOURSE_MEMORY_EVAL_DATA") or Path(__file__).resolve().parents[3] / "shared" / "data")
pytestmark = pytest.mark.skipif(
    not DATA.is_dir(),
    reason=f"shared evaluation data not found at {DATA} (only present in the project workspace; "
    "set DISCOURSE_MEMORY_EVAL_DATA to point elsewhere)",
)


def test_locomo_loads_with_qa_and_evidence():
    convs = load(DATA / "locomo" / "locomo_dev.json")
    assert len(convs) == 5
    for conv in convs:
        assert len(conv.messages) == len(conv.dia_ids) >= 369
        t = targets(conv)
        assert t.answers and t.evidence and t.literals
        assert set(t.evidence) <= set(conv.turns)


def test_agent_runs_load_normalised():
    swe = load(DATA / "agents" / "swe_dev.jsonl")
    tau = load(DATA / "agents" / "tau_airline_dev.jsonl")
    assert (len(swe), len(tau)) == (75, 100)
    assert sum(bool(conv.gold_actions) for conv in tau) == 88  # 12 runs need no write action
    for conv in tau:
        for message in conv.messages:
            for call in message.get("tool_calls") or ():
                assert isinstance(call["function"]["arguments"], str)
            assert message.get("content") != "None"


def test_crosswoz_chats_load_with_gold_values_the_history_states():
    from discourse_memory_evaluation.bench import file_kind

    convs = load(DATA / "multilingual" / "crosswoz_dev.jsonl")
    assert len(convs) == 8 and file_kind(convs) == "gold-values"
    missing = []
    for conv in convs:
        t = targets(conv)
        history = "\n".join(m["content"] for m in conv.messages)
        # gold values are Inform slot values found verbatim in their message: each is found
        # in the history (CJK characters are words of their own for the index) unless it
        # stands only inside a longer value (one phone number, cut short in the data)
        assert conv.gold_values
        for value in dict.fromkeys(conv.gold_values):
            if value not in t.gold:
                assert value in history
                missing.append(value)
    assert len(missing) <= 2, missing


def test_every_keyed_literal_is_in_context_in_the_full_history():
    """The with-context measure's ceiling: the full history itself scores 100% (a literal
    counts only if some history sentence states it with a content word)."""
    from discourse_memory_evaluation.bench import score

    for name in ("locomo/locomo_dev.json", "agents/tau_airline_dev.jsonl"):
        conv = load(DATA / name)[0]
        assert score(conv.messages, targets(conv))[0]["literal_recall_with_context"] == 1.0

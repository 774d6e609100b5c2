"""Loaders on the shared evaluation data (skipped, with the reason, when it is absent)."""

from pathlib import Path

import pytest

from discourse_memory_evaluation.bench import targets
from discourse_memory_evaluation.datasets import load

DATA = Path(__file__).resolve().parents[3] / "shared" / "data"
pytestmark = pytest.mark.skipif(
    not DATA.is_dir(), reason=f"shared evaluation data not found at {DATA} (only present in the project workspace)"
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

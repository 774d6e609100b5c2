"""The fit's one way through: a take stopped at a rank position makes the choices the
whole take made before it (a cut drops the lowest-ranked choices, nothing else), and a
view that takes once more or is cut still fits its budget."""

from __future__ import annotations

from typing import Any

import pytest

from discourse_memory import compact
from discourse_memory.fit import fitting
from discourse_memory.fit.take import _take, cut_at, rewound
from discourse_memory.sample import sample_conversation

from .conftest import view_tokens


def _first_take(msgs: list[dict[str, Any]], budget: int) -> tuple[Any, float, Any]:
    """The ranking, room and choices of a view's first take."""
    seen: list[tuple[Any, float, Any]] = []

    def watched(ranked: Any, room: float, *stop: Any, **kw: Any) -> Any:
        chosen = _take(ranked, room, *stop, **kw)
        if not stop and "resume" not in kw:
            seen.append((ranked, room, chosen))
        return chosen

    original = fitting._take
    fitting._take = watched
    try:
        compact(msgs, budget)
    finally:
        fitting._take = original
    assert seen, "no view was fitted"
    return seen[0]


def _with_a_long_line() -> list[dict[str, Any]]:
    """The sample, with a line too long to show whole in the middle (its longer heads are
    options of their own, taken in steps)."""
    msgs = sample_conversation(3)
    line = "build log: " + ", ".join(f"step {i} took {i * 7 % 97} ms on worker-{i % 13}" for i in range(400))
    return msgs + [{"role": "user", "content": line},
                   {"role": "assistant", "content": "That is the whole build log."},
                   {"role": "user", "content": "How long did step 391 take on worker-1 in the build log?"}]


@pytest.mark.parametrize("share", [0.3, 0.4])
def test_a_take_stopped_at_a_position_keeps_the_choices_made_before_it(share: float) -> None:
    msgs = _with_a_long_line()
    ranked, room, whole = _first_take(msgs, int(view_tokens(msgs) * share))
    assert len(whole.steps) > 3
    for pos, spent in whole.steps[1::max(len(whole.steps) // 5, 1)]:
        stopped = _take(ranked, room, pos)
        assert stopped.spent == pytest.approx(spent)
        assert stopped.steps == [s for s in whole.steps if s[0] < pos]


def _same_choices(a: Any, b: Any) -> bool:
    return (a.decision.tobytes() == b.decision.tobytes() and a.calls_present == b.calls_present and a.items == b.items
            and a.heads == b.heads and a.spent == b.spent and a.steps == b.steps)


@pytest.mark.parametrize("share", [0.2, 0.3, 0.4])
def test_a_take_rewound_to_a_step_is_the_take_stopped_there(share: float) -> None:
    msgs = _with_a_long_line()
    ranked, room, whole = _first_take(msgs, int(view_tokens(msgs) * share))
    assert len(whole.steps) > 3
    for pos, _ in whole.steps[::max(len(whole.steps) // 7, 1)]:
        back = rewound(ranked, whole, pos)
        assert _same_choices(back, _take(ranked, room, pos))
        if back.steps:  # a cut cut again (each of the cut's passes is deeper than the one before)
            deeper = back.steps[len(back.steps) // 2][0]
            assert _same_choices(rewound(ranked, back, deeper), _take(ranked, room, deeper))
    assert whole.decision.tobytes() == _take(ranked, room).decision.tobytes()  # (the take itself is left as it was)
    with pytest.raises(ValueError, match="not a step"):
        rewound(ranked, whole, whole.steps[-1][0] + 1)


def test_a_cut_finds_the_last_position_within_what_it_may_spend() -> None:
    msgs = sample_conversation(3)
    _, _, whole = _first_take(msgs, int(view_tokens(msgs) * 0.2))
    _, spent = whole.steps[len(whole.steps) // 2]
    stop = cut_at(whole, spent)
    at = [p for p, _ in whole.steps].index(stop)
    assert whole.steps[at][1] <= spent  # the take stopped there spends at most that
    assert all(s > spent for _, s in whole.steps[at + 1:])  # and no later stop would
    assert cut_at(whole, -1.0) is None  # (nothing spends less than nothing: the caller shows only what must be)


@pytest.mark.parametrize("share", [0.05, 0.1, 0.2, 0.4])
def test_every_view_fits_its_budget_whichever_way_it_was_settled(share: float) -> None:
    msgs = sample_conversation(4)
    budget = int(view_tokens(msgs) * share)
    view = compact(msgs, budget)
    assert view.tokens_after <= budget

"""A view's second take, of more room than its first, goes on from where the first would
first decide otherwise (``fit/trail.py``): the same choices, the same steps and the same
journal as a take of that room from the start; and a cut of it the same as a cut of that."""

from __future__ import annotations

import json
from typing import Any

import pytest

from discourse_memory import DiscourseMemory, compact, get_token_counter
from discourse_memory.fit import fitting
from discourse_memory.fit.take import _take, rewound
from discourse_memory.fit.trail import restart
from discourse_memory.sample import sample_conversation

from .conftest import SHARED_DATA, view_tokens


def _first_takes(view: Any) -> list[tuple[Any, float]]:
    """The ranking and room of each first take (not a resumed or stopped one) ``view()`` makes."""
    seen: list[tuple[Any, float]] = []

    def watched(ranked: Any, room: float, *stop: Any, **kw: Any) -> Any:
        if not stop and "resume" not in kw:
            seen.append((ranked, room))
        return _take(ranked, room, *stop, **kw)

    original = fitting._take
    fitting._take = watched
    try:
        view()
    finally:
        fitting._take = original
    assert seen, "no view was fitted"
    return seen


def _with_a_long_line() -> list[dict[str, Any]]:
    """The sample, with a line too long to show whole (its longer heads are options of
    their own, which change the room left without a check)."""
    msgs = sample_conversation(3)
    line = "build log: " + ", ".join(f"step {i} took {i * 7 % 97} ms on worker-{i % 13}" for i in range(400))
    return msgs + [{"role": "user", "content": line},
                   {"role": "assistant", "content": "That is the whole build log."},
                   {"role": "user", "content": "How long did step 391 take on worker-1 in the build log?"}]


def _differences(a: Any, b: Any) -> list[str]:
    """What differs between two takes (their steps' rank positions aside: labels of where
    each step is, which a take gone on from keeps from the take it goes on from)."""
    checks = {
        "decision": a.decision.tobytes() == b.decision.tobytes(), "calls": a.calls_present == b.calls_present,
        "items": a.items == b.items, "heads": a.heads == b.heads, "spent": a.spent == b.spent,
        "noted": a.noted == b.noted, "steps": [s for _, s in a.steps] == [s for _, s in b.steps],
        "journal": a.journal.ops == b.journal.ops and a.journal.marks == b.journal.marks,
    }
    return [name for name, same in checks.items() if not same]


def _check_more_rooms(ranked: Any, room: float, mores: list[float]) -> int:
    """Each room ``room + more`` taken from the start and gone on from the take of ``room``:
    the same; and each of their cuts the same. Returns how many went on from a snapshot."""
    first = _take(ranked, room, keep=0.0)
    assert not _differences(first, _take(ranked, room))  # (keeping a trail changes no choice)
    gone_on = 0
    for more in mores:
        fresh = _take(ranked, room + more)
        resumed = _take(ranked, room + more, resume=first)
        assert not _differences(resumed, fresh), more
        gone_on += restart(first.trail, first.steps, room + more, ranked.reserve) is not None
        for k in range(0, len(fresh.steps), max(len(fresh.steps) // 6, 1)):
            assert not _differences(rewound(ranked, resumed, resumed.steps[k][0]),
                                    rewound(ranked, fresh, fresh.steps[k][0])), (more, k)
    return gone_on


@pytest.mark.parametrize("share", [0.2, 0.3, 0.45])
def test_a_take_of_more_room_gone_on_from_a_take_of_less_is_the_take_from_the_start(share: float) -> None:
    msgs = _with_a_long_line()
    ranked, room = _first_takes(lambda: compact(msgs, int(view_tokens(msgs) * share)))[0]
    assert _check_more_rooms(ranked, room, [0.25, 1.0, 3.0, 10.0, 30.0, 100.0, 300.0, 1000.0, 10_000.0]) > 0


def test_on_a_real_agent_history_each_turns_second_take_is_the_take_from_the_start() -> None:
    path = SHARED_DATA / "agents" / "swe_dev.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is not there")
    count = get_token_counter().count
    msgs: list[dict[str, Any]] = []
    with path.open(encoding="utf-8") as f:
        for line in f:
            for m in json.loads(line)["messages"]:
                msgs.append({k: v for k, v in m.items() if k in ("role", "content")})
            if sum(count(m.get("content") or "") for m in msgs) > 30_000:
                break
    budget = sum(count(m.get("content") or "") for m in msgs) // 4
    memory = DiscourseMemory(msgs[:-4])
    gone_on = 0
    for m in msgs[-4:]:
        memory.append(m)
        for ranked, room in _first_takes(lambda: memory.view(budget)):
            gone_on += _check_more_rooms(ranked, room, [50.0, 200.0, 600.0, 2000.0])
    assert gone_on > 0


def test_a_take_of_less_room_goes_from_the_start() -> None:
    msgs = _with_a_long_line()
    ranked, room = _first_takes(lambda: compact(msgs, int(view_tokens(msgs) * 0.3)))[0]
    first = _take(ranked, room, keep=0.0)
    assert restart(first.trail, first.steps, room - 1.0, ranked.reserve) is None
    assert not _differences(_take(ranked, room - 1.0, resume=first), _take(ranked, room - 1.0))
    assert _take(ranked, room).trail is None  # (a trail is kept only when asked for)

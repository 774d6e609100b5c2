"""A take of more room, gone on from where a take of less room would first decide otherwise.

A view's second take (``fitting._fit``: the first left room unused) has more room than the
first and walks the same options in the same order from the same state. The room left is
read only by comparisons (``cost > left``), and more room turns none of the first take's
yeses into noes: up to the first option the first take refused for want of room by less
than the difference, both make the same choices. So the first take keeps a few snapshots of
its state (:class:`Snapshot`, when the room left first falls below each of a few levels:
the choices that differ come when it is nearly spent) with the least shortfall of any
refusal by room before each; the second goes on from the last snapshot before a refusal
it would not make. The room left is a float summed change by change: the second's is those
changes summed again from its own room, in the same order (``numpy.add.accumulate`` adds
in order), so it is the number a take from the start computes, bit for bit.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = ["Snapshot", "Trail", "Restart", "restart"]

@dataclass(frozen=True, slots=True)
class Snapshot:
    """A take's state at the top of one step of its walk (before that step's bookkeeping)."""

    pos: int  # the rank position of that step
    deltas: int  # how many changes to the room left were made before it
    last: int  # ... as of the take's last step (``Chosen.steps``) before it
    short: float  # the least by which the room refused an option before it
    used: float
    next_item: int
    ops: int  # the journal's length (``Journal.ops``) ...
    marks: int  # ... its marks' ...
    steps: int  # ... and the steps'
    decision: np.ndarray
    calls_present: set[int]
    shown_lits: bytes
    msg_shown: bytes
    texts_shown: bytes
    taken: dict[int, float]
    by_literal: dict[int, int]
    entries: dict[int, int]
    keys: dict[tuple[int, int, str], int]
    rows: dict[int, int]
    in_rows: set[int]
    headers: set[str]
    dated: dict[str, int]
    opened: set[int]
    heads: dict[int, int]
    long_steps: dict[int, int]


@dataclass(slots=True)
class Trail:
    """What a take kept for a take of more room to go on from: its room, each change to
    the room left in order (``deltas``), how many changes were made at each of its steps
    (``steps``, beside ``Chosen.steps``) and before its walk (``first``), its snapshots."""

    room: float
    deltas: list[float] = field(default_factory=list)
    steps: list[int] = field(default_factory=list)
    first: int = 0
    snaps: list[Snapshot] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class Restart:
    """Where a take of ``room`` goes on from: a snapshot, with the room left, the room left
    at its last step and its steps (``Chosen.steps``) as that take computes them."""

    snap: Snapshot
    left: float
    last: float
    steps: list[tuple[int, float]]


def restart(trail: Trail, chosen_steps: list[tuple[int, float]], room: float, reserve: float) -> Restart | None:
    """Where a take of ``room`` goes on from the take that kept ``trail`` (whose steps are
    ``chosen_steps``), or None: it goes from the start (less room, a room under the
    record's reserve, no snapshot before its first other choice, or steps the sums would
    not find where the first take found them)."""
    more = room - trail.room
    if more < 0 or room < reserve:
        return None
    snap = None
    for s in trail.snaps:  # (their shortfalls fall: the last one before a refusal it would not make)
        # (a millionth for the rounding: a float sum of a take's changes to its room differs
        # from the same changes summed from another room by far less, each change rounding by
        # at most half a unit in the last place of numbers of a few hundred thousand at most)
        if s.short <= more + 1e-6:
            break
        snap = s
    if snap is None:
        return None
    changes = np.asarray(trail.deltas[:snap.deltas], dtype=np.float64)
    mine = np.add.accumulate(np.concatenate(([float(room)], changes)))
    theirs = np.add.accumulate(np.concatenate(([float(trail.room)], changes)))
    # A step is written where the room left differs from the last step's: the same steps
    # here as there when every change there moved it off the last step's (none summed back
    # to it) and each step here differs from the one before as well.
    at = np.empty(snap.steps + 1, dtype=np.int64)
    at[0] = trail.first
    at[1:] = trail.steps[:snap.steps]
    if snap.deltas > trail.first:
        points = np.arange(trail.first + 1, snap.deltas + 1)
        anchors = at[np.searchsorted(at, points, side="left") - 1]
        if bool((theirs[points] == theirs[anchors]).any()):
            return None
    if bool((mine[at[1:]] == mine[at[:-1]]).any()):
        return None
    # (numpy's float subtraction is Python's: the spends a take from the start writes)
    spent = (room - mine[at[1:]]).tolist()
    steps = list(zip(next(zip(*chosen_steps[:snap.steps]), ()), spent))
    return Restart(snap, float(mine[snap.deltas]), float(mine[snap.last]), steps)


def copies(snap: Snapshot) -> tuple[Any, ...]:
    """The snapshot's containers, copied (a snapshot may be gone on from more than once):
    shown literals, shown messages, messages with a shown text unit, taken, by literal,
    entries, keys, rows, in rows, headers, dated, opened, heads, long steps."""
    return (bytearray(snap.shown_lits), bytearray(snap.msg_shown), bytearray(snap.texts_shown), dict(snap.taken),
            dict(snap.by_literal), dict(snap.entries), dict(snap.keys), dict(snap.rows), set(snap.in_rows),
            set(snap.headers), dict(snap.dated), set(snap.opened), dict(snap.heads), dict(snap.long_steps))

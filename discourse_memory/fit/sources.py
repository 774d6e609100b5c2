"""Which occurrence of a value the record lists it from, read once per row of the literal
index and kept with the conversation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

import numpy as np

from ..columns import Columns
from ..record import Item
from .limits import LIMITS


@dataclass
class _RowMemo:
    """Per row of the literal index (one unit stating one value), its record item and what
    is fixed about it, read when a view first needs it. Rows are only appended and a unit's
    item never changes as the conversation grows, so a turn reads only rows no view has
    read (a loop over every candidate's occurrences was most of a turn's record upkeep)."""

    state: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    """0: not read, 1: no item, 2: an item without context, 3: with one."""
    items: list[Item | None] = field(default_factory=list)
    listing: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    """0: not read, 1: other, 2: its line lists names, 3: defines, 4: another unkeyed line."""
    cost: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """The item's tokens in the record (-1: not counted)."""
    value_cost: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """A keyed item's ", value" after another value of its key."""

    def grow(self, n: int) -> None:
        """Room for ``n`` rows; grown by doubling (a copy of every array on every turn of a
        long history would be work that grows with the history)."""
        more = max(n, 2 * len(self.items)) - len(self.items) if n > len(self.items) else 0
        if more > 0:
            self.state = np.concatenate([self.state, np.zeros(more, dtype=np.int8)])
            self.listing = np.concatenate([self.listing, np.zeros(more, dtype=np.int8)])
            self.cost = np.concatenate([self.cost, np.full(more, -1.0)])
            self.value_cost = np.concatenate([self.value_cost, np.zeros(more)])
            self.items.extend([None] * more)


def _row_memo(cols: Columns) -> _RowMemo:
    """The conversation's row memo (see ``Columns.memo``), with room for every row."""
    memo = cols.memo(_RowMemo)
    memo.grow(len(cols.lit_idx.view))
    return memo


@dataclass
class _RowOrder:
    """Every row of the literal index by value, then newest unit first, ties in row order
    (the conversation's memo, see ``Columns.memo``: rows are only appended, and a row's value
    and unit never change, so a turn merges its new rows in instead of sorting them all)."""

    UNIT_SPAN: ClassVar[int] = 1 << 32
    """More units than a conversation holds: a row's code is its value's id times this, plus
    its unit counted from the newest."""
    order: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    keys: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Each row's (value, newest first) as one code, in ``order``."""


def _by_value(cols: Columns, owners: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """``rows`` (ascending rows of the literal index; ``owners``: each row's unit) ordered by
    value, then newest unit first, ties in row order: the order a stable sort of them by
    those keys gives, read from the conversation's order of every row (a sort of ~50,000
    rows on every view of a long history was most of a millisecond)."""
    memo = cols.memo(_RowOrder)
    lit_idx = cols.lit_idx.view
    have, n = len(memo.order), len(lit_idx)
    if n < have:  # (never, rows being only appended: sorted anew if they were not)
        memo.order, memo.keys, have = memo.order[:0], memo.keys[:0], 0
    if n > have:
        new = np.arange(have, n, dtype=np.int64)
        span = _RowOrder.UNIT_SPAN
        keys = lit_idx[have:].astype(np.int64) * span + (span - 1 - owners[have:n].astype(np.int64))
        by = np.argsort(keys, kind="stable")
        new, keys = new[by], keys[by]
        if have:
            # (side right: a new row after an old one of the same value and unit, as its row is)
            at = np.searchsorted(memo.keys, keys, side="right")
            memo.order, memo.keys = np.insert(memo.order, at, new), np.insert(memo.keys, at, keys)
        else:  # (a first view: every row is new, in its order; an insert into nothing was a quarter ms)
            memo.order, memo.keys = new, keys
    wanted = np.zeros(n, dtype=bool)
    wanted[rows] = True
    return memo.order[wanted[memo.order]]


@dataclass
class _RowFacts:
    """Per row of the literal index, what is fixed about it once appended (the
    conversation's memo, see ``Columns.memo``): its unit, and per literal whether a unit
    outside a tool's output states it. Rows are only appended: a view extends these by its
    new rows (each was an array of every row, made again on every view)."""

    owners: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Per row, its unit (``Columns.unit_owner`` of ``lit_ptr``), in its first ``n`` places."""
    n: int = 0
    said: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Per literal, whether a unit of a message that is no tool output states it (of the
    first ``said_rows`` rows)."""
    said_rows: int = 0


def row_units(cols: Columns) -> np.ndarray:
    """Per row of the literal index, its unit (as ``cols.unit_owner(cols.lit_ptr.view)``)."""
    memo = cols.memo(_RowFacts)
    ptr = cols.lit_ptr.view
    n_rows = int(ptr[-1])
    if memo.n < n_rows:
        have = int(np.searchsorted(ptr, memo.n, side="right")) - 1  # the unit of the first new row
        new = np.repeat(np.arange(have, len(ptr) - 1), np.diff(ptr[have:]))[memo.n - int(ptr[have]):]
        if len(memo.owners) < n_rows:  # (grown by doubling)
            memo.owners = np.concatenate([memo.owners[:memo.n],
                                          np.zeros(max(n_rows, 2 * len(memo.owners)) - memo.n, dtype=np.int64)])
        memo.owners[memo.n:n_rows] = new
        memo.n = n_rows
    return memo.owners[:n_rows]


def said_literals(cols: Columns, outputs: np.ndarray) -> np.ndarray:
    """Per literal, whether a unit of a message that is no tool output states it
    (``outputs``: per message, a tool's output, which never changes once appended)."""
    memo = cols.memo(_RowFacts)
    n_lits, lit_idx = len(cols.lit_text), cols.lit_idx.view
    if len(memo.said) < n_lits:
        memo.said = np.concatenate([memo.said, np.zeros(n_lits - len(memo.said), dtype=bool)])
    if memo.said_rows < len(lit_idx):
        new = slice(memo.said_rows, len(lit_idx))
        talk = ~outputs[cols.u_msg.view[row_units(cols)[new]]]
        memo.said[lit_idx[new][talk]] = True
        memo.said_rows = len(lit_idx)
    return memo.said[:n_lits]


def _has_context(cols: Columns, item: Item, lit: int) -> bool:
    """A date line, a key, a text of its own (a quoted string, a line number's file), or
    words of the sentence around the value."""
    return item.header or item.key is not None or item.span is None \
        or item.span[1] - item.span[0] > len(cols.lit_text[lit])


def _have_context(cols: Columns, header: np.ndarray, keyed: np.ndarray, span_start: np.ndarray,
                  span_end: np.ndarray, lits: np.ndarray) -> np.ndarray:
    """:func:`_has_context` of many items at once, from their columns (a span start below 0:
    no span): a shared row entry's items (:mod:`.shared_rows`)."""
    widths = np.fromiter(map(len, map(cols.lit_text.__getitem__, lits.tolist())), dtype=np.int64, count=len(lits))
    return header | keyed | (span_start < 0) | (span_end - span_start > widths)


def _sources(memo: _RowMemo, rows: np.ndarray, first: np.ndarray, ends: np.ndarray, owners: np.ndarray,
             lits: np.ndarray, read: Callable[[int, int], Item | None], context: Callable[[Item, int], bool]
             ) -> np.ndarray:
    """Per value (its occurrence rows ``rows[first[j]:ends[j]]``, newest first), the row it
    is listed from: among its newest ``Limits.occurrences``, the first whose item has a context, else
    the first with an item (-1: none has one). A row no view has read is read by ``read(unit,
    literal)`` (``owners``, ``lits``: per row of the literal index, its unit and its literal), and
    ``context(item, literal)`` says whether its item has a context."""
    sizes = np.minimum(ends - first, LIMITS.occurrences)
    group = np.repeat(np.arange(len(first)), sizes)
    starts = np.cumsum(sizes) - sizes  # each value's place in the window
    window = rows[first[group] + np.arange(len(group)) - starts[group]]
    state = memo.state
    found = state[window]
    # Rows past a value's first with a context are never read: a value whose window holds
    # such rows is not walked again on every turn.
    before = np.cumsum(found == 3) - (found == 3)
    unread = np.flatnonzero((found == 0) & (before == before[starts][group]))
    if len(unread):
        # Read in order, up to the first with a context: the rows after it are never listed.
        # (The windows of those values, walked as Python numbers, their states written back
        # at once: a row is in one value's window only.)
        walk = np.zeros(len(first), dtype=bool)
        walk[group[unread]] = True
        places = np.flatnonzero(walk[group])
        done = -1  # the value whose first row with a context was met
        read_rows, read_states = [], []
        items = memo.items
        walked = window[places]
        # (each row's unit and literal read as Python numbers at once, not one by one)
        for r, u, lit, g, was in zip(walked.tolist(), owners[walked].tolist(), lits[walked].tolist(),
                                     group[places].tolist(), found[places].tolist()):
            if g == done:
                continue
            if was == 0:
                item = items[r] = read(u, lit)
                was = 1 if item is None else 3 if context(item, lit) else 2
                read_rows.append(r)
                read_states.append(was)
            if was == 3:
                done = g
        state[read_rows] = read_states
    found = state[window]
    at = np.full(len(first), -1, dtype=np.int64)
    for level in (found >= 2, found == 3):  # the first with an item, overridden by the first with a context
        hit = np.flatnonzero(level)
        if len(hit):
            g = group[hit]
            lead = np.concatenate(([True], g[1:] != g[:-1]))
            at[g[lead]] = window[hit[lead]]
    return at

"""Which occurrence of a value the record lists it from, read once per row of the literal
index and kept with the conversation."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..columns import Columns
from ..record import Item


OCCURRENCES = 4
"""How many of a value's newest occurrences the record looks at for one with a key or a
context word (see ``_items``)."""


@dataclass
class _RowMemo:
    """Per row of the literal index (one unit stating one value), its record item and what
    is fixed about it, read when a view first needs it. Rows are only appended and a unit's
    item never changes as the conversation grows, so a turn reads only rows no view has
    read (a loop over every candidate's occurrences was most of a turn's record upkeep)."""

    state: np.ndarray  # 0: not read, 1: no item, 2: an item without context, 3: with one
    items: list[Item | None]
    listing: np.ndarray  # 0: not read, 1: other, 2: its line lists names, 3: defines, 4: another unkeyed line
    cost: np.ndarray  # the item's tokens in the record (-1: not counted)
    value_cost: np.ndarray  # a keyed item's ", value" after another value of its key

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
    memo = cols.derived.get("record_rows")
    if memo is None:
        memo = cols.derived["record_rows"] = _RowMemo(  # type: ignore[assignment]
            np.zeros(0, dtype=np.int8), [], np.zeros(0, dtype=np.int8), np.zeros(0), np.zeros(0))
    memo.grow(len(cols.lit_idx.view))  # type: ignore[union-attr]
    return memo  # type: ignore[return-value]


def _has_context(cols: Columns, item: Item, lit: int) -> bool:
    """A date line, a key, a text of its own (a quoted string, a line number's file), or
    words of the sentence around the value."""
    return item.header or item.key is not None or item.span is None \
        or item.span[1] - item.span[0] > len(cols.lit_text[lit])


def _sources(memo: _RowMemo, rows: np.ndarray, first: np.ndarray, ends: np.ndarray,
             read: Callable[[int], Item | None], context: Callable[[int, Item], bool]) -> np.ndarray:
    """Per value (its occurrence rows ``rows[first[j]:ends[j]]``, newest first), the row it
    is listed from: among its newest OCCURRENCES, the first whose item has a context, else
    the first with an item (-1: none has one)."""
    sizes = np.minimum(ends - first, OCCURRENCES)
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
        for g in np.unique(group[unread]).tolist():
            lo = int(first[g])
            for r in rows[lo:lo + int(sizes[g])].tolist():
                if state[r] == 0:
                    item = memo.items[r] = read(r)
                    state[r] = 1 if item is None else 3 if context(r, item) else 2
                if state[r] == 3:
                    break
    found = state[window]
    at = np.full(len(first), -1, dtype=np.int64)
    for level in (found >= 2, found == 3):  # the first with an item, overridden by the first with a context
        hit = np.flatnonzero(level)
        if len(hit):
            g = group[hit]
            lead = np.r_[True, g[1:] != g[:-1]]
            at[g[lead]] = window[hit[lead]]
    return at

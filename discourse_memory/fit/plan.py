"""The plan of a take's choices, with its record."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from ..columns import Columns, _Grow
from ..plan import CLIPPED, KEPT, Plan
from ..record import Entry, Item, Record, as_read, line_text, message_label, sanitize, widened
from ..units import head_literal_texts
from .limits import LIMITS
from .types import _LINE_KIND, Chosen, Ranked, Scene


def _plan(scene: Scene, r: Ranked, chosen: Chosen, protection: str,
          heads: dict[int, int] | None = None) -> Plan:
    """The immutable plan of these choices, with its record: the listed items grouped by
    message in conversation order, and every value left out of both counted as dropped."""
    heads = {**chosen.heads, **(heads or {})}
    cols = scene.cols
    decision = chosen.decision
    shown = cols.literal_counts(decision == KEPT, head_mask=decision == CLIPPED) > 0
    if heads:
        units = cols.units
        for k, h in heads.items():
            for text in head_literal_texts(units[k], h):
                shown[cols.lit_ids[text]] = True
    made = _made(cols)
    items = chosen.items
    # The items' numbers as arrays, read from their rows (a pass lists a few hundred items:
    # each read and tested item by item was a third of a plan's time)
    rows = made.rows.of(items)
    size = made.rows.size.view[rows]
    ends = np.cumsum(size)
    starts = ends - size
    covers = made.rows.covers_of(rows)
    told = np.concatenate(([0], np.cumsum(shown[covers])))
    n_shown = told[ends] - told[starts]
    header = made.rows.header.view[rows]
    # An item the view shows all of is not listed (nor one of no values); a line's values the
    # view shows elsewhere are not listed by it.
    keep = ~header & (n_shown < size)
    objects = list(items)
    seen = memoryview(shown)  # (read a value at a time: Python bools, not numpy's)
    for j in np.flatnonzero(keep & (n_shown > 0)).tolist():
        item = items[j]
        narrowed = tuple(c for c in item.covers if not seen[c])
        # (the same item for the same values, from plan to plan: the note's lines are kept by
        # their items, see record.note._entry_line)
        key = (id(item), narrowed)
        hit = made.narrowed.get(key)
        if hit is None:
            hit = made.narrowed[key] = (item, widened(item, narrowed, narrowed[0]))
        objects[j] = hit[1]
    messages = made.rows.message.view[rows]
    listing = set(messages[keep].tolist())
    headers = {items[j].text: j for j in np.flatnonzero(header).tolist()}
    dated = {r.header_of[m] for m in listing}
    alone: list[int] = []
    for j in headers.values():  # a date line alone still dates its session
        it = items[j]
        if it.text not in dated:
            alone.append(j)
            listing.add(it.message)
            dated.add(r.header_of[it.message])
    # Grouped by message, each message's items by unit and span (in the take's order where
    # those tie; a lone date line after them)
    at = np.concatenate((np.flatnonzero(keep), np.array(alone, dtype=np.int64)))
    picked = rows[at]
    rs = made.rows
    order = np.lexsort((np.arange(len(at)), rs.span_end.view[picked], rs.span_start.view[picked],
                        rs.unit.view[picked], messages[at]))
    at = at[order].tolist()
    by = messages[np.array(at, dtype=np.int64)] if at else messages[:0]
    cuts = [0, *(np.flatnonzero(by[1:] != by[:-1]) + 1).tolist(), len(at)]
    ordered = [objects[j] for j in at]
    entries = []
    for a, b in zip(cuts, cuts[1:]):
        if a == b:
            continue
        group = ordered[a:b]
        m = group[0].message
        entries.append(_entry(made, cols, r, m, group))
    listed = np.zeros(len(shown), dtype=bool)
    flags = keep.copy()
    flags[alone] = True
    listed[covers[np.repeat(flags, size)]] = True
    for e in entries:
        if e.header in headers:
            listed[list(items[headers[e.header]].covers)] = True
    missing = r.present & ~shown & ~listed
    candidates = r.candidate_lits
    dropped = tuple(np.flatnonzero(missing & candidates).tolist())
    unlisted = tuple(np.flatnonzero(missing & ~candidates).tolist())
    return Plan(decision.copy(), r.winner.copy(), frozenset(chosen.calls_present), r.protected,
                MappingProxyType(dict(heads or {})), Record(tuple(entries), dropped, unlisted), protection)


def _entry(made: _Made, cols: Columns, r: Ranked, m: int, items: list[Item]) -> Entry:
    """Message ``m``'s entry listing ``items`` (in their order, joined where they touch): the
    same object for the same items, from plan to plan and view to view (a message's label
    and date line can change as the conversation grows: they are in the key)."""
    label = _label(r, m)
    header = r.header_of[m]
    key = (m, label, header, tuple(map(id, items)))
    hit = made.entries.get(key)
    if hit is None:
        entry = Entry(m, label, tuple(_joined(made, cols, items)), header)
        hit = made.entries[key] = (items, entry)
    return hit[1]


class _Rows:
    """Every item a plan has read, by identity, with the numbers a plan reads of it as
    columns (its message, unit, span, whether a date line, and its values): a pass reads
    them as arrays. Items are only added (each held, so no other object takes its id)."""

    def __init__(self) -> None:
        self.items: list[Item] = []
        self.index: dict[int, int] = {}
        self.message = _Grow(np.int64)
        self.unit = _Grow(np.int64)
        self.span_start = _Grow(np.int64)
        self.span_end = _Grow(np.int64)
        self.header = _Grow(np.bool_)
        self.first = _Grow(np.int64)
        """Where the item's values start in ``covers``."""
        self.size = _Grow(np.int64)
        self.covers = _Grow(np.int64)

    def __len__(self) -> int:
        return len(self.items)

    def of(self, items: Sequence[Item]) -> np.ndarray:
        """The row of each of ``items`` (added if new)."""
        rows = list(map(self.index.get, map(id, items)))
        if None in rows:
            self._add([it for it, k in zip(items, rows) if k is None])
            rows = list(map(self.index.get, map(id, items)))
        return np.array(rows, dtype=np.int64)

    def covers_of(self, rows: np.ndarray) -> np.ndarray:
        """The values of these rows' items, one after another."""
        size = self.size.view[rows]
        ends = np.cumsum(size)
        return self.covers.view[np.repeat(self.first.view[rows] - (ends - size), size)
                                + np.arange(ends[-1] if len(ends) else 0)]

    def _add(self, items: list[Item]) -> None:
        fresh: list[Item] = []
        for it in items:  # (an item listed twice is added once)
            if id(it) not in self.index:
                self.index[id(it)] = len(self.items)
                self.items.append(it)
                fresh.append(it)
        spans = [it.span or (0, 0) for it in fresh]
        self.message.extend([it.message for it in fresh])
        self.unit.extend([it.unit for it in fresh])
        self.span_start.extend([s[0] for s in spans])
        self.span_end.extend([s[1] for s in spans])
        self.header.extend([it.header for it in fresh])
        sizes = [len(it.covers) for it in fresh]
        self.first.extend((np.cumsum(sizes, dtype=np.int64) - sizes + self.covers.n).tolist())
        self.size.extend(sizes)
        self.covers.extend([c for it in fresh for c in it.covers])


@dataclass
class _Made:
    """The items plans made of other items, kept with them (the conversation's memo, see
    ``Columns.memo``): each plan of each view makes mostly the same ones, and the note keeps
    an entry's line by the identity of its items (``record.note._entry_line``), so a new
    object for the same item was a line made and counted again."""

    narrowed: dict[tuple[int, tuple[int, ...]], tuple[Item, Item]] = field(default_factory=dict)
    """(id of an item, the values of it the view does not show) -> (the item, it listing those)."""
    joined: dict[tuple[int, int], tuple[Item, Item, Item]] = field(default_factory=dict)
    """(ids of two items of a unit whose spans touch) -> (the two, the item joining them)."""
    entries: dict[tuple[int, str, str | None, tuple[int, ...]], tuple[list[Item], Entry]] = \
        field(default_factory=dict)
    """(message, label, date line, ids of its items) -> (the items, its entry)."""
    rows: _Rows = field(default_factory=_Rows)


def _made(cols: Columns) -> _Made:
    """The conversation's :class:`_Made`, emptied when it holds ``Limits.plan_items``."""
    made = cols.memo(_Made)
    if len(made.narrowed) + len(made.joined) + len(made.entries) + len(made.rows) > LIMITS.plan_items:
        made.narrowed.clear()
        made.joined.clear()
        made.entries.clear()
        made.rows = _Rows()
    return made


def _joined(made: _Made, cols: Columns, items: list[Item]) -> list[Item]:
    """Items of one message with the spans of each unit that touch or overlap joined into
    one span of the unit's text (``loved "Becoming Nicole" by Amy Ellis Nutt``)."""
    out: list[Item] = []
    kinds = None
    for it in items:
        prev = out[-1] if out else None
        if prev is None or prev.span is None or it.span is None or prev.unit != it.unit:
            out.append(it)
            continue
        if kinds is None:  # (read a unit at a time: a Python number, not numpy's)
            kinds = memoryview(cols.u_kind.view)
        lines = _LINES[kinds[it.unit]]
        # Lines of code join where they overlap (one line), words where they touch.
        if it.span[0] < prev.span[1] if lines else it.span[0] <= prev.span[1] + 1:
            span = (prev.span[0], max(prev.span[1], it.span[1]))
            key = (id(prev), id(it))
            hit = made.joined.get(key)
            if hit is None:  # (a unit's text never changes: each pair is joined once)
                unit_text = _read_text(cols, it.unit)
                text = line_text(unit_text, span) if lines else sanitize(unit_text[span[0]:span[1]])
                hit = made.joined[key] = (prev, it, Item(prev.literal, prev.unit, prev.message, text, span,
                                                         prev.covers + it.covers, row=prev.row, group=prev.group))
            out[-1] = hit[2]
        else:
            out.append(it)
    return out


def _read_text(cols: Columns, i: int) -> str:
    """Unit ``i``'s text as the record reads it (``record.as_read``), built only where it has
    an escape to read (a unit read from the shared cache and built reads every literal and
    word of its text: a first view joins the items of a few dozen)."""
    text = cols.units.text(i)
    return as_read(cols, cols.units[i]).text if "\\" in text else text


_LINES = tuple(_LINE_KIND.tolist())
"""Per unit kind, whether its items are lines (of code, of a table): ``_LINE_KIND`` read as Python bools."""


def _label(r: Ranked, m: int) -> str:
    """Message ``m``'s label in the record (each plan of a view lists mostly the same
    messages: read once per view)."""
    label = r.labels.get(m)
    if label is None:
        label = r.labels[m] = message_label(r.cols, r.cols.messages[m])
    return label

"""The plan of a take's choices, with its record."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

import numpy as np

from ..columns import Columns
from ..plan import CLIPPED, KEPT, Plan
from ..record import Entry, Item, Record, as_read, line_text, message_label, sanitize, widened
from ..units import Unit, head_literal_texts
from .limits import LIMITS
from .types import _LINE_KIND, Chosen, Ranked, Scene


def _plan(scene: Scene, r: Ranked, chosen: Chosen, protection: str,
          heads: dict[int, int] | None = None) -> Plan:
    heads = {**chosen.heads, **(heads or {})}
    """The immutable plan of these choices, with its record: the listed items grouped by
    message in conversation order, and every value left out of both counted as dropped."""
    cols = scene.cols
    decision = chosen.decision
    shown = cols.literal_counts(decision == KEPT, head_mask=decision == CLIPPED) > 0
    if heads:
        units = cols.units
        for k, h in heads.items():
            for text in head_literal_texts(units[k], h):
                shown[cols.lit_ids[text]] = True
    present = r.present
    made = _made(cols)
    by_message: dict[int, list[Item]] = {}
    seen = memoryview(shown)  # (read a value at a time: Python bools, not numpy's)
    for item in chosen.items:
        covers = item.covers
        if item.header or (seen[covers[0]] if len(covers) == 1 else all(seen[c] for c in covers)):
            continue
        if len(covers) > 1:  # a line's values the view shows elsewhere are not listed by it
            narrowed = tuple(c for c in covers if not seen[c])
            if narrowed != covers:
                # (the same item for the same values, from plan to plan: the note's lines are
                # kept by their items, see record.note._entry_line)
                key = (id(item), narrowed)
                hit = made.narrowed.get(key)
                if hit is None:
                    hit = made.narrowed[key] = (item, widened(item, narrowed, narrowed[0]))
                item = hit[1]
        by_message.setdefault(item.message, []).append(item)
    headers = {it.text: it for it in chosen.items if it.header}
    for it in headers.values():  # a date line alone still dates its session
        if not any(r.header_of[m] == it.text for m in by_message):
            by_message.setdefault(it.message, []).append(it)
    units = cols.units
    entries = []
    for m in sorted(by_message):
        listed = _joined(cols, units, sorted(by_message[m], key=lambda it: (it.unit, it.span or (0, 0))))
        header = r.header_of[m]
        entries.append(Entry(m, _label(r, m), tuple(listed), header))
    listed = np.zeros(len(shown), dtype=bool)
    listed[[c for e in entries for it in e.items for c in it.covers]] = True
    listed[[c for e in entries if e.header in headers for c in headers[e.header].covers]] = True
    missing = present & ~shown & ~listed
    dropped = tuple(np.flatnonzero(missing & r.candidate_lits).tolist())
    unlisted = tuple(np.flatnonzero(missing & ~r.candidate_lits).tolist())
    return Plan(decision.copy(), r.winner.copy(), frozenset(chosen.calls_present), r.protected,
                MappingProxyType(dict(heads or {})), Record(tuple(entries), dropped, unlisted), protection)


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


def _made(cols: Columns) -> _Made:
    """The conversation's :class:`_Made`, emptied when it holds ``Limits.plan_items``."""
    made = cols.memo(_Made)
    if len(made.narrowed) + len(made.joined) > LIMITS.plan_items:
        made.narrowed.clear()
        made.joined.clear()
    return made


def _joined(cols: Columns, units: Sequence[Unit], items: list[Item]) -> list[Item]:
    """Items of one message with the spans of each unit that touch or overlap joined into
    one span of the unit's text (``loved "Becoming Nicole" by Amy Ellis Nutt``)."""
    out: list[Item] = []
    made = _made(cols)
    for it in items:
        prev = out[-1] if out else None
        if prev is None or prev.span is None or it.span is None or prev.unit != it.unit:
            out.append(it)
            continue
        lines = bool(_LINE_KIND[cols.u_kind.view[it.unit]])
        # Lines of code join where they overlap (one line), words where they touch.
        if it.span[0] < prev.span[1] if lines else it.span[0] <= prev.span[1] + 1:
            span = (prev.span[0], max(prev.span[1], it.span[1]))
            key = (id(prev), id(it))
            hit = made.joined.get(key)
            if hit is None:  # (a unit's text never changes: each pair is joined once)
                unit_text = as_read(cols, units[it.unit]).text  # (a unit is built from its columns only to join)
                text = line_text(unit_text, span) if lines else sanitize(unit_text[span[0]:span[1]])
                hit = made.joined[key] = (prev, it, Item(prev.literal, prev.unit, prev.message, text, span,
                                                         prev.covers + it.covers, row=prev.row, group=prev.group))
            out[-1] = hit[2]
        else:
            out.append(it)
    return out


def _label(r: Ranked, m: int) -> str:
    """Message ``m``'s label in the record (each plan of a view lists mostly the same
    messages: read once per view)."""
    label = r.labels.get(m)
    if label is None:
        label = r.labels[m] = message_label(r.cols, r.cols.messages[m])
    return label

"""The outline of a message: the list item, bold label line or heading each nested list
item or field falls under.

An assistant lists flights, orders or reservations as nested markdown::

    1. **Flight HAT136 (JFK to ATL)**
       - Departure: 07:00 PM EST
       - Economy Price: $152

``- Economy Price: $152`` alone says nothing of which flight costs $152: its head does.
The view shows a kept item with its head, and the record lists a left-out item's values
under it (``{Flight HAT136 (JFK to ATL), Departure: 07:00 PM EST, Economy Price: $152}``).
A JSON document's members are outlined by its own structure (:func:`.record.row_key`),
not here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from .columns import UNIT_KINDS, Columns, _Grow
from .lang import marks
from .labels import LIST_MARK
from .units import Unit

__all__ = ["HEAD_CHARS", "head_text", "is_attribute", "list_heads"]

_ITEM = UNIT_KINDS.index("list_item")
_FIELD = UNIT_KINDS.index("field")
HEAD_CHARS = 48
"""A head longer than this (a sentence, not a label) heads nothing."""
_CODE_SPAN = re.compile(r"(`[^`\n]*`)|([^`]+|`)")  # code spans keep their text: `__init__.py`
_MARKUP = re.compile(r"^[ \t]*(?:" + LIST_MARK + r"|#{1,6}[ \t]+)?")
_BOLD_LINE = re.compile(r"[ \t]*(?:\*\*|__)[^\n]{1,80}(?:\*\*|__)[ \t]*:?[ \t]*")
_LABELLED = re.compile(r"[ \t]*(?:" + LIST_MARK + r")?[*_]{0,2}[^\W\d_][^:" + marks.COLON + r"\n]{0,40}?[*_]{0,2}[ \t]*[:"
                       + marks.COLON + "]")


def is_attribute(u: Unit) -> bool:
    """A field or a labelled item (``- Economy Price: $152``, ``- **Cabin:** economy``): one of
    a record's attributes. A step under a heading ("4. Watch p99 latency for 15 minutes")
    stands on its own: the record does not list it inside the heading's braces."""
    return u.kind == "field" or _LABELLED.match(u.text) is not None


def head_text(u: Unit) -> str | None:
    """A head's text as the record shows it: without its list or heading mark, emphasis and
    closing colon (``Flight HAT136 (JFK to ATL)``); None when longer than :data:`HEAD_CHARS`."""
    text = _MARKUP.sub("", u.text, count=1).strip()
    if "`" in text:
        text = _CODE_SPAN.sub(lambda m: m.group(1) or m.group(2).replace("**", "").replace("__", ""), text)
    else:  # (no code span: the same, without a call per match)
        text = text.replace("**", "").replace("__", "")
    text = text.strip().rstrip(":" + marks.COLON).strip()
    text = " ".join(text.split())
    return text if text and len(text) <= HEAD_CHARS else None


def _indent(u: Unit) -> int:
    """The depth the indent before a unit's line stands for (two spaces a level, as list items)."""
    line = u.gap[u.gap.rfind("\n") + 1:]
    return (len(line) - len(line.lstrip(" \t"))) // 2


def _outline(units: list[Unit], first: int) -> list[int]:
    """Per unit of one message (numbered from ``first``), the unit it falls under, or -1."""
    out = [-1] * len(units)
    stacks: dict[str, list[tuple[int, int, bool]]] = {}  # field -> (depth, unit, is a label line)
    for i, u in enumerate(units):
        stack = stacks.setdefault(u.field, [])
        if u.text[:1] in "{[\"" and u.kind == "field":
            continue  # a JSON member: its document's structure keys it
        if u.kind == "heading":
            stack.clear()
            if head_text(u) is not None:
                stack.append((-1, first + i, True))
            continue
        depth = u.depth if u.kind == "list_item" else _indent(u)
        if u.kind in ("list_item", "field"):
            # An item's head is shallower; a label line heads the items at its own depth.
            while stack and (stack[-1][0] > depth or stack[-1][0] == depth and not stack[-1][2]):
                stack.pop()
            if stack:
                out[i] = stack[-1][1]
            if u.kind == "list_item" and head_text(u) is not None:
                stack.append((depth, first + i, False))
            continue
        while stack and stack[-1][0] >= depth:
            stack.pop()
        if u.kind == "line" and _BOLD_LINE.fullmatch(u.text) and head_text(u) is not None:
            stack.append((depth, first + i, True))
        elif depth == 0:  # a paragraph ends the lists above it (not its heading's section)
            del stack[1 if stack and stack[0][0] < 0 else 0:]
    return out


@dataclass
class _Heads:
    """Per unit, its head, found for the messages already appended (the conversation's
    memo, see ``Columns.memo``: a message's units never change)."""

    heads: _Grow = field(default_factory=lambda: _Grow(np.int64))
    seen: int = 0
    """How many messages ``heads`` covers."""


def found_heads(cols: Columns) -> tuple[np.ndarray, int]:
    """:func:`list_heads` as found so far (finding no more): the heads, and the messages they
    cover (a segment of them is shared between workers: :mod:`.shared_columns`)."""
    state = cols.memo(_Heads)
    return state.heads.view, state.seen


def seed_list_heads(cols: Columns, heads: np.ndarray, seen: int) -> None:
    """Start :func:`list_heads` with ``heads``, those of the units of the first ``seen``
    messages (read from a shared cache), if it has not started."""
    state = cols.memo(_Heads)
    if state.seen == 0 and state.heads.n == 0:
        state.heads.extend(heads)
        state.seen = seen


def list_heads(cols: Columns) -> np.ndarray:
    """Per unit, the unit that heads it (see the module docstring), or -1. Found once per
    message (a message's units never change)."""
    state = cols.memo(_Heads)
    grown = state.heads
    starts = cols.msg_start.view
    kinds = cols.u_kind.view
    units = cols.units
    for m in range(state.seen, len(cols.messages)):
        s, e = int(starts[m]), int(starts[m + 1])
        span = kinds[s:e]
        if not ((span == _ITEM) | (span == _FIELD)).any():
            grown.extend([-1] * (e - s))
            continue
        grown.extend(_outline(units[s:e], s))
    state.seen = len(cols.messages)
    return grown.view

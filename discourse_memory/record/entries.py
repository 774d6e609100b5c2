"""The record's plain data: the items a note lists, their entries and the record.

Plain frozen values with no machinery behind them, so that :mod:`..plan` (which carries a
:class:`Record`) need not import how values are found and keyed.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Item:
    """One listed value with its key: ``text`` is what the note shows."""

    literal: int
    """Literal id in the conversation's columns (the first of ``covers``)."""
    unit: int
    """The unit the key was read from."""
    message: int
    text: str
    span: tuple[int, int] | None = None
    """Where ``text`` stands in the unit's text, when it is a verbatim span of it (items of
    one unit whose spans touch are shown as one span)."""
    covers: tuple[int, ...] = ()
    """Every literal id the item lists (a session's date line lists its date and time)."""
    header: bool = False
    """A session's date line: shown once above the entries it dates, not as an entry."""
    key: str | None = None
    """The structural key (``key: value`` items): values of one entry under the same key
    are shown as one ``key: v1, v2``."""
    value: str = ""
    """The value as shown after its key (for items with a key)."""
    row: str | None = None
    """When the unit is one record of a list, what heads the record as shown: a JSON
    object's first field (``flight_number: HAT110``), a nested list item's head (``Flight
    HAT136 (JFK to ATL)``, :mod:`.outline`). The record's values are listed together under
    it (``{flight_number: HAT110, price: 105}``), not merged by key with other records'
    (``flight_number: HAT110, HAT206; price: 105, 102`` no longer says whose price is whose)."""
    group: int = -1
    """The unit that heads the record ``row`` names (the JSON object's own unit, a list
    item's head): items of one group are listed together."""


_NEW = object.__new__
# (each of Item's fields by its slot; a field added to Item fails this unpacking at import)
_LITERAL, _UNIT, _MESSAGE, _TEXT, _SPAN, _COVERS, _HEADER, _KEY, _VALUE, _ROW, _GROUP = (
    getattr(Item, f).__set__ for f in Item.__slots__)


def built_item(literal: int, unit: int, message: int, text: str, span: tuple[int, int] | None,
               covers: tuple[int, ...], header: bool, key: str | None, value: str, row: str | None,
               group: int) -> Item:
    """``Item(literal, unit, ...)``, built by its fields' slots: a frozen dataclass's
    ``__init__`` sets each field through ``object.__setattr__``, twice this, and a turn
    widens a few hundred items, a fresh worker's first view reads thousands from the shared
    rows (tests/test_record_text.py and tests/test_analysis_cache.py hold it equal to ``Item``)."""
    new = _NEW(Item)
    _LITERAL(new, literal)
    _UNIT(new, unit)
    _MESSAGE(new, message)
    _TEXT(new, text)
    _SPAN(new, span)
    _COVERS(new, covers)
    _HEADER(new, header)
    _KEY(new, key)
    _VALUE(new, value)
    _ROW(new, row)
    _GROUP(new, group)
    return new


@dataclass(slots=True, eq=False, repr=False, match_args=False)
class _Building:
    """An :class:`Item` being built: its slots, settable (the fields below must be Item's, in
    its order: ``built_items`` gives each the Item class, which Python allows only between
    classes of the same slots, and tests/test_record_text.py holds the two equal)."""

    literal: int
    unit: int
    message: int
    text: str
    span: tuple[int, int] | None
    covers: tuple[int, ...]
    header: bool
    key: str | None
    value: str
    row: str | None
    group: int


if _Building.__slots__ != Item.__slots__:  # (a field of Item added or moved here alone: items would swap fields)
    raise ImportError("record.entries._Building must have Item's fields, in Item's order")


def built_items(literal: Iterable[int], unit: Iterable[int], message: Iterable[int], text: Iterable[str],
                span: Iterable[tuple[int, int] | None], covers: Iterable[tuple[int, ...]], header: Iterable[bool],
                key: Iterable[str | None], value: Iterable[str], row: Iterable[str | None], group: Iterable[int],
                ) -> list[Item]:
    """:func:`built_item` of each of the fields' values, column by column: a fresh worker's
    first view reads some 1,800 items from the shared rows (issue 49), and a settable object's
    fields set by its ``__init__`` and its class then made :class:`Item` take half the time of
    eleven slot setters called each."""
    out: list[Item] = list(map(_Building, literal, unit, message, text, span, covers, header, key,  # type: ignore[arg-type]
                               value, row, group))
    for new in out:
        new.__class__ = Item
    return out


def widened(item: Item, covers: tuple[int, ...], literal: int | None = None) -> Item:
    """``item`` listing ``covers`` instead, and keyed by ``literal`` if given
    (``dataclasses.replace(item, covers=covers, literal=literal)``)."""
    return built_item(item.literal if literal is None else literal, item.unit, item.message, item.text, item.span,
                      covers, item.header, item.key, item.value, item.row, item.group)


@dataclass(frozen=True, slots=True)
class Entry:
    """The listed values of one message."""

    message: int
    label: str
    """``#12 Melanie``, ``#9 tool get_reservation_details(M05KNL)``."""
    items: tuple[Item, ...]
    header: str | None = None
    """The session date line this message falls under, if the conversation has them."""


@dataclass(frozen=True, slots=True)
class Record:
    """What the note lists, and what it could not."""

    entries: tuple[Entry, ...]
    dropped: tuple[int, ...]
    """Literal ids of values left out of both the view and the note (the note was cut)."""
    unlisted: tuple[int, ...]
    """Literal ids not shown and not values (openers, system-only, code glue, keyless numbers)."""

    @property
    def listed(self) -> tuple[int, ...]:
        """Literal ids the note lists, in its order (a session's date line counts once)."""
        return tuple(dict.fromkeys(c for entry in self.entries for item in entry.items for c in item.covers))

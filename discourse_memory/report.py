"""The structured report of a compaction: per unit, what happened and why."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["RecordEntry", "Report", "UnitReport"]


@dataclass(frozen=True, slots=True)
class UnitReport:
    """One unit's fate."""

    id: str
    """The unit's id: its text's key and occurrence (``57c1f946b823164b#0``); a
    deduplicated unit's ``duplicate_of`` names another's."""
    kind: str
    """heading, list_item, field (``key: value``), table_row, code, sentence, line or tool_call."""
    message: int
    """Index of the input message the unit is in."""
    field: str
    """Where in the message: ``content``, ``content.2`` (the third part) or ``tool_calls.0``."""
    start: int
    """Start of the unit in that field's text (0-based character offset)."""
    end: int
    """End of the unit (exclusive): the unit is ``text[start:end]``."""
    decision: str
    """kept, clipped, deduplicated or omitted."""
    tokens_before: int
    """The unit's tokens in the input."""
    tokens_after: int
    """Its tokens in the view (0 unless kept or clipped)."""
    literals_kept: tuple[str, ...]
    """Literals of this unit that the output shows as text (here or in another unit)."""
    literals_recorded: tuple[str, ...]
    """Literals of this unit found only in the record."""
    literals_dropped: tuple[str, ...]
    """Literals of this unit in neither: the record was cut to fit."""
    duplicate_of: str | None = None
    """For a deduplicated unit, the id of the newer copy that won."""
    protected: bool = False
    """The unit's message was kept verbatim by ``keep_system`` / ``keep_last_turn``."""
    head_end: int | None = None
    """For a clipped unit, where the clip cuts: a character index into the unit's
    text (the field's ``[start, end)`` slice), so the part shown is
    ``text[:head_end]`` and the part cut is ``text[head_end:]``. None otherwise."""
    literals_unlisted: tuple[str, ...] = ()
    """Literals of this unit not shown and deliberately not listed, being no values: a
    capitalised word only ever seen opening a sentence, a value stated only in system
    messages, code caught between two string literals, a number without a key."""


@dataclass(frozen=True, slots=True)
class RecordEntry:
    """One line of the record: the values a message lost, with their keys."""

    message: int
    """Index of the input message the values come from."""
    label: str
    """How the note names the message: ``#12 Melanie``, ``#9 get_reservation_details(M05KNL)``."""
    items: tuple[str, ...]
    """Each value with its key, exactly as the note shows it."""
    values: tuple[str, ...]
    """The literal each item lists, in the same order."""
    header: str | None = None
    """The session date line the message falls under (shown once above its entries)."""


@dataclass(frozen=True, slots=True)
class Report:
    """What a compaction did, unit by unit, and what its note records."""

    units: tuple[UnitReport, ...]
    """Every unit of the input, in order."""
    record: tuple[str, ...]
    """Literals listed in the note, in the note's order."""
    dropped: tuple[str, ...]
    """Literals left out of both the text and the record."""
    note: str | None
    """The note exactly as the model receives it (None when nothing was compacted)."""
    dropped_messages: tuple[int, ...]
    """Input messages with nothing left in the view (their literals are in the record)."""
    orphan_tool_results: tuple[int, ...]
    """Tool results whose call is not in the input: never shown (providers reject them)."""
    protection: str = "system + newest turn"
    """What was kept verbatim: less than asked when the budget made protection degrade."""
    entries: tuple[RecordEntry, ...] = ()
    """The record, entry by entry, in the note's order."""

    @property
    def counts(self) -> dict[str, int]:
        """Units per decision: ``{"kept": n, "clipped": n, "deduplicated": n, "omitted": n}``."""
        out = {"kept": 0, "clipped": 0, "deduplicated": 0, "omitted": 0}
        for u in self.units:
            out[u.decision] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        """Every field as plain data (units and entries as dicts), plus ``counts``."""
        d = asdict(self)
        d["counts"] = self.counts
        return d

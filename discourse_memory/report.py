"""The structured report of a compaction: per unit, what happened and why."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

__all__ = ["RecordEntry", "Report", "UnitReport"]


@dataclass(frozen=True, slots=True)
class UnitReport:
    """One unit's fate."""

    id: str
    kind: str
    message: int
    field: str
    start: int
    end: int
    decision: str
    """kept, clipped, deduplicated or omitted."""
    tokens_before: int
    tokens_after: int
    literals_kept: tuple[str, ...]
    """Literals of this unit that the output shows as text (here or in another unit)."""
    literals_recorded: tuple[str, ...]
    """Literals of this unit found only in the record."""
    literals_dropped: tuple[str, ...]
    """Literals of this unit in neither: the record was cut to fit."""
    duplicate_of: str | None = None
    """For a deduplicated unit, the id of the newer copy that won."""
    protected: bool = False
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
    units: tuple[UnitReport, ...]
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
        out = {"kept": 0, "clipped": 0, "deduplicated": 0, "omitted": 0}
        for u in self.units:
            out[u.decision] += 1
        return out

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["counts"] = self.counts
        return d

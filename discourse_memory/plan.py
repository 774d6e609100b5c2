"""``Plan``: what each unit of a conversation becomes in one view. Made by :mod:`.fit`,
turned into messages by :mod:`.render`; immutable once made."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import numpy as np

from .record.entries import Record

__all__ = ["CLIPPED", "DECISION_NAMES", "DEDUPLICATED", "KEPT", "OMITTED", "PLACEHOLDER", "Plan"]

OMITTED, CLIPPED, KEPT, DEDUPLICATED = 0, 1, 2, 3
DECISION_NAMES = ("omitted", "clipped", "kept", "deduplicated")
PLACEHOLDER = "…"
"""What a tool result shows when only its call is kept, and where text was left out."""


@dataclass(frozen=True, eq=False)
class Plan:
    """The decisions of one view: final (its arrays are read-only)."""

    decision: np.ndarray
    """``decision[i]`` for unit ``i`` of the columns: OMITTED, CLIPPED, KEPT or DEDUPLICATED."""
    winner: np.ndarray
    """For each unit, the unit holding its newest copy (itself if none)."""
    calls_present: frozenset[int]
    """Assistant messages whose tool calls (and so all their results) are shown."""
    protected: frozenset[int]
    """Messages shown verbatim."""
    heads: Mapping[int, int]
    """Clipped units cut later than their own head: unit -> character index."""
    record: Record
    protection: str
    """What was protected ("system + newest turn", ...): less than asked when the budget
    made protection degrade."""

    def __post_init__(self) -> None:
        self.decision.flags.writeable = False
        self.winner.flags.writeable = False

    @property
    def counts(self) -> tuple[int, int, int]:
        """Units omitted, clipped and deduplicated."""
        n = np.bincount(self.decision, minlength=4)
        return int(n[OMITTED]), int(n[CLIPPED]), int(n[DEDUPLICATED])

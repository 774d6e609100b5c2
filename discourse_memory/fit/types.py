"""The plain types the fitting stage passes between its steps: the scene a fit reads, every
option of a view ranked (:class:`Ranked`), what a take chose (:class:`Chosen`), and the
option kinds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from ..columns import UNIT_KINDS, Columns
from ..options import Options
from ..plan import Plan
from ..record import LINE_KINDS

if TYPE_CHECKING:
    from ..record import Item
    from .take import Journal
    from .trail import Trail


_CALLS, _OPEN, _CLIP, _REST, _FULL, _ITEM, _LONG = range(7)
_LINE_KIND = np.array([k in LINE_KINDS for k in UNIT_KINDS])
_LISTED = np.array([k in ("line", "list_item", "table_row", "field") for k in UNIT_KINDS])
_HEADING = UNIT_KINDS.index("heading")
_CALL = UNIT_KINDS.index("tool_call")


@dataclass(frozen=True)
class Scene:
    """What one fit reads: a conversation's columns and the view asked of it."""

    cols: Columns
    budget: int
    options: Options
    relevance: np.ndarray | None
    """Per unit, its relevance to the focus (None: no focus)."""
    asks: bool
    """The focus is a question (see ``Policy.question``)."""
    remark: bool
    """The focus is a chat message that asks nothing (see ``Policy.remark``)."""
    tag: str
    count: Callable[[str], int]
    measure: Callable[[Plan], tuple[int, str]]
    """The exact tokens of a plan's rendered view (messages, overheads and note) and its note."""
    head: Callable[[str, int], int] = field(default=lambda text, n: len(text))
    beyond: tuple[int, int] | None = None
    """The messages before the view's horizon (see :mod:`.horizon`), named in the note."""
    terms: frozenset[str] = frozenset()
    """The words and literals of a focus that asks a question, lower case (the keys it names are listed first: ``Policy.key_share``)."""
    frames: np.ndarray | None = None
    """Per message, its framing tokens (``options.overhead`` of it), when known ahead."""

    def frame(self, i: int) -> int:
        """The framing tokens of message ``i`` (see ``Options.message_overhead``)."""
        if self.frames is not None:
            return int(self.frames[i])
        return self.options.overhead(self.cols.messages[i].raw)


@dataclass(kw_only=True)
class Ranked:
    """Every option of a view, ranked; and the state an option's taking reads."""

    base: np.ndarray  # decisions before any option (protected kept, repeats dropped)
    calls_forced: frozenset[int]
    protected: frozenset[int]
    winner: np.ndarray
    opening: np.ndarray  # per unit, what a message's opening shows of it
    in_short: np.ndarray  # units that open with their short message
    kinds: np.ndarray
    targets: np.ndarray
    costs: np.ndarray
    order: np.ndarray
    call_cost: dict[int, float]
    owner_of_msg: np.ndarray
    owner_u: np.ndarray
    msg_overhead: np.ndarray  # tokens a message's first shown piece pays (label, format)
    item_of: list[Item]  # record items, by option target
    item_covers: np.ndarray  # every literal id some item lists (their covers, concatenated)
    value_cost: dict[int, float]  # a keyed item's cost after another value of its key in its entry
    entry_cost: dict[int, float]  # tokens of a record entry's label, by message
    header_of: list[str | None]
    header_cost: dict[str, float]
    header_items: dict[str, int]  # session date line -> its item
    values_line: float  # tokens of the line that opens the record's entries
    shown_lits: np.ndarray  # literals shown by the base decisions
    u_msg: np.ndarray
    lits: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]  # lit_ptr, lit_idx, head_ptr, head_idx
    call_units: dict[int, list[int]]  # assistant message -> its tool-call units
    msg_start: np.ndarray
    long_head: Callable[[int, int], tuple[int, list[int]]]  # (unit, step) -> its head's end, literals shown
    item_order: np.ndarray  # record items, best value per token first
    reserve: float  # the record's first claim (see RECORD_SHARE)
    note_cap: float  # the most the record's items may take (see Policy.note_cap)
    beyond: frozenset[int]  # values the record could list but made no item of (see Limits.candidates_min)
    row_cost: dict[int, float]  # tokens of a listed record's head and braces, by group
    date_unit: np.ndarray  # per message, the date line unit of its session (-1: none)
    date_cost: dict[int, float]  # tokens of showing a session's date line, by its unit
    list_head: np.ndarray  # per unit, the list item or label it falls under (-1: none; see outline)
    head_tokens: np.ndarray  # per unit, its tokens shown whole (a list head is shown so)
    question_unit: np.ndarray  # per message, the unit of the question it answers (-1: none)
    question_cost: np.ndarray  # per message, the tokens of showing that unit's opening
    cols: Columns
    mark_cost: float = 1.0  # tokens of a gap mark as the renderer writes it (`` …``)
    mark_estimate: float = 0.0  # the mark the ranking added to each unit's cost (Policy.mark_tokens)
    labels: dict[int, str] = field(default_factory=dict)  # message -> its record label (see plan._label)

    @cached_property
    def lit_lists(self) -> tuple[memoryview, memoryview, memoryview, memoryview]:
        """``lits`` read value by value, for the take's unit-at-a-time reads (shared by its
        passes): views of the columns' numbers, not lists of them (four lists of the whole
        literal index were 1.7 ms of a view at 200,000 messages)."""
        return tuple(_flat(a) for a in self.lits)  # type: ignore[return-value]

    @cached_property
    def lists(self) -> tuple[memoryview, ...]:
        """What the take reads option by option, read value by value as lists are (the same
        for each of its passes): per message its overhead, question unit and that unit's
        cost; the record's items best first and their costs; the options' kinds, targets and
        costs in rank order, the least cost from each position on (the take stops when the
        room is below it), and the least cost of each block of sixteen options in rank order
        (``take._next_fitting``)."""
        costs = self.costs[self.order]
        floor = np.minimum.accumulate(costs[::-1])[::-1] if len(costs) else costs
        padded = np.concatenate([costs, np.full(-len(costs) % 16, np.inf)])
        blocks = padded.reshape(-1, 16).min(axis=1) if len(padded) else padded
        return tuple(_flat(a) for a in (
            self.msg_overhead, self.question_unit, self.question_cost, self.item_order, self.costs[self.kinds == _ITEM],
            self.kinds[self.order], self.targets[self.order], costs, floor, blocks))

    @cached_property
    def item_lists(self) -> tuple[list[int], list[bool]]:
        """Per record item, its message and whether it is a session's date line (read by the
        take's bound on an item, thousands of times a pass: see ``take._take``)."""
        items = self.item_of  # (comprehensions: an attrgetter call per item was twice their time)
        return [it.message for it in items], [it.header for it in items]

    @cached_property
    def present(self) -> np.ndarray:
        """Per literal, whether some unit states it (the same for each plan of a view)."""
        return self.cols.literal_counts(np.ones(len(self.base), dtype=bool)) > 0

    @cached_property
    def candidate_lits(self) -> np.ndarray:
        """Per literal, whether the record could list it (an item covers it, or it was a
        candidate made no item: see ``beyond``)."""
        mask = np.zeros(len(self.shown_lits), dtype=bool)
        mask[self.item_covers] = True
        if self.beyond:
            mask[list(self.beyond)] = True
        return mask


def _flat(values: np.ndarray) -> memoryview:
    """An array read value by value (as a list reads: Python ints or floats), as a view of
    its numbers (a copy only where they are not 64-bit already): a list of every message or
    literal row of a long history cost a conversion per view, and, alive through the take,
    was walked by each young collection of the garbage collector (numbers hold no objects)."""
    kind = np.int64 if values.dtype.kind in "iub" else np.float64
    return memoryview(np.ascontiguousarray(values, dtype=kind))


@dataclass
class Chosen:
    decision: np.ndarray
    calls_present: set[int]
    items: list[Item]
    heads: dict[int, int] = field(default_factory=dict)
    spent: float = 0.0  # the room the options took, by the estimates
    steps: list[tuple[int, float]] = field(default_factory=list)  # (rank position, room spent before it)
    journal: Journal | None = None  # how the take made these choices (see take.rewound)
    noted: float = 0.0  # of ``spent``, what the record's items, entry labels and date lines took
    trail: Trail | None = None  # what a take of more room needs to go on from this one (see trail.py)

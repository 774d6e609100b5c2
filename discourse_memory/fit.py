"""The fitting stage: every decision of a view (its weights are the :class:`~.policy.Policy` of the view's options).

``fit(scene) -> Plan``. Nothing happens when the conversation fits and is well formed
(the caller checks that first). Otherwise, in this order:

1. **Protect** (:func:`protections`): system messages and the newest turn are kept
   verbatim; when they do not fit, protection degrades in steps (system + the newest
   message and its open tool-call chain, then the newest message alone) unless
   ``strict``. A tool call whose result is protected is shown too.
2. **Deduplicate**: a unit of at least ``dedup_min_tokens`` tokens whose text appears
   again in a newer message is dropped; the newest copy wins.
3. **Rank** every option by value per token: an assistant's tool calls (with a
   placeholder for each result), a short message's opening, a unit's clip, the rest of
   a clipped unit, a unit whole, and a record item (one left-out value with its key).
   Value: a unit's opening (for units that say something) plus each content word and
   literal it states, rarer words more, newer messages up to ``1 + RECENCY`` times the
   oldest, tool calls and headings more; plus what it shares with the **focus** (the
   newest turn, :mod:`.focus`) and, for units around a match, its context (the rest of
   the turn, the question it answers or the answer it got, the call of a matching
   result, the session's date line). A record item is worth ``Policy.record_value`` of a value
   shown in its text, more when the focus names it or when it is an id of a list the
   agent is working through and has not passed to a call yet (:func:`pending_ids`).
4. **Take** options best first while they fit (a message's first shown piece pays its
   label and chat-format overhead, and in a dialogue of dated sessions its session's
   date line, shown with it; a record entry pays its label and date line); a value
   shown by a unit taken later leaves the record, and its item's room is spent again.
5. **Check** the rendered view's exact token count; decide again with the estimate's
   error taken off (or the room it left added) until it fits, a few passes at most.
6. **Longer heads**: room left goes to the heads of clipped units, newest first.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
import bisect
import math
import re
from dataclasses import dataclass, field
from functools import cached_property
from types import MappingProxyType
from typing import Any

import numpy as np

from .actions import answers_action, reads_code
from .columns import UNIT_KINDS, Columns
from .errors import BudgetTooSmallError
from .literals import PATTERN_KINDS, Literal
from .messages import SYSTEM_ROLES
from .options import Options
from .policy import Policy
from .outline import head_text, list_heads
from .plan import CLIPPED, DEDUPLICATED, KEPT, OMITTED, PLACEHOLDER, Plan
from .replies import asks, question_units
from .record.entries import Entry, Item, Record
from .record.examples import comment_units, harness_units, prompt_units, system_messages, system_only_literals, \
    talk_counts
from .record.items import NAMED_NUMBER, first_statements, item_for, short_item_span
from .record.json_keys import as_read
from .record.keys import title_case
from .record.labels import date_headers, is_date_header, message_label, output_command, result_call
from .record.lines import LINE_KINDS, line_text
from .record.noise import not_values
from .record.note import VALUES_LINE, render_note
from .record.text import sanitize
from .units import Unit, before_values, clip_cost, head_literal_texts

__all__ = ["Scene", "fit", "protections"]

# -- bounds of the work and value kinds (the weights are the Policy's: see .policy) -------
OUTCOME_LINES = 3
VERDICT_CHARS = 2_000
"""A line is read as a verdict by its last this many characters (a minified line is long)."""
TYPED_KINDS = frozenset({"identifier", "email", "url", "path", "amount", "datetime", "date", "version", "phone"})
"""The kinds of value worth ``Policy.typed_value``; a number is worth ``Policy.number_value``
and every other kind (time, percent, quoted, name, quantity, a model's entities)
``Policy.plain_value``."""
OCCURRENCES = 4
"""How many of a value's newest occurrences the record looks at for one with a key or a
context word (see ``_items``)."""
LONE_DATES = False
"""Whether a session's date line may be listed alone, for its own values: "[7:06 pm on 9
January, 2023]" says nothing of what happened then. It is listed above the entries of its
session instead (see ``_take``)."""
_SENTINEL = re.compile(r"(?<![A-Z0-9_])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){2,}")
"""A word in capitals joined by underscores, where a harness instructs: the sentinel it waits
for (``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` submits a mini-swe-agent run), a value the
agent's last step needs, not boilerplate."""
CANDIDATES_MIN = 256
"""Record candidates made items: the best (before the per-unit damping) ``budget`` of them,
at least this many. An item costs two tokens at the least, so this is twice the most a
record can list."""
MAX_HEADS = 3
"""A shown list item brings at most this many heads above it (see :mod:`.outline`)."""
# A short message opens whole: every unit's opening at once.
SHORT_UNITS = 12
SHORT_TOKENS = 400
MARK_TOKENS = 1.5
"""Estimated tokens of the gap mark a shown unit brings (``\n…\n``): an isolated fragment
costs more than its own tokens."""
LARGE_MIN_TOKENS = 64
"""A tool output this short is never compacted for its size: at a budget of a few dozen
tokens, compacted, a 20-token observation showed nothing of itself (a view of the note
alone); kept, it raises the minimum budget by what it needs."""
LARGE_OUTPUT = " (a tool output over half the budget compacted)"
"""How the report's protection says so."""
# -- fitting the exact count -------------------------------------------------------------
MARGIN_SHARE = 0.005
PASSES = 5
ENOUGH_TOKENS = 16
ENOUGH_SHARE = 0.02
"""Room worth another pass or longer heads: at least this many tokens and share of the budget."""
LENGTHEN_MAX_UNITS = 8
LONG_SHARE = 0.2
LONG_STEPS = 4
"""A clipped unit too long to show whole (a 1 MB log line, a minified JSON result) may
get a longer head instead, in up to ``LONG_STEPS`` steps of ``LONG_SHARE`` of the room,
each ranked like any option (and taken only after the step before it)."""

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


@dataclass(frozen=True)
class _Protection:
    name: str
    system: bool
    turn: str  # "turn", "chain", "message" or "none"


def protections(options: Options) -> list[_Protection]:
    """The protections to try in turn (see :class:`~discourse_memory.Options`)."""
    first = _Protection(_name(options.keep_system, "turn" if options.keep_last_turn else "none"),
                        options.keep_system, "turn" if options.keep_last_turn else "none")
    steps = [first]
    if options.strict:
        return steps
    if options.keep_last_turn:
        if options.keep_system:
            steps.append(_Protection(_name(True, "chain"), True, "chain"))
        steps.append(_Protection(_name(False, "message"), False, "message"))
    elif options.keep_system:
        steps.append(_Protection(_name(False, "none"), False, "none"))
    if options.relax and steps[-1].turn != "none":
        steps.append(_Protection(_name(False, "none"), False, "none"))
    return steps


def _name(system: bool, turn: str) -> str:
    parts = (["system"] if system else []) + (
        {"turn": ["newest turn"], "chain": ["newest message and its tool-call chain"],
         "message": ["newest message"], "none": []}[turn])
    return " + ".join(parts) or "nothing"


def _outputs(cols: Columns) -> np.ndarray:
    """Per message: a tool's output (see :func:`is_tool_output`), or a system message."""
    memo = cols.derived.setdefault("tool_output", [])
    memo.extend(is_tool_output(cols, i) or cols.messages[i].role in SYSTEM_ROLES for i in range(len(memo), len(cols)))
    return cols.grown("_outputs", memo, bool)[:len(cols)]


# What a verdict says: tests passed or failed, an error or exception, success.
_VERDICT = re.compile(r"(?i:\b(?:passed|failed|failures?|errors?|succeeded|successful(?:ly)?|skipped|xfailed"
                      r"|ran \d+ tests?|no such|not found|denied|refused|timed? ?out)\b)|\bOK\b"
                      r"|[A-Za-z_][\w.]{0,80}(?:Error|Exception|Warning)\b")  # (bounded: linear)
_TAG_LINE = re.compile(r"\s*(?:</?[A-Za-z_][\w-]*>\s*)+")  # "</output>", "<returncode>0</returncode>" is no tag alone


def outcome_lines(cols: Columns, outputs: np.ndarray, info: np.ndarray) -> np.ndarray:
    """Per unit: the last line of a tool's text output that says something (its verdict: see
    ``Policy.outcome``); not a closing tag, not a field of structured output, not the last line of
    a file printed or of a listing."""
    u_msg = cols.u_msg.view
    kind = cols.u_kind.view
    line = UNIT_KINDS.index("line")
    tags = cols.derived.setdefault("tag_lines", [])  # per unit: a line of markup tags alone (read once)
    units = cols.units
    tags.extend(kind[u] == line and _TAG_LINE.fullmatch(units[u].text) is not None for u in range(len(tags), len(u_msg)))
    # (a file printed or a listing ends where the file or the tree does: no verdict)
    ran = outputs & ~reading_messages(cols, outputs) & ~listing_messages(cols, outputs)
    rows = np.flatnonzero(ran[u_msg] & (kind == line) & (info > 0) & ~cols.grown("tag_lines", tags, bool)[:len(u_msg)])
    last = np.full(len(cols), -1, dtype=np.int64)
    np.maximum.at(last, u_msg[rows], rows)
    # (an output of a line or two is all verdict: "Transfer successful", "17645.0")
    last[np.bincount(u_msg[rows], minlength=len(cols)) < OUTCOME_LINES] = -1
    out = np.zeros(len(u_msg), dtype=bool)
    said = cols.derived.setdefault("verdicts", {})  # unit -> whether it reads as a verdict (read once)
    for u in last[last >= 0].tolist():  # (one line a message: read by its end)
        hit = said.get(u)
        if hit is None:
            hit = said[u] = _VERDICT.search(units[u].text[-VERDICT_CHARS:]) is not None
        out[u] = hit
    return out


LISTING_SAMPLE = 60
"""How many units of a tool's output :func:`listing_messages` reads to tell a listing."""
_ONE_NAME = re.compile(r"[\w.@+~%-]+:?")  # a line of one name ("docs", "CITATION", "./src:")


def listing_messages(cols: Columns, outputs: np.ndarray) -> np.ndarray:
    """Per message: a tool's output that lists names (``ls -R``, ``find``): of its first
    :data:`LISTING_SAMPLE` units, at least eight are lines and three in five of those
    only list names (:func:`listing_line`, or one name: ``docs``, ``CITATION``; a
    warning above the listing aside). ``outputs``: :func:`_outputs`. Read once per message,
    a few units each."""
    memo = cols.derived.setdefault("listing_messages", [])
    if len(memo) < len(cols):
        starts = cols.msg_start.view
        kinds = cols.u_kind.view
        for i in range(len(memo), len(cols)):
            hit = False
            if outputs[i] and cols.messages[i].role not in SYSTEM_ROLES:
                s = int(starts[i])
                lines = [u for u in range(s, min(int(starts[i + 1]), s + LISTING_SAMPLE)) if _LINE_KIND[kinds[u]]]
                named = sum(_ONE_NAME.fullmatch(t) is not None or listing_line(t)
                            for t in (cols.units[u].text.strip() for u in lines))
                hit = len(lines) >= 8 and 5 * named >= 3 * len(lines)
            memo.append(hit)
    return cols.grown("listing_messages", memo, bool)[:len(cols)]


def reading_messages(cols: Columns, outputs: np.ndarray) -> np.ndarray:
    """Per message: a tool's output of a command or call that prints a file of code
    (:func:`.actions.reads_code`: ``cat a.py``, ``nl -ba a.py | sed -n 10,20p``, ``Read``).
    ``outputs``: :func:`_outputs`. Read once per message."""
    memo = cols.derived.setdefault("reading_messages", [])
    for i in range(len(memo), len(cols)):
        hit = False
        m = cols.messages[i]
        if outputs[i] and m.role == "tool":
            call = result_call(cols, m)
            hit = call is not None and reads_code(tool=call.name, arguments=call.arguments)
        elif outputs[i]:
            hit = reads_code(output_command(cols, m) or "")
        memo.append(hit)
    return cols.grown("reading_messages", memo, bool)[:len(cols)]


_FAILURE = re.compile(r"\s{0,8}(?:[\w.]{0,40}(?:Error|Exception)\b|error\b|ERROR\b|FAILED\b|fatal:|failed\b"
                      r"|Traceback \(most recent call last\))")


def failed_result(cols: Columns, r: int) -> bool:
    """A tool result that opens by reporting a failure (``Error: ...``, a traceback)."""
    known = cols.derived.setdefault("failed", {})
    hit = known.get(r)
    if hit is None:
        text = next((tf.text for tf in cols.messages[r].texts if tf.text.strip()), "")
        hit = known[r] = _FAILURE.match(text[:200]) is not None
    return hit


def is_tool_output(cols: Columns, i: int) -> bool:
    """A tool's output: a ``tool`` message, or (text agents) a user message right after
    an assistant action in a code block."""
    return cols.messages[i].role == "tool" or answers_action(cols.messages, i)


def _unit_kind_weights(pol: Policy) -> np.ndarray:
    """Per unit kind (``UNIT_KINDS``), what a unit of it weighs in the view."""
    weights = {"tool_call": pol.call_weight, "field": pol.field_weight, "table_row": pol.row_weight}
    return np.array([weights.get(k, 1.0) for k in UNIT_KINDS])


def _kind_values(pol: Policy, kind_names: Sequence[str]) -> np.ndarray:
    """Per kind of value (``kind_names``), what a listed value of it is worth."""
    return np.array([pol.typed_value if k in TYPED_KINDS else pol.number_value if k == "number" else pol.plain_value
                     for k in kind_names])


def _protected(cols: Columns, p: _Protection, budget: int, pol: Policy) -> tuple[frozenset[int], bool]:
    """The messages a protection step keeps verbatim, and whether a tool output it would
    have kept was too large (see ``Policy.result_share``)."""
    msgs = cols.messages
    keep: set[int] = set()
    if p.system:
        keep.update(np.flatnonzero(system_messages(cols)).tolist())
    if msgs and p.turn != "none":
        last = msgs[-1].index
        if p.turn == "turn":
            last_user = next((m.index for m in reversed(msgs) if m.role == "user"), None)
            keep.update(range(last_user if last_user is not None else last, len(msgs)))
        elif p.turn == "chain":
            keep.update(cols.pairs.chain_of(last))
        else:
            keep.add(last)
    # A tool's output is the model's to read, not the user's words: one too large for
    # its share of the budget is compacted like the rest (its focus keeps what matters).
    costs = cols.msg_cost.view
    large = {i for i in keep if costs[i] > max(pol.result_share * budget, LARGE_MIN_TOKENS) and is_tool_output(cols, i)}
    return frozenset(keep - large), bool(large)


def _minimum(scene: Scene, step: _Protection, frame: int) -> int:
    """The smallest budget the last protection step fits: what must be shown, and the
    note saying what it could not list. At a larger budget a tool output may no longer
    be over half of it, and so be protected: the minimum is one that holds there too."""
    cols = scene.cols
    budget = scene.budget
    for _ in range(8):
        protected, _large = _protected(cols, step, budget, scene.options.policy)
        ranked = _rank(scene, protected)
        need = max(_fixed_cost(cols, protected, scene) + frame,
                   scene.measure(_plan(scene, ranked, _take(ranked, 0.0), step.name))[0])
        if need <= budget:
            break
        budget = need
    # A well-formed conversation that fits whole is returned as it is: no more is needed.
    # (Not a memory's window: beyond its horizon, a view always has its note.)
    whole = sum(int(cols.msg_cost.view[m.index]) + scene.frame(m.index) for m in cols.messages)
    if whole < budget and cols.pairs.well_formed(cols.messages) and scene.beyond is None:
        budget = whole
    return max(budget, scene.budget + 1)


def fit(scene: Scene) -> Plan:
    """The plan of the view (see the module docstring); raises
    :class:`~discourse_memory.BudgetTooSmallError` when not even the last protection
    step fits."""
    cols, budget, options = scene.cols, scene.budget, scene.options
    frame = scene.count(_frame(scene.tag, len(cols.units), bool(cols.u_clippable.view.any()), scene.beyond,
                               len(cols) if options.recall else None)) + \
        options.overhead({"role": options.note_role, "content": ""})
    steps = protections(options)
    for k, step in enumerate(steps):
        protected, large = _protected(cols, step, budget, scene.options.policy)
        if large:
            step = _Protection(step.name + LARGE_OUTPUT, step.system, step.turn)
        fixed = _fixed_cost(cols, protected, scene) + frame
        if fixed <= budget:
            try:
                return _fit(scene, step, protected, fixed)
            except BudgetTooSmallError:  # the exact count of the bare view overflows
                pass
        if k == len(steps) - 1:
            raise BudgetTooSmallError(budget, _minimum(scene, steps[-1], frame), step.name)
    raise AssertionError("unreachable: the last protection step returns or raises")


def _frame(tag: str, units: int, clippable: bool, beyond: tuple[int, int] | None, recall: int | None) -> str:
    """The note's frame at its longest for this conversation: every count at most the
    number of units; the clipped clause only if some unit can be clipped."""
    most = max(units, 1)
    return render_note(tag, most, most if clippable else 0, most, Record((), (), ()), recall=recall, beyond=beyond)


def _fixed_cost(cols: Columns, protected: frozenset[int], scene: Scene) -> int:
    costs = cols.msg_cost.view
    fixed = sum(int(costs[i]) + scene.frame(i) for i in protected)
    # Calls whose results are protected are shown too, with placeholders for other results.
    for a, rs in cols.pairs.results.items():
        if a not in protected and any(r in protected for r in rs):
            fixed += int(costs[a]) + scene.frame(a)
            fixed += sum(scene.count(PLACEHOLDER) for r in rs if r not in protected)
    return fixed


def _fit(scene: Scene, step: _Protection, protected: frozenset[int], fixed: int) -> Plan:
    budget = scene.budget
    ranked = _rank(scene, protected)
    margin = max(2, int(budget * MARGIN_SHARE))
    enough = max(ENOUGH_TOKENS, int(ENOUGH_SHARE * budget))
    slack = budget - fixed - margin
    best: tuple[Plan, int] | None = None
    smallest: tuple[Plan, int] | None = None
    for _ in range(PASSES):
        chosen = _take(ranked, max(slack, 0.0))
        plan = _plan(scene, ranked, chosen, step.name)
        tokens, _ = scene.measure(plan)
        if tokens <= budget and (best is None or tokens > best[1]):
            best = (plan, tokens)
        if smallest is None or tokens < smallest[1]:
            smallest = (plan, tokens)
        over = tokens - budget
        # The estimates err by a share of what they count (gap marks between units shown
        # side by side, labels): the room left or lacking is scaled by that share.
        scale = 1.0
        if chosen.spent > 0 and tokens > fixed:
            scale = min(max(chosen.spent / (tokens - fixed), 0.5), 2.0)
        if over > 0:
            slack -= (over + margin) * max(scale, 1.0)
        elif -over >= enough and best is not None and best[0] is plan:
            slack += (-over - margin) * 0.9 * scale
        else:
            break
    if best is None:
        # Even the estimates' corrections overflow: show only what must be shown.
        plan = _plan(scene, ranked, _take(ranked, 0.0), step.name)
        tokens, _ = scene.measure(plan)
        if tokens > budget:
            raise BudgetTooSmallError(budget, tokens, step.name)
        best = (plan, tokens)
    plan, tokens = best
    if budget - tokens >= enough and bool((plan.decision == CLIPPED).any()):
        plan = _lengthen(scene, ranked, plan, tokens)
    return plan


# -- ranking -----------------------------------------------------------------------------


@dataclass
class _Ranked:
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
    beyond: frozenset[int]  # values the record could list but made no item of (see CANDIDATES_MIN)
    row_cost: dict[int, float]  # tokens of a listed record's head and braces, by group
    date_unit: np.ndarray  # per message, the date line unit of its session (-1: none)
    date_cost: dict[int, float]  # tokens of showing a session's date line, by its unit
    list_head: np.ndarray  # per unit, the list item or label it falls under (-1: none; see outline)
    head_tokens: np.ndarray  # per unit, its tokens shown whole (a list head is shown so)
    question_unit: np.ndarray  # per message, the unit of the question it answers (-1: none)
    question_cost: np.ndarray  # per message, the tokens of showing that unit's opening
    cols: Columns
    labels: dict[int, str] = field(default_factory=dict)  # message -> its record label (see label)

    def label(self, m: int) -> str:
        """Message ``m``'s label in the record (each plan of a view lists mostly the same
        messages: read once per view)."""
        label = self.labels.get(m)
        if label is None:
            label = self.labels[m] = message_label(self.cols, self.cols.messages[m])
        return label

    @cached_property
    def lit_lists(self) -> tuple[list[int], list[int], list[int], list[int]]:
        """``lits`` as lists, for the take's unit-at-a-time reads (shared by its passes)."""
        return tuple(a.tolist() for a in self.lits)  # type: ignore[return-value]

    @cached_property
    def lists(self) -> tuple[list[Any], ...]:
        """What the take reads option by option, as lists (the same for each of its passes):
        per message its overhead, question unit and that unit's cost; the record's items best
        first and their costs; the options' kinds, targets and costs in rank order, and the
        least cost from each position on (the take stops when the room is below it)."""
        costs = self.costs[self.order]
        floor = np.minimum.accumulate(costs[::-1])[::-1].tolist() if len(costs) else []
        return (_flat(self.msg_overhead), _flat(self.question_unit), _flat(self.question_cost),
                self.item_order.tolist(), self.costs[self.kinds == _ITEM].tolist(), self.kinds[self.order].tolist(),
                self.targets[self.order].tolist(), costs.tolist(), floor)

    @cached_property
    def candidate_lits(self) -> np.ndarray:
        """Per literal, whether the record could list it (an item covers it, or it was a
        candidate made no item: see ``beyond``)."""
        mask = np.zeros(len(self.shown_lits), dtype=bool)
        mask[[c for it in self.item_of for c in it.covers]] = True
        mask[list(self.beyond)] = True
        return mask


def _rank(scene: Scene, protected: frozenset[int]) -> _Ranked:
    cols, options = scene.cols, scene.options
    pol = options.policy
    n_msgs = len(cols)
    units = cols.units
    n_units = len(units)
    u_msg = cols.u_msg.view
    kind = cols.u_kind.view
    is_call = kind == _CALL
    tokens = cols.u_tokens.view
    results, orphans, unanswered = cols.tool_groups()
    result_owner = cols.pairs.owner

    prot_msg = np.zeros(n_msgs, dtype=bool)
    prot_msg[list(protected)] = True
    calls_forced = {result_owner[r] for r in protected if r in result_owner}
    calls_forced |= {a for a in protected if a in results}
    prot_u = prot_msg[u_msg]
    decision = np.zeros(n_units, dtype=np.int8)
    decision[prot_u] = KEPT
    forced_msg = np.zeros(n_msgs, dtype=bool)
    forced_msg[list(calls_forced)] = True
    decision[is_call & forced_msg[u_msg]] = KEPT

    winner = cols.key_newest.view[cols.u_key.view]
    # A repeat, in a newer message or later in its own, leaves only its newest copy.
    dedup = (~prot_u) & (~is_call) & (winner != np.arange(n_units)) & (tokens >= options.dedup_min_tokens)
    if dedup.any():
        # The same text read in another message may hold other values (a message's language
        # and a paragraph decide a piece's names): a copy whose newest copy lacks one of its
        # values is no repeat of it, or that value would be neither shown nor listed.
        lit_idx = cols.lit_idx.view
        owner = cols.unit_owner(cols.lit_ptr.view)
        n_lits = max(len(cols.lit_text), 1)
        winning = np.zeros(n_units, dtype=bool)
        winning[winner[dedup]] = True
        held = np.flatnonzero(winning[owner])  # (only the rows of units that won a repeat)
        has = owner[held].astype(np.int64) * n_lits + lit_idx[held]
        rows = np.flatnonzero(dedup[owner])
        lacking = ~np.isin(winner[owner[rows]].astype(np.int64) * n_lits + lit_idx[rows], has)
        dedup[owner[rows[lacking]]] = False
    decision[dedup] = DEDUPLICATED

    # What a unit says: its values, and its content words weighted by rarity.
    system_only = system_only_literals(cols)
    in_system = system_messages(cols)[u_msg]
    not_said = not_values(cols, np.zeros_like(system_only))
    noise = not_said | system_only
    # A value only the system prompt states is no entry of the record (the caller wrote the
    # prompt and has it), but where the prompt itself is cut to fit, it is what its sentence
    # says: "Each extra baggage is 50 dollars." (An example's value in another message
    # is still worth nothing: ``s/old_string/new_string/g``.)
    if system_only.any():
        not_said |= system_only & ~(cols.literal_counts(in_system) > 0)
    kind_value = _kind_values(pol, cols.lit_kind_names)
    value = np.where(not_said, 0.0, kind_value[cols.lit_kind.view] if len(kind_value) else 0.0)
    # (A call's words are for the focus to find it by: what it is worth is its values.)
    words = np.where(is_call, 0.0, cols.word_weights(pol.idf_power))
    info = cols.per_unit_sum(value) + words
    head_info = cols.per_unit_sum(value, head=True) + cols.u_head_share.view * words
    age = np.arange(n_msgs)[::-1].astype(np.float64)
    recency = 1.0 + pol.recency * np.arange(n_msgs) / max(n_msgs - 1, 1) + pol.recent * np.exp(-age / pol.recent_span)
    first_user = next((m.index for m in cols.messages if m.role == "user"), None)
    if first_user is not None:
        recency[first_user] *= pol.task
    outputs = _outputs(cols)
    weight = recency[u_msg] * _unit_kind_weights(pol)[kind] * np.where(outputs, pol.output_weight, 1.0)[u_msg]
    # A command's verdict: the last line of its output ("12 passed in 0.15s", the error it
    # stopped at) says how it went, where the header above it ("IS_CRON: undefined") says little.
    verdicts = outcome_lines(cols, outputs, info) if pol.outcome != 1.0 and outputs.any() else None
    if verdicts is not None:
        weight[verdicts] *= pol.outcome
    # The lines of a listing: the agent can list them again, and a name picked here and
    # there from a file tree ("setup.cfg … tox.ini … logger.py") tells nothing.
    weight[listing_messages(cols, outputs)[u_msg] & _LINE_KIND[kind]] *= pol.listing_view
    # What a template asks of its author, in HTML comments: no reader of the text sees it.
    weight[comment_units(cols)] *= pol.boilerplate
    if first_user is not None:  # the task's lead: where it says what is asked
        first, end = int(cols.msg_start.view[first_user]), int(cols.msg_start.view[first_user + 1])
        before = np.cumsum(tokens[first:end]) - tokens[first:end]
        if len(before) and before[-1] > 3 * pol.task_lead_tokens:  # (a short task is all lead)
            lead = before < pol.task_lead_tokens
            weight[first:end][lead] *= pol.task_lead
            weight[first:end][~lead] /= pol.task  # its body: instructions, worth what any text is
    # A system prompt's date is the conversation's "now" ("The current time is 2024-05-15
    # 15:00:00 EST.", "Today's date is 2025-08-19."): what a cancellation window, an age or
    # "tomorrow" is reckoned from, and said once.
    if pol.now != 1.0 and in_system.any():
        when = np.isin(cols.lit_kind.view, [cols.kind_code(k) for k in ("date", "datetime")])
        dated = cols.per_unit_sum(when.astype(np.float64)) > 0
        weight[dated & in_system] *= pol.now
    # A heading alone says little (its section says it): it opens like boilerplate.
    opening = pol.opening * np.where((info > 0) & (kind != _HEADING), 1.0, pol.boilerplate)
    full_gain = weight * (opening + info)
    clip_gain = weight * (opening + np.minimum(head_info, info))
    rel = scene.relevance
    focus = pol.focus * (pol.question if scene.asks else pol.remark if scene.remark else 1.0)
    if rel is not None and len(rel) == n_units and rel.any():
        focus_factor, context = _focus_gains(cols, rel, focus, scene.asks, pol)
        full_gain = full_gain * (1.0 + focus_factor + context)
        clip_gain = clip_gain * (1.0 + focus_factor * np.maximum(cols.u_head_share.view, 0.5) + context)
    else:
        rel = None
    # Diminishing returns in one message: its k-th best unit (for this turn) is worth
    # 1 / (1 + k / K): fifty names out of a thousand-line listing do not tell fifty times
    # more than one.
    ratio = full_gain / np.maximum(tokens, 1.0)
    damp = 1.0 / (1.0 + _rank_within(u_msg, ratio) / np.where(_LISTED[kind], pol.per_message, pol.per_message_prose))
    full_gain *= damp
    clip_gain *= damp

    # Options: bring back an assistant's calls; a short message's opening; a unit's
    # clip, the rest after a clip, or the unit whole.
    blocked = np.zeros(n_msgs, dtype=bool)
    blocked[list(orphans)] = True
    for r, a in result_owner.items():
        if a in unanswered and a not in calls_forced:
            blocked[r] = True
    candidate = (decision == OMITTED) & ~is_call & ~blocked[u_msg] & ~prot_u

    call_msgs = [a for a in results if a not in calls_forced and a not in unanswered
                 and a not in protected and a not in orphans]
    call_rows = u_msg[is_call]
    per_msg_cost = np.bincount(call_rows, weights=tokens[is_call], minlength=n_msgs)
    call_gain = np.bincount(call_rows, weights=full_gain[is_call], minlength=n_msgs)
    if rel is not None and call_msgs:  # a call is worth what its results share with the focus
        msg_rel = np.zeros(n_msgs)
        np.maximum.at(msg_rel, u_msg, rel)  # once per view, not a scan of every unit per call
        of_call = np.fromiter((a for a in call_msgs for _ in results[a]), dtype=np.int64)
        result_msgs = np.fromiter((r for a in call_msgs for r in results[a]), dtype=np.int64)
        call_rel = np.zeros(n_msgs)
        np.maximum.at(call_rel, of_call, msg_rel[result_msgs])
        picked = np.array(call_msgs, dtype=np.int64)
        call_gain[picked] *= 1.0 + focus * call_rel[picked]
    # The agent's last actions are its working state: the next one often repeats, retries
    # or continues them (same ids, same arguments).
    for j, a in enumerate(sorted(call_msgs, reverse=True)[:8]):
        call_gain[a] *= 1.0 + pol.last_actions * np.exp(-j / 2.0)
        failed = [r for r in results[a] if failed_result(cols, r)]
        if failed:  # the call, and what its result says went wrong
            boost = 1.0 + pol.retry * np.exp(-j / 4.0)
            call_gain[a] *= boost
            in_failed = np.isin(u_msg, failed)
            full_gain[in_failed] *= boost
            clip_gain[in_failed] *= boost
    placeholder = scene.count(PLACEHOLDER)
    call_cost = {a: float(per_msg_cost[a]) + placeholder * len(results[a]) for a in call_msgs}
    call_ratio = np.full(n_msgs, np.inf)
    for a in call_msgs:
        call_ratio[a] = call_gain[a] / max(call_cost[a], 0.5)

    full_cost = tokens + MARK_TOKENS
    clip_cost_u = cols.u_clip.view + MARK_TOKENS
    rest_gain, rest_cost = full_gain - clip_gain, full_cost - clip_cost_u
    clip_ratio = clip_gain / np.maximum(clip_cost_u, 0.5)
    split = candidate & cols.u_clippable.view & (rest_gain / np.maximum(rest_cost, 0.5) < clip_ratio)
    whole = candidate & ~split

    # Short messages open whole: every unit's opening (a clip, or the unit itself if
    # short) comes back at once, so a shown message never loses a sentence outright.
    starts = cols.msg_start.view
    n_units_msg = np.diff(starts)
    short = (n_units_msg <= SHORT_UNITS) & (cols.msg_cost.view <= SHORT_TOKENS)
    in_short = candidate & short[u_msg]
    open_cost_u = np.where(split, clip_cost_u, full_cost)
    open_gain_u = np.where(split, clip_gain, full_gain)
    open_msgs = np.flatnonzero(np.bincount(u_msg[in_short], minlength=n_msgs) > 0)
    open_cost = np.bincount(u_msg[in_short], weights=open_cost_u[in_short], minlength=n_msgs)
    open_gain = np.bincount(u_msg[in_short], weights=open_gain_u[in_short], minlength=n_msgs)
    open_ratio = np.full(n_msgs, np.inf)
    open_ratio[open_msgs] = open_gain[open_msgs] / np.maximum(open_cost[open_msgs], 0.5)

    # A result's text never comes before its call.
    owner_of_msg = np.full(n_msgs, -1)
    for r, a in result_owner.items():
        owner_of_msg[r] = a
    owner_u = owner_of_msg[u_msg]
    cap_ratio = np.where(owner_u >= 0, call_ratio[np.maximum(owner_u, 0)], np.inf)
    open_owner = owner_of_msg[open_msgs]
    open_cap = np.where(open_owner >= 0, call_ratio[np.maximum(open_owner, 0)], np.inf)
    # In short messages, the rest of a clipped unit never comes before the message opens.
    cap_ratio = np.where(in_short, np.minimum(cap_ratio, open_ratio[u_msg]), cap_ratio)
    # A heading alone says nothing ("## Important Boundaries\n…\n## Recommended Workflow"):
    # it comes with what it heads (a list item or field under it, see outline), or with the
    # opening of its short message, never as an option of its own.
    alone = ~in_short & ((kind != _HEADING) | _stating_headings(cols, noise))
    idx_clip = np.flatnonzero(split & alone)
    idx_rest = np.flatnonzero(split & (alone | in_short))
    idx_whole = np.flatnonzero(whole & alone)
    room = max(scene.budget - sum(int(cols.msg_cost.view[i]) for i in protected), 0)
    long_tokens = LONG_SHARE * room
    # A long head comes in steps of LONG_SHARE of the room, each after the one before.
    idx_long1 = np.flatnonzero(split & (rest_cost > long_tokens) & (long_tokens > 2 * clip_cost_u))
    idx_long = np.concatenate([idx_long1 * LONG_STEPS + j for j in range(LONG_STEPS)])
    step_cost = np.concatenate([long_tokens - clip_cost_u[idx_long1]] + [np.full(len(idx_long1), long_tokens)]
                               * (LONG_STEPS - 1))
    long_units = idx_long // LONG_STEPS
    long_cost = step_cost
    long_gain = rest_gain[long_units] * long_cost / np.maximum(rest_cost[long_units], 1.0)

    # Record items: each value not shown by what is kept anyway, with its key.
    base_shown = cols.literal_counts(decision == KEPT) > 0
    header_of = date_headers(cols)
    items, item_gain, item_cost, value_cost, entry_cost, header_cost, beyond, row_cost, key_named = _items(
        scene, decision, base_shown, noise, rel, recency, header_of, units, verdicts)

    # A reply is shown with its question (see _take).
    question_unit = question_units(cols)
    asked = question_unit >= 0
    question_cost = np.zeros(n_msgs)
    question_cost[asked] = open_cost_u[question_unit[asked]]
    kinds = np.concatenate([np.full(len(call_msgs), _CALLS), np.full(len(open_msgs), _OPEN),
                            np.full(len(idx_clip), _CLIP), np.full(len(idx_rest), _REST),
                            np.full(len(idx_whole), _FULL), np.full(len(items), _ITEM),
                            np.full(len(idx_long), _LONG)])
    item_ids = np.arange(len(items), dtype=np.int64)
    targets = np.concatenate([np.array(call_msgs, dtype=np.int64), open_msgs, idx_clip, idx_rest, idx_whole,
                              item_ids, idx_long])
    ratios = np.concatenate([
        np.array([call_ratio[a] for a in call_msgs]),
        np.minimum(open_ratio[open_msgs], open_cap),
        np.minimum(clip_ratio[idx_clip], cap_ratio[idx_clip]),
        np.minimum(rest_gain[idx_rest] / np.maximum(rest_cost[idx_rest], 0.5), cap_ratio[idx_rest]),
        np.minimum(full_gain[idx_whole] / np.maximum(full_cost[idx_whole], 0.5), cap_ratio[idx_whole]),
        item_gain / np.maximum(item_cost, 0.5),
        np.minimum(long_gain / np.maximum(long_cost, 0.5), cap_ratio[long_units]) * (1 - 1e-6 * (idx_long % LONG_STEPS)),
    ])
    costs = np.concatenate([np.array([call_cost[a] for a in call_msgs]), open_cost[open_msgs],
                            clip_cost_u[idx_clip], rest_cost[idx_rest], full_cost[idx_whole], item_cost, long_cost])
    tier = (kinds != _CALLS).astype(np.int64) + (kinds == _OPEN) + 2 * (kinds == _REST)
    order = np.lexsort((targets, kinds, tier, -ratios))
    item_rows = np.flatnonzero(kinds == _ITEM)
    # The values of a key the question names come first in the record, one per result it
    # asks across ("the highest p99": each result's p99), and the record's first claim
    # grows to hold them (KEY_SHARE).
    item_order = item_rows[np.lexsort((-ratios[item_rows], ~key_named))] - (item_rows[0] if len(item_rows) else 0)
    reserve = _record_share(scene, outputs) * room
    if key_named.any():
        named = np.flatnonzero(key_named)
        wanted = float(item_cost[named].sum()) + sum(entry_cost.get(items[k].message, 0.0)
                                                     for k in {items[k].message: k for k in named.tolist()}.values())
        reserve = max(reserve, min(wanted, pol.key_share * room))
    note_cap = _note_cap(scene) * room
    reserve = min(reserve, note_cap)

    date_unit = _date_units(cols, units)
    dates = np.unique(date_unit[date_unit >= 0])
    date_cost = dict(zip(dates.tolist(), (cols.u_tokens.view[dates] + MARK_TOKENS).tolist()))
    overhead = cols.msg_label_cost.view.copy()
    if options.recall:  # the reference a message's first mark carries (``…#12``)
        overhead += np.array([scene.count(f"#{i}") for i in range(n_msgs)], dtype=np.float64)
    if scene.frames is not None:
        overhead += scene.frames
    elif options.message_overhead:
        overhead += np.array([options.overhead(m.raw) for m in cols.messages], dtype=np.float64)
    call_units: dict[int, list[int]] = {}
    for u in np.flatnonzero(is_call).tolist():
        call_units.setdefault(int(u_msg[u]), []).append(u)
    return _Ranked(decision, frozenset(calls_forced), protected, winner,
                   np.where(split, CLIPPED, KEPT).astype(np.int8), in_short, kinds, targets, costs, order,
                   call_cost, owner_of_msg, owner_u, overhead, items, value_cost, entry_cost, header_of, header_cost,
                   {it.text: k for k, it in enumerate(items) if it.header},
                   scene.count(VALUES_LINE) - scene.count("]"), base_shown, u_msg, (cols.lit_ptr.view, cols.lit_idx.view, cols.head_ptr.view, cols.head_idx.view),
                   call_units, starts, _long_head(scene, units, long_tokens), item_order, reserve, note_cap,
                   beyond, row_cost, date_unit, date_cost, list_heads(cols), cols.u_tokens.view, question_unit,
                   question_cost, cols)


def _rank_within(group: np.ndarray, score: np.ndarray) -> np.ndarray:
    """Per element, its place by ``score`` among the elements of its ``group`` (0: the
    highest; ties in order): the k of a diminishing return ``1 / (1 + k / K)``."""
    order = np.lexsort((-score, group))
    starts = np.flatnonzero(np.r_[True, group[order][1:] != group[order][:-1]])
    rank = np.empty(len(group))
    rank[order] = np.arange(len(group)) - np.repeat(starts, np.diff(np.r_[starts, len(group)]))
    return rank


def _note_cap(scene: Scene) -> float:
    """The most of the room the record may take (a share): Policy.note_cap while the budget holds
    at most Policy.note_cap_held of the history, growing (in log scale of what it holds) to the
    whole room at Policy.record_fraction."""
    pol = scene.options.policy
    history = float(scene.cols.msg_cost.view.sum())
    held = scene.budget / history if history > 0 else 1.0
    if held >= pol.record_fraction:
        return 1.0
    if held <= pol.note_cap_held:
        return pol.note_cap
    ramp = math.log(held / pol.note_cap_held) / math.log(pol.record_fraction / pol.note_cap_held)
    return pol.note_cap + (1.0 - pol.note_cap) * ramp


def _record_share(scene: Scene, outputs: np.ndarray) -> float:
    """The record's first claim on the room (a share of it). In an agent's history, less as
    the budget holds more of the history: more of the values stand in the text itself, a
    tool can be asked again, and a note a quarter of the view crowds out the text it stands
    in for. A chat's values can be asked for nowhere else: its claim stays."""
    pol = scene.options.policy
    if not outputs.any():
        return pol.record_share
    history = float(scene.cols.msg_cost.view.sum())
    held = scene.budget / history if history > 0 else 1.0
    return max(pol.agent_record_share,
               pol.record_share * min(1.0, pol.record_fraction / max(held, 1e-9)) ** pol.record_decay)


def _stating_headings(cols: Columns, noise: np.ndarray) -> np.ndarray:
    """Per unit, a heading that states a value of its own: by its pattern ("### Reservation
    4WQ150"), or a name in a heading that is not a title ("### Flight from New York to
    Seattle"; "## Important Boundaries" is one)."""
    heading = cols.u_kind.view == _HEADING
    if not heading.any():
        return heading
    memo: list[bool] = cols.derived.setdefault("title_headings", {}).setdefault(-1, [])  # type: ignore[assignment]
    units = cols.units
    for u in range(len(memo), len(heading)):  # a unit's text never changes: found once
        text = head_text(units[u]) if heading[u] else None
        memo.append(text is not None and title_case(text))
    title = np.asarray(memo[:len(heading)], dtype=bool)
    patterned = np.array([k in PATTERN_KINDS for k in cols.lit_kind_names], dtype=bool)
    by_pattern = patterned[cols.lit_kind.view] & ~noise if len(patterned) else np.zeros(len(noise), dtype=bool)
    pattern_states = cols.per_unit_sum(by_pattern.astype(np.float64)) > 0
    name_states = cols.per_unit_sum((~noise & ~by_pattern).astype(np.float64)) > 0
    return heading & (pattern_states | name_states & ~title)


def _long_head(scene: Scene, units: Sequence[Unit], tokens: float) -> Callable[[int, int], tuple[int, list[int]]]:
    lit_ids = scene.cols.lit_ids

    def head(k: int, step: int) -> tuple[int, list[int]]:
        unit = units[k]
        end = scene.head(unit.text, max(int(tokens * (step + 1)) - 4, 1))  # 4: the mark, seams
        end = before_values(unit.literals, end, unit.text)  # (no half values: see units.before_values)
        return end, [lit_ids[t] for t in head_literal_texts(unit, end)]

    return head


def _flat(values: np.ndarray) -> array:
    """A per-message array read value by value (as a list reads), made by one copy of its
    bytes: a list of every message of a long history, alive through the take, was walked by
    each young collection of the garbage collector (an array of numbers holds no objects)."""
    if values.dtype.kind in "iub":
        return array("q", values.astype(np.int64, copy=False).tobytes())
    return array("d", values.astype(np.float64, copy=False).tobytes())


def _focus_gains(cols: Columns, rel: np.ndarray, focus: float, asks: bool, pol: Policy,
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per unit, how many times its own value what it shares with the focus adds, and
    what being context to a match adds: the rest of its message, the messages before
    and after it, its date line. ``focus`` is the focus's weight, ``asks`` whether it is
    a question (see ``Policy.question`` and ``Policy.answer``)."""
    n_msgs = len(cols)
    starts = cols.msg_start.view
    u_msg = cols.u_msg.view
    if pol.focus_matches > 0:
        # Diminishing returns over the matches, best first: a view needs the few units
        # that answer, not forty that repeat a word of the newest turn ("make a difference").
        rank = np.empty(len(rel))
        rank[np.argsort(-rel, kind="stable")] = np.arange(len(rel))
        rel = rel / (1.0 + rank / pol.focus_matches)
    focus_gain = focus * rel
    msg_rel = np.zeros(n_msgs)
    np.maximum.at(msg_rel, u_msg, rel)
    context = pol.context_turn * focus * msg_rel[u_msg]
    # The question a match answers (the message before it, from another role) and the
    # answer a match got (the message after it): most of the share to the unit next to
    # the match (the end of the question, the start of the answer), the rest to all.
    roles = _role_codes(cols)
    other = np.zeros(n_msgs, dtype=bool)
    other[:-1] = roles[:-1] != roles[1:]
    before = np.zeros(n_msgs)
    before[:-1] = np.where(other[:-1], msg_rel[1:], 0.0)
    after = np.zeros(n_msgs)
    after[1:] = np.where(other[:-1], msg_rel[:-1], 0.0)
    if asks:
        after[1:] *= np.where(_questions(cols)[:-1], pol.answer, 1.0)
    nonempty = starts[1:] > starts[:-1]
    share = pol.context_neighbour * focus * np.maximum(before, after) * nonempty
    context += 0.3 * share[u_msg]
    target = np.where(before >= after, starts[1:] - 1, starts[:-1])
    hit = np.flatnonzero(share > 0)
    np.add.at(context, target[hit], 0.7 * share[hit])
    # A session's date line dates every match in it.
    session = cols.msg_session.view
    dated = np.flatnonzero(session >= 0)
    if len(dated):
        best = np.zeros(n_msgs)
        np.maximum.at(best, session[dated], msg_rel[dated])
        heads = np.flatnonzero(best > 0)
        np.add.at(context, starts[heads], pol.context_date * focus * best[heads])
    return focus_gain, context


def _role_codes(cols: Columns) -> np.ndarray:
    """Per message, a code of its role (equal codes: the same role). Extended by the new
    messages only: rebuilt, it was an array of every message of a long history a turn."""
    known = cols.derived.setdefault("role_hashes", [])
    known.extend(hash(m.role) for m in cols.messages[len(known):])
    return cols.grown("role_hashes", known, np.int64)[:len(cols)]


def _date_units(cols: Columns, units: Sequence[Unit]) -> np.ndarray:
    """Per message, the unit of its session's date line (``[1:56 pm on 8 May, 2023]``, the
    first unit of the message that opens the session), or -1 (grown with the conversation)."""
    memo: list[int] = cols.derived.setdefault("date_units", {}).setdefault(-1, [])  # type: ignore[assignment]
    sessions = cols.msg_session.view
    starts = cols.msg_start.view
    for m in range(len(memo), len(cols)):
        s = int(sessions[m])
        if s < 0 or int(starts[s]) >= int(starts[s + 1]):
            memo.append(-1)
        elif s < m:
            memo.append(memo[s])
        else:
            first = int(starts[s])
            memo.append(first if is_date_header(units[first]) else -1)
    return cols.grown("_date_units", memo, np.int64)[:len(cols)]


def _questions(cols: Columns) -> np.ndarray:
    """Per message, whether its text asks a question (grown with the conversation)."""
    memo: list[bool] = cols.derived.setdefault("questions", {}).setdefault(-1, [])  # type: ignore[assignment]
    for m in cols.messages[len(memo):]:
        memo.append(any(asks(tf.text) for tf in m.texts))
    return cols.grown("_questions", memo, bool)[:len(cols)]


_NAMES_ONLY = re.compile(r"[\w./@+~%-]+(?:[ \t]+[\w./@+~%-]+)*|[\w.@+~%-]*/[\w./@+~%-]*:")


_DEFINES = re.compile(
    r"(?:\d{1,7}(?:[:\t -]|\u2192)+)?(?:[\w./-]{1,200}:\d{1,7}[:-]\s*)?(?:@\w[\w.]*\s+)?"  # nl -ba, cat -n, grep -n
    r"(?:(?:export|pub(?:\(\w+\))?|public|private|protected|static|abstract|final|async|default)\s+){0,4}"
    r"(?:def|class|function|fn|func|interface|struct|enum|trait|impl|module|object)\s+[A-Za-z_$]")


def defines(text: str) -> bool:
    """A line of code that defines a function, class or type (``236 def output_field(self):``,
    ``src/a.py:12:class Parser:``, ``export async function load(``)."""
    return _DEFINES.match(text.lstrip("… ")) is not None


def listing_line(text: str, strict: bool = False) -> bool:
    """A line that only lists names (of ``ls``, ``find``, ``git status``): whitespace-separated
    file names, or a ``./dir:`` header; not words ("Ran 42 tests in 0.521s" is a sentence),
    nor a ``key: value`` line. Half its words must look like file names, or with ``strict``
    (a piece of a unit that is no line: words around may be prose) every one of them."""
    text = text.strip().strip("…").strip()  # (a long line's item is cut at …)
    if not text or len(text) > 400 or not _NAMES_ONLY.fullmatch(text):
        return False
    names = text.split()
    named = sum(any(c in w for c in "._/-") for w in names)
    return named == len(names) if strict else 2 * named >= len(names)


_ID_CHAR = re.compile(r"[A-Z0-9]")


def _id_shape(text: str) -> str:
    """``8C8K4E`` and ``UDMOP1`` are ``XXXXXX``; ``credit_card_4074252`` is not."""
    return _ID_CHAR.sub("X", text)


_LIST_KINDS = np.array([k in ("list_item", "line", "table_row") for k in UNIT_KINDS])


def pending_ids(cols: Columns) -> np.ndarray:
    """Per literal: an id of a list (one unit, or a message's consecutive list items, lines
    or rows) that holds at least two ids of the same shape the agent has since passed to
    tool calls, and that no later call has passed yet ("your reservations are 8C8K4E,
    UDMOP1, ..., 4XGCCM", then a lookup of each in turn)."""
    n_lits = len(cols.lit_text)
    out = np.zeros(n_lits, dtype=bool)
    ident = cols.kind_code("identifier")
    kind = cols.u_kind.view
    is_call = kind == _CALL
    if ident < 0 or not is_call.any():
        return out
    lit_ptr, lit_idx = cols.lit_ptr.view, cols.lit_idx.view
    u_msg = cols.u_msg.view
    owners = cols.unit_owner(lit_ptr)
    row_msg = u_msg[owners]
    # The last message whose calls pass each literal (-1: none).
    last_call = np.full(n_lits, -1, dtype=np.int64)
    call_rows = is_call[owners]
    np.maximum.at(last_call, lit_idx[call_rows], row_msg[call_rows])
    # A list: a unit, or consecutive list items, lines or rows of one message.
    listed = _LIST_KINDS[kind] & ~is_call
    joins = np.zeros(len(kind), dtype=bool)
    joins[1:] = listed[1:] & listed[:-1] & (u_msg[1:] == u_msg[:-1])
    group = np.cumsum(~joins)[owners]
    rows = np.flatnonzero(~call_rows & (cols.lit_kind.view[lit_idx] == ident))
    if not len(rows):
        return out
    lits, groups = lit_idx[rows], group[rows]
    done = last_call[lits] > row_msg[rows]
    shapes = _shape_ids(cols)[lits]
    # Lists with two distinct ids passed since, and the shapes of those.
    pairs = np.unique(np.stack([groups[done], lits[done]]), axis=1) if done.any() else np.zeros((2, 0), np.int64)
    counts = np.bincount(pairs[0], minlength=int(group.max()) + 1) if pairs.shape[1] else np.zeros(1, np.int64)
    n_shapes = int(shapes.max()) + 1
    ready = done & (counts[groups] >= 2) if pairs.shape[1] else done & False
    keys = np.unique(groups[ready] * n_shapes + shapes[ready])
    todo = ~done & np.isin(groups * n_shapes + shapes, keys)
    out[lits[todo]] = True
    return out


def _shape_ids(cols: Columns) -> np.ndarray:
    """Per literal, a number for its :func:`_id_shape` (kept up to date as literals come)."""
    memo = cols.derived.setdefault("id_shapes", ([], {}))
    ids, numbers = memo
    for text in cols.lit_text[len(ids):]:
        ids.append(numbers.setdefault(_id_shape(text), len(numbers)))
    return np.asarray(ids, dtype=np.int64)


def _items(scene: Scene, decision: np.ndarray, shown: np.ndarray, noise: np.ndarray, rel: np.ndarray | None,
           recency: np.ndarray, header_of: list[str | None], units: Sequence[Unit], verdicts: np.ndarray | None,
           ) -> tuple[list[Item], np.ndarray, np.ndarray, dict[int, float], dict[int, float], dict[str, float],
                      frozenset[int], dict[int, float], np.ndarray]:
    """The record items a view may list: each value not shown by the base decisions, keyed
    from its newest occurrence with a key or a context word among the units that may be
    left out (else its newest)."""
    cols = scene.cols
    pol = scene.options.policy
    n_lits = len(cols.lit_text)
    if n_lits == 0:
        return [], np.zeros(0), np.zeros(0), {}, {}, {}, frozenset(), {}, np.zeros(0, dtype=bool)
    owners = cols.unit_owner(cols.lit_ptr.view)
    lit_idx = cols.lit_idx.view
    open_units = (decision == OMITTED)[owners]
    missing = ~shown & ~noise
    rows = np.flatnonzero(open_units & missing[lit_idx])
    u_msg = cols.u_msg.view
    # A value a prompt states (a system message, an example of a task) and the talk states
    # too is listed from the talk: `#1 user: cat file.txt` cited a task's example response
    # for a file name an `ls` had printed.
    prompt = prompt_units(cols)
    if prompt.any() and len(rows):
        said_elsewhere = talk_counts(cols) > 0
        rows = rows[~(prompt[owners[rows]] & said_elsewhere[lit_idx[rows]])]
    if not len(rows):
        return [], np.zeros(0), np.zeros(0), {}, {}, {}, frozenset(), {}, np.zeros(0, dtype=bool)
    starts = cols.msg_start.view
    statements: dict[int, dict[str, Literal]] = {}  # unit -> first_statements, for units of many values

    built: dict[int, Unit] = {}  # a unit is built from its columns once, not once per value it states

    def item_of(u: int, lit: int) -> Item | None:
        """The item of a row no view has read (see _RowMemo: it is kept per row)."""
        unit = built.get(u)
        if unit is None:
            unit = built[u] = units[u]
        stated = None
        if len(unit.literals) > 16:
            stated = statements.get(u)
            if stated is None:
                stated = statements[u] = first_statements(unit)
        return item_for(cols, u, unit, lit, first=bool(starts[u_msg[u]] == u), stated=stated)

    lits, occ = lit_idx[rows], owners[rows]
    order = np.lexsort((-occ, lits))
    lits, occ = lits[order], occ[order]
    first = np.flatnonzero(np.r_[True, lits[1:] != lits[:-1]])  # a value's occurrences: first[j]:ends[j]
    ends = np.r_[first[1:], len(lits)]
    candidates = lits[first]
    newest = occ[first]
    rarity = np.log1p(len(units) / np.maximum(cols.lit_df.view[candidates], 1.0))
    rarity /= max(float(rarity.mean()), 1e-9)
    # As recent as its newest occurrence, wherever it is keyed from.
    gain = pol.record_value * recency[u_msg[newest]] * np.clip(rarity, 0.5, 2.0)
    if rel is not None:
        lit_rel = np.zeros(n_lits)
        np.maximum.at(lit_rel, lit_idx, rel[owners])
        # A value the focus itself names (relevance is 0 in the focus's own units).
        gain *= 1.0 + pol.focus_record * np.minimum(lit_rel[candidates] * 2.0, 1.0)
    kind_names = cols.lit_kind_names
    kind_value = _kind_values(pol, kind_names)
    gain *= kind_value[cols.lit_kind.view[candidates]]
    # A value the user or the assistant put in words (not only a tool's output) is one
    # the conversation turned on: "your reservations are 8C8K4E, UDMOP1, ...".
    outputs = _outputs(cols)
    if outputs.any():  # (in a conversation without tool output, every value is said)
        said = cols.literal_counts(~outputs[cols.u_msg.view]) > 0
        gain *= np.where(said[candidates], pol.said, 1.0)
    # The ids of a list the agent is working through: after passing two or more of them to
    # calls, the ones it has not passed yet are its next arguments.
    pending = pending_ids(cols)
    if pending.any():
        gain *= np.where(pending[candidates], pol.pending, 1.0)
    # A record lists at most one value per two tokens of the budget: of more candidates than
    # twice that (a 1.6 MB code block, a 40,000-row table), only the best are made items, so
    # a view does not build a hundred thousand items to list a few hundred.
    cap = max(CANDIDATES_MIN, scene.budget)
    beyond: frozenset[int] = frozenset()  # candidates not made items: dropped, as the record counts
    if len(candidates) > cap:
        keep = np.sort(np.argsort(-gain, kind="stable")[:cap])
        beyond = frozenset(np.delete(candidates, keep).tolist())
        candidates, gain, first, ends = candidates[keep], gain[keep], first[keep], ends[keep]
    # Each value is listed from its newest occurrence that gives it a key or a context
    # ("trip to England", not the later "Where in England was it?"), among its newest few.
    memo = _row_memo(cols)
    rows_sorted = rows[order]
    at_row = _sources(memo, rows_sorted, first, ends, lambda r: item_of(int(owners[r]), int(lit_idx[r])),
                      lambda r, item: _has_context(cols, item, int(lit_idx[r])))
    row_items = memo.items
    chosen: list[Item | None] = [row_items[r] if r >= 0 else None for r in at_row.tolist()]
    source = np.full(n_lits, -1, dtype=np.int64)
    source[candidates] = np.where(at_row >= 0, owners[np.maximum(at_row, 0)], occ[first])
    number = cols.kind_code("number")
    if number >= 0:
        # A number a capitalised noun names ("Certificate 4856383", record.item_for) is an id,
        # worth what one is, not what a count is.
        named = [k for k in np.flatnonzero(cols.lit_kind.view[candidates] == number).tolist()
                 if chosen[k] is not None and NAMED_NUMBER.fullmatch(chosen[k].text)]  # type: ignore[union-attr]
        gain[named] *= pol.typed_value / pol.number_value
    # Diminishing returns: the k-th best value of one unit is worth 1 / (1 + k / PER_UNIT)
    # (an entry of hundreds of values from one log line is read by nobody).
    src = source[candidates]
    if outputs.any():
        # A line of a tool's output that only lists names: the agent can list them again,
        # and a hundred file names crowd out what it found.
        in_output = np.flatnonzero(outputs[u_msg[src]] & (at_row >= 0))
        listing = memo.listing
        at = at_row[in_output]
        for r in at[listing[at] == 0].tolist():
            item = row_items[r]
            line = _LINE_KIND[cols.u_kind.view[owners[r]]]
            listing[r] = 2 if listing_line(item.text, strict=not line) else 1 if not line or item.key is not None \
                else 3 if defines(units[int(owners[r])].text) else 4
        gain[in_output[listing[at] == 3]] *= pol.defines
        read = reading_messages(cols, outputs)[u_msg[src[in_output]]]
        gain[in_output[read & (listing[at] == 4)]] *= pol.read_line
        hits = in_output[listing[at] == 2]
        if len(hits):
            # One listing of many lines is one listing: its values past the first few, in
            # whichever lines they stand, are worth less again (a file tree of 300 lines).
            gain[hits] *= pol.listing / (1.0 + _rank_within(u_msg[src[hits]], gain[hits]) / pol.listing_per_message)
    if verdicts is not None:  # a command's verdict is its record's first entry too ("12 passed in 0.15s")
        gain[verdicts[src]] *= pol.outcome
    harness = harness_units(cols)
    if harness.any():
        told = np.flatnonzero(harness[src])
        sentinel = np.array([_SENTINEL.fullmatch(cols.lit_text[c]) is not None for c in candidates[told].tolist()],
                            dtype=bool)
        gain[told[~sentinel]] *= pol.harness
    # A template's comments (see record.comment_units): no reader's values. Not made items:
    # dropped, as the record counts.
    hidden = comment_units(cols)[src]
    if hidden.any():
        beyond = beyond | frozenset(candidates[hidden].tolist())
    gain /= 1.0 + _rank_within(src, gain) / pol.record_per_unit
    # And of one message: an entry of six hundred values from one 150 KB diff (6,800 tokens of
    # fragments) reads worse than more of the diff's own text.
    gain /= 1.0 + np.maximum(_rank_within(u_msg[src], gain) - pol.record_per_message, 0.0) / pol.record_per_message
    count = scene.count
    items: list[Item] = []
    keep_gain: list[float] = []
    keep_cost: list[float] = []
    keep_named: list[bool] = []  # per item, whether the focus (a question) names its key
    entry_cost: dict[int, float] = {}
    row_cost: dict[int, float] = {}
    header_cost: dict[str, float] = {}
    headers: dict[int, Item] = {}  # header unit -> its item
    value_cost: dict[int, float] = {}  # keyed item -> its cost after another value of its key
    spans_made: set[tuple[int, tuple[int, int]]] = set()
    u_kind = cols.u_kind.view
    list_item = UNIT_KINDS.index("list_item")
    inner_cache = cols.derived.setdefault("record_inner", {})  # (unit, span) -> literal ids it shows
    at_of = dict(zip(candidates.tolist(), range(len(candidates))))  # literal -> its place among the candidates
    covering = cols.derived.setdefault("record_covering", {})  # (unit, span, literals) -> the item listing them
    gains = gain.tolist()
    have = at_row[at_row >= 0]
    for r in np.unique(have[memo.cost[have] < 0]).tolist():
        memo.cost[r], memo.value_cost[r] = _item_costs(row_items[r], count)
    cost_of, value_cost_of = memo.cost[np.maximum(at_row, 0)].tolist(), memo.value_cost[np.maximum(at_row, 0)].tolist()
    srcs = source[candidates]
    # (per candidate, read once as lists: a value at a time, numpy's scalars cost more than the work)
    in_line, in_list = _LINE_KIND[u_kind[srcs]].tolist(), (u_kind[srcs] == list_item).tolist()
    # (what a message's label, a unit's short item and a record's head cost never change as the
    # conversation grows, but a label's speaker may start to count: read once, not per view)
    msg_label_cost = cols.derived.setdefault("record_message_label_cost", {})  # message -> (speaker, cost)
    short_spans = cols.derived.setdefault("record_short_spans", {})  # unit -> its short item's span
    row_costs = cols.derived.setdefault("record_row_cost", {})  # a record's head -> tokens of "{head, }"
    terms = scene.terms
    keys_named: dict[str, bool] = {}  # a key -> whether the focus names it
    for k, (lit, u, m) in enumerate(zip(candidates.tolist(), srcs.tolist(), u_msg[srcs].tolist())):
        if u in headers or lit in beyond:
            continue  # the session's date line lists every value of it; a comment's are no values
        item = chosen[k]
        if item is None:
            continue
        if item.header:
            headers[u] = item
            header_cost[item.text] = count(item.text) + 1.0
        elif m not in entry_cost:
            speaker = cols.speaker(m)
            known = msg_label_cost.get(m)
            if known is None or known[0] != speaker:  # (a label changes only when its speaker starts to count)
                label = message_label(cols, cols.messages[m])
                known = msg_label_cost[m] = (speaker, count(label + ": ") + 1.0)
            entry_cost[m] = known[1]
            header = header_of[m]
            if header is not None and header not in header_cost:
                header_cost[header] = count(header) + 1.0
        g = gains[k]
        named = False
        if item.key is not None and terms:
            # (A named key's values are listed first, in the record's first claim; weighing
            # them more as well moved no measure: docs/changes.md, "focus_key".)
            named = keys_named.get(item.key)
            if named is None:
                named = keys_named[item.key] = _names_key(item.key, terms)
        if item.key is None and item.span is not None and not item.header and (
                in_line[k] or in_list[k] and (item.span == _short_span(short_spans, units, u) or item.row == item.text)):
            # One item lists every value its line of code (short list item, or head of a line's
            # labels) shows: the line's tokens are paid once for all of them. (Not in prose: there it took
            # LoCoMo's with-context recall at 25% from 90.2 to 87.5, one span keying two
            # values by each other.)
            if (u, item.span) in spans_made:
                continue
            spans_made.add((u, item.span))
            inner = tuple([c for c in _shown_in(cols, units, inner_cache, u, item.span) if c in at_of and c != lit])
            if inner:
                key = (u, item.span, inner)
                wider = covering.get(key)
                if wider is None:
                    wider = covering[key] = _covering(item, item.literal, item.covers + inner)
                item = wider
                g += float(gain[[at_of[c] for c in inner]].sum())
        if item.key is not None:
            value_cost[len(items)] = value_cost_of[k]
        if item.row is not None and item.group not in row_cost:
            cost = row_costs.get(item.row)
            if cost is None:
                cost = row_costs[item.row] = count("{" + item.row + ", }")
            row_cost[item.group] = cost
        items.append(item)
        keep_gain.append(g * (len(item.covers) if item.header else 1.0))
        keep_cost.append(cost_of[k])
        keep_named.append(bool(named))
    return (items, np.array(keep_gain), np.array(keep_cost), value_cost, entry_cost, header_cost, beyond, row_cost,
            np.array(keep_named, dtype=bool))


_KEY_PART = re.compile(r"[^.\[\]]+")
_KEY_WORD = re.compile(r"[a-z]{3,}")


def _names_key(key: str, terms: frozenset[str]) -> bool:
    """Whether the focus's ``terms`` name a record key: its last part (``address1`` of
    ``address.address1``, ``price`` of ``flights[1].price``), or each of its words where it
    has two or more (``last_four``; not ``user_id`` by "user"), or one word of it that is a
    measure's name (``p99`` of ``p99_latency_ms``: letters and digits), or any word of it
    but where the key names a thing by it (``total`` of ``total_price``, ``latency`` of
    ``p99_latency_ms``; not ``user_id`` by "user", an id of the user), or an abbreviation of
    a term (``db`` of "database", ``qty`` of "quantity": the key's letters in the term's
    order, from its first)."""
    parts = _KEY_PART.findall(key)
    if not parts:
        return False
    last = parts[-1].strip()
    lower = last.lower()
    words = _KEY_WORD.findall(lower)
    if lower in terms or len(words) > 1 and all(w in terms for w in words):
        return True
    pieces = [p.lower() for p in _KEY_PIECE.findall(last)]
    if any(p in terms for p in pieces if _MEASURE_NAME.fullmatch(p)):
        return True
    if len(pieces) > 1 and pieces[-1] not in _NAMING_PARTS and any(p in terms for p in pieces if len(p) >= 3):
        return True
    return _ABBREVIATION.fullmatch(lower) is not None and any(
        len(t) >= 2 * len(lower) and t[0] == lower[0] and _subsequence(lower, t) for t in terms)


_KEY_PIECE = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")  # p99LatencyMs, p99_latency_ms: p99, latency, ms
_MEASURE_NAME = re.compile(r"[a-z]{1,4}[0-9]{1,3}")  # p99, p95, ipv4
_NAMING_PARTS = frozenset({"id", "ids", "name", "names", "number", "no", "code", "key", "type", "uuid"})
_ABBREVIATION = re.compile(r"[a-z]{2,4}")


def _subsequence(short: str, word: str) -> bool:
    letters = iter(word)
    return all(c in letters for c in short)


def _short_span(memo: dict, units: Sequence[Unit], u: int) -> tuple[int, int] | None:
    """``short_item_span`` of unit ``u``, read once (a unit's text never changes)."""
    if u in memo:
        return memo[u]
    span = memo[u] = short_item_span(units[u])
    return span


_PLACED_KEY = re.compile(r"[A-Za-z_][\w\-]{0,40}\[\d{1,6}(?:; ([^\]]{1,90}))?\]\.")


def _item_costs(item: Item, count: Callable[[str], int]) -> tuple[float, float]:
    """Tokens of an item in the record, and of its ", value" after another value of its key."""
    placed = None if item.key is None else _PLACED_KEY.match(item.text)
    # a field of one object of an array is shown in that object's braces, its path
    # said once (record._nested): "{first_name: Chen, …}", not "passengers[0].first_name"
    # (the object's naming field, shown once in its braces, is not charged to each field:
    # three fields of a passenger paid her name thrice, and the note listed less)
    cost = count(item.text[placed.end():] if placed else item.text) + (2.0 if placed else 1.0)
    return float(cost), float(count(", " + item.value)) if item.key is not None else 0.0


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


def _covering(item: Item, literal: int, covers: tuple[int, ...]) -> Item:
    """``item`` listing ``covers`` (built directly: ``dataclasses.replace`` was a tenth of a
    turn's record upkeep)."""
    return Item(literal, item.unit, item.message, item.text, item.span, covers, item.header, item.key, item.value,
                item.row, item.group)


def _shown_in(cols: Columns, units: Sequence[Unit], cache: dict, u: int, span: tuple[int, int]) -> tuple[int, ...]:
    """The literal ids that unit ``u`` states inside ``span`` of its text (a unit's text never
    changes, so neither does this)."""
    found = cache.get((u, span))
    if found is None:
        by_start = cache.get(u)
        if by_start is None:  # a code block states thousands: one sort, then a bisection per span
            lits = sorted(units[u].literals, key=lambda x: x.start)
            by_start = cache[u] = ([x.start for x in lits], lits)
        starts, lits = by_start
        ids = cols.lit_ids
        inside = []
        for x in lits[bisect.bisect_left(starts, span[0]):bisect.bisect_left(starts, span[1])]:
            if x.end <= span[1]:
                inside.append(ids[x.text])
        found = cache[u, span] = tuple(dict.fromkeys(inside))
    return found


# -- taking options ----------------------------------------------------------------------


@dataclass
class _Chosen:
    decision: np.ndarray
    calls_present: set[int]
    items: list[Item]
    heads: dict[int, int] = field(default_factory=dict)
    spent: float = 0.0  # the room the options took, by the estimates


def _take(r: _Ranked, room: float) -> _Chosen:
    """Options in rank order while they fit ``room`` (see the module docstring, step 4)."""
    decision = r.base.copy()
    calls_present = set(r.calls_forced)
    # (read an item at a time, a few thousand times a view: a byte per literal, not numpy's scalars)
    shown_lits = bytearray(r.shown_lits.astype(np.bool_).tobytes())
    msg_shown = np.zeros(len(r.msg_overhead), dtype=bool)
    msg_shown[list(r.protected | r.calls_forced)] = True
    taken: dict[int, float] = {}  # record item -> the room it took
    by_literal: dict[int, int] = {}  # literal -> the (non-header) item listing it
    entries: dict[int, int] = {}  # message -> how many of its items are listed
    keys: dict[tuple[int, int, str], int] = {}  # (message, record group or -1, key) -> values listed under it
    rows: dict[int, int] = {}  # a record's group -> how many of its values are listed under its head
    in_rows: set[int] = set()  # the items counted there
    headers: set[str] = set()  # session date lines printed
    opened: set[int] = set()
    heads: dict[int, int] = {}  # clipped unit -> the end of its long head
    long_steps: dict[int, int] = {}  # clipped unit -> the long-head steps taken
    lit_ptr, lit_idx, head_ptr, head_idx = r.lit_lists
    u_msg = r.u_msg
    overhead, question_unit, question_cost, queue, item_costs, kinds, targets, costs, floor = r.lists
    left = room
    used = 0.0  # tokens the record's items and entry labels take
    next_item = 0  # queue: record items, best first; queue[next_item] is the best not tried
    reserve = min(r.reserve, room)

    def show_literal(lit: int) -> float:
        """Mark a literal shown; returns the room freed by the record item it makes redundant."""
        shown_lits[lit] = True
        k = by_literal.pop(lit, None)
        if k is None:
            return 0.0
        if any(by_literal.get(c) == k for c in r.item_of[k].covers):
            return 0.0  # the item's line still lists a value the view does not show
        nonlocal used
        freed = taken.pop(k)
        item = r.item_of[k]
        m = item.message
        if item.key is not None:
            scope = item.group if item.row is not None else -1
            keys[m, scope, item.key] -= 1
            if not keys[m, scope, item.key]:
                del keys[m, scope, item.key]
        if k in in_rows:
            in_rows.discard(k)
            rows[item.group] -= 1
            if not rows[item.group]:
                del rows[item.group]
                freed += r.row_cost.get(item.group, 0.0)
        entries[m] -= 1
        if not entries[m]:
            del entries[m]
            freed += r.entry_cost.get(m, 0.0)
        used -= freed
        return freed

    def show(units: Any, head: bool) -> float:
        """Mark the literals of these units (their heads) shown; returns the room freed."""
        ptr, idx = (head_ptr, head_idx) if head else (lit_ptr, lit_idx)
        freed = 0.0
        for u in (units.tolist() if isinstance(units, np.ndarray) else units):
            for lit in idx[ptr[u]:ptr[u + 1]]:
                if not shown_lits[lit]:  # (a value stated twice frees nothing twice)
                    freed += show_literal(lit)
        return freed

    def fill_reserve() -> None:
        """The record's first claim: its best items, while it holds less than the reserve."""
        nonlocal next_item
        while next_item < len(queue):
            k = queue[next_item]
            if used + item_costs[k] > reserve or item_costs[k] > left:
                return  # the best item left waits for room
            take_item(k, item_costs[k])
            next_item += 1

    def take_item(k: int, cost: float) -> bool:
        nonlocal left, used
        item = r.item_of[k]
        if k in taken or (item.header and not LONE_DATES):
            return False  # (a date line is listed above an entry of its session, not alone)
        if item.header or len(item.covers) == 1:
            if any(shown_lits[c] or c in by_literal for c in item.covers):
                return False
            fresh = item.covers
        else:  # a code line's values: worth listing while one of them is neither shown nor listed
            fresh = tuple(c for c in item.covers if not shown_lits[c] and c not in by_literal)
            if not fresh:
                return False
        m = item.message
        header = item.text if item.header else r.header_of[m]
        extra = 0.0
        scope = item.group if item.row is not None else -1
        if item.key is not None and (m, scope, item.key) in keys:
            extra = r.value_cost.get(k, cost) - cost  # ", value" after its key's first value
        if item.row is not None and item.group not in rows and item.text != item.row:
            extra += r.row_cost.get(item.group, 0.0)  # (a record's first field alone is listed as any value)
        if not item.header and m not in entries:
            extra += r.entry_cost.get(m, 0.0)
        if not taken:
            extra += r.values_line
        session = None
        if header is not None and header not in headers and not item.header:
            session = r.header_items.get(header)
            extra += r.header_cost.get(header, 0.0)
        if cost + extra > left or used + cost + extra > r.note_cap:
            return False
        left -= cost + extra
        used += cost + extra
        headers.update([header] if header is not None else [])
        if item.header:
            taken[k] = cost
            return True
        taken[k] = cost + min(extra, 0.0)
        by_literal.update((c, k) for c in fresh)
        entries[m] = entries.get(m, 0) + 1
        if item.key is not None:
            keys[m, scope, item.key] = keys.get((m, scope, item.key), 0) + 1
        if item.row is not None and (item.group in rows or item.text != item.row):
            rows[item.group] = rows.get(item.group, 0) + 1
            in_rows.add(k)
        if session is not None and session not in taken:
            taken[session] = 0.0  # the date line printed above this entry
        return True

    for msg in sorted(r.protected):  # the protected messages' sessions are dated first
        date = int(r.date_unit[msg])
        if date < 0 or decision[date] != OMITTED:
            continue
        session = int(u_msg[date])
        cost = r.date_cost[date] + (0.0 if msg_shown[session] else overhead[session])
        if cost <= left:
            msg_shown[session] = True
            decision[date] = KEPT
            left += show([date], False) - cost
    fill_reserve()
    for pos, (kind, target, cost) in enumerate(zip(kinds, targets, costs)):
        if used < reserve and next_item < len(queue) and used + item_costs[queue[next_item]] <= reserve:
            fill_reserve()  # items it held were shown by units: the room goes to the next items
        if left < floor[pos]:
            break
        if cost > left:
            continue
        if kind == _ITEM:
            take_item(target, cost)
            continue
        if kind == _CALLS:
            if target in calls_present:
                continue
            extra = 0.0 if msg_shown[target] else overhead[target]
            if cost + extra > left:
                continue
            calls_present.add(target)
            msg_shown[target] = True
            decision[r.call_units[target]] = KEPT
            left += show(r.call_units[target], False) - cost - extra
            continue
        if kind == _LONG:
            unit, step = divmod(target, LONG_STEPS)
            if decision[unit] != CLIPPED or long_steps.get(unit, 0) != step:
                continue
            end, lits = r.long_head(unit, step)
            heads[unit] = end
            long_steps[unit] = step + 1
            left -= cost
            for lit in lits:  # its literals, as show() marks them
                if not shown_lits[lit]:
                    left += show_literal(lit)
            continue
        if kind == _REST and decision[target] != CLIPPED:
            continue  # its clip is not shown: the rest alone means nothing
        if kind in (_CLIP, _FULL) and decision[target] != OMITTED:
            continue
        if kind == _OPEN and target in opened:
            continue
        msg = target if kind == _OPEN else int(u_msg[target])
        owner = int(r.owner_of_msg[msg])
        need_call = owner >= 0 and owner not in calls_present
        extra = 0.0
        if need_call:
            call = r.call_cost.get(owner)
            if call is None:
                continue
            extra += call + (0.0 if msg_shown[owner] else overhead[owner])
        date = int(r.date_unit[msg])
        need_date = date >= 0 and decision[date] == OMITTED and not (
            date == target if kind != _OPEN else u_msg[date] == msg and r.in_short[date] and r.opening[date] == KEPT)
        if need_date:  # a message is shown with when it was said: its session's date line
            session = int(u_msg[date])
            extra += r.date_cost[date] + (0.0 if msg_shown[session] or session == msg else overhead[session])
        # A list item is shown under its heads ("1. **Flight HAT136**" above "- Price: $152",
        # and the heading above that), and so is one a message's opening shows.
        if kind == _OPEN:
            first = int(r.msg_start[target])
            us = np.flatnonzero(r.in_short[first:int(r.msg_start[target + 1])]) + first
            need_heads = _heads_to_show(r, decision, us[r.opening[us] != OMITTED].tolist(), lit_ptr)
        elif kind in (_CLIP, _FULL) and r.list_head[target] >= 0:
            need_heads = _heads_to_show(r, decision, [target], lit_ptr)
        else:
            need_heads = []
        if need_heads:
            extra += sum(float(r.head_tokens[h]) for h in need_heads)
        # A reply is shown with the question it answers (at least that question's head).
        asked = question_unit[msg] if kind != _REST else -1
        need_question = asked >= 0 and decision[asked] == OMITTED
        if need_question:
            asker = int(u_msg[asked])  # the message just before, or the one naming the talk's topic
            extra += question_cost[msg] + (0.0 if msg_shown[asker] else overhead[asker])
        if not msg_shown[msg]:
            extra += overhead[msg]
        if cost + extra > left:
            continue
        freed = 0.0
        if need_question:
            msg_shown[asker] = True
            decision[asked] = r.opening[asked]
            freed += show([asked], bool(r.opening[asked] == CLIPPED))
        if need_heads:
            decision[need_heads] = KEPT
            freed += show(need_heads, False)
        if need_call:
            calls_present.add(owner)
            msg_shown[owner] = True
            decision[r.call_units[owner]] = KEPT
            freed += show(r.call_units[owner], False)
        msg_shown[msg] = True
        if kind == _OPEN:
            opened.add(target)
            decision[us] = r.opening[us]
            freed += show(us[r.opening[us] == KEPT], False) + show(us[r.opening[us] == CLIPPED], True)
        elif kind == _CLIP:
            decision[target] = CLIPPED
            freed += show([target], True)
        else:
            decision[target] = KEPT
            freed += show([target], False)
        if need_date:  # (after an opening's own decisions: they may leave its date line out)
            msg_shown[u_msg[date]] = True
            decision[date] = KEPT
            freed += show([date], False)
        left += freed - cost - extra
    listed = [r.item_of[k] for k in sorted(taken)]
    if not LONE_DATES and r.header_items:  # a date line whose entries all left the record leaves too
        dated = {r.header_of[it.message] for it in listed if not it.header}
        listed = [it for it in listed if not it.header or it.text in dated]
    return _Chosen(decision, calls_present, listed, heads, room - left)


def _heads_to_show(r: _Ranked, decision: np.ndarray, units: list[int], lit_ptr: list[int]) -> list[int]:
    """The heads ``units`` need shown above them: each one's list item or label, and the
    ones above that, up to ``MAX_HEADS`` each, that the view does not show yet. A head shown
    where it last occurs is shown here again if it names something ("1. **Reservation ID:
    JG7FMM**", repeated in a later summary); a label that names nothing ("- **Flights:**"
    under each reservation) is passed: the head above it says whose flights these are."""
    need: list[int] = []
    for u in units:
        head, taken = int(r.list_head[u]), 0
        while head >= 0 and decision[head] in (OMITTED, DEDUPLICATED) and taken < MAX_HEADS:
            if head not in units and (decision[head] == OMITTED or lit_ptr[head + 1] > lit_ptr[head]):
                if head not in need:
                    need.append(head)
                taken += 1
            head = int(r.list_head[head])
    return need


def _plan(scene: Scene, r: _Ranked, chosen: _Chosen, protection: str,
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
    present = cols.literal_counts(np.ones(len(decision), dtype=bool)) > 0
    by_message: dict[int, list[Item]] = {}
    for item in chosen.items:
        if not item.header and not all(shown[c] for c in item.covers):
            if len(item.covers) > 1:  # a line's values the view shows elsewhere are not listed by it
                covers = tuple(c for c in item.covers if not shown[c])
                item = _covering(item, covers[0], covers)
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
        entries.append(Entry(m, r.label(m), tuple(listed), header))
    listed = np.zeros(len(shown), dtype=bool)
    listed[[c for e in entries for it in e.items for c in it.covers]] = True
    listed[[c for e in entries if e.header in headers for c in headers[e.header].covers]] = True
    missing = present & ~shown & ~listed
    dropped = tuple(np.flatnonzero(missing & r.candidate_lits).tolist())
    unlisted = tuple(np.flatnonzero(missing & ~r.candidate_lits).tolist())
    return Plan(decision.copy(), r.winner.copy(), frozenset(chosen.calls_present), r.protected,
                MappingProxyType(dict(heads or {})), Record(tuple(entries), dropped, unlisted), protection)


def _joined(cols: Columns, units: Sequence[Unit], items: list[Item]) -> list[Item]:
    """Items of one message with the spans of each unit that touch or overlap joined into
    one span of the unit's text (``loved "Becoming Nicole" by Amy Ellis Nutt``)."""
    out: list[Item] = []
    for it in items:
        prev = out[-1] if out else None
        if prev is None or prev.span is None or it.span is None or prev.unit != it.unit:
            out.append(it)
            continue
        lines = bool(_LINE_KIND[cols.u_kind.view[it.unit]])
        # Lines of code join where they overlap (one line), words where they touch.
        if it.span[0] < prev.span[1] if lines else it.span[0] <= prev.span[1] + 1:
            span = (prev.span[0], max(prev.span[1], it.span[1]))
            unit_text = as_read(cols, units[it.unit]).text  # (a unit is built from its columns only to join)
            text = line_text(unit_text, span) if lines else sanitize(unit_text[span[0]:span[1]])
            out[-1] = Item(prev.literal, prev.unit, prev.message, text, span, prev.covers + it.covers,
                           row=prev.row, group=prev.group)
        else:
            out.append(it)
    return out


def _lengthen(scene: Scene, r: _Ranked, plan: Plan, tokens: int) -> Plan:
    """Room the view leaves goes to longer heads of clipped units, newest message first:
    otherwise a huge unit (a 1 MB log line, a minified JSON result) shows its first dozen
    tokens however much room is left. Heads are sized from token counts, the view is
    measured, and the last longer head is given up while it does not fit."""
    cols, budget, count = scene.cols, scene.budget, scene.count
    decision = plan.decision.copy()
    clipped = np.flatnonzero(decision == CLIPPED)
    order = clipped[np.argsort(-cols.u_msg.view[clipped], kind="stable")]
    units = cols.units
    heads: dict[int, int] = dict(plan.heads)
    kept: list[int] = []
    taken: list[int] = []
    estimate = tokens
    margin = max(2, int(budget * MARGIN_SHARE))
    for k in order[:LENGTHEN_MAX_UNITS].tolist():
        spare = budget - margin - estimate
        if spare < ENOUGH_TOKENS:
            break
        unit = units[k]
        now = heads.get(k, unit.head_end)
        head = scene.head(unit.text, count(unit.text[:now]) + spare - 4)  # 4: the mark, seams
        head = before_values(unit.literals, head, unit.text)
        if head <= now:
            continue
        if head >= len(unit.text):
            decision[k] = KEPT
            kept.append(k)
            estimate += unit.tokens - unit.clip_tokens
        else:
            estimate += clip_cost(unit, head, count) - clip_cost(unit, now, count)
            heads[k] = head
        taken.append(k)
    chosen_items = [it for e in plan.record.entries for it in e.items]
    while taken:
        candidate = _plan(scene, r, _Chosen(decision, set(plan.calls_present), chosen_items), plan.protection,
                          heads)
        got, _ = scene.measure(candidate)
        if got <= budget:
            return candidate
        k = taken.pop()  # token seams made the estimate short: give up the last one
        decision[k] = CLIPPED
        if k in plan.heads:
            heads[k] = plan.heads[k]
        else:
            heads.pop(k, None)
    return plan

"""Agent-trace signals: what a tool's output is (a listing, a file read, a failure, a
verdict line), lines that define code or list names, and the ids of a list the agent is
working through."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

import numpy as np

from ..actions import answers_action, reads_code
from ..columns import UNIT_KINDS, Columns
from ..messages import SYSTEM_ROLES
from ..record import output_command, result_call
from .limits import LIMITS
from .sources import row_units
from .types import _CALL, _LINE_KIND


_SENTINEL = re.compile(r"(?<![A-Z0-9_])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+){2,}")
"""A word in capitals joined by underscores, where a harness instructs: the sentinel it waits
for (``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT`` submits a mini-swe-agent run), a value the
agent's last step needs, not boilerplate."""


@dataclass
class _Signals:
    """What the trace signals found in the messages and units already appended (the
    conversation's memo, see ``Columns.memo``: none of it changes as the conversation grows)."""

    outputs: list[bool] = field(default_factory=list)
    """Per message: a tool's output, or a system message (:func:`_outputs`)."""
    verdicts: dict[int, bool] = field(default_factory=dict)
    """Unit -> whether its line reads as a verdict (:func:`outcome_lines`)."""
    listing: list[bool] = field(default_factory=list)
    """Per message: a tool's output that lists names (:func:`listing_messages`)."""
    reading: list[bool] = field(default_factory=list)
    """Per message: a tool's output that prints a file of code (:func:`reading_messages`)."""
    failed: dict[int, bool] = field(default_factory=dict)
    """Tool result -> whether it opens by reporting a failure (:func:`failed_result`)."""
    id_shapes: list[int] = field(default_factory=list)
    """Per literal, the number of its :func:`_id_shape`."""
    shape_numbers: dict[str, int] = field(default_factory=dict)
    """An id shape -> its number."""
    output_lines: list[int] = field(default_factory=list)
    """The units that are a line of a tool's text output (not of a file printed or a
    listing, not a closing tag): where :func:`outcome_lines` looks for a verdict."""
    line_units: int = 0
    """How many units ``output_lines`` covers."""


def found_scans(cols: Columns) -> tuple[list[bool], list[bool]]:
    """:func:`listing_messages` and :func:`reading_messages` as found so far (finding no more;
    a segment of them is shared between workers: :mod:`..shared_columns`)."""
    memo = cols.memo(_Signals)
    return memo.listing, memo.reading


def seed_scans(cols: Columns, listing: list[bool] | None, reading: list[bool] | None) -> None:
    """Start :func:`listing_messages` and :func:`reading_messages` with their values for the
    first messages (read from a shared cache), each if it has not started."""
    memo = cols.memo(_Signals)
    if listing is not None and not memo.listing:
        memo.listing = listing
    if reading is not None and not memo.reading:
        memo.reading = reading


def found_verdicts(cols: Columns) -> dict[int, bool]:
    """The lines :func:`outcome_lines` has read so far, and whether each reads as a verdict (a
    function of the line's text; shared between workers per segment: :mod:`..shared_columns`)."""
    return cols.memo(_Signals).verdicts


def seed_verdicts(cols: Columns, verdicts: dict[int, bool]) -> None:
    """Start the verdicts :func:`outcome_lines` reads with lines read before (from a shared
    cache), if it has read none."""
    memo = cols.memo(_Signals)
    if not memo.verdicts:
        memo.verdicts = verdicts


def _outputs(cols: Columns) -> np.ndarray:
    """Per message: a tool's output (see :func:`is_tool_output`), or a system message."""
    memo = cols.memo(_Signals).outputs
    memo.extend(is_tool_output(cols, i) or cols.messages[i].role in SYSTEM_ROLES for i in range(len(memo), len(cols)))
    return cols.grown("_outputs", memo, bool)[:len(cols)]


_VERDICT = re.compile(r"(?i:\b(?:passed|failed|failures?|errors?|succeeded|successful(?:ly)?|skipped|xfailed"
                      r"|ran \d+ tests?|no such|not found|denied|refused|timed? ?out)\b)|\bOK\b"
                      r"|[A-Za-z_][\w.]{0,80}(?:Error|Exception|Warning)\b")  # (bounded: linear)


def outcome_lines(cols: Columns, outputs: np.ndarray, info: np.ndarray) -> np.ndarray:
    """Per unit: the last line of a tool's text output that says something (its verdict: see
    ``Policy.outcome``); not a closing tag, not a field of structured output, not the last line of
    a file printed or of a listing."""
    u_msg = cols.u_msg.view
    kind = cols.u_kind.view
    line = UNIT_KINDS.index("line")
    units = cols.units
    memo = cols.memo(_Signals)
    if memo.line_units < len(u_msg):  # (the lines a verdict may be: fixed once appended, found once)
        # (a file printed or a listing ends where the file or the tree does: no verdict)
        ran = outputs & ~reading_messages(cols, outputs) & ~listing_messages(cols, outputs)
        new = slice(memo.line_units, len(u_msg))
        lines = ran[u_msg[new]] & (kind[new] == line) & ~cols.u_tag_line.view[new]  # (a closing tag is no verdict)
        memo.output_lines.extend((np.flatnonzero(lines) + memo.line_units).tolist())
        memo.line_units = len(u_msg)
    lines = cols.grown("_output_lines", memo.output_lines, np.int64)[:len(memo.output_lines)]
    rows = lines[info[lines] > 0]
    # Each message's last such line, of those with enough of them (an output of a line or
    # two is all verdict: "Transfer successful", "17645.0"). (Read along the rows, which
    # come in message order: not arrays of every message of a long history.)
    msgs = u_msg[rows]
    ends = np.flatnonzero(np.r_[msgs[1:] != msgs[:-1], True]) if len(rows) else rows
    counts = np.diff(np.r_[-1, ends])
    last = rows[ends[counts >= LIMITS.outcome_lines]]
    out = np.zeros(len(u_msg), dtype=bool)
    said = memo.verdicts
    for u in last.tolist():  # (one line a message: read by its end)
        hit = said.get(u)
        if hit is None:
            hit = said[u] = _VERDICT.search(units.text(u)[-LIMITS.verdict_chars:]) is not None
        out[u] = hit
    return out


_ONE_NAME = re.compile(r"[\w.@+~%-]+:?")  # a line of one name ("docs", "CITATION", "./src:")


def listing_messages(cols: Columns, outputs: np.ndarray) -> np.ndarray:
    """Per message: a tool's output that lists names (``ls -R``, ``find``): of its first
    ``Limits.listing_sample`` units, at least eight are lines and three in five of those
    only list names (:func:`listing_line`, or one name: ``docs``, ``CITATION``; a
    warning above the listing aside). ``outputs``: :func:`_outputs`. Read once per message,
    a few units each."""
    memo = cols.memo(_Signals).listing
    if len(memo) < len(cols):
        starts = cols.msg_start.view
        kinds = cols.u_kind.view
        for i in range(len(memo), len(cols)):
            hit = False
            if outputs[i] and cols.messages[i].role not in SYSTEM_ROLES:
                s = int(starts[i])
                lines = [u for u in range(s, min(int(starts[i + 1]), s + LIMITS.listing_sample)) if _LINE_KIND[kinds[u]]]
                named = sum(_ONE_NAME.fullmatch(t) is not None or listing_line(t)
                            for t in (cols.units.text(u).strip() for u in lines))
                hit = len(lines) >= 8 and 5 * named >= 3 * len(lines)
            memo.append(hit)
    return cols.grown("listing_messages", memo, bool)[:len(cols)]


def reading_messages(cols: Columns, outputs: np.ndarray) -> np.ndarray:
    """Per message: a tool's output of a command or call that prints a file of code
    (:func:`.actions.reads_code`: ``cat a.py``, ``nl -ba a.py | sed -n 10,20p``, ``Read``).
    ``outputs``: :func:`_outputs`. Read once per message."""
    memo = cols.memo(_Signals).reading
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
    known = cols.memo(_Signals).failed
    hit = known.get(r)
    if hit is None:
        text = next((tf.text for tf in cols.messages[r].texts if tf.text.strip()), "")
        hit = known[r] = _FAILURE.match(text[:200]) is not None
    return hit


def is_tool_output(cols: Columns, i: int) -> bool:
    """A tool's output: a ``tool`` message, or (text agents) a user message right after
    an assistant action in a code block."""
    return cols.messages[i].role == "tool" or answers_action(cols.messages, i)


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


@dataclass
class _Pending:
    """What :func:`pending_ids` reads of the rows and units already appended (the
    conversation's memo, see ``Columns.memo``): none of it changes but by new rows, so a
    view reads only the rows of ids, not every row of the history."""

    ident: int = -1
    """The literal kind code of an identifier these were read with."""
    units: int = 0
    """How many units ``group`` covers."""
    group: list[int] = field(default_factory=list)
    """Per unit, its list: a unit, or consecutive list items, lines or rows of one message."""
    rows: int = 0
    """How many rows of the literal index ``id_rows`` and ``last_call`` cover."""
    id_rows: list[int] = field(default_factory=list)
    """The rows, outside tool calls, of literals of kind identifier."""
    last_call: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Per literal, the last message whose calls pass it (-1: none)."""


def pending_ids(cols: Columns) -> np.ndarray:
    """Per literal: an id of a list (one unit, or a message's consecutive list items, lines
    or rows) that holds at least two ids of the same shape the agent has since passed to
    tool calls, and that no later call has passed yet ("your reservations are 8C8K4E,
    UDMOP1, ..., 4XGCCM", then a lookup of each in turn)."""
    n_lits = len(cols.lit_text)
    out = np.zeros(n_lits, dtype=bool)
    ident = cols.kind_code("identifier")
    if ident < 0:
        return out
    memo = _pending_memo(cols, ident)
    last_call = memo.last_call[:n_lits]
    if not memo.id_rows or not (last_call >= 0).any():  # (no id, or no call passed a value: none pending)
        return out
    rows = cols.grown("_pending_id_rows", memo.id_rows, np.int64)
    group_of = cols.grown("_pending_groups", memo.group, np.int64)
    owners = row_units(cols)[rows]
    lits, groups = cols.lit_idx.view[rows], group_of[owners]
    done = last_call[lits] > cols.u_msg.view[owners]
    shapes = _shape_ids(cols)[lits]
    # Lists with two distinct ids passed since, and the shapes of those.
    n_shapes = int(shapes.max()) + 1
    ready = done & _two_distinct(groups[done], lits[done], memo.group[-1] + 1)[groups]
    keys = np.unique(groups[ready] * n_shapes + shapes[ready])
    todo = ~done & np.isin(groups * n_shapes + shapes, keys)
    out[lits[todo]] = True
    return out


def _pending_memo(cols: Columns, ident: int) -> _Pending:
    """The conversation's :class:`_Pending`, extended by the units and rows appended since."""
    memo = cols.memo(_Pending)
    if memo.ident != ident:  # (the code is fixed once an identifier is seen: read anew if not)
        memo.ident, memo.units, memo.group, memo.rows, memo.id_rows = ident, 0, [], 0, []
        memo.last_call = np.zeros(0, dtype=np.int64)
    kind = cols.u_kind.view
    u_msg = cols.u_msg.view
    n_units = len(kind)
    if memo.units < n_units:
        # A list: a unit, or consecutive list items, lines or rows of one message.
        lo = max(memo.units - 1, 0)
        listed = _LIST_KINDS[kind[lo:]] & (kind[lo:] != _CALL)
        joins = listed[1:] & listed[:-1] & (u_msg[lo + 1:] == u_msg[lo:-1])
        if memo.units == 0:
            joins = np.r_[False, joins]
        start = memo.group[-1] if memo.group else 0
        memo.group.extend((start + np.cumsum(~joins)).tolist())
        memo.units = n_units
    lit_idx = cols.lit_idx.view
    n_lits = len(cols.lit_text)
    if len(memo.last_call) < n_lits:
        memo.last_call = np.concatenate([memo.last_call, np.full(n_lits - len(memo.last_call), -1, dtype=np.int64)])
    if memo.rows < len(lit_idx):
        new = np.arange(memo.rows, len(lit_idx))
        owners = row_units(cols)[new]
        call_rows = kind[owners] == _CALL
        np.maximum.at(memo.last_call, lit_idx[new[call_rows]], u_msg[owners[call_rows]])
        memo.id_rows.extend(new[~call_rows & (cols.lit_kind.view[lit_idx[new]] == ident)].tolist())
        memo.rows = len(lit_idx)
    return memo


def _two_distinct(groups: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    """Per group (of ``n_groups``), whether ``values`` holds two distinct values in it. The
    rows come in list order (``groups`` non-decreasing): a group's least and greatest value
    differ, read run by run, not a unique of every (list, id) pair of a long history."""
    out = np.zeros(n_groups, dtype=bool)
    if not len(groups):
        return out
    if np.any(groups[1:] < groups[:-1]):  # (rows out of order: one code per (list, id) pair)
        pairs = np.unique(groups.astype(np.int64) * (int(values.max()) + 1) + values)
        return np.bincount(pairs // (int(values.max()) + 1), minlength=n_groups) >= 2
    starts = np.flatnonzero(np.r_[True, groups[1:] != groups[:-1]])
    out[groups[starts]] = np.minimum.reduceat(values, starts) != np.maximum.reduceat(values, starts)
    return out


def _shape_ids(cols: Columns) -> np.ndarray:
    """Per literal, a number for its :func:`_id_shape` (kept up to date as literals come)."""
    memo = cols.memo(_Signals)
    ids, numbers = memo.id_shapes, memo.shape_numbers
    for text in cols.lit_text[len(ids):]:
        ids.append(numbers.setdefault(_id_shape(text), len(numbers)))
    return cols.grown("_id_shapes", ids, np.int64)  # (the new ones converted, not the whole list a view)

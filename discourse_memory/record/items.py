"""A value as the record lists it (:func:`item_for`): with its key, its row, the head of its
sentence or its line, or whole when it is a short list item stating several values; None
when it is no value (a label's words, a keyless number, a line of base64).
"""

from __future__ import annotations

import re
from typing import Any

from .. import traces
from ..columns import Columns
from ..lang import marks
from ..labels import LIST_MARK
from ..literals import PATTERN_KINDS, Literal
from ..units import Unit
from .clauses import _own_stop_words, _sentence_head
from .context import _context_before, _in_context, _worded
from .entries import Item, built_item
from .json_keys import as_read, row_key
from .keys import _INLINE_KEY, _LABEL_BEFORE, _in_label, _key, inline_key, line_head, line_row, list_row, title_case
from .labels import is_date_header
from .limits import LIMITS
from .lines import LINE_KINDS, _line_number_file, _numbered, code_line, line_text
from .noise import _encoded_line
from .text import _COMMON_WORDS, _PROSE_KINDS, _STOP, _WORD, _quoted, closed_marks, sanitize


def first_statements(u: Unit) -> dict[str, Literal]:
    """Each literal text of ``u`` -> where ``u`` first states it (one line of a 1 MB JSON
    states tens of thousands: a scan per value would be quadratic)."""
    first: dict[str, Literal] = {}
    for x in u.literals:
        first.setdefault(x.text, x)
    return first


def item_for(cols: Columns, index: int, u: Unit, literal: int, first: bool = False,
             stated: dict[str, Literal] | None = None) -> Item | None:
    """The record item of literal ``literal`` as unit ``u`` (number ``index``) states
    it: the value with its key (see the module docstring). None for a number without a
    key: a bare number out of its text says nothing. ``first``: the unit opens its
    message (so a unit stating only a date is the session's date line). ``stated``: the
    unit's :func:`first_statements`, for a caller listing many values of one unit (or see
    :class:`UnitItems`, which reads what is the same for each of them once)."""
    return UnitItems(cols, index, u, first, stated).item(literal)


class UnitItems:
    """The record items of the values of one unit (:meth:`item`, as :func:`item_for`), with
    what is the same for every value of the unit (its JSON row, its list row, its short
    item's span, its language's stop words, its line number) read once: a line of a tool's
    output states a hundred values, and these were most of each one's item."""

    __slots__ = ("cols", "index", "unit", "first", "_stated", "_own_words", "_row_read", "_header", "_title",
                 "_numbered", "_whole")

    def __init__(self, cols: Columns, index: int, u: Unit, first: bool = False,
                 stated: dict[str, Literal] | None = None) -> None:
        self.cols, self.index, self.first = cols, index, first
        self.unit = as_read(cols, u)
        self._stated = stated
        # (each a function of the unit alone, read when first needed: _UNREAD until then)
        self._own_words: Any = _UNREAD
        self._row_read: Any = _UNREAD
        self._header: Any = _UNREAD
        self._title: Any = _UNREAD
        self._numbered: Any = _UNREAD
        self._whole: Any = _UNREAD

    def _own(self) -> frozenset[str]:
        if self._own_words is _UNREAD:
            self._own_words = _own_stop_words(self.unit.text)
        return self._own_words

    def _row(self) -> tuple[str | None, int]:
        if self._row_read is _UNREAD:
            json_row = row_key(self.unit)
            self._row_read = (json_row, self.index) if json_row is not None \
                else list_row(self.cols, self.index, self.unit)
        return self._row_read

    def _titled(self) -> bool:
        if self._title is _UNREAD:
            self._title = title_case(self.unit.text)
        return self._title

    def item(self, literal: int) -> Item | None:
        """The record item of literal ``literal`` as this unit states it (see :func:`item_for`)."""
        cols, index, u = self.cols, self.index, self.unit
        value = cols.lit_text[literal]
        if self.first and self._header is _UNREAD:
            self._header = is_date_header(u)
        if self.first and self._header:
            covers = tuple(cols.lit_ids[x.text] for x in u.literals)
            return Item(covers[0], index, u.message, sanitize(u.text), (0, len(u.text)), covers, True)
        stated = self._stated
        if stated is None:
            stated = self._stated = first_statements(u)
        lit = stated.get(value)  # (the first statement of the value, as ``next`` over the literals finds)
        kind = cols.lit_kind_names[int(cols.lit_kind.view[literal])]
        text = _quoted(value) if kind == "quoted" else value
        if lit is None:  # a tool call's name
            return Item(literal, index, u.message, sanitize(text), None, (literal,))
        if kind not in PATTERN_KINDS and (_in_label(u.text, lit.start, lit.end, u.kind in _PROSE_KINDS)
                                          or u.kind == "heading" and self._titled()):
            return None  # "- Additional Cost: $600", "## Important Boundaries": Title Case of a label, no name
        key = _key(u, lit.start, lit.end)
        if key is not None and key.rsplit(".", 1)[-1].strip("\"'").lower() == value.strip("\"'").lower():
            key = None  # '"can_change": can_change,' in code: a key that names its value says nothing of it
        path = None
        if kind == "number" and key is None and u.kind not in _PROSE_KINDS:
            # A number of code or output without a key is an item only as a line's number
            # (whatever else its line is: most numbers of a tool's output end here).
            if self._numbered is _UNREAD:
                self._numbered = _numbered(u)
            path = _line_number_file(cols, u, lit.start, lit.end, self._numbered)
            if path is None:
                return None
        # A line of base64 (a binary file in a diff): its pieces are no values either. (Read
        # within a bounded window: a unit can be one 5 MB line with many values.)
        lo, hi = max(0, lit.start - LIMITS.encoded_scan), lit.end + LIMITS.encoded_scan
        line_start = u.text.rfind("\n", lo, lit.start) + 1 or lo
        line_end = u.text.find("\n", lit.end, hi)
        line = u.text[line_start:line_end if line_end >= 0 else hi]
        if len(line) < 2 * LIMITS.encoded_scan and _encoded_line(line.strip("+-> \t")):
            return None
        if kind == "percent" and traces.progress_line().fullmatch(line.strip()):  # a test runner's progress
            return None  # "tests/test_lint.py ........ [ 80%]": how far a test run had got, no value
        span: tuple[int, int] | None = None
        # "John: That's right, his name is Ned" is a turn by its speaker, not a field keyed
        # "John": the entry's label names the speaker ("#463 John"), and "John: Ned" said it twice
        # and nothing of the value. Its value is listed as a sentence's is.
        spoken = u.kind == "field" and key is not None and key == cols.speaker(u.message) \
            and u.text.startswith(key + ":")
        if spoken:
            key = None
        row, group = self._row()
        inline = key is not None and u.kind in _PROSE_KINDS and inline_key(u.text, lit.start) == key
        if inline:
            # "{Flight HAT136, Departure: 07:00 PM EST, Arrival: 09:30 PM EST}": which flight's times
            held = line_row(u.text, lit.start)
            if held is not None:
                row, group = sanitize(held), index
        if text == value and self._whole is _UNREAD:
            self._whole = short_item_span(u)
        whole = self._whole if text == value else None  # (a prose kind)
        if key is not None and (whole is None or inline):
            outer = key.rsplit(".", 1)[0] if "." in key else ""
            if outer != value and value.lower() in outer.lower():
                return None  # "gift_card_7344518.source: gift_card": its key says it already
            value_shown = sanitize(text)
            return Item(literal, index, u.message, f"{sanitize(key)}: {value_shown}", None, (literal,), False,
                        sanitize(key), value_shown, row, group)
        if key is None and u.kind in _PROSE_KINDS:
            head = line_head(u.text, lit.start)
            if head is not None:
                # "PHX to IAH on 2024-05-19" of "- PHX to IAH on 2024-05-19, Flight Number: HAT152"
                # heads the values its labels key: listed as that row, not as the whole line again
                # beside "{PHX to IAH on 2024-05-19, Flight Number: HAT152}".
                shown = sanitize(head[1])
                return Item(literal, index, u.message, shown, head[0], (literal,), row=shown, group=index)
        if whole is not None:  # "Flight HAT192 from MIA to EWR on 2024-05-24", not "…MIA; EWR on 2024-05-24"
            shown = sanitize(_unbolded(u.text[whole[0]:whole[1]]))
            return Item(literal, index, u.message, shown, whole, (literal,), row=row, group=group)
        if kind == "number":
            if u.kind not in _PROSE_KINDS:  # (a line's number, found above: a keyed one was listed by its key)
                assert path is not None
                return Item(literal, index, u.message, f"{path}: {text}", None, (literal,), False, path, text)
            after = _WORD.match(u.text, lit.end + 1) if u.text[lit.end:lit.end + 1] == " " else None
            if after is None or after.group().lower() in _STOP or after.group().lower() in self._own():
                # (five digits or more: an id; "Python 3", "Line 1185", "Cyberpunk 2077" are no ids)
                named = _NAMED_BEFORE.search(u.text, max(0, lit.start - 48), lit.start) \
                    if len(value) >= LIMITS.named_digits and value.isdigit() else None
                if named is None or named.group(1).split()[-1].lower() in _COMMON_WORDS \
                        or _LABEL_END.match(u.text, lit.end):
                    return None  # (not in a label: "Gift Card 1: $39" keys the amount)
                # "$100 from Certificate 4856383": the number a capitalised noun names (a
                # certificate, a room, a gate), keyed by it
                return Item(literal, index, u.message, sanitize(u.text[named.start(1):lit.end]),
                            (named.start(1), lit.end), (literal,), row=row, group=group)
            span = (lit.start, after.end())
            before = _context_before(u.text, lit.start, lit.end, self._own())
            if before is not None:  # "family for 10 years", not "10 years"
                span = (before[0], after.end())
            if u.kind == "sentence" or spoken:
                span = _worded(u.text, span, lit.start, lit.end, self._own())
            shown = u.text[span[0]:span[1]]
        elif u.kind in LINE_KINDS and text == value:
            span = code_line(u.text, lit.start, lit.end)
            shown = line_text(u.text, span)
        else:
            own = self._own()
            span = _in_context(u.text, lit.start, lit.end, own)
            if (u.kind == "sentence" or spoken) and text == value:
                span = _sentence_head(u.text, span, cols.opening_label(u.message), own)
                if not any(x.text != value and x.start < span[1] and x.end > span[0] for x in u.literals):
                    # (a value beside another, "Max, Daisy", is listed in one span with it, its
                    # context the other's: widened too, the two would take two contexts' words)
                    span = _worded(u.text, span, lit.start, lit.end, own)
            shown = u.text[span[0]:span[1]] if text == value else text
        shown = sanitize(shown)
        source = span if text == value else None
        if len(shown) > LIMITS.item_chars:
            shown = shown[:LIMITS.item_chars - 1] + "…"
            span = None
        if source is not None:
            shown = closed_marks(u.text, source, shown)
        # (built by its slots: this is the item of most values of code and output, a few
        # hundred a turn that moves a tool's result out of the kept messages)
        return built_item(literal, index, u.message, shown, span if text == value else None, (literal,), False, None,
                          "", row, group)


_UNREAD = object()


_ITEM_MARK = re.compile(r"[ \t]*" + LIST_MARK)


def short_item_span(u: Unit) -> tuple[int, int] | None:
    """The span of a list item of at most ``LIMITS.short_item_chars`` without its marker, when
    it states two values or more and opens with no label: one item lists them all ("Flight
    HAT192 from MIA to EWR on 2024-05-24", where two context spans read "Flight HAT192 from
    MIA; EWR on 2024-05-24"), as a line of code does."""
    if u.kind != "list_item" or len(u.literals) < 2 or len(u.text) > 2 * LIMITS.short_item_chars:
        return None
    mark = _ITEM_MARK.match(u.text)
    lo, hi = mark.end() if mark else 0, len(u.text.rstrip())
    body = u.text[lo:hi]
    if hi - lo > LIMITS.short_item_chars or "\n" in body or body.endswith(":"):
        return None
    bold = _BOLD_HEAD.match(body)
    if bold is not None:
        # A bold item alone heads the items under it ("1. **Flight HAT101 (JFK to SEA)**"); a
        # bold name with a value of its own and more after it is one record of a list, listed
        # whole: "**Reservation 7WPL39**: DEN to EWR, Basic Economy" (its values apart read
        # "Reservation 7WPL39; DEN to EWR", whose route of which reservation?).
        a, b = lo + bold.start(2), len(u.text[:lo + bold.end(2)].rstrip(" \t:" + marks.COLON))
        if bold.end() >= len(body) or not any(
                a <= x.start and x.end <= b and x.kind in _NAMING_KINDS and _RECORD_NAME.fullmatch(u.text, a, x.start)
                and _AFTER_ID.fullmatch(u.text, x.end, b) for x in u.literals):
            # A label: "**Cabin Class**: Economy", "**p99 latency:** 378 ms", "**Certificate 1**:
            # $500" (an ordinal); a record's name is its id after a few capitalised words.
            return (lo, hi) if _values_after(u, lo + bold.end(), hi) else None
        return lo, hi
    label = _LABEL_BEFORE.search(u.text, 0, u.text.find(":", lo) + 1)
    if label is not None:
        return (lo, hi) if _values_after(u, label.end(), hi) else None
    return lo, hi


def _values_after(u: Unit, at: int, hi: int) -> bool:
    """Whether a label's value (``at`` to ``hi``) states two values or more and labels none
    of them: "Outbound: Flight HAT069 from JFK to SEA on May 20, 2024" is listed whole, not as
    "Outbound: JFK; Outbound: May 20, 2024; Flight HAT069"."""
    return sum(at <= x.start for x in u.literals) >= 2 and _INLINE_KEY.search(u.text, at, hi) is None


def _unbolded(body: str) -> str:
    """``body`` without the emphasis of the bold head it opens with, as a head is shown
    ("Reservation 7WPL39: DEN to EWR"); nothing else in it changes (``__init__.py``)."""
    bold = _BOLD_HEAD.match(body)
    if bold is None:
        return body
    return body[:bold.start(1)] + bold.group(2) + body[bold.end(2) + len(bold.group(1)):]


_RECORD_NAME = re.compile(r"(?:[A-Z][\w'\-]{0,24} ){0,3}")  # "Reservation ", "Connecting Flight "
_AFTER_ID = re.compile(r"(?: ?\([^()\n]{1,40}\))?")  # "(JFK to SEA)"
_NAMING_KINDS = PATTERN_KINDS - {"number"}  # (a capitalised word is no id: "Cabin Class")
_BOLD_HEAD = re.compile(r"(\*\*|__)([^*_\n]{1,60}?)\1[ \t]{0,3}[:" + marks.COLON + r"]?[ \t]{0,3}")

_NAMING_WORDS = r"(?:[A-Z][a-z]{1,20} ){0,2}[A-Z][a-z]{2,20}"  # "Certificate", "Gift Card"
_NAMED_BEFORE = re.compile(r"(?<![\w.\-/])(" + _NAMING_WORDS + r")[ \t]$")
NAMED_NUMBER = re.compile(_NAMING_WORDS + r" \d{1,40}")
"""An item that is a number with the capitalised words naming it (``item_for``)."""
_LABEL_END = re.compile(r"[*_]{0,2}[ \t]{0,2}[:" + marks.COLON + "]")

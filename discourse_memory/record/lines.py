"""A value of code or command output, keyed by its line: the line itself (or a window of it
around the value, cut between words), after its line number when a listing numbered it,
and the file a line number belongs to.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .. import traces
from ..columns import Columns
from ..units import Unit
from .limits import LIMITS
from .text import sanitize

LINE_KINDS = frozenset({"code", "line"})
_WORD_RUN = re.compile(r"[\w-]*")  # (a hyphen joins a name: "payments-gw" is not cut to "…-gw")


def _word_char(c: str) -> bool:
    """Whether ``c`` is a character of ``_WORD_RUN``: ``\\w`` of a text pattern is a character
    ``str.isalnum`` takes, or ``_`` (tests/test_record_text.py checks every code point)."""
    return c.isalnum() or c == "_" or c == "-"


def _line_start(text: str, at: int) -> tuple[int, bool]:
    """Where the line holding ``at`` starts, looked for within ``LIMITS.line_scan`` characters
    (a value of a 1 MB line must not cost a scan of it), and whether that is the line's start."""
    cut = max(0, at - LIMITS.line_scan)
    lo = text.rfind("\n", cut, at) + 1
    return (lo, True) if lo or not cut else (cut, False)


def line_text(text: str, span: tuple[int, int]) -> str:
    """A :func:`code_line` span as the note shows it: ``…`` where it cuts its line, after
    the line's number when a listing numbered it (``1962 … self.db_table = self.model…``)."""
    lo, whole = _line_start(text, span[0])
    hi = text.find("\n", span[1], span[1] + LIMITS.line_scan)
    shown = text[span[0]:span[1]]
    before = text[lo:span[0]]
    if before.strip() and not _BANNER.fullmatch(before):
        number = traces.line_number().match(before) if whole else None
        shown = (number.group(1) + " " if number else "") + ("…" if not number or before[number.end():].strip()
                                                           else "") + shown
    after = text[span[1]:span[1] + LIMITS.line_scan if hi < 0 else hi]
    if after.strip() and not _BANNER.fullmatch(after):
        shown += "…"
    return sanitize(shown)


_BANNER = re.compile(r"[ \t]*[=*#~_+-]{4,}[ \t]*")  # (one run: linear however long the line)
_BANNER_CHARS = frozenset("=*#~_+-")


def _banner_before(text: str, end: int, hi: int) -> int | None:
    """Where a banner that ends ``text[end:hi]`` starts (None: no banner), read back from
    ``hi`` (a pattern anchored at the end was quadratic on a long line of dashes)."""
    j = hi
    while j > end and text[j - 1] in " \t":
        j -= 1
    k = j
    while k > end and text[k - 1] in _BANNER_CHARS:
        k -= 1
    if j - k < 4:
        return None
    while k > end and text[k - 1] in " \t":
        k -= 1
    return k


def code_line(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the line holding ``start:end`` without its indent, or a window of about
    ``LIMITS.line_chars`` around the value that starts and ends between words. A line of code
    is its own context: the words around a value are code, and a sentence's boundaries
    (the dot of ``self.model._meta``) cut it into something it does not say."""
    lo, whole = _line_start(text, start)
    hi = text.find("\n", end, end + LIMITS.line_scan)
    hi = min(len(text), end + LIMITS.line_scan) if hi < 0 else hi
    while lo < start and text[lo] in " \t":
        lo += 1
    while hi > end and text[hi - 1] in " \t\r":
        hi -= 1
    # A banner around a line ("===== 12 passed in 0.15s =====") is no part of what it says.
    head, tail = _BANNER.match(text, lo, start), _banner_before(text, end, hi)
    if head is not None and tail is not None:
        lo, hi = head.end(), tail
    chars = LIMITS.line_chars
    if hi - lo <= chars or (hi - lo <= 4 * chars and len(sanitize(text[lo:hi])) <= chars):
        return lo, hi  # (an indent inside counts once)
    number = traces.line_number().match(text, lo, start) if whole else None
    if number is not None:  # the window is of the code, after its number (shown by line_text)
        lo = number.end()
        while lo < start and text[lo] in " \t":
            lo += 1
    room = max(chars - (end - start), 0)
    a = max(lo, start - room // 3)
    b = min(hi, end + room - (start - a))
    a = max(lo, min(a, b - chars))
    # Start and end between words, not inside one ("…= Permission.objects.get(…", not
    # "…= Permission.objects.get(content_t…").
    if lo < a < start and _word_char(text[a - 1]):
        a = _WORD_RUN.match(text, a, start).end()  # type: ignore[union-attr]  # (it matches "" at least)
    while end < b < hi:
        c, d = text[b - 1], text[b]  # (_word_char of both, written out: a call each was most of the loop)
        if not ((c.isalnum() or c == "_" or c == "-") and (d.isalnum() or d == "_" or d == "-")):
            break
        b -= 1
    return a, b


# (a listing's line numbers: `cat -n` style, and the registered trace readers' marks, as the
# → of Claude Code's Read: traces.line_number)
_GREP_LINE = re.compile(r"((?:[\w.\-]+/)*[\w.\-]+\.\w{1,10}):(\d{1,7})[:\-]")


def _numbered(u: Unit) -> tuple[re.Match[str] | None, re.Match[str] | None]:
    """What :func:`_line_number_file` reads of the start of ``u``'s text: a grep line's
    ``path:1312:``, and a listing's line number."""
    return _GREP_LINE.match(u.text), traces.line_number().match(u.text)


def _line_number_file(cols: Columns, u: Unit, start: int, end: int,
                      numbered: tuple[re.Match[str] | None, re.Match[str] | None] | None = None) -> str | None:
    """The file whose line the number at ``start:end`` numbers, if it is a line number:
    ``path:1312:`` (grep), or a number opening a line of a listing (``nl``, ``cat -n``,
    a traceback) of the file the tool call or command names. ``numbered``: :func:`_numbered`
    of ``u``, when the caller has it (the same for each value of the unit)."""
    grep, line = _numbered(u) if numbered is None else numbered
    if grep is not None and grep.start(2) == start and grep.end(2) == end:
        return grep.group(1)
    if line is None or line.start(1) != start or line.end(1) != end:
        return None
    return source_path(cols, u.message)


@dataclass(slots=True)
class LinesMemo:
    """What this module found of the messages already read (columns only grow)."""

    source_paths: dict[int, str | None] = field(default_factory=dict)
    """A tool output's message -> the first path named by what produced it."""


def source_path(cols: Columns, message: int) -> str | None:
    """The first path named by what produced a tool output: the call a tool result
    answers, or the assistant message before a text agent's observation."""
    memo = cols.memo(LinesMemo).source_paths
    if message in memo:
        return memo[message]
    src = cols.pairs.owner.get(message)
    if src is None and message > 0 and cols.messages[message - 1].role == "assistant":
        src = message - 1
    path = None
    if src is not None:
        lptr, lidx = cols.lit_ptr.view, cols.lit_idx.view
        s, e = int(cols.msg_start.view[src]), int(cols.msg_start.view[src + 1])
        code = cols.kind_code("path")
        for lit in lidx[lptr[s]:lptr[e]].tolist():
            if cols.lit_kind.view[lit] == code:
                path = cols.lit_text[lit]
                break
    memo[message] = path
    return path

"""A value of code or command output, keyed by its line: the line itself (or a window of it
around the value, cut between words), after its line number when a listing numbered it,
and the file a line number belongs to.
"""

from __future__ import annotations

import re

from ..columns import Columns
from ..units import Unit
from .text import sanitize

LINE_KINDS = frozenset({"code", "line"})
_WORD_CHAR = re.compile(r"[\w-]")  # (a hyphen joins a name: "payments-gw" is not cut to "…-gw")
LINE_CHARS = 40
"""A code or output line longer than this is shown as this many characters around the value."""
LINE_SCAN = 400


def _line_start(text: str, at: int) -> tuple[int, bool]:
    """Where the line holding ``at`` starts, looked for within :data:`LINE_SCAN` characters
    (a value of a 1 MB line must not cost a scan of it), and whether that is the line's start."""
    cut = max(0, at - LINE_SCAN)
    lo = text.rfind("\n", cut, at) + 1
    return (lo, True) if lo or not cut else (cut, False)


def line_text(text: str, span: tuple[int, int]) -> str:
    """A :func:`code_line` span as the note shows it: ``…`` where it cuts its line, after
    the line's number when a listing numbered it (``1962 … self.db_table = self.model…``)."""
    lo, whole = _line_start(text, span[0])
    hi = text.find("\n", span[1], span[1] + LINE_SCAN)
    shown = text[span[0]:span[1]]
    before = text[lo:span[0]]
    if before.strip() and not _BANNER.fullmatch(before):
        number = _LINE_NUMBER.match(before) if whole else None
        shown = (number.group(1) + " " if number else "") + ("…" if not number or before[number.end():].strip()
                                                           else "") + shown
    after = text[span[1]:span[1] + LINE_SCAN if hi < 0 else hi]
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
    :data:`LINE_CHARS` around the value that starts and ends between words. A line of code
    is its own context: the words around a value are code, and a sentence's boundaries
    (the dot of ``self.model._meta``) cut it into something it does not say."""
    lo, whole = _line_start(text, start)
    hi = text.find("\n", end, end + LINE_SCAN)
    hi = min(len(text), end + LINE_SCAN) if hi < 0 else hi
    while lo < start and text[lo] in " \t":
        lo += 1
    while hi > end and text[hi - 1] in " \t\r":
        hi -= 1
    # A banner around a line ("===== 12 passed in 0.15s =====") is no part of what it says.
    head, tail = _BANNER.match(text, lo, start), _banner_before(text, end, hi)
    if head is not None and tail is not None:
        lo, hi = head.end(), tail
    if hi - lo <= LINE_CHARS or (hi - lo <= 4 * LINE_CHARS and len(sanitize(text[lo:hi])) <= LINE_CHARS):
        return lo, hi  # (an indent inside counts once)
    number = _LINE_NUMBER.match(text, lo, start) if whole else None
    if number is not None:  # the window is of the code, after its number (shown by line_text)
        lo = number.end()
        while lo < start and text[lo] in " \t":
            lo += 1
    room = max(LINE_CHARS - (end - start), 0)
    a = max(lo, start - room // 3)
    b = min(hi, end + room - (start - a))
    a = max(lo, min(a, b - LINE_CHARS))
    # Start and end between words, not inside one ("…= Permission.objects.get(…", not
    # "…= Permission.objects.get(content_t…").
    while lo < a < start and _WORD_CHAR.match(text, a - 1) and _WORD_CHAR.match(text, a):
        a += 1
    while end < b < hi and _WORD_CHAR.match(text, b - 1) and _WORD_CHAR.match(text, b):
        b -= 1
    return a, b


_LINE_NUMBER = re.compile(r"[ \t]*(\d{1,7})(?:[ \t]*[:|\t→-]|[ \t]{2})")  # (→: Claude Code's Read, `cat -n` style)
_GREP_LINE = re.compile(r"((?:[\w.\-]+/)*[\w.\-]+\.\w{1,10}):(\d{1,7})[:\-]")


def _line_number_file(cols: Columns, u: Unit, start: int, end: int) -> str | None:
    """The file whose line the number at ``start:end`` numbers, if it is a line number:
    ``path:1312:`` (grep), or a number opening a line of a listing (``nl``, ``cat -n``,
    a traceback) of the file the tool call or command names."""
    grep = _GREP_LINE.match(u.text)
    if grep is not None and grep.start(2) == start and grep.end(2) == end:
        return grep.group(1)
    line = _LINE_NUMBER.match(u.text)
    if line is None or line.start(1) != start or line.end(1) != end:
        return None
    return source_path(cols, u.message)


def source_path(cols: Columns, message: int) -> str | None:
    """The first path named by what produced a tool output: the call a tool result
    answers, or the assistant message before a text agent's observation."""
    memo = cols.derived.setdefault("source_path", {})
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

"""Pages of a long text: where a recall of a message longer than its ``max_tokens`` breaks it.

A page is a span ``text[start:end]`` that fits a number of tokens. The next page starts
where the last one ended, so the pages of a text, in order, are exactly the text. A page
ends at a line break where one falls in its second half; else after whitespace (a word is
never split); else, in a text with no room for either (a long run without spaces), where
the tokens run out, backed off to a word boundary if there is one.

Where a part of a message is can also be asked for by its lines (1-based, as an editor
numbers them) or by words in it: :func:`line_span` and :func:`find_words` turn those into
a span that is then paged the same way.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from .limits import LIMITS

__all__ = ["Found", "find_words", "line_of", "line_span", "lines_in", "page_end", "pages"]

_SPACE = re.compile(r"\s")
_WORD = re.compile(r"\w")


def page_end(text: str, start: int, stop: int, room: int, count: Callable[[str], int]) -> int:
    """The end of the page of ``text[start:stop]`` that starts at ``start`` and fits ``room``
    tokens: ``stop`` if all of it fits, else a break as the module says. Always past
    ``start`` when ``start < stop`` (a page holds at least one character), so paging ends."""
    if start >= stop:
        return stop
    fits = _longest(text, start, stop, max(room, 1), count)
    if fits >= stop:
        return stop
    fits = max(fits, start + 1)
    half = start + (fits - start) // 2
    line = text.rfind("\n", start, fits)
    if line >= half:
        return line + 1
    for k in range(fits - 1, half - 1, -1):  # after the last whitespace of the second half
        if _SPACE.match(text, k):
            return k + 1
    k = fits  # no whitespace: at least keep a word (letters, digits) whole
    while k > start + 1 and _WORD.match(text, k - 1) and _WORD.match(text, k):
        k -= 1
    return k if k > half else fits


def _longest(text: str, start: int, stop: int, room: int, count: Callable[[str], int]) -> int:
    """An ``end <= stop`` with ``count(text[start:end]) <= room``, within about 2% of the
    largest (a page then backs off to a break anyway). Each probe's characters per token say
    where the room ends; the next probe lands just past that estimate after a probe that
    fitted, just short of it after one that did not, and halves the gap when the estimate
    falls outside it. Counts only spans about a page's size, never the whole text."""
    lo, hi = start, stop + 1  # text[start:lo] fits; text[start:hi] does not (stop + 1: none known yet)
    x = min(stop, start + 4 * room)
    close = 4
    while True:
        n = count(text[start:x])
        if n <= room:
            lo = x
            if x >= stop:
                return stop
        else:
            hi = x
        close = max(close, (x - start) // 64)
        if hi - lo <= close:
            return lo
        est = start + (x - start) * room // max(n, 1) + (close // 2 if n <= room else -(close // 2))
        if n <= room and hi > stop:
            est = max(est, start + 2 * (x - start))  # no end known yet: at least double
        x = est if lo < est < min(hi, stop + 1) else (lo + min(hi, stop + 1)) // 2
        x = min(x, stop)
        if x <= lo:
            x = lo + 1


def pages(text: str, room: int, count: Callable[[str], int], start: int = 0,
          stop: int | None = None) -> list[tuple[int, int]]:
    """The ``(start, end)`` of each page of ``text[start:stop]`` at ``room`` tokens, in order."""
    stop = len(text) if stop is None else stop
    out: list[tuple[int, int]] = []
    while start < stop:
        end = page_end(text, start, stop, room, count)
        out.append((start, end))
        start = end
    return out


def lines_in(text: str) -> int:
    """How many lines ``text`` has (a final line break ends the last line, it opens none)."""
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def line_of(text: str, offset: int) -> int:
    """The 1-based line that character ``offset`` is on."""
    return text.count("\n", 0, offset) + 1


def line_span(text: str, first: int, last: int | None) -> tuple[int, int] | None:
    """The characters of lines ``first`` to ``last`` (1-based, inclusive; ``None``: to the
    end), their last line break included; None if the text has no line ``first``."""
    if first < 1 or (last is not None and last < first):
        return None
    start = 0
    for _ in range(first - 1):
        start = text.find("\n", start) + 1
        if start == 0:
            return None
    if start >= len(text) and first > 1:
        return None
    end = start
    if last is None:
        return start, len(text)
    for _ in range(last - first + 1):
        nl = text.find("\n", end)
        if nl < 0:
            return start, len(text)
        end = nl + 1
    return start, end


@dataclass(frozen=True)
class Found:
    """Where words of a search are in a text."""

    at: tuple[int, ...]
    """Character offset of each line (or, in a long line, each place) that holds the most of
    the words, in order."""
    words: int
    """How many of the words those places hold."""


_TERM = re.compile(r"\"([^\"]+)\"|(\S+)")


def find_words(text: str, query: str) -> Found | None:
    """The places of ``text`` that hold the most of ``query``'s words (case-blind; a phrase
    in double quotes is one word), or None if it holds none. A place is a line's start, or
    in a line longer than :data:`LIMITS.place_context_chars` a space shortly before the first word."""
    terms = {(a or b).strip(".,;:!?'\"()[]{}").lower() for a, b in _TERM.findall(query)} - {""}
    if not terms:
        return None
    lower = text.lower()
    best, at = 0, []
    start = 0
    while start < len(text):
        nl = lower.find("\n", start)
        end = len(text) if nl < 0 else nl
        line = lower[start:end]
        hits = [line.find(t) for t in terms]
        score = sum(1 for h in hits if h >= 0)
        if score and score >= best:
            first = min(h for h in hits if h >= 0)
            place = start
            if first > LIMITS.place_context_chars:
                space = lower.rfind(" ", start, start + first - LIMITS.place_context_chars // 4)
                place = space + 1 if space >= start + first - LIMITS.place_context_chars else start + first - LIMITS.place_context_chars
            if score > best:
                best, at = score, []
            at.append(place)
        start = end + 1
    return Found(tuple(at), best) if best else None

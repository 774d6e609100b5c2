"""JSON documents split into members: tool results are mostly JSON, often on one line.

A JSON text is one unit while it is short. A longer one is split: each member of an
object (``"email": "mia@example.com"``, with its key) and each element of an array is a
unit, and a member or element that is itself long is split the same way, so a
reservation's fields, a search result's flights and their fields each stand alone:
the policy can keep ``"reservation_id": "M05KNL"`` and leave out the seat map. A long
string of several lines (a shell tool's ``{"output": "...\\n..."}``, as Codex returns a
command's output) is split at its ``\\n`` escapes into lines, the first with its key, so a
test run's failures or a file's definitions can be kept without the rest. Spans are exact
source offsets (``text[start:end]`` is the member as written).
"""

from __future__ import annotations

import json
import re

from .limits import LIMITS

__all__ = ["json_members", "read_offset", "unescaped"]

LINE = -1
"""The depth of a unit that is one line of a long string value (see the module docstring)."""

# Unrolled ("[^"\\]*" runs between escapes): a repeat per character kept one backtracking
# state per character, ~100 bytes each (a 4.7 MB string of a shell's output peaked at 598 MB).
_STRING = re.compile(r'"[^"\\\n]*(?:\\.[^"\\\n]*)*"')
_SCALAR = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+\-]?\d+)?|true|false|null")
_SPACE = re.compile(r"[ \t\r\n]*")
_STRUCTURE = re.compile(r'["{}\[\]]')


def json_value(text: str) -> object:
    """The JSON value ``text`` holds, or None when it holds none: malformed, or nested deeper
    than the parser's recursion allows (a tool call's arguments are the model's or a user's
    text, and a hostile one must not crash a view)."""
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return None


def json_object(text: str) -> dict | None:
    """The JSON object ``text`` holds, else None (see :func:`json_value`)."""
    doc = json_value(text)
    return doc if isinstance(doc, dict) else None


def json_members(text: str) -> list[tuple[int, int, int]] | None:
    """``(start, end, depth)`` of each unit of ``text`` if it is a JSON object or array
    long enough to split, else None. A unit of depth ``LINE`` is a line of a long string."""
    stripped = text.strip()
    if len(stripped) < LIMITS.json_document_chars or stripped[0] not in "{[" or stripped[-1] not in "}]":
        return None
    if json_value(stripped) is None:  # (an object or array: None only where it does not parse)
        return None
    start = len(text) - len(text.lstrip())
    out: list[tuple[int, int, int]] = []
    try:
        end = _value(text, start, 0, out, _container_ends(text, start))
    except _NotJson:
        return None
    if _SPACE.match(text, end).end() != len(text):
        return None
    return out or [(start, end, 0)]


class _NotJson(Exception):
    pass


def _value(text: str, pos: int, depth: int, out: list[tuple[int, int, int]], ends: dict[int, int]) -> int:
    """Scan the value at ``pos``; returns where it ends. A value longer than
    ``LIMITS.json_unit_chars`` is split into its members (appended to ``out``); otherwise the
    caller emits it as one unit (from its key's quote, for a member). ``ends``: where each
    container ends (:func:`_container_ends`)."""
    ch = text[pos:pos + 1]
    if ch == '"':
        m = _STRING.match(text, pos)
        if m is None:
            raise _NotJson
        return m.end()
    if ch not in ("{", "["):
        m = _SCALAR.match(text, pos)
        if m is None:
            raise _NotJson
        return m.end()
    end = ends[pos]
    if end - pos <= LIMITS.json_unit_chars or depth >= LIMITS.json_depth:
        return end
    close = "}" if ch == "{" else "]"
    pos = _SPACE.match(text, pos + 1).end()
    if text[pos:pos + 1] == close:
        return pos + 1
    while True:
        member = pos
        if ch == "{":
            key = _STRING.match(text, pos)
            if key is None:
                raise _NotJson
            pos = _SPACE.match(text, key.end()).end()
            if text[pos:pos + 1] != ":":
                raise _NotJson
            pos = _SPACE.match(text, pos + 1).end()
        before = len(out)
        value_end = _value(text, pos, depth + 1, out, ends)
        if len(out) == before and text[pos:pos + 1] == '"' and value_end - pos > LIMITS.json_unit_chars:
            _lines(text, member, pos, value_end, out)
        if len(out) == before:  # short enough: the member (or element) is one unit
            out.append((member, value_end, depth))
        pos = _SPACE.match(text, value_end).end()
        nxt = text[pos:pos + 1]
        if nxt == ",":
            pos = _SPACE.match(text, pos + 1).end()
            continue
        if nxt == close:
            return pos + 1
        raise _NotJson


_ESCAPE = re.compile(r"\\.")


def _lines(text: str, member: int, start: int, end: int, out: list[tuple[int, int, int]]) -> None:
    """The lines of the long string ``text[start:end]`` (quotes included) as units, split
    at its ``\\n`` escapes (an escaped backslash before an ``n`` is none); the first runs
    from ``member`` (its key); a break belongs to no line, as a line's end does not in a
    text. Nothing if it has few breaks."""
    breaks = [m.end() for m in _ESCAPE.finditer(text, start + 1, end - 1) if m.group() == "\\n"]
    if len(breaks) < LIMITS.json_string_lines:
        return
    at = member
    for b in breaks:
        if b - 2 > at:  # (an empty line is no unit)
            out.append((at, b - 2, LINE))
        at = b
    if end > at:
        out.append((at, end, LINE))


def _container_ends(text: str, pos: int) -> dict[int, int]:
    """Where each object or array of the document at ``pos`` ends, by where it opens: one
    scan of the text (strings skipped whole), not one per nesting level."""
    ends: dict[int, int] = {}
    if text[pos:pos + 1] not in ("{", "["):
        return ends
    opened: list[int] = []
    search, string = _STRUCTURE.search, _STRING.match
    i = pos
    while True:
        m = search(text, i)
        if m is None:
            raise _NotJson
        i = m.start()
        c = m.group()
        if c == '"':
            s = string(text, i)
            if s is None:
                raise _NotJson
            i = s.end()
            continue
        if c in "{[":
            opened.append(i)
        elif not opened:
            raise _NotJson
        else:
            ends[opened.pop()] = i + 1
            if not opened:
                return ends
        i += 1


_STRING_ESCAPE = re.compile(r'\\(["\\/bfnrt]|u[0-9a-fA-F]{4})')
_OPENS_BEFORE = frozenset(" \t\n([{,:=\"")
_READS_AS = {"n": " \n", "r": " \n", "t": "  ", "b": "  ", "f": "  ", "/": " /"}


def unescaped(arguments: str) -> str:
    """A tool call's JSON arguments as they read, each escape in its two characters: a
    line break or tab a space and that break, a quote a quote beside a space on the side
    away from the text it quotes. The view shows a call as it was; this is what its
    values are read from, so a command's code gives ``"Exception as e"`` and ``def
    handler(...)`` as written, not ``"Exception as e\\"`` and ``ndef handler``. A ``\\uXXXX``
    escape (``json.dumps``' default for any non-ASCII text) reads as its character, the
    string it stands in padded with spaces before its closing quote
    (``"\\u5317\\u4eac3"`` reads as the two Han characters it escapes, ``3`` and
    spaces: a name's characters stay together). The same length as ``arguments``: a value's
    place in it holds."""
    text, owed = _read(arguments)
    return text + " " * owed


def _read(arguments: str) -> tuple[str, int]:
    """``arguments`` as they read (see :func:`unescaped`), without the spaces still owed at
    their end by ``\\uXXXX`` escapes no closing quote has paid for, and that number."""
    if "\\" not in arguments:
        return arguments, 0
    out: list[str] = []
    at = 0
    pad = 0  # spaces owed by decoded \uXXXX escapes, paid before the string's closing quote
    run = ""  # \uXXXX escapes next to each other (a surrogate pair is two)

    def text(segment: str) -> None:
        nonlocal pad
        if pad and '"' in segment:
            q = segment.index('"')
            segment = segment[:q] + " " * pad + segment[q:]
            pad = 0
        out.append(segment)

    def flush() -> None:
        nonlocal run, pad
        if run:
            chars = _characters(run)
            out.append(chars)
            pad += len(run) - len(chars)
            run = ""

    for m in _STRING_ESCAPE.finditer(arguments):
        if m.start() != at:
            flush()
            text(arguments[at:m.start()])
        at = m.end()
        c = m.group(1)
        if c[0] == "u":
            run += m.group()
            continue
        flush()
        if c == '"':  # an opening quote has its text after it; a closing one before
            before = out[-1][-1:] if out and out[-1] else (out[-2][-1:] if len(out) > 1 else " ")
            out.append(' "' if not before or before in _OPENS_BEFORE else '" ')
        else:
            out.append(_READS_AS.get(c, m.group()))
    flush()
    text(arguments[at:])
    return "".join(out), pad


def read_offset(raw: str, pos: int) -> int:
    """Where offset ``pos`` of ``raw`` (a JSON text, or a unit of one) stands in
    ``unescaped(raw)``: a run of ``\\uXXXX`` escapes before it reads as its characters,
    fewer, and the spaces they owe are paid at the string's closing quote (see
    :func:`unescaped`), so a value after such a run stands earlier in the text as it reads
    than in the text as written, until that quote."""
    if "\\u" not in raw[:pos]:
        return pos
    return pos - _read(raw[:pos])[1]


def _characters(run: str) -> str:
    """A run of ``\\uXXXX`` escapes as its characters (a lone surrogate, which no text
    holds, is left as written)."""
    try:
        chars = json.loads(f'"{run}"')
        chars.encode("utf-8")
    except (ValueError, UnicodeEncodeError):
        return run
    return chars

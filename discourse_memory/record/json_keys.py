"""Keys of values in JSON: the path of a value's container (``passengers[1].first_name``),
the field that names an object of an array, a standalone object's first member as its
row; and a unit read with its JSON escapes read.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

from ..columns import Columns
from ..json_units import json_members, json_value, unescaped
from ..units import Unit
from .limits import LIMITS
from .text import _quoted, sanitize


@dataclass(slots=True)
class JsonKeysMemo:
    """What this module found of the messages already read (columns only grow)."""

    json_fields: dict[tuple[int, str], bool] = field(default_factory=dict)
    """(message, text field) -> whether it is a JSON document split into members."""


def json_field(cols: Columns, message: int, name: str) -> bool:
    """Whether a message's text field ``name`` is a JSON document split into members (read once)."""
    known = cols.memo(JsonKeysMemo).json_fields
    hit = known.get((message, name))
    if hit is None:
        text = next((tf.text for tf in cols.messages[message].texts if tf.field == name), "")
        hit = known[message, name] = json_members(text) is not None
    return hit


def as_read(cols: Columns, u: Unit) -> Unit:
    """``u`` with its text as it reads: a unit of a JSON document (a tool's result) is read
    with its escapes read (``json_units.unescaped``: the same length, so its literals'
    places hold), as its values were found (see ``segment``); a call's text is read so
    already. The record cuts every item from this text."""
    if "\\" in u.text and u.kind != "tool_call" and json_field(cols, u.message, u.field):
        return u._replace(text=unescaped(u.text))
    return u


_FIRST_MEMBER = re.compile(r"""\{\s*"([A-Za-z_][\w\-.]{0,40})"\s*:\s*"""
                           r"""(?:"((?:[^"\\\n]|\\.){1,60})"|(-?\d[\d.eE+\-]{0,20}|true|false))\s*[,}]""")

def row_key(u: Unit) -> str | None:
    """``key: value`` of the first member of a unit that is a JSON object standing alone (an
    element of a list: a search result's flight, ``flight_number: HAT110``; or the one object
    of a whole document's list) whose first member is a scalar, else None."""
    at = 0
    if not (u.depth or u.start):
        # A whole document is keyed by its call, but a search that found one flight is a list
        # of one object: "search_direct_flight(MCO): scheduled_departure_time_est: 03:00:00"
        # said which search, not which flight.
        at = _one_object(u.text)
        if at < 0:
            return None
    elif not u.text.startswith("{"):
        return None  # (a member "address": {...} is keyed by its fields)
    m = _FIRST_MEMBER.match(u.text, at)
    if m is None:
        return None
    value = m.group(2) if m.group(2) is not None else m.group(3)
    return sanitize(f"{m.group(1)}: {_quoted(value) if ' ' in value else value}")


@functools.lru_cache(maxsize=256)
def _one_object(text: str) -> int:
    """Where the object of ``text`` starts if it is a JSON list of one object, else -1 (read
    once per document: ``row_key`` asks for each value it states)."""
    if len(text) > LIMITS.one_element_chars or not text.startswith("["):
        return -1
    doc = json_value(text)
    if not (isinstance(doc, list) and len(doc) == 1 and isinstance(doc[0], dict)):
        return -1
    return text.index("{")


def _element_head(text: str, opened: int, before: int) -> tuple[str, str] | None:
    """The field that names an object of an array: its first whose key says it is a name,
    a number or an id (``flight_number: HAT271``, ``first_name: Chen``, ``payment_id: …``)
    among its first few, else its first; a scalar, short, before ``before``."""
    first = None
    pos = opened + 1
    for _ in range(LIMITS.head_fields):
        m = _JSON_MEMBER.match(text, pos)
        if m is None or m.start(1) >= before or not m.group(2):
            break  # (a member holding an object or array names nothing, and ends the scan)
        field = (m.group(1), m.group(2).strip('"'))
        if _NAMING_KEY.search(field[0]):
            return field
        first = first or field
        pos = m.end()
    return first


_NAMING_KEY = re.compile(r"(?:^|_)(?:id|number|name|code)$")
_JSON_MEMBER = re.compile(r'[\s,]{0,20}"([A-Za-z_][\w\-]{0,40})"\s{0,3}:\s{0,3}'
                          r'("[^"\\\]\[;\n]{1,40}"|-?\d{1,15}(?:\.\d{1,6})?|true|false|null|'
                          r'(?=[\[{]))\s{0,3}')
_JSON_START = re.compile(r"\s{0,200}[{\[\"]")
_JSON_TOKEN = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"\s*(:)?|[{}\[\]]')  # (unrolled: see json_units._STRING)


def _enclosing_key(text: str, at: int) -> tuple[str, int | None, int] | None:
    """The key of the JSON object or array that holds the member whose key starts at
    ``at`` in ``text`` (a JSON unit: a document or one of its members), or None at the top
    or when ``text`` is no JSON there; with it, when that key's value is an array of
    objects and the member is a field of one, that object's place in the array (the
    fields of one passenger stand together: ``passengers: {first_name: Chen, dob: …},
    {first_name: Noah, dob: …}``, not ``passengers.first_name: Chen, Noah``); and where
    the innermost container starts."""
    if at > LIMITS.json_path_chars or _JSON_START.match(text) is None:
        return None  # (a JSON unit is short: a long text is read no further than its key)
    # per open container: the key it is the value of, whether it is an array, the
    # elements opened in it so far, and its own place in its parent array
    open_: list[list] = []
    pending: str | None = None
    for m in _JSON_TOKEN.finditer(text, 0, at):
        token = m.group()
        if token in "{[":
            place = None
            if open_ and open_[-1][1]:
                place = open_[-1][2]
                open_[-1][2] += 1
            open_.append([pending, token == "[", 0, place, m.start()])
            pending = None
        elif token in "}]":
            if open_:
                open_.pop()
            pending = None
        elif m.group(2):  # a key
            pending = m.group(1)
        else:
            pending = None
    for depth in range(len(open_) - 1, -1, -1):
        key = open_[depth][0]
        if key is not None:
            element = open_[-1][3] if depth == len(open_) - 2 and open_[depth][1] and not open_[-1][1] else None
            return sanitize(key)[:LIMITS.label_chars], element, open_[-1][4]
    return None

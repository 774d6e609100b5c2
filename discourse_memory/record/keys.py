"""The key a value is listed under in prose and markdown: a field's key, a list item's or
bold label, a label inside a line (``…, Departure: 07:00 PM EST``), and the heads of the
rows those labels are the fields of (a line's lead, a nested list item's head).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ..columns import UNIT_KINDS, Columns
from ..lang import marks
from ..labels import LIST_MARK
from ..outline import head_text, is_attribute, list_heads
from ..units import Unit
from .json_keys import _element_head, _enclosing_key
from .limits import LIMITS
from .text import _PROSE_KINDS, _WORD, sanitize

_HEADING = UNIT_KINDS.index("heading")

_JSON_KEY_BEFORE = re.compile(r"""["']([A-Za-z_][\w\-.]{0,40})["']\s{0,3}:\s{0,3}["']?$""")

# A short label opening the value's line: "- **Total Price**: $189", "   - Price: $364".
# A list item's or a bold label, not a plain "Melanie: 5 years" (a speaker, or a sentence
# ending in a colon).
_LABEL_BEFORE = re.compile(r"(?<![^\n])[ \t]{0,8}(?:" + LIST_MARK + r"[*_]{0,2}|[*_]{2})"
                           r"([^\W\d_][\w .\-/()#']{0,39}?)[*_]{0,2}[ \t]{0,3}[:" + marks.COLON + r"][ \t]{0,3}[*_]{0,2}[ \t]{0,3}$")

# A label's second value, after its first and a word that joins them: "- Departure: 10:00 PM
# EST on May 20, 2024" (the date is the departure's too, not "EST on May 20, 2024"), "-
# **Departure:** May 20, 2024, at 06:00 AM EST" (a comma inside the first value or before the word).
_LABEL_THEN = re.compile(_LABEL_BEFORE.pattern[:-1]
                         + r"(?=[^\n]{0,30}?\d)[^\n;]{1,30}?[ \t,](?:on|at|from|until|by)[ \t]+$")
_COLON = re.compile("[:" + marks.COLON + "]")
_JOINING = ("on", "at", "from", "until", "by")


def _joined(text: str, start: int) -> bool:
    """Whether the text before ``start`` could end ``_LABEL_THEN``: a joining word, then
    spaces or tabs (and the line break ``$`` may stand before); True when that is not told
    by the forty characters read."""
    spaced = text[max(0, start - 40):start].rstrip("\n")
    word = spaced.rstrip(" \t")
    return len(word) < len(spaced) and (len(word) < 5 or word.endswith(_JOINING))


_FIELD_KEY = re.compile(r"[^\W\d][\w .\-/()#]{0,39}")


@dataclass(slots=True)
class KeysMemo:
    """What this module found of the units already read (columns only grow)."""

    head_texts: dict[int, str | None] = field(default_factory=dict)
    """A list item's or a field's unit -> its text as a row's head (:func:`.outline.head_text`)."""
    row_names: dict[int, str | None] = field(default_factory=dict)
    """A row's head unit -> the row's name (:func:`list_row`): the same for each of its items,
    and found by a look over its message's heads, once per head, not once per value."""


def list_row(cols: Columns, index: int, u: Unit) -> tuple[str | None, int]:
    """The head of the nested list item or field ``u`` (number ``index``) as a record row,
    and its unit (``(None, -1)`` when it has none): see :mod:`.outline`. Under a heading,
    only attributes (``key: value``) are listed in the heading's braces."""
    heads = list_heads(cols)
    parent = int(heads[index]) if index < len(heads) else -1
    if parent < 0 or cols.u_kind.view[parent] == _HEADING and not is_attribute(u):
        return None, -1
    memo = cols.memo(KeysMemo)
    name = memo.row_names.get(parent, _UNSEEN)
    if name is _UNSEEN:
        name = memo.row_names[parent] = _row_name(cols, heads, parent, memo.head_texts)
    return (None, -1) if name is None else (name, parent)  # type: ignore[return-value]


def _row_name(cols: Columns, heads: Any, parent: int, texts: dict[int, str | None]) -> str | None:
    def text_of(k: int) -> str | None:
        text = texts.get(k, _UNSEEN)
        if text is _UNSEEN:
            text = texts[k] = head_text(cols.units[k])
        return text  # type: ignore[return-value]

    text = text_of(parent)
    if text is None:
        return None
    above = int(heads[parent])
    if above >= 0 and text_of(above) is not None:
        # "First Leg: JFK to ATL" heads the legs of both options of a search: the row is
        # named by the option it falls under too ("Flight HAT136 & HAT039 › First Leg: …"),
        # as "Cabin Prices" is by its section ("Return Flight (SEA to JFK) › Cabin Prices").
        start, end = (int(x) for x in cols.msg_start.view[cols.u_msg.view[parent]:cols.u_msg.view[parent] + 2])
        if any(k != parent and int(heads[k]) >= 0 and text_of(k) == text for k in set(heads[start:end].tolist())
               if k >= 0):
            text = f"{text_of(above)} › {text}"
    return sanitize(text)


_UNSEEN = object()

# A label opening a line: a list item's, a heading's or a bold one, up to its colon.
_LABEL_LINE = re.compile(r"[ \t]{0,8}(?:" + LIST_MARK + r"|#{1,6}[ \t]{1,3}|(?=[*_]{2}))[^:\n]{1,80}?:")


def title_case(text: str) -> bool:
    """Every word capitalised: a section's title (``Important Boundaries``), not a
    sentence naming something (``Trip to Paris``)."""
    words = _WORD.findall(text)
    return bool(words) and all(w[0].isupper() for w in words)


def _in_label(text: str, start: int, end: int, inline: bool = True) -> bool:
    """The span ``start:end`` stands in a label that opens its line, before the colon, or
    in a label inside it (``…, Departure: 07:00 PM EST``, ``(Date of Birth: …)``: see
    ``_INLINE_KEY``), or is Title Case words naming the code after them ("changed to
    Flight Number HAT266")."""
    line = text.rfind("\n", 0, start) + 1
    label = _LABEL_LINE.match(text, line)
    if label is not None and end < label.end():
        return True
    if inline and text[end:end + 1] in ":*_ " and any(k.start(1) <= start and end <= k.end(1) for k in _INLINE_KEY.finditer(
            text, max(line, start - LIMITS.inline_key_chars), min(len(text), end + 4))):
        return True
    return _TITLE_WORDS.fullmatch(text, start, end) is not None and _CODE_AFTER.match(text, end) is not None


# A label inside a line, after a comma, a semicolon or an opening bracket: "- **Flight
# HAT136:** JFK to ATL, Departure: 07:00 PM EST, Arrival: 09:30 PM EST", "Mia Li (Date of
# Birth: …)". Capitalised, a few words. (Not at a line's start: "Melanie: 5 years" is a
# speaker; a list item's label is ``_LABEL_BEFORE``'s.)
_INLINE_KEY = re.compile(r"(?<=[,;(])[ \t]{0,3}[*_]{0,2}([A-Z][\w'\-]{0,24}(?: [\w'\-]{1,24}){0,3}?)[*_]{0,2}[ \t]{0,2}:"
                         r"(?=[ \t])")
_TITLE_WORDS = re.compile(r"[A-Z][a-z]+(?: [A-Z][a-z]+)+")
_CODE_AFTER = re.compile(r"[ \t]+(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9-]{3,}\b")


def _key(u: Unit, start: int, end: int) -> str | None:
    """The structural key of the value at ``start:end`` of unit ``u``: a field's key, a
    JSON key right before it, or a table column's header (not known here: None)."""
    text = u.text
    # (each pattern ends at the value, or before a line break just before it, on a colon or a
    # joining word: a look at its last few characters rules most values out without a search
    # back over sixty of them)
    near = text[max(0, start - 12):start]
    colon = _COLON.search(near) is not None
    match = _JSON_KEY_BEFORE.search(text, max(0, start - 60), start) if colon else None
    if match:
        holder = _enclosing_key(text, match.start())
        # "saved_passengers.first_name: Lei", not "first_name: Lei" beside the user's own
        # name; "certificate_7473723.amount: 150", not an amount of no payment method; a
        # field of one object of an array keyed by its place ("passengers[1].first_name").
        key = match.group(1)
        if holder is None or key.startswith(holder[0]):
            return key
        outer, element, opened = holder
        if element is None and outer == text[start:end].strip("\"'"):
            # "payment_methods: certificate_7473723", not "certificate_7473723.id:
            # certificate_7473723": the id of an object named by it is listed under what holds it
            above = _enclosing_key(text, opened)
            if above is not None and above[1] is None:
                return above[0]
        if element is None:
            return f"{outer}.{key}"
        # An object of an array is named by its first field ("flights: {flight_number:
        # HAT271, price: 105}", not "{price: 105}": which flight's price?).
        head = _element_head(text, opened, start)
        if head is None or head[0] == key:
            return f"{outer}[{element}].{key}"
        return f"{outer}[{element}; {sanitize(head[0])}: {head[1]}].{key}"
    # "- **Total Price**: $189", "   - Certificate 1: $500", "- Departure: 10:00 PM EST on May 20"
    label = (_LABEL_BEFORE.search(text, max(0, start - 60), start) if colon else None) \
        or (_LABEL_THEN.search(text, max(0, start - 90), start) if _joined(text, start) else None)
    if label is not None:
        return label.group(1).strip()
    inline = inline_key(text, start) if u.kind in _PROSE_KINDS else None  # (not "(AND: GreaterThan(…" of a log)
    if inline is not None:  # "…, Departure: 07:00 PM EST"
        return inline
    if u.kind == "field":
        colon = text.find(":")
        if 0 < colon < start:
            key = text[:colon].strip(" \t-*#\"'`")
            if _FIELD_KEY.fullmatch(key):
                return key
    return None


def inline_key(text: str, start: int) -> str | None:
    """The label inside a line that the value at ``start`` follows (see ``_INLINE_KEY``)."""
    line = text.rfind("\n", 0, start) + 1
    for k in _INLINE_KEY.finditer(text, max(line, start - LIMITS.inline_key_chars), start):
        if text[k.end():start].strip(" \t*_") == "":
            return k.group(1).strip()
    return None


def line_row(text: str, start: int) -> str | None:
    """What a line's inline labels are the fields of: the line before its first one, without
    its list mark, emphasis and closing colon ("Flight HAT136: JFK to ATL" of "- **Flight
    HAT136:** JFK to ATL, Departure: …"; "ORD to DEN on 2024-05-14" of "1. ORD to DEN on
    2024-05-14, Flight Number: HAT238"); None when that is empty or long."""
    line = text.rfind("\n", 0, start) + 1
    first = _INLINE_KEY.search(text, line, start)
    return None if first is None else _row_text(text[line:first.start()])


def _row_text(lead: str) -> str | None:
    """A line's text before its first inline label as a row's head (see :func:`line_row`)."""
    head = _LINE_MARK.sub("", lead, count=1).replace("**", "").replace("__", "")
    head = " ".join(head.split()).strip(" ,;(").rstrip(":" + marks.COLON).strip()
    return head if head and len(head) <= LIMITS.row_head_chars else None


_LINE_MARK = re.compile(r"^[ \t]*(?:" + LIST_MARK + r")?")


def line_head(text: str, at: int) -> tuple[tuple[int, int], str] | None:
    """The span and text of the line head (see :func:`line_row`) that the value at ``at``
    stands in, before the line's first inline label; None when it stands elsewhere or the
    line has none."""
    # (bounded reads: a unit can be one 5 MB line with many values)
    floor = max(0, at - 2 * LIMITS.row_head_chars)
    line = text.rfind("\n", floor, at) + 1
    if line == 0 and floor > 0:
        return None  # its line starts further back: no head is that long
    reach = at + LIMITS.row_head_chars + LIMITS.inline_key_chars
    end = text.find("\n", at, reach)
    first = _INLINE_KEY.search(text, at, end if end >= 0 else min(len(text), reach))
    if first is None or first.start() - line > 2 * LIMITS.row_head_chars \
            or _INLINE_KEY.search(text, line, at) is not None:
        return None
    lead = text[line:first.start()]
    head = _row_text(lead)
    if head is None:
        return None
    start = line + _LINE_MARK.match(lead).end()  # type: ignore[union-attr]  # (it matches "" at least)
    return (start, line + len(lead.rstrip(" \t,;(*_"))), head

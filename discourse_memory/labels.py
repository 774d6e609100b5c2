"""Who said a message and when, as dialogue text states it.

Transcripts name their speaker at the start of a turn ("Caroline: Hey Mel!") and date
their sessions with a line of their own ("[1:56 pm on 8 May, 2023]"). The view keeps
the speaker of every message it shows (:mod:`.render`), and the record names the
speaker and dates each entry (:mod:`.record`): the model sees who said what and when.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from .literals import Literal, find_literals

__all__ = ["LIST_MARK", "SPEAKER", "SPEAKER_AT", "date_line", "date_prefix", "label_before_number", "may_be_date_line", "speaker_label"]

SPEAKER_AT = re.compile(r"([A-Z][\w'\-]{0,20}(?:[ ][A-Z][\w'\-]{0,20}){0,2}):[ \t]+(?=[^\W\d_]|[\"'“(\[])")
"""A speaker label: one to three capitalised words and a colon, before words (a field
such as "Window: 02:00-04:00" is no speaker)."""
SPEAKER = re.compile(r"\s*" + SPEAKER_AT.pattern)
"""A speaker label opening a turn."""
_SPEAKER_BEFORE_NUMBER = re.compile(r"\s*([A-Z][\w'\-]{0,20}(?:[ ][A-Z][\w'\-]{0,20}){0,2}):[ \t]+(?=\d)")
LIST_MARK = r"(?:[-*+•][ \t]{1,3}|\d{1,3}[.)][ \t]{1,3})"
"""A markdown list item's marker and the space after it (``- ``, ``2. ``): what opens the
label of a summary's line ("- **Total Price**: $189")."""
_DATE_KINDS = frozenset({"date", "datetime", "time"})
_DATE_LINE_REST = re.compile(r"[\s\[\](){}<>,.:;|\-–—]*(?:on|at|am|pm|AM|PM)?[\s\[\](){}<>,.:;|\-–—]*")


_BRACKETED = re.compile(r"[ \t]{0,8}\[(?=[^\[\]\n]{0,60}\d)([^\[\]\n]{1,60})\][ \t]{1,8}(?=\S)")


def date_prefix(text: str) -> int:
    """Where the turn starts after a date line in brackets opening ``text``, on the same
    line ("[1:10 pm on 27 March, 2023] Audrey: Hi!", "[2024-03-05 14:00] ..."), or -1: the
    brackets hold a :func:`date_line` in any format the literal patterns read (and the
    language packs' shapes), and the date is the session's date line as when it stands on
    a line of its own (:mod:`.segment` makes it a unit of its own)."""
    match = _BRACKETED.match(text)
    if match is None:
        return -1
    inside = match.group(1)
    return match.end() if date_line(inside, find_literals(inside)) else -1


def speaker_label(text: str) -> str | None:
    """The speaker label opening ``text`` ("Caroline: ..."), or after its first line when
    that line is not one (a date line may come first), or after a date opening its line
    (:func:`date_prefix`)."""
    match = SPEAKER.match(text)
    if match is None:
        dated = date_prefix(text)
        if dated >= 0:
            match = SPEAKER.match(text, dated)
    if match is None:
        line_end = text.find("\n")
        if line_end != -1:
            match = SPEAKER.match(text, line_end + 1)
    if match is None or match.group(1).isupper():  # "THOUGHT:", "NOTE:" head a section, not a turn
        return None
    if match.group(1).lower() in _SECTION_WORDS:  # "Noted: ticket 4100 stays open", "Owner: Dana"
        return None
    return match.group(1)


_SECTION_WORDS = frozenset(
    "note notes noted summary update updates answer question result results output input error warning "
    "step thought action observation plan done status reason response final example examples reminder "
    "important tip next todo edit fix solution explanation context conclusion recap translation source "
    "title subject date time location owner author assignee reviewer contact name customer issue problem "
    "goal task request reply correction ps".split())
"""Words that open a section or a field with a colon, not a speaker's turn."""


def label_before_number(text: str) -> str | None:
    """The label opening ``text`` when a number follows it ("Melanie: 5 years already!"):
    a speaker's turn where the conversation's other turns open with that label, a field
    ("Window: 02:00-04:00") where they do not (the caller counts)."""
    match = _SPEAKER_BEFORE_NUMBER.match(text)
    if match is None:
        dated = date_prefix(text)
        if dated >= 0:
            match = _SPEAKER_BEFORE_NUMBER.match(text, dated)
    if match is None:
        line_end = text.find("\n")
        if line_end != -1:
            match = _SPEAKER_BEFORE_NUMBER.match(text, line_end + 1)
    if match is None or match.group(1).isupper() or match.group(1).lower() in _SECTION_WORDS:
        return None
    return match.group(1)


def may_be_date_line(n_chars: int, n_literals: int) -> bool:
    """Whether a text of ``n_chars`` characters stating ``n_literals`` literals can be a date
    line (:func:`date_line`): one states a date in a short line."""
    return n_literals > 0 and n_chars <= 60


def date_line(text: str, literals: Sequence[Literal]) -> bool:
    """Whether a unit's ``text`` only states a date or a time (a session's date line):
    its literals are dates and times, and nothing else but marks and "on"/"at"."""
    if not may_be_date_line(len(text), len(literals)) or any(lit.kind not in _DATE_KINDS for lit in literals):
        return False
    pos = 0
    for lit in literals:
        if not _DATE_LINE_REST.fullmatch(text, pos, lit.start):
            return False
        pos = lit.end
    return _DATE_LINE_REST.fullmatch(text, pos) is not None

"""What a text's pieces say about their literals and lines beyond the pieces themselves: the
name-like literals a piece states after a word of its own, the literals it states only as a
markup tag's name, and the pieces that are a line of markup tags alone.

Each is a function of one text and its pieces, so it is found once per text, kept with the
text's analysis and shared with it (:mod:`.analysis_codec`): a worker that reads a
conversation's analyses from the shared cache does not scan its every piece again on its
first view. :class:`~.columns.Columns` turns marks into its literal and unit columns.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import NamedTuple

from .labels import LIST_MARK
from .lang import marks
from .literals import PATTERN_KINDS
from .segment import Piece

__all__ = ["CODE", "TextMarks", "marks_of"]


class TextMarks(NamedTuple):
    """The marks of one text's pieces (literal texts, not ids: a text is marked once, for every
    conversation that holds it)."""

    mid: tuple[str, ...]
    """Name-like literals some piece states after a word of its own (distinct, in order)."""
    tags: tuple[str, ...]
    """Per piece, each literal it states only as a markup tag's name (``<pr_description>``):
    a literal once per piece that does so."""
    tag_lines: tuple[int, ...]
    """The pieces (their places in the text's pieces) that are a line of markup tags alone."""


CODE = re.compile(r"[A-Z]{2,4}")
"""A code in capitals (``JFK``, ``NASA``, ``BTW``): read like a name for where it stands;
a longer word in capitals is emphasis or a heading (:func:`.record.not_values`)."""

# A name-like literal opens its sentence when nothing but marks, or a speaker label
# ("Caroline: "), stands between it and the start of its unit or the end of the
# previous sentence: "Really" in "Really? I loved it." or in "Oh no. Really?"
_LABEL = re.compile(r"\s*[\w .'\-]{1,40}:\s+")
# A markdown label ("- **Upgrade Cabin Class**: "), and a lower-case word after the name
# that follows it: the label opens a sentence ("Upgrade to business class"), not a value
# ("Cabin: Business").
_MD_LABEL = re.compile(r"[ \t]{0,8}" + LIST_MARK + r"?[*_]{0,2}[\w .'\-/()]{1,80}[*_]{0,2}:[*_]{0,2}[ \t]{1,3}[*_(]{0,3}")
_SENTENCE_ON = re.compile(r"[*_]{0,2}[,;]?[ \t]{1,3}[(\"“]?[a-z]")
_ALNUM = re.compile(r"[^\W_]")
_JSON_STRING_OPEN = re.compile(r"""[\w\-]["']\s{0,3}:\s{0,3}["']$""")  # '{"thought": "' before a text
_SENTENCE_END = re.compile(r"(?:[.!?…" + marks.END_MARKS + marks.CLAUSE_END + r"]+[\"'’”" + marks.CLOSING_QUOTES
                           + r")\]]*|\n)\W*$")
_TAG_LINE = re.compile(r"\s*(?:</?[A-Za-z_][\w-]*>\s*)+")  # "</output>", "<returncode>0</returncode>" is no tag alone


def marks_of(text: str, pieces: Sequence[Piece]) -> TextMarks:
    """The marks of ``pieces``, spans of ``text``."""
    mid: list[str] = []
    tags: list[str] = []
    tag_lines: list[int] = []
    for i, p in enumerate(pieces):
        if p.literals:
            _mid_literals(p, text, mid)
            _tag_literals(p, text, tags)
        if p.kind == "line" and _TAG_LINE.fullmatch(text, p.start, p.end) is not None:
            tag_lines.append(i)
    return TextMarks(tuple(dict.fromkeys(mid)), tuple(tags), tuple(tag_lines))


def _tag_literals(p: Piece, text: str, out: list[str]) -> None:
    """The literals piece ``p`` states only as a markup tag's name (``<pr_description>``,
    ``</output>``), appended to ``out``."""
    if "<" not in text[p.start:p.end]:
        return
    tagged: dict[str, bool] = {}
    for lit in p.literals:
        a, b = p.start + lit.start, p.start + lit.end
        in_tag = text[a - 1:a] == "<" or text[a - 2:a] == "</"
        in_tag = in_tag and text[b:b + 1] in (">", " ")
        tagged[lit.text] = tagged.get(lit.text, True) and in_tag
    out.extend(t for t, only in tagged.items() if only)


def _mid_literals(p: Piece, text: str, out: list[str]) -> None:
    """Name-like literals of piece ``p`` (names, entities and codes in capitals, not other
    pattern kinds) that it states after a word of its own: not as its opening word, nor right
    after a speaker label (appended to ``out``). A name in a script without capitals always
    counts."""
    for lit in p.literals:
        if lit.kind in PATTERN_KINDS and not (lit.kind == "identifier" and CODE.fullmatch(lit.text)):
            continue
        if not lit.text[:1].isupper():  # no capital to mistake (a Chinese name): a name wherever it stands
            out.append(lit.text)
            continue
        if lit.start == 0:
            continue
        # What stands before the name decides; searched in place (no slice of it), as
        # a one-line 1 MB message states tens of thousands of names.
        start, end = p.start, p.start + lit.start
        if lit.start <= 200:
            label = _LABEL.match(text, start, end)
            if label is not None and label.end() == end:
                continue  # right after a speaker label
        line = text.rfind("\n", start, end) + 1 or start
        if end - line <= 120:
            label = _MD_LABEL.match(text, line, end)
            if label is not None and label.end() == end and _SENTENCE_ON.match(text, p.start + lit.end):
                continue  # opens the sentence after a list item's label
        if end - start >= 4 and _JSON_STRING_OPEN.search(text, max(start, end - 12), end) \
                and _SENTENCE_ON.match(text, p.start + lit.end):
            continue  # opens the text of a JSON string ('{"thought": "Calculate the total'): an opener
        if _ALNUM.search(text, start, end) is not None \
                and not _SENTENCE_END.search(text, max(start, end - 12), end):
            out.append(lit.text)

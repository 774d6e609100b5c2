"""Literals: the exact values a unit states.

Kinds: ``url``, ``email``, ``datetime``, ``date``, ``time``, ``amount``,
``percent``, ``version``, ``path``, ``identifier``, ``quoted``, ``number`` (found
by the patterns below, leftmost first, earlier kinds winning at a position) and
``name`` (runs of capitalised words found on spaCy tokens; with a statistical
pipeline, its entities too).

Every pattern is linear-time: no nested quantifiers, bounded repeats.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from typing import Any, Iterable, NamedTuple

from .doc_tokens import DocTokens

__all__ = ["PATTERN_KINDS", "Literal", "Spans", "find_literals", "find_names", "find_names_by_pattern", "find_token_names",
           "first_kinds"]


class Spans:
    """Non-overlapping spans, for O(log n) "is this span free?" checks."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self._starts = [s for s, _ in ordered]
        self._ends = [e for _, e in ordered]

    def free(self, start: int, end: int) -> bool:
        i = bisect_left(self._starts, end) - 1  # the last span starting before `end`
        return i < 0 or self._ends[i] <= start


class Literal(NamedTuple):
    """A literal: ``unit_text[start:end] == text``. (An immutable named tuple: cold
    analysis makes and hashes tens of thousands.)"""

    text: str
    kind: str
    start: int
    end: int


def first_kinds(literals: Iterable[Literal]) -> dict[str, str]:
    """Each distinct literal text, in order of first appearance, with the kind it first
    appears as."""
    out: dict[str, str] = {}
    for lit in literals:
        out.setdefault(lit.text, lit.kind)
    return out


_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?"
    r"|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_PATTERNS: list[tuple[str, str]] = [
    ("url", r"(?:https?|ftp|file)://[^\s<>\"'`]{1,2000}|www\.[A-Za-z0-9\-]{1,63}\.[^\s<>\"'`]{1,2000}"),
    ("email", r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63}){1,8}"),
    ("datetime", r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+\-]\d{2}:?\d{2})?"),
    ("date", r"\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}\.\d{1,2}\.\d{4}"
             r"|\d{1,2}(?:st|nd|rd|th)?\s" + _MONTH + r"\.?,?(?:\s\d{4})?"
             r"|" + _MONTH + r"\.?\s\d{1,2}(?:st|nd|rd|th)?(?:,?\s\d{4})?(?!\d)"
             r"|" + _MONTH + r"\s\d{4}"),
    ("time", r"\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?(?:\s?[A-Z]{3})?(?![\d:])"
             r"|\d{1,2}\s?[AaPp]\.?[Mm]\b\.?"),
    ("amount", r"[$€£¥₹]\s?\d[\d,]{0,30}(?:\.\d{1,8})?(?:\s?(?:[kKmMbB]n?|million|billion)\b)?"
               r"|(?<![\d,.])\d[\d,]{0,30}(?:\.\d{1,8})?\s?(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|dollars?|euros?|pounds?)\b"),
    ("percent", r"(?<![\d.])[+\-]?\d{1,15}(?:\.\d{1,8})?\s?%"),
    ("version", r"\bv\d{1,6}(?:\.\d{1,6}){0,4}(?:[\-+][A-Za-z0-9.]{1,20})?\b"
                r"|\b\d{1,6}\.\d{1,6}\.\d{1,6}(?:\.\d{1,6})?(?:[\-+][A-Za-z0-9.]{1,20})?\b"),
    ("path", r"(?:~|\.{1,2})?(?:/[\w.\-@+]{1,255}){2,64}/?"
             r"|(?<![\w\-])[\w\-]{1,64}(?:/[\w.\-]{1,255}){1,64}\.[A-Za-z0-9]{1,10}\b"
             r"|\b[A-Za-z]:\\[\w.\-\\ ]{1,255}"),
    ("identifier", r"\b[A-Z][A-Z0-9]{1,15}-\d{1,12}\b"
                   r"|(?<![\w\-])(?=[\w\-]{0,64}?\d)[A-Za-z][A-Za-z0-9]{0,30}(?:-[A-Za-z0-9]{1,30}){1,6}\b"
                   r"|(?<![\w.])[A-Za-z_][A-Za-z0-9]{0,63}(?:[_.][A-Za-z0-9]{1,63}){1,16}(?:\(\))?"
                   r"|\b[a-z][a-z0-9]{0,63}(?:[A-Z][a-z0-9]{0,63}){1,16}\b"
                   r"|\b[A-Z][a-z0-9]{1,63}(?:[A-Z][a-z0-9]{0,63}){1,16}\b"
                   r"|\b(?=[A-Za-z]{0,63}\d)(?=\d{0,63}[A-Za-z])[A-Za-z0-9]{2,64}\b"
                   r"|\b[A-Z]{2,10}\b"),
    ("quoted", r"(?<![\w\"])\"(?=[^\"\n]{0,119}\s)(?=\S)[^\"\n]{1,120}(?<=\S)\"(?!\w)"
               r"|“[^”\n]{1,120}”|`(?=[^`\n]{0,119}\s)(?=[^`\s])[^`\n]{1,120}(?<=\S)`"
               r"|(?<![\w'])'(?=[^'\n]{0,119}\s)(?=\S)[^'\n]{1,120}(?<=\S)'(?!\w)"),
    ("number", r"(?<![\w.])[+\-]?\d{1,3}(?:,\d{3}){1,6}(?:\.\d{1,12})?(?![\d,])"
               r"|(?<![\w.])[+\-]?\d{1,40}(?:\.\d{1,40})?(?![\w])"),
]
# Every literal starts at the start of a word or at one of a few symbols: skip every other
# position (most of a text, all of a run of punctuation) before trying the alternatives.
# A plain word, lower-case or capitalised, starts none of them when what follows it
# cannot continue one (a space, a closing or comma-like mark, a quote, a sentence end, a
# colon that opens no ``://`` or ``:\``): each needs a digit, a second capital, or one
# of ``@ / _ - . : % +`` inside, unless the word may be a month (a date). A symbol is
# tried only where an alternative can start with it: a sign before a digit, a quote
# that follows no word, an e-mail's or a path's first character, ``./`` and ``../``.
# So most prose words and marks are skipped at once (``tests/test_literals.py`` checks
# that the skip changes no match).
_END_MARK = r"""[\s,;!?)\]}"'’`*=<>&#|(\[{]"""
_PLAIN_END = r"(?:" + _END_MARK + r"|:(?![/\\])|\.(?=" + _END_MARK + r"|$)|$)"
_START = (r"(?:(?<![A-Za-z0-9_])(?=\w)(?![a-z]{1,64}" + _PLAIN_END + ")"
          r"(?!(?!Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[A-Z][a-z]{1,63}" + _PLAIN_END + ")"
          r"|(?=[$€£¥₹/~“\"'`+\-.])(?:(?=[$€£¥₹/~“])"
          r"|(?=\")(?<![\w\"])|(?=')(?<![\w'])|(?=`[^`\s])"
          r"|(?=[+\-]\d)|(?=[.+\-])(?<![A-Za-z0-9._%+\-])|(?=-)(?<![\w\-])|(?=\.\.?/)))")
PATTERN_KINDS = frozenset(kind for kind, _ in _PATTERNS)
"""Kinds found by the patterns (every other kind is a name or a model's entity)."""
_RE = re.compile(_START + "(?:" + "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in _PATTERNS) + ")")
_TRAILING = ".,;:!?)]}'\""
_JSON_KEY = re.compile(r"[\"']\s{0,3}:")
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+|[ \t]*#{1,6}[ \t]")
# Dotted "identifiers" that are ordinary abbreviations, not names in code.
_NOT_IDENTIFIER = frozenset({"e.g", "i.e", "etc", "vs", "a.m", "p.m", "u.s", "mr", "mrs", "dr"})


def find_literals(text: str) -> list[Literal]:
    """Pattern literals of ``text``, in order; list and heading markers are skipped."""
    out: list[Literal] = []
    skip = 0
    marker = _LIST_MARKER.match(text)
    if marker:
        skip = marker.end()
    for m in _RE.finditer(text, skip):
        kind = m.lastgroup or "number"
        start, end = m.span()
        if kind in ("url", "path"):
            while end > start and text[end - 1] in _TRAILING:
                end -= 1
        value = text[start:end]
        if kind == "identifier" and value.lower().rstrip(".") in _NOT_IDENTIFIER:
            continue
        if kind == "identifier" and _JSON_KEY.match(text, end) and text[start - 1:start] in "\"'":
            continue  # a JSON object key names a field: schema, not a value
        if kind == "identifier" and "." in value and value.replace(".", "").isalpha() \
                and all(len(p) <= 1 for p in value.split(".")):
            continue
        if end > start:
            out.append(Literal(value, kind, start, end))
    return out


# Words that start sentences capitalised without being names.
_COMMON_STARTERS = frozenset(
    """
    a about after again ah all also although always an and another any anyway are as at aw
    awesome back be because been before being best better both but by can cheers congrats
    congratulations could did do does doing done don't each even ever every first for from
    glad good got great had has have having he hello her here hey hi his hmm how however i
    if in indeed is it its just last let let's like lol look looks love many may maybe me
    more most much must my nice no nope not now of oh ok okay on once one only or other our
    out perfect please quite really right same see she should since so some sometimes sorry
    sounds still such sure thank thanks that that's the their them then there these they
    this those though thus to today tomorrow too totally true two um very was we well were
    what when where whether which while who why will wish with without wonderful would wow
    yeah yes yesterday yet you your yup
    absolutely amazing anyway aside based below check consider currently definitely
    describe each else example finally following here's i'm i've i'll it's next note
    okay once otherwise overall please possibly sadly since step thanks then therefore
    unfortunately usually use using we'll we're what's you're you've
    add apply build call change check choose click close confirm copy create delete deploy
    do don't enable ensure enter find fix follow get give go install keep list make move
    open pick print put read remove replace restart run save scale select send set show
    start stop switch take tell try turn update upgrade verify wait watch write
    """.split()
)


def find_names(doc: Any, offset: int = 0, taken: Iterable[tuple[int, int]] = (),
               text: str | None = None) -> list[Literal]:
    """Names on a spaCy ``Doc``: runs of capitalised, non-stop-word tokens (see
    :func:`find_token_names`), plus the doc's statistical entities when the pipeline
    has them. Spans already ``taken`` by pattern literals are skipped. Offsets are
    shifted by ``-offset``. ``text``, if given, is the doc's text (saves rebuilding it)."""
    text = doc.text if text is None else text
    ents = [(e.start_char, e.end_char, e.label_.lower()) for e in doc.ents]
    return find_token_names(DocTokens.of(doc, text), offset, taken, ents)


def find_token_names(toks: DocTokens, offset: int = 0, taken: Iterable[tuple[int, int]] = (),
                     ents: Iterable[tuple[int, int, str]] = ()) -> list[Literal]:
    """Names on tokens: runs of capitalised, non-stop-word tokens, then the entities
    ``(start, end, label)`` that no name or ``taken`` span covers.

    A capitalised word that opens its sentence is a name only if it is not a common
    sentence opener or stop word; after a list, heading or emphasis marker ("- Deploy
    the canary", "## Rollback") only if the text also capitalises it mid-sentence. A
    run never starts with a stop word."""
    free = Spans(taken).free
    out: list[Literal] = []
    text = toks.text
    stops, starts, sentence_starts = toks.stops, toks.starts, toks.sentence_starts
    # Only capitalised words can be names: visit those, and look back from each to
    # the previous word to tell whether it opens its sentence (a sentence starting
    # after the previous word, or no previous word, makes it the opening word; tokens
    # before it in that stretch are markers).
    capitals: list[tuple[int, str, int]] = []  # (token, its text, its sentence's first token or -1)
    for k in toks.cased:
        t = toks.token(k)
        if not t[:1].isupper():
            continue
        j = k - 1
        while j >= 0 and not toks.starts_with_letter(j):
            j -= 1
        opener = -1
        if j < 0:
            opener = 0
        else:
            b = bisect_left(sentence_starts, j + 1)
            if b < len(sentence_starts) and sentence_starts[b] <= k:
                opener = sentence_starts[b]
        capitals.append((k, t, opener))
    # Words the text capitalises somewhere other than first in a sentence.
    mid_capitals = {t for _, t, opener in capitals if opener < 0}
    run_start = run_end = -1
    last = -2  # index of the last token added to the run

    def flush() -> None:
        nonlocal run_start
        if run_start >= 0 and free(run_start, run_end):
            out.append(Literal(text[run_start:run_end], "name", run_start - offset, run_end - offset))
        run_start = -1

    for k, t, opener in capitals:
        capital = True
        if opener >= 0:
            if stops[k] or t.lower() in _COMMON_STARTERS:
                capital = False
            elif opener < k and t not in mid_capitals:
                capital = False
        if capital and k == last + 1 and run_start >= 0:
            run_end = starts[k] + len(t)
            last = k
            continue
        flush()
        if capital and not stops[k]:
            run_start, run_end, last = starts[k], starts[k] + len(t), k
    flush()
    names = {(lit.start, lit.end) for lit in out}
    for s, e, label in ents:
        if (s - offset, e - offset) not in names and free(s, e):
            out.append(Literal(text[s:e], label, s - offset, e - offset))
    return out


_CAPITAL_RUN = re.compile(r"\b[A-Z][a-z]{1,30}(?:[ \t][A-Z][a-z]{1,30}){0,4}\b")
_NOT_NAMES = frozenset(
    {"True", "False", "None", "Null", "Error", "Exception", "Traceback", "Warning", "File",
     "Line", "The", "This", "That", "These", "Those", "There", "Here", "And", "But", "For",
     "With", "From", "Yes", "No", "Not", "Note", "If", "In", "On", "At", "To", "Of", "It"}
)


def find_names_by_pattern(text: str, taken: Iterable[tuple[int, int]] = ()) -> list[Literal]:
    """Names in text that is not prose (tool output, code, table cells): runs of
    capitalised words, minus a few words that code and logs capitalise."""
    free = Spans(taken).free
    out = []
    for m in _CAPITAL_RUN.finditer(text):
        s, e = m.span()
        value = m.group()
        if value in _NOT_NAMES or value.split()[0] in _NOT_NAMES and " " not in value:
            continue
        if not free(s, e):
            continue
        out.append(Literal(value, "name", s, e))
    return out

"""The grading extractor: literals and sentence openings, independent of the compactor.

The compactor decides what to keep with its own literal extractor
(``discourse_memory.literals``). Grading it with the same extractor would let it
grade itself, so this module is deliberately separate and simple: a handful of
regular expressions written from scratch, which never imports the core.

A *literal* is one of (first match wins, scanning left to right):

1. URL (``http://``, ``https://``, ``ftp://``, ``www.``)
2. e-mail address
3. date: ISO ``2024-05-20``, ``05/20/2024``, ``20.05.2024``, and month-name dates
   ``8 May 2023``, ``8 May, 2023``, ``May 20th``, ``May 20, 2024``
4. file path: ``a/b/c``, ``a/b.py``, ``/abs/path``, ``./x``, ``~/x``, ``C:\\x``, or a
   bare file name with a known extension (``setup.py``); not a word pair (``and/or``)
5. identifier with an underscore (``mia_li_3668``, ``__init__``), camelCase or inner
   capitals (``getUserDetails``, ``CompoundModel``), or dotted names (``np.array``)
6. any token carrying a digit (``HAT136``, ``$30``, ``3.5%``, ``10:30``, ``D1:3``),
   two characters or more
7. a capitalised word that does not open a sentence, a line, or the text after a
   colon (``Seattle`` in "flying to Seattle", ``Austin`` in ``"city": "Austin"``,
   but not ``Hey`` in "Caroline: Hey"), acronyms included (``JFK``)

A *sentence* is a line, further split after ``.``, ``!`` or ``?`` followed by a
space (not after a list number such as ``1.`` or an abbreviation such as
``Dr.``), and after ``。``, ``！`` or ``？`` with or without a space; its *opening*
is its first five words (all of them if fewer; a CJK sentence written without
spaces is one word, so its opening is the whole sentence).

CJK text (Chinese characters, kana) has no spaces between words: for extraction a
CJK character counts as punctuation, so a value touching one is still found
(``订单号是A12345`` -> ``A12345``, ``价格775元`` -> ``775``), a word after one does not
open a sentence (``飘HOME酒店`` -> ``HOME``), and ``。！？`` end sentences like
``.!?``; a match that would contain a CJK character is not a literal. Text without
CJK characters is extracted exactly as before.

The *content words* of a sentence (:func:`content_words`, for the with-context
literal measure) are its lowercase words of three letters or more that are not in a
small stop list (:data:`STOP_WORDS`); in CJK text, the pairs of adjacent CJK
characters.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from functools import lru_cache

__all__ = [
    "CJK",
    "DATE",
    "OPENING_WORDS",
    "STOP_WORDS",
    "content_words",
    "distinct",
    "extract_literals",
    "is_number_token",
    "normalize_space",
    "sentence_openings",
    "split_sentences",
]

OPENING_WORDS = 5
CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
"""Chinese characters and Japanese kana (a character class body): scripts written
without spaces between words."""
_CJK = re.compile(f"[{CJK}]")
_CJK_MASK = "\x00"  # not a word character, not a space, not an opener, not a sentence end

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|"
    r"Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_ORD = r"(?:st|nd|rd|th)?"
_EXT = (
    r"(?:py|pyi|pyx|js|jsx|ts|tsx|json|jsonl|md|rst|txt|cfg|ini|toml|ya?ml|c|h|cc|cpp|hpp|"
    r"rs|go|java|rb|php|sh|html|css|csv|xml|sql|lock|log|ipynb)"
)

_DATE = (
    r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b"
    r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{1,2}\.\d{1,2}\.\d{4}\b"
    r"|\b\d{1,2}" + _ORD + r" " + _MONTH + r"\b\.?(?:,? \d{4}\b)?"
    r"|\b" + _MONTH + r"\.? \d{1,2}" + _ORD + r"\b(?:,? \d{4}\b)?"
)
DATE = re.compile(_DATE)
"""A date as rule 3 reads it (``2024-05-20``, ``8 May, 2023``, ``May 20th``)."""

# One alternation, tried in order at each position; finditer gives leftmost matches.
# Every repetition is linear: the token-like alternatives start only at the start of
# a token (look-behinds) and test for a needed letter or digit with one look-ahead,
# so a 100 kB word without spaces costs one scan, not a cubic backtrack.
_LITERAL = re.compile(
    r"(?P<url>(?:https?://|ftp://|www\.)[^\s<>\"'`)\]}]+)"
    r"|(?P<email>(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b)"
    r"|(?P<date>" + _DATE + r")"
    r"|(?P<path>(?<![\w.-])[A-Za-z]:\\[\w.\\-]+"
    r"|(?<![<\w.~-])(?:~|\.{1,2})?/(?=[\w.-]*[A-Za-z_])[\w.-]+(?:/[\w.-]+)*/?"
    r"|(?<![\w.-])(?=[\w.-]*[A-Za-z_])[\w.-]+(?:/[\w.-]+)+/?"
    r"|(?<![\w-])[\w-]+\." + _EXT + r"\b)"
    r"|(?P<ident>\b_*[A-Za-z][A-Za-z0-9]*(?:_+[A-Za-z0-9]+)+_*(?![\w])"
    r"|\b__[A-Za-z0-9]+__(?![\w])"
    r"|\b_+[A-Za-z][A-Za-z0-9]*(?![\w])"
    r"|\b[a-z]+[A-Z][A-Za-z0-9]*\b"
    r"|\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b"
    r"|\b[A-Za-z_]\w+(?:\.[A-Za-z_]\w+)+\b)"
    r"|(?P<digit>(?<![\w$€£#%+.:/-])(?=[\w$€£#%+.:/-]*\d)[\w$€£#%+.:/-]+)"
    r"|(?P<cap>\b[A-Z][A-Za-z]+(?:'[a-z]+)?\b)"
)
_EDGE_JUNK = ".,:;/-+"
_OPENERS = "\"'`([{<*_#>-•"
_SENTENCE_END = ".!?。！？"
_PAREN_MARK = re.compile(r"\s*\(?\w{1,3}\)")
_SPACE = re.compile(r"\s+")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+|(?<=[。！？])\s*")
_HAS_WORD = re.compile(r"\w")
_WORD_PAIR = re.compile(r"[A-Za-z][\w-]*/[A-Za-z][\w-]*")  # one slash, no dot, not rooted
_NO_BREAK = re.compile(r"\d{1,3}\.|[A-Za-z]\.|(?:Mr|Mrs|Ms|Dr|Prof|St|vs|etc|e\.g|i\.e|approx|No)\.")


def normalize_space(text: str) -> str:
    """Collapse every run of whitespace to one space and strip the ends."""
    return _SPACE.sub(" ", text).strip()


def _opens_sentence(text: str, start: int) -> bool:
    """True if the word at ``start`` opens a line or a sentence.

    Looks back over spaces and opening punctuation (quotes, brackets, markdown
    markers); the word opens a sentence if that reaches the start of the text or a
    line, a sentence end (``.!?``), a colon (unless the word is quoted, as JSON
    values are), or a list number (``1.``, ``2)``)."""
    i = start - 1
    quoted = False
    while i >= 0 and (text[i] in " \t" or text[i] in _OPENERS):
        quoted = quoted or text[i] in "\"'`"
        i -= 1
    if i < 0 or text[i] in "\r\n":
        return True
    if text[i] in ":：":
        # "Caroline: Hey" opens a sentence; a quoted JSON value ("city": "Austin") does not.
        return not quoted
    if text[i] in _SENTENCE_END:
        # "1." list numbers and sentence ends both open a sentence.
        return True
    if text[i] == ")":
        # "2) Next": a list marker at the start of a line.
        line_start = text.rfind("\n", 0, i) + 1
        return bool(_PAREN_MARK.fullmatch(text, line_start, i + 1))
    return False


def extract_literals(text: str) -> list[str]:
    """The literals of ``text``, in order of appearance, duplicates kept."""
    out: list[str] = []
    if _CJK.search(text):
        text = _CJK.sub(_CJK_MASK, text)  # same length: positions unchanged
    for m in _LITERAL.finditer(text):
        kind = m.lastgroup
        value = m.group()
        if _CJK_MASK in value:
            continue  # a date or name pattern reaching across a CJK character
        if kind == "url":
            value = value.rstrip(".,;:!?")
        elif kind == "path":
            value = value.rstrip(".")
            if _WORD_PAIR.fullmatch(value):
                continue  # "and/or", "team/player": a word pair, not a path
        elif kind == "digit":
            value = value.strip(_EDGE_JUNK)
            if len(value) < 2 or not any(c.isdigit() for c in value):
                continue  # single digits ("1." list numbers, "3 bags") grade nothing
        elif kind == "cap":
            if _opens_sentence(text, m.start()):
                continue
        elif kind == "date":
            value = normalize_space(value).rstrip(".")
        if value:
            out.append(value)
    return out


@lru_cache(maxsize=65536)
def is_number_token(value: str) -> bool:
    """``value`` is one literal of rule 6, a token carrying a digit (``40``, ``10:29``,
    ``$21.99``, ``HAT136``, ``#31750``), not a date, path or identifier of the rules before."""
    m = _LITERAL.fullmatch(value)
    return m is not None and m.lastgroup == "digit"


def split_sentences(text: str) -> list[str]:
    """Lines of ``text``, each split after sentence-ending punctuation."""
    sentences: list[str] = []
    for line in text.splitlines():
        line = line.strip()
        if not line:
            continue
        carry = ""
        for part in _SENTENCE_SPLIT.split(line):
            part = (carry + " " + part).strip() if carry else part.strip()
            carry = ""
            if _NO_BREAK.fullmatch(part.rsplit(" ", 1)[-1]):
                carry = part  # "1." list marker or "Dr." / "e.g.": not a sentence end
            elif part:
                sentences.append(part)
        if carry:
            sentences.append(carry)
    return sentences


def sentence_openings(text: str, words: int = OPENING_WORDS) -> list[str]:
    """The opening (first ``words`` words, space-joined) of each sentence that has
    a letter or digit in it, in order, duplicates kept."""
    out: list[str] = []
    for sentence in split_sentences(text):
        opening = " ".join(sentence.split()[:words])
        if _HAS_WORD.search(opening):
            out.append(opening)
    return out


def distinct(items: Iterable[str]) -> list[str]:
    """``items`` without repeats, first occurrence order."""
    return list(dict.fromkeys(items))


STOP_WORDS = frozenset(
    """
    the and for are was were has have had but not you your yours our ours they them their theirs
    this that these those with from into onto upon about over under than then there here when
    where what which who whom whose why how all any both each few more most other some such own
    same too very can could will would shall should may might must also just only even still
    yet now out off again once its his her hers him she himself herself itself myself yourself
    ourselves themselves been being does did doing done get got let lets one two yes okay
    """.split()
)
"""Words too common to tie a literal to what it is about (with-context measure)."""
_CONTENT_WORD = re.compile(r"(?<![\w])[a-z]{3,}(?![\w])")
_CJK_RUN = re.compile(f"[{CJK}]+")


def content_words(sentence: str, literal: str = "") -> set[str]:
    """The content words of ``sentence`` that are not part of ``literal``: lowercase
    words of 3+ letters not in :data:`STOP_WORDS`, and pairs of adjacent CJK characters
    (CJK text has no spaces to find words by)."""
    inside = set(_CONTENT_WORD.findall(literal))
    words = {w for w in _CONTENT_WORD.findall(sentence) if w not in STOP_WORDS and w not in inside}
    if _CJK.search(sentence):
        inside_pairs = {run[i:i + 2] for run in _CJK_RUN.findall(literal) for i in range(len(run) - 1)}
        for run in _CJK_RUN.findall(sentence):
            words.update(p for p in (run[i:i + 2] for i in range(len(run) - 1)) if p not in inside_pairs)
    return words

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
``Dr.``); its *opening* is its first five words (all of them if fewer).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "OPENING_WORDS",
    "distinct",
    "extract_literals",
    "normalize_space",
    "sentence_openings",
    "split_sentences",
]

OPENING_WORDS = 5

_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|"
    r"Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)"
)
_ORD = r"(?:st|nd|rd|th)?"
_EXT = (
    r"(?:py|pyi|pyx|js|jsx|ts|tsx|json|jsonl|md|rst|txt|cfg|ini|toml|ya?ml|c|h|cc|cpp|hpp|"
    r"rs|go|java|rb|php|sh|html|css|csv|xml|sql|lock|log|ipynb)"
)

# One alternation, tried in order at each position; finditer gives leftmost matches.
# Every repetition is linear: the token-like alternatives start only at the start of
# a token (look-behinds) and test for a needed letter or digit with one look-ahead,
# so a 100 kB word without spaces costs one scan, not a cubic backtrack.
_LITERAL = re.compile(
    r"(?P<url>(?:https?://|ftp://|www\.)[^\s<>\"'`)\]}]+)"
    r"|(?P<email>(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b)"
    r"|(?P<date>\b\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2})?)?\b"
    r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{1,2}\.\d{1,2}\.\d{4}\b"
    r"|\b\d{1,2}" + _ORD + r" " + _MONTH + r"\b\.?(?:,? \d{4}\b)?"
    r"|\b" + _MONTH + r"\.? \d{1,2}" + _ORD + r"\b(?:,? \d{4}\b)?)"
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
_SENTENCE_END = ".!?"
_PAREN_MARK = re.compile(r"\s*\(?\w{1,3}\)")
_SPACE = re.compile(r"\s+")
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?])\s+")
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
    if text[i] == ":":
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
    for m in _LITERAL.finditer(text):
        kind = m.lastgroup
        value = m.group()
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

"""A prose value with the nearest content word of its sentence: the word before it, else
after it, within a few words; brackets and quotes its context opens are closed, and CJK
text (no spaces) keeps the few characters before the value that name it.
"""

from __future__ import annotations

import functools
import itertools
import re
from typing import NamedTuple

from .. import lang
from ..lang import marks
from ..language import CJK_CHAR
from .clauses import _HANGING
from .limits import LIMITS
from .text import _BOUNDARY, _STOP, _WORD

_CJK_CONTEXT = 4  # characters of a run of CJK text before a value that stand for its word


class _Keys(NamedTuple):
    """The language packs' words of a value's context in CJK text (``LanguagePack``)."""

    links: str  # particles and verbs that join a key to its value
    key: re.Pattern[str] | None  # keys a value is stated under: the first kept starts its context
    possessives: tuple[str, ...]  # a key follows one
    number_before: re.Pattern[str]  # a number (or a range of two) ending where a run starts


@functools.lru_cache(maxsize=2)
def _keys(_generation: int) -> _Keys:
    packs = lang.packs()
    keys = sorted(dict.fromkeys(k for p in packs for k in p.value_keys), key=len, reverse=True)
    ranges = "".join(f"|{re.escape(w)}" for w in dict.fromkeys(w for p in packs for w in p.range_words))
    return _Keys("".join(dict.fromkeys(c for p in packs for c in p.key_links)),
                 re.compile("|".join(map(re.escape, keys))) if keys else None,
                 tuple(dict.fromkeys(p.possessive for p in packs if p.possessive)),
                 re.compile(r"\d[\d.,]{0,12}(?:(?:[-~" + marks.TILDE + "]" + ranges + r")\d[\d.,]{0,12})?$"))

_CLOSER = {"(": ")", "[": "]", '"': '"', "'": "'", "`": "`", "“": "”", "‘": "’"}


def _closed(text: str, lo: int, start: int, end: int) -> int:
    """Where a context ``text[lo:end]`` of the value at ``start`` ends: past the closing
    quote or bracket of one opened before the value ("Chicago (ORD)", 'File "setup.py"')."""
    opener = text[start - 1:start] if start > lo else ""
    closer = _CLOSER.get(opener)
    if closer is not None and text[end:end + 1] == closer:
        return end + 1
    if text.count("(", lo, end) > text.count(")", lo, end):
        if text[end:end + 1] == ")":
            return end + 1
        # "files (pyproject.toml, setup.cfg, etc.)", not "files (pyproject.toml": a
        # bracket opened in the context closes in it, when it closes near
        close = text.find(")", end, end + LIMITS.bracket_reach)
        if close >= 0 and "(" not in text[end:close] and not any(c in text[end:close] for c in "\n!?;"):
            return close + 1
    return end


def _in_context(text: str, start: int, end: int, own: frozenset[str] = frozenset()) -> tuple[int, int]:
    """The span of the value with the nearest content word of its sentence: the word
    before it (and what lies between), else the word after it, within a few words; the
    word after it when that one touches the value and the one before does not, unless only a
    preposition stands between ("LGBT pride", not "time at the LGBT"; "Hawaiian pizza", not
    "thing is Hawaiian"; but "shelter in Stamford", not "Stamford last"). A context that
    starts inside a code span or quote opens it ("`migrate`, or just `migrate --run-syncdb`",
    not "migrate`, or just …"; '"The Name of the Wind" by Patrick Rothfuss', not 'Wind" by
    Patrick Rothfuss'), when it opens within ``LIMITS.bracket_reach`` characters."""
    lo, hi = _context_span(text, start, end, own)
    # (quotes are paired from the line's start, read at most LIMITS.quote_scan back: a unit can be
    # one 5 MB line with many values)
    line = text.rfind("\n", max(0, lo - LIMITS.quote_scan), lo) + 1 or max(0, lo - LIMITS.quote_scan)
    for opening, closing in (("`", "`"), ('"', '"'), ("“", "”")):
        if opening == closing:
            inside = text.count(opening, line, lo) % 2 and text.count(closing, lo, hi) % 2
        else:
            inside = text.rfind(opening, line, lo) > text.rfind(closing, line, lo) and closing in text[lo:hi]
        if inside:
            at = text.rfind(opening, line, lo)
            if lo - at <= LIMITS.bracket_reach:
                lo = at
            break
    return lo, hi


def _context_span(text: str, start: int, end: int, own: frozenset[str]) -> tuple[int, int]:
    appositive = _APPOSITIVE.match(text, end)
    if appositive is not None:  # "Oscar, my guinea pig", "Bailey, our new puppy"
        words = [w for w in ("more", "noun") if appositive.group(w) and appositive.group(w) not in _STOP]
        if words:
            return start, appositive.end(words[0])
    before, after = _context_before(text, start, end, own), _context_after(text, start, end, own)
    if before is None:
        return after[:2] if after else (start, end)
    if after is not None and after[2] and not before[2] and not _linked(text[before[0]:start]):
        return after[:2]
    if after is not None and after[2] and before[2] and not CJK_CHAR.search(text, before[0], after[1]) \
            and _modified(text, end, after[1]):
        return _inside_bracket(text, before[0], after[1])  # "real Potter places", not "real Potter"
    return _inside_bracket(text, *before[:2])


_OBJECT = re.compile(r"\s+(?:me|you|him|her|us|them|it|the|a|an|my|your|his|our|their|its|to|that)\b", re.I)


def _modified(text: str, end: int, hi: int) -> bool:
    """The lower-case word at ``end:hi`` after a value is the noun the value modifies ("Potter
    places", "vintage guitar"), not a verb it is the subject of ("Rob invited me", "Tim
    asked"): no past tense, no object after it."""
    word = text[end:hi].strip()
    return word[:1].islower() and not word.endswith("ed") and _OBJECT.match(text, hi) is None


_APPOSITIVE = re.compile(r",[ \t]+(?:my|our|his|her|their|your)[ \t]+(?P<noun>[a-z][a-z'’-]{2,24})"
                         r"(?:[ \t]+(?P<more>[a-z][a-z'’-]{2,24}))?(?![\w'’-])")
"""A value's appositive that says what it is: "Oscar, my guinea pig", "Sara, our youngest"."""


def _inside_bracket(text: str, lo: int, hi: int) -> tuple[int, int]:
    """A context that opens a bracket it does not close starts inside it ("see src/a.py",
    not "files (see src/a.py")."""
    if text.count("(", lo, hi) <= text.count(")", lo, hi):
        return lo, hi
    inner = text.rfind("(", lo, hi) + 1
    while inner < hi and text[inner].isspace():
        inner += 1
    return inner, hi


_LINKS = frozenset("to in at from of on with for by near into onto named called".split())


def _linked(span: str) -> bool:
    """A content word, then one preposition, up to the value: "shelter in Stamford"."""
    words = span.split()
    return len(words) == 2 and words[1].lower() in _LINKS


_LETTER = re.compile(r"[^\W\d_]")


def _context_before(text: str, start: int, end: int,
                    own: frozenset[str] = frozenset()) -> tuple[int, int, bool] | None:
    """The span from the nearest content word before the value, and whether that word
    touches it (no other word between); from the word before it when that word names the
    value or is a verb's particle (``_NAMING``, ``_PARTICLES``)."""
    lo = max(0, start - 40)
    before = text[lo:start]
    boundary = max(before.rfind(c) for c in _BOUNDARY)  # stay in the value's sentence, after a label
    if boundary >= 0:
        lo += boundary + 1
        before = text[lo:start]
    words = [m for m in _WORD.finditer(before) if m.group().lower() not in _STOP and m.group().lower() not in own]
    if not words:
        return None
    at = words[-1].start()
    word = words[-1].group()
    touches = CJK_CHAR.match(word[-1]) is not None or not _LETTER.search(before[words[-1].end():])
    if CJK_CHAR.match(word[-1]):
        # No spaces to count: the last few characters, not counting the particles
        # between the key and its value (a pack's key_links: "average spend" kept whole
        # before "is 74 yuan", not its last character and the particle).
        cjk = _keys(lang.generation())
        tail = len(word) - len(word.rstrip(cjk.links))
        if len(word) > _CJK_CONTEXT:
            at = max(words[-1].start(), words[-1].end() - tail - _CJK_CONTEXT)
            # the first key word in those characters starts the context (a pack's value_keys:
            # "phone is ..." of "(please tell me) phone is ...")
            key = cjk.key.search(word, at - words[-1].start()) if cjk.key is not None else None
            if key is not None:
                at = words[-1].start() + key.start()
        possessive, owned = max(((text.rfind(p, lo + at, start - tail), p) for p in cjk.possessives), default=(-1, ""))
        if possessive >= 0:  # "the sight's rating is 4": the key is what follows the possessive
            at = possessive + len(owned) - lo
        else:
            # a run opening on a number's unit ("tickets 100-150 yuan, 3 hours of play")
            # brings its number: the range, not the unit alone
            number = cjk.number_before.search(before, 0, at)
            if number is not None:
                at = number.start()
    closer = before.find(")", at)
    if closer >= 0 and "(" not in before[at:closer]:
        # "Atlanta (ATL) to Philadelphia", not "ATL) to Philadelphia": a context
        # never opens inside a bracket it closes.
        opening = before.rfind("(", 0, at)
        outer = [m for m in words if m.end() <= opening]
        at = outer[-1].start() if outer else (opening if opening >= 0 else closer + 1)
    if word.lower() in _NAMING or word.lower() in _PARTICLES:
        # "someone named David", "his name is Kyle": a name with what it names, not "named David";
        # "broke down last Fri": a verb's particle with its verb
        previous = [m for m in _ANY_WORD.finditer(before, 0, at)]
        if previous and not before[previous[-1].end():at].strip() and before[previous[-1].start():].count(" ") <= 3:
            at = previous[-1].start()
    if before[at:].count(" ") <= 3 and before[at:].strip():
        return lo + at, _closed(text, lo + at, start, end), touches
    return None


_NAMING = frozenset("named called name nicknamed titled".split())
_PARTICLES = frozenset("down up out off away back over".split())
_ANY_WORD = re.compile(r"[^\W\d_][\w'’-]*")

_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten eleven twelve twenty thirty forty "
                          "fifty hundred thousand million first second third few several".split())
_NEXT_NOUN = re.compile(r" ([a-z][a-z'’-]{2,24})(?![\w'’-])")


def _context_after(text: str, start: int, end: int,
                   own: frozenset[str] = frozenset()) -> tuple[int, int, bool] | None:
    """The span to the nearest content word after the value, and whether it touches it."""
    after = text[end:end + 40]
    stop = min((i for i in (after.find(c) for c in _BOUNDARY) if i >= 0), default=len(after))
    for m in _WORD.finditer(after[:stop]):
        if m.group().lower() in _STOP or m.group().lower() in own:
            continue
        if after[:m.end()].count(" ") <= 3:
            limit, stop = stop, m.end()
            # The noun a modifier goes with: "Perseid meteor shower", "ER with a severe stomachache".
            noun = _NEXT_NOUN.match(text, end + stop)  # (in the text: the window may cut a word)
            if noun is not None and noun.start() - end < limit and noun.group(1) not in _STOP \
                    and noun.group(1) not in _NUMBER_WORDS:  # "18th birthday", not "… birthday ten (years ago)"
                stop = noun.end() - end
            if after[:stop].count("(") > after[:stop].count(")"):  # "Chicago (ORD)", not "Chicago (ORD"
                stop = after.find(")", stop) + 1
                if not stop:
                    return None
            # A comma between parts them: "RB-2024-118, falls" is no key of the id.
            return start, end + stop, not _LETTER.search(after[:m.start()]) and "," not in after[:m.start()]
        break
    return None


_CLAUSE_END = re.compile(r"[.!?;:,…](?=\s|$)|\n")


def _content(word: str, own: frozenset[str]) -> bool:
    """A word that says what a value is: lower case (a capitalised word is a name, another
    value, or a sentence's first word), not a function or filler word."""
    bare = word.lower()
    return word[:1].islower() and len(word) >= 3 and bare not in _STOP and bare not in _HANGING and bare not in own


def _worded(text: str, span: tuple[int, int], start: int, end: int,
            own: frozenset[str] = frozenset()) -> tuple[int, int]:
    """``span`` (a value's context in a sentence ``text``, the value at ``start:end``) grown to
    the nearest content word (:func:`_content`) of its clause when it holds none: '"Brave" by Sara
    Bareilles has a lot', not a name alone or after words that say nothing of what it names ("It was",
    "James:"). Within ``LIMITS.thin_words`` words either side, the nearer (before on a tie),
    not past a comma, the sentence's end or a label's colon (not "I've never been to Jasper,
    but it looks"), nor cutting a bracket or a quote; ``span`` itself when none is that near,
    the entry would grow past ``LIMITS.item_chars``, or the text is CJK (no words to count)."""
    lo, hi = span
    if CJK_CHAR.search(text, lo, hi):
        return span
    if any(_content(m.group(), own) for m in _ANY_WORD.finditer(text, lo, start)) \
            or any(_content(m.group(), own) for m in _ANY_WORD.finditer(text, end, hi)):
        return span
    reach = LIMITS.item_chars - (hi - lo)
    if reach <= 0:
        return span
    floor = max(0, lo - reach)
    for m in _CLAUSE_END.finditer(text, floor, lo):
        floor = m.end()
    before = [m for m in _ANY_WORD.finditer(text, floor, lo)][-LIMITS.thin_words:]
    back = next((k for k, m in enumerate(reversed(before)) if _content(m.group(), own)), None)
    stop = _CLAUSE_END.search(text, hi, hi + reach)
    ceiling = stop.start() if stop is not None else min(len(text), hi + reach)
    after = list(itertools.islice(_ANY_WORD.finditer(text, hi, ceiling), LIMITS.thin_words))
    on = next((k for k, m in enumerate(after) if _content(m.group(), own)), None)
    grown = []
    if back is not None:
        grown.append((back, 0, (before[-1 - back].start(), hi)))
    if on is not None:
        grown.append((on, 1, (lo, after[on].end())))
    for _, _, (a, b) in sorted(grown):
        if _whole(text, a, b, lo, hi):
            return a, b
    return span


def _whole(text: str, a: int, b: int, lo: int, hi: int) -> bool:
    """``text[a:b]`` grown from ``text[lo:hi]`` opens or closes no bracket or quote the
    span did not."""
    for opening, closing in (("(", ")"), ("[", "]"), ("“", "”")):
        if text.count(opening, a, b) - text.count(closing, a, b) != text.count(opening, lo, hi) - text.count(closing, lo, hi):
            return False
    return all(text.count(q, a, b) % 2 == text.count(q, lo, hi) % 2 for q in ('"', "`"))


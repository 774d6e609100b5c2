"""A prose value with the nearest content word of its sentence: the word before it, else
after it, within a few words; brackets and quotes its context opens are closed, and CJK
text (no spaces) keeps the few characters before the value that name it.
"""

from __future__ import annotations

import re

from ..language import CJK_CHAR
from .text import _BOUNDARY, _STOP, _WORD

_CJK_LINKS = "是在为的了也有就约达到共"  # particles and verbs that join a key to its value
_CJK_CONTEXT = 4  # characters of a run of CJK text before a value that stand for its word
# Keys a CJK value is stated under: the first in the characters kept before it starts its context.
_CJK_KEY = re.compile(r"电话|地址|价格|票价|门票|人均|消费|评分|营业时间|游玩时间|游玩时长|号码|邮箱")

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
        close = text.find(")", end, end + BRACKET_REACH)
        if close >= 0 and "(" not in text[end:close] and not any(c in text[end:close] for c in "\n!?;"):
            return close + 1
    return end


BRACKET_REACH = 40
"""How far after a value a bracket its context opened may close for the context to reach it."""

QUOTE_SCAN = 1000
"""How far back a value's line is read to pair the quotes its context may start inside."""


def _in_context(text: str, start: int, end: int, own: frozenset[str] = frozenset()) -> tuple[int, int]:
    """The span of the value with the nearest content word of its sentence: the word
    before it (and what lies between), else the word after it, within a few words; the
    word after it when that one touches the value and the one before does not, unless only a
    preposition stands between ("LGBT pride", not "time at the LGBT"; "Hawaiian pizza", not
    "thing is Hawaiian"; but "shelter in Stamford", not "Stamford last"). A context that
    starts inside a code span or quote opens it ("`migrate`, or just `migrate --run-syncdb`",
    not "migrate`, or just …"; '"The Name of the Wind" by Patrick Rothfuss', not 'Wind" by
    Patrick Rothfuss'), when it opens within :data:`BRACKET_REACH` characters."""
    lo, hi = _context_span(text, start, end, own)
    # (quotes are paired from the line's start, read at most QUOTE_SCAN back: a unit can be
    # one 5 MB line with many values)
    line = text.rfind("\n", max(0, lo - QUOTE_SCAN), lo) + 1 or max(0, lo - QUOTE_SCAN)
    for opening, closing in (("`", "`"), ('"', '"'), ("“", "”")):
        if opening == closing:
            inside = text.count(opening, line, lo) % 2 and text.count(closing, lo, hi) % 2
        else:
            inside = text.rfind(opening, line, lo) > text.rfind(closing, line, lo) and closing in text[lo:hi]
        if inside:
            at = text.rfind(opening, line, lo)
            if lo - at <= BRACKET_REACH:
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
_NUMBER_BEFORE = re.compile(r"\d[\d.,]{0,12}(?:[-~～至到]\d[\d.,]{0,12})?$")


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
        # between the key and its value ("人均消费是74元", not "均消费是74元").
        tail = len(word) - len(word.rstrip(_CJK_LINKS))
        if len(word) > _CJK_CONTEXT:
            at = max(words[-1].start(), words[-1].end() - tail - _CJK_CONTEXT)
            # the first key word in those characters starts the context ("一下电话是…": "电话是…")
            key = _CJK_KEY.search(word, at - words[-1].start())
            if key is not None:
                at = words[-1].start() + key.start()
        possessive = text.rfind("的", lo + at, start - tail)
        if possessive >= 0:  # "景点的评分是4分": the key is what follows 的
            at = possessive + 1 - lo
        else:
            # a run opening on a number's unit ("门票100-150元能玩3小时") brings its number:
            # "100-150元能玩3小时", not "元能玩3小时"
            number = _NUMBER_BEFORE.search(before, 0, at)
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

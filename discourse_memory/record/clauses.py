"""A prose value grown to the head of its sentence when it stands near its start ("Melanie:
We went camping last Saturday", not "last Saturday"), cut on no function word; and the
stop words of the text's language.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import re

from ..language import CJK, CJK_CHAR, detect_language
from .text import MAX_ITEM_CHARS

HEAD_WORDS = 5
"""A value this near its sentence's start is listed with the sentence's head: its first
this many words through the value ("Melanie: We went camping last Saturday", not
"Melanie: last Saturday", the date of nothing)."""
_WORD_END = re.compile(r"\S+")
CLAUSE_WORDS = 3
"""A head grows through the end of its clause when that is at most this many words on."""
_CLAUSE_END = frozenset(",;:.!?")
_HANGING = frozenset(
    "a an the and or but nor so yet to of in on at by for with from into as is are was were be been am "
    "do does did have has had it its he she they we you i my your our their his her this that these those "
    "not no if when while because since about than then just also always never very really definitely "
    "probably which who whose whom where can could will would shall should may might must "
    "what it's i'm i've i'll i'd that's there's we're you're they're he's she's we've let's what's".split())
_OPENS_PHRASE = frozenset({"a", "an"})  # an article whose noun a few words may not reach ("a great …")


def _sentence_head(text: str, span: tuple[int, int], speaker: str | None,
                   own: frozenset[str] = frozenset()) -> tuple[int, int]:
    """``span`` of a value's context grown to the head of its sentence ``text`` when the
    value stands among the first :data:`HEAD_WORDS` words (after the speaker's label), and
    the head is short enough for an item; else ``span``. CJK text has no words to count."""
    start = 0
    if speaker and text.startswith(speaker + ":"):
        start = len(speaker) + 1
    while start < span[0] and text[start].isspace():
        start += 1
    if span[0] - start > MAX_ITEM_CHARS or CJK_CHAR.search(text, start, span[1]) \
            or sum(1 for _ in itertools.islice(_WORD_END.finditer(text, start, span[0]), HEAD_WORDS)) >= HEAD_WORDS:
        return span
    words = list(itertools.islice(_WORD_END.finditer(text, start), HEAD_WORDS + CLAUSE_WORDS))
    if not words:
        return span
    last = min(HEAD_WORDS, len(words)) - 1
    # To the end of the value's clause when that comes first ("On your NYC trip", not "On
    # your NYC trip, did"); through its clause when that ends a few words on ("I've never
    # been to Jasper"), else without the function words a cut leaves hanging ("The Hobbit
    # is great", not "… great, but").
    # (Not for a value that opens its sentence: "Last year, I went" keeps its clause after.)
    value_word = next((k for k, w in enumerate(words) if w.end() >= span[1]), last)
    first = last if words[0].start() >= span[0] else next(
        (k for k in range(max(value_word, 2), last) if words[k].group()[-1] in _CLAUSE_END), last)
    for k in range(first, min(last + CLAUSE_WORDS, len(words) - 1) + 1):
        if words[k].group()[-1] in _CLAUSE_END:
            last = k
            break
    else:
        # A function word after words of the clause leads on to what it names, a few words
        # on ("Last August I told you about my dream", not "Last August I told").
        ahead = None
        if last > 0 and words[last].end() > span[1] and _hanging(words[last].group(), own) \
                and words[last - 1].group()[-1] not in _CLAUSE_END:
            for k in range(last + 1, min(last + CLAUSE_WORDS, len(words) - 1) + 1):
                word = words[k].group()
                if "—" in word or "–" in word:
                    break  # a dash ends the clause
                if word.strip("\"'“”‘’(").lower() in _OPENS_PHRASE:
                    break  # a phrase opens whose end is not in sight ("had a great": a great what?)
                if _leads_to(word, own):
                    ahead = k
                    break
        if ahead is not None:
            last = ahead
        while ahead is None and last > 0 and words[last].end() > span[1] and _hanging(words[last].group(), own):
            last -= 1
    end = max(span[1], words[last].end())
    while end > span[1] and text[end - 1] in ",;:-–—":
        end -= 1
    if end - start > MAX_ITEM_CHARS:
        return span
    return start, end


def _hanging(word: str, own: frozenset[str] = frozenset()) -> bool:
    """A word a cut may not end on: a function word (of English, or ``own``: the text's
    language's), or a dash."""
    bare = word.strip(",;:-–—\"'“”‘’()").lower()
    return not bare or bare in _HANGING or bare in own


_FILLERS = frozenset("all just also even still only so too quite pretty much".split())


def _leads_to(word: str, own: frozenset[str]) -> bool:
    """A word a function word may lead a head on to: a content word, no adverb ("My Unity
    strategy game is finally" read worse than "My Unity strategy game")."""
    bare = word.strip(",;:-–—\"'“”‘’()").lower()
    return not _hanging(word, own) and bare not in _FILLERS and not bare.endswith("ly")


@functools.lru_cache(maxsize=4096)
def _own_stop_words(text: str) -> frozenset[str]:
    """The stop words of ``text``'s language when that is a spaced language other than
    English (none else): no value is keyed by, nor a head cut on, a German "vom" or a
    French "les" ("Der Zug fährt um 14:30 Uhr", not "14:30 Uhr vom")."""
    language = detect_language(text)
    return frozenset() if language == "en" or language in CJK else _stop_words(language)


@functools.lru_cache(maxsize=None)
def _stop_words(language: str) -> frozenset[str]:
    # The list alone: importing it builds no pipeline.
    try:
        return frozenset(importlib.import_module(f"spacy.lang.{language}.stop_words").STOP_WORDS)
    except ImportError:  # a language spaCy has no list for ("xx")
        return frozenset()

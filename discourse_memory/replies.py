"""Which question a chat reply answers: the message just before it, from the other side
of the talk, in a sentence that asks.

A reply shown alone often cannot be read: "It's on Main Street." is the address of what
was asked, "I felt relieved and grateful" the answer to "How did you feel afterwards?".
The view shows a reply with its question, at least that question's head
(:func:`question_units`, used by :mod:`.fit`), and the record keys a left-out reply's
values by the name its question asks about (:func:`.record.asked_about`). Languages that
leave out the subject the talk is on (Chinese) need more: the words by which a reply names
its topic are the language packs' (:class:`.lang.Topics`); without a pack that has them,
no topic is read.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import numpy as np

from .actions import is_action
from .columns import Columns
from . import lang
from .lang import Topics, marks
from .language import CJK_CHAR
from .messages import SYSTEM_ROLES, Message
from .segment import han_words
from .limits import LIMITS

__all__ = ["asks", "cjk_names", "near_place", "own_names", "question_message", "question_places", "question_units",
           "reply_topic", "topic"]

_NOT_CHAT = SYSTEM_ROLES | {"tool", "function"}
_COUNTS = frozenset({"number", "quantity", "percent"})
"""Kinds of value a reply does not name a question's subject by ("batch 7": "7")."""


def question_message(cols: Columns, m: Message) -> Message | None:
    """The message a reply may answer: the one just before it, from the other side, when
    both are turns of the talk (not a system message, a tool's output, a tool call, a text
    agent's command or the output it printed)."""
    if m.index == 0 or m.role in _NOT_CHAT:
        return None
    q = cols.messages[m.index - 1]
    if q.role == m.role or q.role in _NOT_CHAT or q.tool_calls or is_action(q) \
            or q.index > 0 and is_action(cols.messages[q.index - 1]):
        return None
    return q


_TOPIC = re.compile(r"(?:(?![\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af])[^\W\d_]){5,}")
"""A word of five letters or more (not CJK, where a run of characters is a phrase)."""
_PLAIN = frozenset("about after again before being could doing going would should their there these those "
                   "where which while thing things really think today something anything everything always "
                   "never other great".split())


def _restates(question: str, reply: str) -> bool:
    """The reply names the question's topic word ("Have you been camping before?" / "I've
    gone camping a few times"): it says what it answers."""
    asked = {w.lower() for w in _TOPIC.findall(question)} - _PLAIN
    if not asked:
        return False
    # One search for the question's few words, not a list of every word of the reply (a
    # reply can be a pasted 5 MB log).
    words = "|".join(re.escape(w) for w in sorted(asked))
    return re.search(r"(?<![^\W\d_])(?:" + words + r")(?![^\W\d_])", reply, re.IGNORECASE) is not None


def _topics() -> Topics | None:
    """The registered packs' rules of a reply's topic (the first pack that has them)."""
    return _first_topics(lang.generation())


@functools.lru_cache(maxsize=2)
def _first_topics(_generation: int) -> Topics | None:
    return next((p.topics for p in lang.packs() if p.topics is not None), None)


def _restates_han(question: str, reply: str) -> bool:
    """The reply names a CJK content word of the question (a ticket's price asked, "the ticket
    costs 40 yuan" replied):
    it says what it is the value of. The question's words are few; each is looked up."""
    return any(w in reply for w in han_words(question))


_DIGITS = re.compile(r"\d")


def own_names(cols: Columns, reply: int, question: int | None, text: str) -> list[str]:
    """The places a CJK reply names of its own (not its question's) when the first stands
    before any value ("I recommend the X Hotel; a meal there costs 1842 yuan"), or the one
    it recommends after them ("a restaurant at 96 yuan a head: X"): its values are that
    place's, so the entry is keyed by it when it names one (``#309 assistant re X:
    ...``, where the clause alone prices nothing). None without a pack's topic rules."""
    t = _topics()
    if t is None:
        return []
    names = cjk_names(cols, reply) - (set() if question is None else cjk_names(cols, question))
    if not names:
        return []
    places = sorted((at, n) for at, n in ((text.find(n), n) for n in names) if at >= 0 and not _dish(text, at, n))
    found = [(at, n) for at, n in places if not t.around.match(text, at + len(n))]
    if found and len(found) < len(places) and cols.messages[reply].role == "assistant":
        places = found  # ("none around place A; found B": the one it found)
    digit = _DIGITS.search(text)
    if places and digit is not None and places[0][0] > digit.start():
        # the one place it recommends after the values ("I recommend a hotel rated 4.9: X"):
        # they describe it
        recommends = cols.messages[reply].role == "assistant" and t.recommends.search(text, 0, places[0][0]) is not None
        return [places[0][1]] if len(places) == 1 and recommends else []
    if not places:
        return []
    # the names before its first value, a dish list aside ("X, its dishes are Y, rated 4.7")
    dishes = t.dish_key.search(text)
    first = [n for at, n in places if (digit is None or at <= digit.start()) and (dishes is None or at < dishes.start())]
    return list(dict.fromkeys(first or [n for _, n in places]))


def _dish(text: str, at: int, name: str) -> bool:
    """The name at ``at`` is of a dish the message asks for ("I'd like to eat X", "a
    restaurant that has the dish X"): the place it looks for is another."""
    t = _topics()
    return t is not None and (t.dish_before.search(text, max(0, at - 16), at) is not None
                              or t.dish_after.match(text, at + len(name)) is not None)


def question_places(cols: Columns, question: int, reply: int) -> list[str]:
    """The CJK names a question states that its reply does not, in the order they stand:
    not a dish it asks for (see :func:`_dish`) nor a place it asks to search near
    (:func:`near_place`); none for a route ("from A by subway to B": the reply's stations
    are of both ends), nor without a pack's topic rules."""
    t = _topics()
    text = _text(cols, question)
    if t is None or t.route.search(text):
        return []
    names = cjk_names(cols, question) - cjk_names(cols, reply)
    return [n for at, n in sorted((text.find(n), n) for n in names)
            if at >= 0 and not _dish(text, at, n) and not near_place({n}, text)]


def cjk_names(cols: Columns, message: int) -> set[str]:
    """The CJK names a message states, places' addresses aside."""
    starts = cols.msg_start.view
    t = _topics()
    return {lit.text for k in range(int(starts[message]), int(starts[message + 1])) for lit in cols.units[k].literals
            if lit.kind == "name" and CJK_CHAR.search(lit.text) and (t is None or not t.address.search(lit.text))}


def near_place(names: set[str], text: str) -> bool:
    """A request for a place near one it names ("find another sight near A")."""
    t = _topics()
    return t is not None and t.search.search(text) is not None and any(
        re.search(re.escape(n) + t.near, text) for n in names)


def _text(cols: Columns, m: int) -> str:
    return " ".join(tf.text for tf in cols.messages[m].texts)


def topic(cols: Columns, question: int, depth: int = 0, carry: bool = True) -> tuple[int, str] | None:
    """The name a CJK question without one is about, for an assistant's reply that names
    none: the one CJK name (no address) of the nearest of the :data:`LIMITS.topic_messages`
    messages before it that names any ("I recommend the X Hotel."), or the one place
    it names before its values (a dish list aside), unless it names several (a choice the
    question does not say) and only one of the kind of place the question names (a hotel,
    a restaurant, a sight; a message naming only places of another kind is passed, and the window
    reaches one message further, up to :data:`LIMITS.topic_passed`). When those messages name nothing, a
    reply among them carries its own question's topic (up to :data:`LIMITS.topic_chain` times back).
    Returns that message and the name."""
    t = _topics()
    if t is None:
        return None  # (a language without a pack's topic rules: no topic is read)
    kind = _asked_kind(_text(cols, question))
    reply = -1  # the nearest assistant reply before the question, if none of them names anything
    stop = max(question - 1 - LIMITS.topic_messages, -1)
    m = question
    while m - 1 > stop:
        m -= 1
        if cols.messages[m].role in SYSTEM_ROLES or cols.messages[m].role == "tool":
            return None
        names = cjk_names(cols, m)
        if names and cols.messages[m].role == "user" and near_place(names, _text(cols, m)):
            return None  # "find another sight near A": a place to search near, not the one found
        if not names and reply < 0 and cols.messages[m].role == "assistant":
            reply = m
        if kind is not None and len(names) > 1:
            # "do you know the hotel's price?": the hotel's, not of the restaurants named since
            # (a message naming several places, none a hotel, is passed by); one place it
            # names is it whatever its name ends in (a tower's name, then "this hotel's phone?")
            names = {n for n in names if kind.search(n)}
            if not names:
                # ("the sight's phone, please" after the hotels around it were listed: the window
                # reaches one message further for each it passes, up to LIMITS.topic_passed)
                stop = max(stop - 1, question - 1 - LIMITS.topic_messages - LIMITS.topic_passed, -1)
                continue
        if len(names) > 1:  # the one place it names before its values, if it names one
            first = own_names(cols, m, None, _text(cols, m))
            if len(first) != 1:
                return None
            names = set(first)
        if names:
            return m, names.pop()
    if carry and reply >= 0 and depth < LIMITS.topic_chain and not t.new_subject.search(_text(cols, question)) \
            and not t.new_subject.search(_text(cols, reply)):
        q = question_message(cols, cols.messages[reply])
        if q is not None and not cjk_names(cols, q.index) and asks(_text(cols, q.index)):
            carried = topic(cols, q.index, depth + 1)
            if carried is not None and (kind is None or kind.search(carried[1])):
                return carried
    return None


def _asked_kind(question: str) -> re.Pattern[str] | None:
    """The end words of the kind of place ``question`` asks about, if it names one kind."""
    t = _topics()
    kinds = [] if t is None else [names for word, names in t.kinds if word.search(question)]
    return kinds[0] if len(kinds) == 1 else None


def reply_topic(cols: Columns, m: Message, q: Message, carry: bool = True) -> tuple[int, str] | None:
    """For a CJK assistant reply that, like its question ``q``, names nothing ("it is 294
    yuan." to "what is the price?"), what the talk is on (:func:`topic`), else None: the record's key of
    its entry and the unit the view shows it with."""
    if m.role != "assistant" or not any(CJK_CHAR.search(tf.text) for tf in m.texts):
        return None
    if cjk_names(cols, q.index) or cjk_names(cols, m.index):
        return None
    return topic(cols, q.index, carry=carry)


def _topic_unit(cols: Columns, m: Message, q: Message) -> int:
    """The unit that names what a reply's talk is on (:func:`reply_topic`: "I recommend the
    X Hotel!" above "it is 294 yuan."), or -1."""
    # (carried further back only for a reply that states a value: "you're welcome." needs no topic shown)
    starts = cols.msg_start.view
    valued = any(cols.units[u].literals for u in range(int(starts[m.index]), int(starts[m.index + 1])))
    about = reply_topic(cols, m, q, carry=valued)
    if about is None:
        return -1
    message, name = about
    for u in range(int(starts[message]), int(starts[message + 1])):
        if any(lit.text == name for lit in cols.units[u].literals):
            return u
    return -1


_REQUEST_EN = r"(?i)\b(?:tell me|let me know|give me|send me|look up|find out)\b"


@functools.lru_cache(maxsize=2)
def _request(_generation: int) -> re.Pattern[str]:
    """A request to be told something: the English words and the registered packs'."""
    return re.compile("|".join([_REQUEST_EN, *(re.escape(w) for p in lang.packs() for w in p.requests)]))


def asks(text: str, requests: bool = False) -> bool:
    """Whether a text asks: a question mark, Latin or full-width; with ``requests``, also a
    request for something to be told ("Please tell me the gate number.", a pack's
    ``requests``)."""
    return "?" in text or marks.QUESTION in text or requests and _request(lang.generation()).search(text) is not None


@dataclass
class _Questions:
    """Per message, the unit of the question it answers, or -1, found for the messages
    already appended (the conversation's memo, see ``Columns.memo``)."""

    units: list[int] = field(default_factory=list)


def found_question_units(cols: Columns) -> list[int]:
    """:func:`question_units` as found so far, per message (finding no more; a segment of them
    is shared between workers: :mod:`.shared_columns`)."""
    return cols.memo(_Questions).units


def seed_question_units(cols: Columns, units: list[int]) -> None:
    """Start :func:`question_units` with its values for the first messages (read from a shared
    cache), if it has not started."""
    memo = cols.memo(_Questions)
    if not memo.units:
        memo.units = units


def question_units(cols: Columns) -> np.ndarray:
    """Per message, the unit of the question it answers, or -1: the last unit that asks in
    its :func:`question_message`. -1 too when the reply says what it answers: the question
    names something (a value other than a bare count) and the reply names all it names
    ("X's address is ..." to "where is X?"), or the reply repeats the question's
    topic word ("I've gone camping a few times" to "Have you been camping before?") or, naming
    all it names, a CJK content word of it (:func:`_restates_han`). A CJK
    reply that, like its question, names nothing is shown with the unit that names what
    the talk is on instead (:func:`_topic_unit`).
    Found once per message, from it and the few messages before it (the conversation grows;
    they do not change)."""
    memo = cols.memo(_Questions).units
    starts = cols.msg_start.view
    units = cols.units
    for m in cols.messages[len(memo):]:
        found = -1
        q = question_message(cols, m)
        if q is not None:
            for u in range(int(starts[q.index + 1]) - 1, int(starts[q.index]) - 1, -1):
                if units[u].kind != "tool_call" and asks(units[u].text):
                    found = u
                    break
        if found >= 0:
            reply = "\n".join(tf.text for tf in m.texts)
            named = [lit.text for lit in units[found].literals if lit.kind not in _COUNTS]
            missing = [text for text in named if text not in reply]
            if named and not missing or _restates(units[found].text, reply) \
                    or not missing and _restates_han(units[found].text, reply):
                found = -1
        if found < 0 and q is not None:
            found = _topic_unit(cols, m, q)
        memo.append(found)
    return cols.grown("question_units", memo, np.int64)[:len(cols)]

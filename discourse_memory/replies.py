"""Which question a chat reply answers: the message just before it, from the other side
of the talk, in a sentence that asks.

A reply shown alone often cannot be read: "地址是北京市门头沟区斋堂镇。" is the address of
what was asked, "I felt relieved and grateful" the answer to "How did you feel
afterwards?". The view shows a reply with its question, at least that question's head
(:func:`question_units`, used by :mod:`.fit`), and the record keys a left-out reply's
values by the name its question asks about (:func:`.record.asked_about`).
"""

from __future__ import annotations

import re

import numpy as np

from .actions import is_action
from .columns import Columns
from .messages import SYSTEM_ROLES, Message
from .segment import han_words

__all__ = ["asks", "question_message", "question_units"]

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


def _restates_han(question: str, reply: str) -> bool:
    """The reply names a CJK content word of the question ("门票是多少钱？" / "门票价格是40元。"):
    it says what it is the value of. The question's words are few; each is looked up."""
    return any(w in reply for w in han_words(question))


def asks(text: str) -> bool:
    """Whether a text asks: a question mark, Latin or full-width."""
    return "?" in text or "？" in text


def question_units(cols: Columns) -> np.ndarray:
    """Per message, the unit of the question it answers, or -1: the last unit that asks in
    its :func:`question_message`. -1 too when the reply says what it answers: the question
    names something (a value other than a bare count) and the reply names all it names
    ("世界花卉大观园的地址是…" to "世界花卉大观园地址在哪？"), or the reply repeats the question's
    topic word ("I've gone camping a few times" to "Have you been camping before?") or, naming
    all it names, a CJK content word of it ("门票价格是40元。" to "门票是多少钱？"). Found
    once per message, from these two messages only (the conversation grows; they do not
    change)."""
    memo: list[int] = cols.derived.setdefault("question_units", {}).setdefault(-1, [])  # type: ignore[assignment]
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
        memo.append(found)
    return np.asarray(memo[:len(cols)], dtype=np.int64)

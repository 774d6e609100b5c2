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
from dataclasses import dataclass, field

import numpy as np

from .actions import is_action
from .columns import Columns
from .language import CJK_CHAR
from .messages import SYSTEM_ROLES, Message
from .segment import han_words

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


def _restates_han(question: str, reply: str) -> bool:
    """The reply names a CJK content word of the question ("门票是多少钱？" / "门票价格是40元。"):
    it says what it is the value of. The question's words are few; each is looked up."""
    return any(w in reply for w in han_words(question))


_DIGITS = re.compile(r"\d")


def own_names(cols: Columns, reply: int, question: int | None, text: str) -> list[str]:
    """The places a CJK reply names of its own (not its question's) when the first stands
    before any value (``推荐你去钓鱼台国宾馆尝尝吧，这里人均消费1842元``), or the one it
    recommends after them (``推荐一个人均消费96元的餐馆，三江源酒楼``): its values are
    that place's, so the entry is keyed by it when it names one (``#309 assistant re
    柴锅居(昌平店): 人均消费在90元左右``, where the clause alone prices nothing)."""
    names = cjk_names(cols, reply) - (set() if question is None else cjk_names(cols, question))
    if not names:
        return []
    places = sorted((at, n) for at, n in ((text.find(n), n) for n in names) if at >= 0 and not _dish(text, at, n))
    found = [(at, n) for at, n in places if not _AROUND.match(text, at + len(n))]
    if found and len(found) < len(places) and cols.messages[reply].role == "assistant":
        places = found  # ("篱苑图书馆周边没有酒店，帮您查到…飘HOME连锁酒店(北京前门大栅栏店)": the one it found)
    digit = _DIGITS.search(text)
    if places and digit is not None and places[0][0] > digit.start():
        # the one place it recommends after the values ("给您推荐一个评分4.9分的桔子酒店·精选(北京西二旗店)"):
        # they describe it
        recommends = cols.messages[reply].role == "assistant" and _RECOMMENDS.search(text, 0, places[0][0]) is not None
        return [places[0][1]] if len(places) == 1 and recommends else []
    if not places:
        return []
    # the names before its first value, a dish list aside ("大德祥…(兴隆街店)，推荐菜有炒疙瘩，评分4.7分")
    dishes = _DISH_KEY.search(text)
    first = [n for at, n in places if (digit is None or at <= digit.start()) and (dishes is None or at < dishes.start())]
    return list(dict.fromkeys(first or [n for _, n in places]))


_DISH_KEY = re.compile(r"(?:推荐菜|招牌菜|特色菜|菜品)")
_RECOMMENDS = re.compile(r"推荐|建议|考虑|名字是|名叫|叫做")  # ("您可以考虑去门票价位100元的世界公园亚洲区游玩")
_AROUND = re.compile(r"的?(?:附近|周边|旁边|周围)")
"""After a name, what makes it the place a reply searched around ("篱苑图书馆周边没有酒店，帮您查到…"),
not the one it found."""
_DISH_BEFORE = re.compile(r"(?:想|爱|要|欢|去|来|点)吃(?:[^，。！？,.!?\s]{1,12}(?:和|、|及|跟))?$")  # "想吃烤馒头和九转大肠": both dishes
_DISH_AFTER = re.compile(r"这(?:道|个|种)菜")


def _dish(text: str, at: int, name: str) -> bool:
    """The name at ``at`` is of a dish the message asks for ("想吃香椿鸡蛋", "有核桃酥这个菜的餐馆"):
    the place it looks for is another."""
    return _DISH_BEFORE.search(text, max(0, at - 16), at) is not None \
        or _DISH_AFTER.match(text, at + len(name)) is not None


_ROUTE = re.compile(r"从[^，。！？,.!?]{1,40}?(?:到|至)")


def question_places(cols: Columns, question: int, reply: int) -> list[str]:
    """The CJK names a question states that its reply does not, in the order they stand:
    not a dish it asks for (see :func:`_dish`) nor a place it asks to search near
    (:func:`near_place`); none for a route ("从颐和园乘坐地铁到味多美": the reply's stations
    are of both ends)."""
    text = _text(cols, question)
    if _ROUTE.search(text):
        return []
    names = cjk_names(cols, question) - cjk_names(cols, reply)
    return [n for at, n in sorted((text.find(n), n) for n in names)
            if at >= 0 and not _dish(text, at, n) and not near_place({n}, text)]


def cjk_names(cols: Columns, message: int) -> set[str]:
    """The CJK names a message states, places' addresses aside."""
    starts = cols.msg_start.view
    return {lit.text for k in range(int(starts[message]), int(starts[message + 1])) for lit in cols.units[k].literals
            if lit.kind == "name" and CJK_CHAR.search(lit.text) and not _ADDRESS.search(lit.text)}


TOPIC_MESSAGES = 2
"""How many messages before a CJK question (``价格是多少？``, which names nothing: Chinese and
Japanese leave out the subject the talk is on) are read for the one name it is about."""


# "鼓楼西大街80号", "北京市崇文区前门东路…": where a place is, not what the talk is on.
_ADDRESS = re.compile(r"\d+号|[路街巷号]$|胡同$|市.{0,8}[区县]|[区县].{0,8}[路街]")


CHAIN = 3
"""How many questions and replies that name nothing before a question a topic carries
through ("他家评分是多少？" "4.7分。" then "有电话吗？" "有的，010-61569200。": 绿岛乐园's phone, named
in the reply before them)."""


_NEW_SUBJECT = re.compile(r"推荐|建议|找|换|另外|其他|别的|还想|还要|再帮")
"""Words of a request or a reply that turns to a new subject ("麻烦帮我推荐一个景点。" "给你推荐
故宫。"): no topic carries through them (the new one may be a name no literal holds)."""


_SEARCH = re.compile(r"找|推荐")


def near_place(names: set[str], text: str) -> bool:
    """A request for a place near one it names ("在冶仙塔旅游风景区附近另外找一个景点")."""
    return _SEARCH.search(text) is not None and any(
        re.search(re.escape(n) + r"的?(?:附近|周边|旁边)", text) for n in names)


def _text(cols: Columns, m: int) -> str:
    return " ".join(tf.text for tf in cols.messages[m].texts)


def topic(cols: Columns, question: int, depth: int = 0, carry: bool = True) -> tuple[int, str] | None:
    """The name a CJK question without one is about, for an assistant's reply that names
    none: the one CJK name (no address) of the nearest of the :data:`TOPIC_MESSAGES`
    messages before it that names any ("推荐您去北京华滨国际大酒店。"), or the one place
    it names before its values (a dish list aside), unless it names several (a choice the
    question does not say) and only one of the kind of place the question names (``酒店``,
    ``餐馆``, ``景点``; a message naming only places of another kind is passed, and the window
    reaches one message further, up to :data:`PASSED`). When those messages name nothing, a
    reply among them carries its own question's topic (up to :data:`CHAIN` times back).
    Returns that message and the name."""
    kind = _asked_kind(_text(cols, question))
    reply = -1  # the nearest assistant reply before the question, if none of them names anything
    stop = max(question - 1 - TOPIC_MESSAGES, -1)
    m = question
    while m - 1 > stop:
        m -= 1
        if cols.messages[m].role in SYSTEM_ROLES or cols.messages[m].role == "tool":
            return None
        names = cjk_names(cols, m)
        if names and cols.messages[m].role == "user" and near_place(names, _text(cols, m)):
            return None  # "在冶仙塔旅游风景区附近另外找一个景点": a place to search near, not the one found
        if not names and reply < 0 and cols.messages[m].role == "assistant":
            reply = m
        if kind is not None and len(names) > 1:
            # "酒店价格你知道吗？": the hotel's, not of the restaurants named since (a message
            # naming several places, none a hotel, is passed by); one place it names is it
            # whatever its name ends in ("北京银泉大厦" to "这家酒店的电话是多少？")
            names = {n for n in names if kind.search(n)}
            if not names:
                # ("景点的电话告诉我吧。" after the hotels around it were listed: the window
                # reaches one message further for each it passes, up to PASSED)
                stop = max(stop - 1, question - 1 - TOPIC_MESSAGES - PASSED, -1)
                continue
        if len(names) > 1:  # the one place it names before its values, if it names one
            first = own_names(cols, m, None, _text(cols, m))
            if len(first) != 1:
                return None
            names = set(first)
        if names:
            return m, names.pop()
    if carry and reply >= 0 and depth < CHAIN and not _NEW_SUBJECT.search(_text(cols, question)) \
            and not _NEW_SUBJECT.search(_text(cols, reply)):
        q = question_message(cols, cols.messages[reply])
        if q is not None and not cjk_names(cols, q.index) and asks(_text(cols, q.index)):
            carried = topic(cols, q.index, depth + 1)
            if carried is not None and (kind is None or kind.search(carried[1])):
                return carried
    return None


_BRANCH = r"(?:[(（][^()（）]{1,20}[)）])?$"
_LODGING = r"(?:酒店|宾馆|饭店|旅馆|客栈|公寓)"
_EATING = r"(?:餐厅|饭馆|菜馆|酒楼|食府|小馆|面馆|火锅|饭店|(?<![酒宾旅])店)"
_KINDS = (
    (re.compile(r"酒店|宾馆|旅馆"), re.compile(_LODGING + _BRANCH)),
    (re.compile(r"餐馆|餐厅|饭馆"), re.compile(
        _EATING + _BRANCH
        + r"|^(?!.*(?:酒店|宾馆|旅馆)).*[(（][^()（）]{1,20}店[)）]$")),  # a branch alone: "大董(工体店)"
    # a sight: a place of neither kind ("天安门广场", "故宫")
    (re.compile(r"景点|景区"), re.compile(r"^(?!.*(?:" + _LODGING + "|" + _EATING + r"|[(（][^()（）]{1,20}店[)）])" + _BRANCH + ")")),
)
"""A kind of place a question names without naming the place (``酒店价格你知道吗？``), and
the end words of the names of that kind."""
PASSED = 2
"""How many messages naming only places of another kind a question's window reaches past."""


def _asked_kind(question: str) -> re.Pattern[str] | None:
    """The end words of the kind of place ``question`` asks about, if it names one kind."""
    kinds = [names for word, names in _KINDS if word.search(question)]
    return kinds[0] if len(kinds) == 1 else None


def reply_topic(cols: Columns, m: Message, q: Message, carry: bool = True) -> tuple[int, str] | None:
    """For a CJK assistant reply that, like its question ``q``, names nothing ("价格是294元。"
    to "价格是多少？"), what the talk is on (:func:`topic`), else None: the record's key of
    its entry and the unit the view shows it with."""
    if m.role != "assistant" or not any(CJK_CHAR.search(tf.text) for tf in m.texts):
        return None
    if cjk_names(cols, q.index) or cjk_names(cols, m.index):
        return None
    return topic(cols, q.index, carry=carry)


def _topic_unit(cols: Columns, m: Message, q: Message) -> int:
    """The unit that names what a reply's talk is on (:func:`reply_topic`: "为您推荐北京顺义宾馆！"
    above "价格是294元。"), or -1."""
    # (carried further back only for a reply that states a value: "不客气。" needs no topic shown)
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


_REQUEST = re.compile(
    r"(?i)\b(?:tell me|let me know|give me|send me|look up|find out)\b"
    r"|告诉我|告诉一下|说一下|讲一下|查一下|查查|帮我查|帮我看|发给我|我想知道|想了解|请问|介绍一下|"
    r"教えて|調べて|知りたい")


def asks(text: str, requests: bool = False) -> bool:
    """Whether a text asks: a question mark, Latin or full-width; with ``requests``, also a
    request for something to be told ("北京歌华开元大酒店的电话麻烦告诉我一下。", "Please tell me
    the gate number.")."""
    return "?" in text or "？" in text or requests and _REQUEST.search(text) is not None


@dataclass
class _Questions:
    """Per message, the unit of the question it answers, or -1, found for the messages
    already appended (the conversation's memo, see ``Columns.memo``)."""

    units: list[int] = field(default_factory=list)


def question_units(cols: Columns) -> np.ndarray:
    """Per message, the unit of the question it answers, or -1: the last unit that asks in
    its :func:`question_message`. -1 too when the reply says what it answers: the question
    names something (a value other than a bare count) and the reply names all it names
    ("世界花卉大观园的地址是…" to "世界花卉大观园地址在哪？"), or the reply repeats the question's
    topic word ("I've gone camping a few times" to "Have you been camping before?") or, naming
    all it names, a CJK content word of it ("门票价格是40元。" to "门票是多少钱？"). A CJK
    reply that, like its question, names nothing is shown with the unit that names what
    the talk is on instead (:func:`_topic_unit`: "为您推荐北京顺义宾馆！" above "价格是294元。").
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

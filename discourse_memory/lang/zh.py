"""The Chinese pack: units, currencies, dates and times, question words, function
characters, the reader of names of places and organisations (:func:`find_cjk_names`),
and how a reply names what the talk is on (:data:`TOPICS`).

Simplified and traditional forms both (``小时`` / ``小時``). Measured on the CrossWOZ
dialogues by ``benchmarks/bench_local_formats.py``; the pack's own tests are in
``tests/test_lang.py``, on sentences written for them.
"""

from __future__ import annotations

import itertools
import re
from typing import Iterator

from ..literals import Literal
from . import LanguagePack, Topics

__all__ = ["PACK", "TOPICS", "find_cjk_names"]

# Literal shapes (read in text of any language: see discourse_memory.lang).
CURRENCY_AFTER = ("元", "块钱", "块", "美元", "欧元", "日元", "英镑", "港币", "人民币", "韩元")
MULTIPLIERS = "万萬千亿億"
AMOUNT_QUALIFIERS = ("以上", "以下", "左右", "起")  # "300元起": from 300 yuan
COUNT_QUALIFIERS = ("以上", "以下", "左右")
RANGE_WORDS = ("至", "到")
# What Chinese text counts with a number: ratings, durations, nights, people, rooms, floors.
COUNT_UNITS = ("小时", "小時", "分钟", "分鐘", "个月", "個月", "星期", "公里", "公斤", "平米", "平方米",
               "分", "星", "天", "晚", "夜", "个", "個", "人", "位", "间", "間", "张", "張", "次", "岁",
               "号", "层", "楼", "樓", "名")
WEEKDAYS = (r"(?:周|星期|礼拜|禮拜)[一二三四五六日天]",)
DATES = (r"\d{4}\s?年\s?\d{1,2}\s?月(?:\s?\d{1,2}\s?[日号])?", r"\d{1,2}\s?月\s?\d{1,2}\s?[日号]")
TIMES = (r"(?:[上下]午|晚上|早上|中午|凌晨|傍晚|夜)?\d{1,2}[時时点點](?:\d{1,2}分|半|整)?",)
OPENERS = (r"(?:[上下]午|晚上|早上|中午|凌晨|傍晚|夜)\d", r"(?:周|星期|礼拜|禮拜)[一二三四五六日天]")

QUESTION_WORDS = (
    ("count", ("多少", "几个", "几天", "几晚", "几位", "几间", "多久", "多长")),
    ("when", ("什么时候", "几点", "哪天", "哪一天", "何时")),
    ("phone", ("电话",)),
    ("email", ("邮箱",)),
    ("amount", ("价格", "多少钱", "价钱", "费用")),
    ("version", ("版本",)),
)
REQUESTS = ("告诉我", "告诉一下", "说一下", "讲一下", "查一下", "查查", "帮我查", "帮我看", "发给我", "我想知道",
            "想了解", "请问", "介绍一下")

# Content words: each pair of adjacent Han characters that holds no particle, pronoun or
# other function character, courtesy pairs aside (discourse_memory.segment.han_words).
FUNCTION_CHARS = "的了是在我你他她它们这那吗呢吧啊就也都和与个有不很还要会么什怎可以一没好对请"
STOP_PAIRS = frozenset(
    "谢谢 感谢 多谢 麻烦 帮忙 你好 您好 再见 拜拜 非常 真是 太谢 客气 不客 知道 明白 觉得 需要 想要 希望 "
    "然后 那么 因为 所以 但是 已经 还是 或者 如果 现在 一下 看看 问问 帮助 推荐 告诉 查询 请问 行吧 嗯嗯 恩恩"
    .split())

# The record's context of a value (discourse_memory.record): the particles and verbs that
# join a key to its value ("人均消费是74元"), the keys a value is stated under, and the
# possessive a key follows ("景点的评分是4分": the rating's).
KEY_LINKS = "是在为的了也有就约达到共"
VALUE_KEYS = ("电话", "地址", "价格", "票价", "门票", "人均", "消费", "评分", "营业时间", "游玩时间", "游玩时长", "号码",
              "邮箱")
POSSESSIVE = "的"

_BRANCH = r"(?:[(（][^()（）]{1,20}[)）])?$"
_LODGING = r"(?:酒店|宾馆|饭店|旅馆|客栈|公寓)"
_EATING = r"(?:餐厅|饭馆|菜馆|酒楼|食府|小馆|面馆|火锅|饭店|(?<![酒宾旅])店)"
TOPICS = Topics(
    # "鼓楼西大街80号", "北京市崇文区前门东路…": where a place is, not what the talk is on (a run of
    # digits is tried once, at its start: a search stays linear).
    address=re.compile(r"(?<!\d)\d+号|[路街巷号]$|胡同$|市.{0,8}[区县]|[区县].{0,8}[路街]"),
    dish_key=re.compile(r"(?:推荐菜|招牌菜|特色菜|菜品)"),
    recommends=re.compile(r"推荐|建议|考虑|名字是|名叫|叫做"),  # ("您可以考虑去门票价位100元的世界公园亚洲区游玩")
    # "篱苑图书馆周边没有酒店，帮您查到…": the place searched around, not the one found
    around=re.compile(r"的?(?:附近|周边|旁边|周围)"),
    dish_before=re.compile(r"(?:想|爱|要|欢|去|来|点)吃(?:[^，。！？,.!?\s]{1,12}(?:和|、|及|跟))?$"),  # "想吃烤馒头和九转大肠"
    dish_after=re.compile(r"这(?:道|个|种)菜"),
    route=re.compile(r"从[^，。！？,.!?]{1,40}?(?:到|至)"),
    # "麻烦帮我推荐一个景点。" "给你推荐故宫。": no topic carries through a new subject
    new_subject=re.compile(r"推荐|建议|找|换|另外|其他|别的|还想|还要|再帮"),
    search=re.compile(r"找|推荐"),
    near=r"的?(?:附近|周边|旁边)",  # "在冶仙塔旅游风景区附近另外找一个景点"
    kinds=(
        (re.compile(r"酒店|宾馆|旅馆"), re.compile(_LODGING + _BRANCH)),
        (re.compile(r"餐馆|餐厅|饭馆"), re.compile(
            _EATING + _BRANCH
            + r"|^(?!.*(?:酒店|宾馆|旅馆)).*[(（][^()（）]{1,20}店[)）]$")),  # a branch alone: "大董(工体店)"
        # a sight: a place of neither kind ("天安门广场", "故宫")
        (re.compile(r"景点|景区"), re.compile(r"^(?!.*(?:" + _LODGING + "|" + _EATING + r"|[(（][^()（）]{1,20}店[)）])"
                                               + _BRANCH + ")")),
    ),
)


# Chinese names of places and organisations, read off the words that end them (there is
# no capital letter to go by): a hotel, restaurant, park, museum, university, scenic area,
# station ... (``_CJK_SUFFIX``), a branch in brackets ("大董(工体店)"), or an address
# ending in a street number ("东四十条23号", "双清路30号院"). A name runs back from its end
# over Han characters, digits and Latin words ("北京工体A. Hotel酒店") to the nearest
# mark, space or word that no name holds (verbs, pronouns, particles: "推荐", "是",
# "去", "的", ``_CJK_BEFORE_NAME``), at most ``_CJK_NAME_CHARS`` characters; it needs
# at least two characters before its end word, so "酒店" or "这家酒店" alone is none.
# Measured on the CrossWOZ dialogues by ``benchmarks/bench_local_formats.py``.
_CJK_SUFFIX = (
    "大酒店 国际酒店 酒店 饭店 宾馆 旅馆 客栈 公寓 餐厅 饭馆 菜馆 酒楼 酒家 饭庄 山庄 农家院 农家乐 会所 俱乐部 "
    "食府 小馆 面馆 火锅 烤鸭店 小吃店 饭堂 食堂 农家饭 小吃城 美食城 民宿 画廊 商城 "
    "旅游区 海底世界 溶洞 峡谷 洞 峡 寨 "
    "公园 博物馆 纪念馆 美术馆 图书馆 科技馆 展览馆 体育馆 艺术区 大学 学院 中学 小学 医院 景区 "
    "风景区 度假村 广场 购物中心 商场 大厦 中心 剧院 大剧院 影院 故居 胡同 地铁站 火车站 机场 "
    "大会堂 礼堂 教堂 剧场 大院 酒庄 酒店及服务公寓 "
    "寺 宫 殿 阁 庙 塔 陵 园 馆 店 站 城 楼 府 坛 桥 山 湖 村 镇"
).split()
_CJK_NAME_END = re.compile(
    r"(?:路|街|大街|大道|道|巷|胡同|里|村|镇)\d{1,5}(?:-\d{1,5})?号(?:院|楼)?(?:\d{1,3}号楼)?"
    r"(?:[(（][^()（）\n]{1,20}[)）])?"  # an address's street number, with a landmark in brackets
    r"|(?:" + "|".join(sorted(_CJK_SUFFIX, key=len, reverse=True)) + r")(?:[A-Z]\d?口)?"
    r"(?:[(（][^()（）\n]{1,20}[)）])?"  # a name's end word (a station's exit), and its branch
    r"|[(（][^()（）\n]{1,16}(?:店|馆)[)）]"  # a branch alone ends a name: "大董(工体店)"
)
_CJK_NAME_CHARS = 16
# Words of a hotel brand that hold a character no name opens with ("选", choose): "北京空港世纪
# 商务精选酒店", "北京亦庄智选假日酒店" were cut to "酒店" (none) and "假日酒店".
_CJK_IN_NAME = frozenset("精选 智选 优选 臻选 严选".split())
_CJK_BEFORE_NAME = frozenset(
    "推荐 是 在 去 到 从 有 叫 名叫 和 与 及 跟 或 的 吃 住 选 找 逛 玩 看 想 要 就 那 这 给 "
    "您 你 我 他 她 它 们 呢 吧 啊 了 还 个 一家 这家 那家 这个 那个 哪 哪家 它家 他家 她家 您家 你家 我家 "
    "每家 几家 附近 些 什么 啥 该 "
    "其他 其它 别的 等 考虑 选择 为 问下 麻烦 其中 或者 者 查询 提供 设施 爬 完 下 "
    "周边 旁边 型 不错 地址 电话 叫做 前往 打车 坐 乘 换乘 请问 帮我 一下 可以 比如 例如 "
    "以及 还有 只有 就是 地方 觉得 感觉 认为 听说 知道 很多 位于 "
    # Conjunctions and prepositions that open a clause: "鉴于三江源酒楼周边只有…" (given that)
    "鉴于 由于 因为 对于 关于 根据 如果 虽然 但是 所以 而且 不过 除了 希望 暂无 没有 这么 那么 么多 然后 找家 抱歉 我对 你对 他对 她对 中式 西式 "
    # Verbs of telling and adverbs: "老板经常聊起花园" is no name ("花园" alone has too
    # few characters before its end word to be one).
    "说 说起 聊起 讲起 谈起 提起 说到 聊到 讲到 经常 总是 一直 常常 小声 笑着 正在 刚才 今天 昨天 明天 "
    "已经 非常 特别 喜欢 "
    # A count of places ("两家酒店", "第5家酒店"): two hotels, the fifth, not one's name.
    "两家 三家 四家 五家 六家 七家 八家 九家 十家 0家 1家 2家 3家 4家 5家 6家 7家 8家 9家".split()
)
_CJK_NAME_CHAR = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fffA-Za-z0-9·&'\-]")


# An enumeration names things of one kind: "周边景点有故宫, 天安门广场, 什刹海" -- once one item
# is a name by its end word, its neighbours across a list mark are names too ("故宫",
# "什刹海" end in no such word); a list of three or more joined by "、" is one of names
# (dishes: "夫妻肺片、 清蒸鲈鱼、 酱萝卜"). A neighbour is a run of name characters with at
# least one Han character, no word that no name holds, and 2 to ``_CJK_NAME_CHARS`` long.
_LIST_MARK = re.compile(r"[ \t]{0,3}(?:[,、]|和|及|以及)[ \t]{0,3}")  # (bounded: a search stays linear)
_LIST_BEFORE = re.compile(r"(?:[,、]|和|及)[ \t]{0,3}$")
_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff]")
_ENUMERATION = re.compile(r"(?:[\u3400-\u4dbf\u4e00-\u9fff]{2,16}[ \t]*、[ \t]*){2,}[\u3400-\u4dbf\u4e00-\u9fff]{2,16}")


def _run_back(text: str, end: int, floor: int) -> int:
    """Where a name ending at ``end`` starts, running back over name characters to a word
    that no name holds (``_CJK_BEFORE_NAME``), at most ``_CJK_NAME_CHARS``."""
    i = end
    while i > floor and end - i < _CJK_NAME_CHARS:
        c = text[i - 1]
        if not _CJK_NAME_CHAR.match(c) or text[i - 2:i] in _CJK_BEFORE_NAME or c in _CJK_BEFORE_NAME:
            break
        i -= 1
    return i


_IN_NUMBER = re.compile(r"\d[,.]\d")


def _neighbour(text: str, start: int, end: int) -> bool:
    """``text[start:end]`` can be an item of an enumeration of names."""
    seg = text[start:end]
    if not (2 <= len(seg) <= _CJK_NAME_CHARS and _HAN.search(seg) is not None):
        return False
    if _IN_NUMBER.match(text, end - 1) or start >= 2 and _IN_NUMBER.match(text, start - 2):
        return False  # cut at a number's comma or point ("人均1" of "人均1,280元", "49" of "49,90 €")
    ends = [m for m in _CJK_NAME_END.finditer(seg) if m.end() == len(seg)]
    if any(m.start() == 0 for m in ends):
        return False  # an end word alone ("酒店"): a kind, not a name
    if any(m.start() >= 2 for m in ends):
        return True  # a name by its end word, whatever it holds ("中国国家博物馆" after "天安门广场, ")
    return _holds_no_stop_word(seg)


def _holds_no_stop_word(seg: str) -> bool:
    """``seg`` holds no word that no name holds (``_CJK_BEFORE_NAME``), of one or two characters."""
    return not any(seg[k] in _CJK_BEFORE_NAME or seg[k:k + 2] in _CJK_BEFORE_NAME for k in range(len(seg)))


def _enumerated(text: str, names: list[Literal]) -> list[Literal]:
    """The neighbours of ``names`` in enumerations, and the items of "、" lists (see above)."""
    taken = bytearray(len(text))  # characters a name holds (a scan of every name per item was quadratic)
    for n in names:
        taken[n.start:n.end] = b"\x01" * (n.end - n.start)

    def free(a: int, b: int) -> bool:
        return not any(taken[a:b])

    extra: list[Literal] = []

    def add(a: int, b: int) -> bool:
        if not free(a, b) or not _neighbour(text, a, b):
            return False
        extra.append(Literal(text[a:b], "name", a, b))
        taken[a:b] = b"\x01" * (b - a)
        return True

    for n in names:
        pos = n.end
        while True:  # the items after it
            m = _LIST_MARK.match(text, pos)
            if m is None:
                break
            b = m.end()
            while b < len(text) and b - m.end() < _CJK_NAME_CHARS and _CJK_NAME_CHAR.match(text[b]):
                b += 1
            if not add(m.end(), b):
                break  # (a name there scans on from its own end)
            pos = b
        pos = n.start
        while True:  # the items before it
            m = _LIST_BEFORE.search(text, max(0, pos - 4), pos)
            if m is None:
                break
            a = _run_back(text, m.start(), 0)
            if not add(a, m.start()):
                break
            pos = a
    if "、" in text:
        for m in _ENUMERATION.finditer(text):
            parts = [p for p in re.finditer(r"[\u3400-\u4dbf\u4e00-\u9fff]+", m.group())]
            for k, p in enumerate(parts):
                a, b = m.start() + p.start(), m.start() + p.end()
                if k == 0:
                    a = _run_back(text, b, m.start())
                add(a, b)
    return sorted(names + extra, key=lambda x: x.start)


def _inner_and(text: str, i: int, end_start: int, last: int) -> bool:
    """Whether the "和" at ``text[i - 1]`` is in the name (颐和园, 雍和宫, 和平宾馆), not the "and"
    of two: it leaves too short a name before its end word, and no name (``last``: where the
    last one ended) or end word stands right before it ("故宫和天坛"), nor a kind of place
    ("景点和餐馆": two kinds, no name)."""
    if text[i - 1] != "和" or end_start - i >= 2:
        return False
    return not (0 < last == i - 1 or i >= 2 and text[i - 2] in _CJK_SUFFIX or text[max(0, i - 3):i - 1] in _CJK_KINDS)


_CJK_KINDS = frozenset("景点 景区 餐馆 餐厅 酒店 宾馆".split())


# A value after its key: an address after "地址是" runs to the end of its clause
# ("地址是在雅成一里19号楼世丰国际大厦2层(近朝阳大悦城)。"); the dishes after "推荐菜有" are the
# items of its list ("推荐菜有芥末鸭掌, 火燎鸭心").
_ADDRESS = re.compile(r"(?:地址|地点|位置)(?:是|为|在|：|:){1,3}[ \t]{0,3}(?:在[ \t]{0,3})?"
                      r"([^\s。，,！？!?；;：:“”\"]{4,60})")
_DISHES = re.compile(r"(?:推荐菜|招牌菜|特色菜)里?(?:有|是|：|:){1,3}[ \t]{0,3}([^\n。！？!?；;]{2,160})")
# The dishes a guest asks for: "想吃烤羊蝎子，", "我想吃的菜肴是热巧克力", "有蒿子杆这个菜", "有印度咖喱锅底的店"
# (what a restaurant must serve is the request's value, as a date is a booking's).
_DISH_WANTED = re.compile(
    r"(?:想吃|爱吃|喜欢吃)的?([^\n。，,！？!?；;]{2,40}?)(?=[。，,！？!?；;]|这.?道菜|这个菜|的(?:餐馆|餐厅|店|饭店))")
_DISH_IS = re.compile(r"菜肴?是([^\n。，,！？!?；;]{2,40}?)(?=[。，,！？!?；;]|$)")
_DISH_SERVED = re.compile(r"(?<!没)有([^\n。，,！？!?；;]{2,40}?)(?=这.?道菜|这个菜|的(?:餐馆|餐厅|店|饭店))")
_DISH_ASKED = (_DISH_WANTED, _DISH_IS, _DISH_SERVED)
_NOT_DISH = re.compile(r"^[点个些顿菜]|东西|合适|符合|能做")  # "想吃点东西", "有合适的餐馆": no dish named
_DISH_SPLIT = re.compile(r"[ \t]{0,3}(?:[,，、]|和|及|以及)[ \t]{0,3}")  # (bounded: linear)


# A place recommended by a name no end word marks ("给你推荐故宫。", "为您推荐东兴顺爆肚张。",
# "推荐您去爨底下，门票35元"): what 推荐 names, up to a mark or a particle, when it holds no
# word that no name holds and is no kind of place ("推荐景点吧").
_RECOMMENDED = re.compile(
    r"推荐(?:您|你)?去?([\u3400-\u4dbf\u4e00-\u9fffA-Za-z0-9·]{2,12}?)"
    r"(?=[，。！？,!?；;]|吧|哦|呢|啊|呀|用餐|这家|尝尝|看看|$)")
# And a place a request calls by its name ("我想去名叫故宫的景点游玩", "名叫东兴顺爆肚张的餐馆").
_CALLED = re.compile(
    r"(?:名叫|叫做|名为)([\u3400-\u4dbf\u4e00-\u9fffA-Za-z0-9·]{2,12}?)(?=的|[，。！？,!?；;]|$)")
_KINDS_OF_PLACE = frozenset("景点 餐馆 餐厅 酒店 宾馆 饭店 地方 美食 景区 店 馆".split())
_DIGIT = re.compile(r"\d")


def _keyed_values(text: str) -> list[Literal]:
    out: list[Literal] = []
    if "推荐" in text or "名" in text or "叫" in text:
        for m in itertools.chain(_RECOMMENDED.finditer(text), _CALLED.finditer(text)):
            a, b = m.span(1)
            seg = m.group(1)
            if seg not in _KINDS_OF_PLACE and not seg.startswith("菜") and not _DIGIT.search(seg) \
                    and _holds_no_stop_word(seg) and not any(o.start < b and a < o.end for o in out):
                out.append(Literal(seg, "name", a, b))  # (no end word lets "一个酒店" or "A和B" pass)
    if "地" in text or "位置" in text:
        for m in _ADDRESS.finditer(text):
            if _HAN.search(m.group(1)):
                out.append(Literal(m.group(1), "name", m.start(1), m.end(1)))
    if "吃" in text or "菜" in text or "有" in text:
        for pattern in _DISH_ASKED:
            for m in pattern.finditer(text):
                for part, a, b in _items_of(text, m):
                    if part and not _NOT_DISH.search(part) and _neighbour(text, a, b) \
                            and not any(o.start < b and a < o.end for o in out):
                        out.append(Literal(part, "name", a, b))
    if "菜" in text:
        for m in _DISHES.finditer(text):
            for part, a, b in _items_of(text, m):
                if not part or not _neighbour(text, a, b):
                    break  # the list ends ("…, 都很不错呢")
                out.append(Literal(part, "name", a, b))
    return out


def _items_of(text: str, m: re.Match[str]) -> Iterator[tuple[str, int, int]]:
    """The items of the list ``m`` caught (its group 1), with their spans in ``text``."""
    pos = m.start(1)
    for part in _DISH_SPLIT.split(m.group(1)):
        a = text.find(part, pos)
        pos = a + len(part)
        yield part, a, pos


def find_cjk_names(text: str) -> list[Literal]:
    """Chinese names of places and organisations in ``text`` (see above), in order."""
    names = _suffix_names(text)
    keyed = _keyed_values(text)
    if keyed:  # a value after its key wins over the names inside it (masks: linear in the text)
        inside = bytearray(len(text))
        for k in keyed:
            inside[k.start:k.end] = b"\x01" * (k.end - k.start)
        names = [n for n in names if not all(inside[n.start:n.end])]
        held = bytearray(len(text))
        for n in names:
            held[n.start:n.end] = b"\x01" * (n.end - n.start)
        names = sorted(names + [k for k in keyed if not any(held[k.start:k.end])], key=lambda x: x.start)
    return _enumerated(text, names)


def _suffix_names(text: str) -> list[Literal]:
    out: list[Literal] = []
    last = 0  # where the last name ended
    for m in _CJK_NAME_END.finditer(text):
        end_start, end = m.span()
        i = end_start
        while i > last and end_start - i < _CJK_NAME_CHARS:
            c = text[i - 1]
            if not _CJK_NAME_CHAR.match(c):
                # a Latin word's period or space inside the name ("A. Hotel"), not at its edge
                before, after = text[i - 2:i - 1], text[i:i + 1]
                if i - 1 > last and (c == "." and before.isascii() and before.isalpha() and after in (" ", "")
                                     or c == " " and before.isascii() and (before.isalpha() or before == ".")
                                     and after.isascii() and after.isalpha()):
                    i -= 1
                    continue
                break
            if text[i - 2:i] in _CJK_BEFORE_NAME \
                    or c in _CJK_BEFORE_NAME and not _inner_and(text, i, end_start, last) \
                    and text[i - 2:i] not in _CJK_IN_NAME:
                break
            i -= 1
        if m.group()[-1:] in ")）" and i > last and end_start - i < 2:
            # A branch in brackets marks a shop's own name, which may open with the word a
            # demonstrative is written with: "那兰酒楼（潘家园店）", "那家小馆(永安里店)" (not
            # where a name stands without it: "那北京饭店(王府井店)" is "then" and a name).
            for word in ("那家", "那"):
                if text.startswith(word, i - len(word)) and i - len(word) >= last:
                    i -= len(word)
                    break
        if out and i == last and out[-1].end == last:
            # the end word of the last name ran on into this one's ("北新桥" in "北新桥卤煮老店")
            first = out.pop()
            out.append(Literal(text[first.start:end], "name", first.start, end))
            last = end
            continue
        if end_start - i < 2 and not (m.group()[:1] in "(（" and end_start - i >= 1):
            if i == end_start:
                last = end  # a kind alone ("两家酒店"): the next name starts after it
            continue
        out.append(Literal(text[i:end], "name", i, end))
        last = end
    return out


PACK = LanguagePack(
    code="zh", currency_after=CURRENCY_AFTER, multipliers=MULTIPLIERS, amount_qualifiers=AMOUNT_QUALIFIERS,
    count_qualifiers=COUNT_QUALIFIERS, range_words=RANGE_WORDS, count_units=COUNT_UNITS, weekdays=WEEKDAYS,
    dates=DATES, times=TIMES, openers=OPENERS, question_words=QUESTION_WORDS, requests=REQUESTS,
    function_chars=FUNCTION_CHARS, stop_pairs=STOP_PAIRS, key_links=KEY_LINKS, value_keys=VALUE_KEYS,
    possessive=POSSESSIVE, find_names=find_cjk_names, topics=TOPICS,
)

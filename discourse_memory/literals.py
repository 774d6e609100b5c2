"""Literals: the exact values a unit states.

Kinds: ``url``, ``email``, ``datetime``, ``date``, ``time``, ``phone``, ``amount``,
``percent``, ``quantity`` (a number with a CJK unit: ``4.5分``, ``3天``, or a unit written
against it: ``0.21s``, ``3.5GB``), ``version``,
``path``, ``identifier``, ``quoted``, ``number`` (found by the patterns below, leftmost
first, earlier kinds winning at a position; local formats of dates, times, amounts and
numbers included) and ``name`` (runs of capitalised words found on spaCy tokens, with
a statistical pipeline its entities too; in Chinese, places and organisations by the
words that end them, :func:`find_cjk_names`).

Every pattern is linear-time: no nested quantifiers, bounded repeats.
"""

from __future__ import annotations

import functools
import itertools
import re
from bisect import bisect_left
from typing import Any, Iterable, Iterator, NamedTuple

from .doc_tokens import DocTokens

__all__ = ["COMMA_LANGUAGES", "PATTERN_KINDS", "SHAPE_MAX_CHARS", "Literal", "Spans", "digit_shape", "find_cjk_names", "names_win", "find_literals", "find_names",
           "find_names_by_pattern", "find_token_names", "first_kinds"]


class Spans:
    """Non-overlapping spans, for O(log n) "is this span free?" checks."""

    def __init__(self, spans: Iterable[tuple[int, int]]) -> None:
        ordered = sorted(spans)
        self._starts = [s for s, _ in ordered]
        self._ends = [e for _, e in ordered]

    def free(self, start: int, end: int) -> bool:
        i = bisect_left(self._starts, end) - 1  # the last span starting before `end`
        return i < 0 or self._ends[i] <= start


def names_win(found: list[Literal], names: Iterable[Literal]) -> list[Literal]:
    """``found`` and ``names`` in order, a name's span winning over the literals inside it
    (a Chinese name holds the numbers and Latin words in it: "7天连锁酒店", "飘HOME连锁酒店")."""
    names = list(names)
    outside = Spans((n.start, n.end) for n in names).free
    out = [lit for lit in found if outside(lit.start, lit.end)] + names
    out.sort(key=lambda lit: (lit.start, lit.end))
    return out


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
# Letters of the scripts written without spaces (kana, Han, Hangul): next to them a value
# still starts or ends ("订单号是A12345", "价格775元"), so the patterns' word boundaries
# are those of the spaced scripts only. With no such letter around, each rule below is
# exactly the rule with ``\b`` and ``\w``.
_CJK = r"\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_WL = r"[^\W" + _CJK + r"]"  # a word character of a spaced script
_B = r"(?:(?<=" + _WL + r")(?!" + _WL + r")|(?<!" + _WL + r")(?=" + _WL + r"))"  # \b between spaced words
# The same before a word character, and after one (``\b`` is one quick test; the CJK one
# runs only where it fails):
_BS = r"(?:\b|(?<=[" + _CJK + r"]))"
_BE = r"(?:\b|(?=[" + _CJK + r"]))"
_NW = r"(?:(?<!\w)|(?<=[" + _CJK + r"]))"  # not after such a character
_NA = r"(?:(?!\w)|(?=[" + _CJK + r"]))"  # not before one
# Months of the day-month dates of other languages (any case): German "3. Mai 2024",
# French "1er mars", Spanish and Portuguese "15 de marzo de 2024", Italian, Dutch, and
# Russian genitives "3 мая 2024 г.".
_MONTHS_DE = r"(?:Januar|Jänner|Februar|März|April|Mai|Juni|Juli|August|September|Oktober|November|Dezember" \
             r"|(?:Jan|Feb|Mär|Apr|Jun|Jul|Aug|Sep|Sept|Okt|Nov|Dez)\.?)"  # (an abbreviation keeps its period)
_MONTHS_FR = r"(?:janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|septembre|octobre|novembre" \
             r"|décembre|decembre|(?:janv|févr|avr|juil|sept|oct|nov|déc)\.?)"
_MONTHS_ES_PT = r"(?:enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre" \
                r"|diciembre|janeiro|fevereiro|março|maio|junho|julho|setembro|outubro|novembro|dezembro)"
_MONTHS_IT_NL = r"(?:gennaio|febbraio|aprile|maggio|giugno|luglio|settembre|ottobre|dicembre" \
                r"|januari|februari|maart|mei|augustus|oktober)"
_MONTHS_RU = r"(?:января|февраля|марта|апреля|мая|июня|июля|августа|сентября|октября|ноября|декабря)"
# Currencies written after the amount: signs, codes and words ("49,90 €", "12 500 ₽",
# "12,800円", "775元", "30 Euro", "500 руб."), and the CJK ones after a multiplier ("12万元").
_CURRENCY_AFTER = (
    r"(?:[万萬千亿億]?(?:元|円|块钱?|美元|欧元|日元|英镑|港币|人民币|韩元)|[€₽¥￥₩₴₺]|원"
    r"|(?:EUR|RUB|CNY|RMB|JPY|KRW|CHF|PLN|SEK|NOK|DKK|CZK|HUF|TRY|UAH|BRL|MXN|zł|Kč|Ft|kr|Fr\.|Euros?|euros?"
    r"|руб(?:\.|лей|ля|ль)?|р\.|грн|лв|pesos?|reais|francs?|Franken)" + _NA + r")"
    r"(?:以上|以下|左右|起)?"
)
# A number as the languages group it: 1 299,00 / 1.299,00 (space, no-break space or dot
# thousands, decimal comma), 12,800.50, or plain with either decimal mark.
_LOCAL_NUMBER = (r"(?:\d{1,3}(?:[.\u00a0\u202f ]\d{3}){1,6}(?:,\d{1,2})?(?!\d)"
                 r"|\d{1,3}(?:,\d{3}){1,6}(?:\.\d{1,2})?(?!\d)|\d{1,30}(?:[.,]\d{1,8})?)")
_RANGE = r"\s?[-–~～至到]\s?"
# What CJK text counts with a number: ratings, durations, nights, people, rooms, floors.
_CJK_UNIT = (r"(?:小时|小時|分钟|分鐘|分間|時間|个月|個月|星期|公里|公斤|平米|平方米|日間"
             r"|[分星天晚夜个個人位间間张張次岁歳件本枚台泊名号層层楼樓])")
_CJK_NUMBER = r"\d{1,12}(?:\.\d{1,4})?"
# Opening hours: days (one, a range or a list) with the times they hold, one value ("周一至周日
# 08:00-22:00", "Mon-Fri 09:00-17:00", "Mo-Fr 9:00-18:00 Uhr", "月〜金 10:00-19:00"):
# apart, "Mon" and "Fri" were names and the times were of no day.
_DE_DAY = r"(?:Mo|Di|Mi|Do|Fr|Sa|So)\.?(?![A-Za-z])"
_DAY = (r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)(?:days?|sdays?|nesdays?|rsdays?|urdays?|s|rs)?\.?(?![A-Za-z])"
        r"|(?:周|星期|礼拜|禮拜)[一二三四五六日天]|[月火水木金土日]曜日?)")
_DAY_MARK = r"\s?(?:[-–~～〜至到、,/・]|to|through|bis)\s?"
# (German days of two letters only in a range or list, "Mo-Fr", "Sa, So": "So 9:30 works" is English)
_DAYS = (r"(?:" + _DAY + r"|" + _DE_DAY + r"(?=" + _DAY_MARK + _DE_DAY + r")|[月火水木金土日](?=[〜~～\-–・、]))"
         r"(?:" + _DAY_MARK + r"(?:" + _DAY + r"|" + _DE_DAY + r"|[月火水木金土日](?![\u3040-\u30ff\u3400-\u9fff]))){0,6}")
_HOUR = r"\d{1,2}(?::\d{2}|h\d{2})(?:\s?[AaPp]\.?[Mm]\.?)?|\d{1,2}\s?[AaPp]\.?[Mm]\.?(?![A-Za-z])"
_HOURS = r"(?:" + _HOUR + r")(?:\s?[-–~～〜至到]\s?(?:" + _HOUR + r"))?"
_SCHEDULE = _DAYS + r"[ \t:：]{0,3}" + _HOURS + r"(?:[ \t,，、]{1,3}" + _HOURS + r"){0,3}(?:\s?Uhr(?![A-Za-z]))?(?![\d:])"
# A number with a unit written against it, in code and tool output: a duration ("0.21s",
# "12ms"), a size ("3.5GB"), a factor ("2.5x"). Without it "12 passed in 0.21s" stated
# "0" and "21s".
_UNIT = r"(?:ms|µs|us|ns|s|min|h|[KMGTP]i?B|kB|KB|x|px|Hz|kHz|MHz|GHz|fps|rps|qps)"
_PATTERNS: list[tuple[str, str]] = [
    ("url", r"(?:https?|ftp|file)://[^\s<>\"'`" + _CJK + r"\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]{1,2000}"
            r"|www\.[A-Za-z0-9\-]{1,63}\.[^\s<>\"'`" + _CJK + r"\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]{1,2000}"),
    ("email", r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63}){1,8}"),
    ("datetime", r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+\-]\d{2}:?\d{2})?"),
    ("date", r"\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}\.\d{1,2}\.\d{4}"
             r"|\d{1,2}(?:st|nd|rd|th)?\s" + _MONTH + r"\.?,?(?:\s\d{4})?"
             r"|" + _MONTH + r"\.?\s\d{1,2}(?:st|nd|rd|th)?(?:,?\s\d{4})?(?!\d)"
             r"|" + _MONTH + r"\s\d{4}"
             r"|\d{4}\s?年\s?\d{1,2}\s?月(?:\s?\d{1,2}\s?[日号])?|\d{1,2}\s?月\s?\d{1,2}\s?[日号]"
             r"|\d{1,2}-\d{1,2}-\d{4}(?!\d)"
             r"|\d{1,2}\.\s?(?i:" + _MONTHS_DE + r")" + _NA + r"(?:\s\d{4}(?!\d))?"
             r"|\d{1,2}(?:er)?\s(?i:" + _MONTHS_FR + r"|" + _MONTHS_IT_NL + r")" + _NA + r"(?:\s\d{4}(?!\d))?"
             r"|\d{1,2}\sde\s(?i:" + _MONTHS_ES_PT + r")" + _NA + r"(?:\sde(?:l)?\s\d{4}(?!\d))?"
             r"|\d{1,2}\s(?i:" + _MONTHS_RU + r")" + _NA + r"(?:\s\d{4}(?!\d)(?:\s?г\.|\s?года)?)?"),
    ("time", _SCHEDULE + r"|\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?"
             r"(?:" + _RANGE + r"\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?)?(?:\s?Uhr" + _NA + r"|\s?[A-Z]{3})?(?![\d:])"
             r"|\d{1,2}\s?[AaPp]\.?[Mm]" + _BE + r"\.?"
             r"|\d{1,2}h\d{2}(?!\d)|\d{1,2}(?:[:.]\d{2})?\s?Uhr" + _NA +
             r"|(?:午[前後]|[上下]午|晚上|早上|中午|凌晨|傍晚|夜)?\d{1,2}[時时点點](?:\d{1,2}分|半|整)?"),
    ("phone", r"(?<![\w.])\+\d{1,3}(?:[ .\-]?\(\d{1,4}\))?(?=(?:[ .\-]\d{1,8}){0,4}[ .\-]\d{3})(?:[ .\-]\d{1,8}){2,5}(?!\d)"
              r"|(?<![\w.])\+\d{1,3}(?:[ .]\d{1,2}){4,6}(?!\d)(?!\.\d)"  # +33 1 42 68 53 00
              r"|(?<![\w.])\+\d{8,15}(?!\d)"
              r"|(?<![\w.+\-])\d{1,2} ?\(\d{3,5}\) ?\d{2,4}(?:[ \-]\d{2,4}){1,3}(?!\d)"  # 8 (495) 234-56-78
              r"|(?<![\d.,\-+/:])0\d{1,4}(?:[\-/ ]\d{6,8}|[ \-/]\d{3,4}[ \-]\d{3,4}|(?: \d{2}){4})(?![\d\-])"
              r"|\(\d{2,5}\)[ \-]?\d{3,4}[ \-]?\d{3,4}(?!\d)"
              r"|(?<![\d\-])\d{3}-\d{3}-\d{4}(?![\d\-])"),
    ("amount", r"[$€£¥₹￥₽₩]\s?\d{1,3}(?:\.\d{3}){1,6},\d{1,2}(?!\d)"
               r"|[$€£¥₹￥₽₩]\s?\d(?:,?\d){0,30}(?:\.\d{1,8})?(?:\s?(?:[kKmMbB]n?|million|billion)" + _BE + r")?"
               r"|(?<![\d,.])\d(?:,?\d){0,30}(?:\.\d{1,8})?\s?(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|dollars?|euros?|pounds?)" + _BE +
               r"|(?<![\d,.])" + _LOCAL_NUMBER + r"(?:" + _RANGE + _LOCAL_NUMBER + r")?\s?" + _CURRENCY_AFTER),
    ("percent", r"(?<![\d.])[+\-]?\d{1,15}(?:\.\d{1,8})?\s?[%％]"),
    ("quantity", r"(?<![\d.,])" + _CJK_NUMBER + r"(?:" + _CJK_UNIT + r")?(?:" + _RANGE + _CJK_NUMBER + r")?" + _CJK_UNIT
                 + r"(?:以上|以下|左右)?"
                 r"|" + _NW + r"(?<![.,])\d{1,12}(?:\.\d{1,12})?" + _UNIT + _NA),
    ("version", _BS + r"v\d{1,6}(?:\.\d{1,6}){0,4}(?:[\-+][A-Za-z0-9.]{1,20})?" + _B +
                r"|" + _BS + r"\d{1,6}\.\d{1,6}\.\d{1,6}(?:\.\d{1,6})?(?:[\-+][A-Za-z0-9.]{1,20})?" + _B),
    ("path", r"(?:~|\.{1,2})?(?:/[\w.\-@+]{1,255}){2,64}/?"
             r"|" + _NW + r"(?<!-)(?:" + _WL + r"|-){1,64}(?:/[\w.\-]{1,255}){1,64}\.[A-Za-z0-9]{1,10}" + _BE +
             r"|" + _BS + r"[A-Za-z]:\\[\w.\-\\ ]{1,255}"),
    ("identifier", _BS + r"[A-Z][A-Z0-9]{1,15}-\d{1,12}(?:-[A-Za-z0-9]{1,12}){0,4}" + _BE +
                   r"|" + _NW + r"(?<!-)(?=(?:" + _WL + r"|-){0,64}?\d)[A-Za-z][A-Za-z0-9]{0,30}(?:-[A-Za-z0-9]{1,30}){1,6}" + _BE +
                   r"|" + _NW + r"(?<!\.)[A-Za-z_][A-Za-z0-9]{0,63}(?:[_.][A-Za-z0-9]{1,63}){1,16}(?:__(?![A-Za-z0-9]))?(?:\(\))?"
                   r"|" + _BS + r"[a-z][a-z0-9]{0,63}(?:[A-Z][a-z0-9]{0,63}){1,16}" + _BE +
                   r"|" + _BS + r"[A-Z][a-z0-9]{1,63}(?:[A-Z][a-z0-9]{0,63}){1,16}" + _BE +
                   r"|" + _BS + r"(?=[A-Za-z]{0,63}\d)(?=\d{0,63}[A-Za-z])[A-Za-z0-9]{2,64}" + _BE +
                   r"|" + _BS + r"[A-Z]{2,10}" + _BE),
    ("quoted", r"(?<![\w\"])\"(?=[^\"\n]{0,119}\s)(?=\S)[^\"\n]{1,120}(?<=\S)\"(?!\w)"
               r"|“[^“”\n]{1,120}”|`(?=[^`\n]{0,119}\s)(?=[^`\s])[^`\n]{1,120}(?<=\S)`"
               r"|(?<![\w'])'(?=[^'\n]{0,119}\s)(?=\S)[^'\n]{1,120}(?<=\S)'(?!\w)"
               r"|「[^「」\n]{1,120}」|『[^『』\n]{1,120}』|《[^《》\n]{1,120}》|«[^«»\n]{1,120}»|„[^„“”\n]{1,120}[“”]"),
    ("number", _NW + r"(?<!\.)[+\-]?\d{1,3}(?:,\d{3}){1,6}(?:\.\d{1,12})?(?![\d,])"
               r"|" + _NW + r"(?<!\.)[+\-]?\d{1,3}(?:_\d{3}){1,6}" + _NA +
               r"|" + _NW + r"(?<!\.)[+\-]?\d{1,40}(?:\.\d{1,40})?" + _NA),
]
# Languages that write a decimal comma (German, French, Spanish, Russian, ...): there a
# bare "49,90" or "3,5 %" is one number, "1.299,00" and "12 500" are grouped ones.
_COMMA_NUMBER = (r"(?:" + _NW + r"(?<![.,])[+\-]?\d{1,3}(?:[.\u00a0\u202f ]\d{3}){1,6}(?:,\d{1,12})?(?![\d.,])"
                 r"|" + _NW + r"(?<![.,])[+\-]?\d{1,40},\d{1,12}(?![\d,])|")
_COMMA_PERCENT = r"(?<![\d.,])[+\-]?\d{1,15}(?:[.,]\d{1,8})?\s?[%％]"
COMMA_LANGUAGES = frozenset("de fr es it pt nl ru uk sv da nb fi pl cs sk sl hr ro hu tr ca".split())
"""Languages whose numbers read with a decimal comma (:func:`find_literals` ``language``)."""


def _comma_patterns() -> list[tuple[str, str]]:
    out = []
    for kind, pattern in _PATTERNS:
        if kind == "number":
            pattern = _COMMA_NUMBER + pattern + ")"
        elif kind == "percent":
            pattern = _COMMA_PERCENT
        out.append((kind, pattern))
    return out


# Every literal starts at the start of a word or at one of a few symbols: skip every other
# position (most of a text, all of a run of punctuation) before trying the alternatives.
# A plain word, lower-case or capitalised, starts none of them when what follows it
# cannot continue one (a space, a closing or comma-like mark, a quote, a sentence end, a
# colon that opens no ``:\``, or ``://`` after a word that is no URL scheme): each needs a
# digit, a second capital, or one of ``@ / _ - . : % +`` inside, unless the word may be a
# month (a date). A symbol is tried only where an alternative can start with it: a
# currency or a sign before a digit, a quote that follows no word (a curly or CJK one
# only where its closing quote follows), an e-mail's first character before its ``@``, a
# slash (or ``~/``) that opens two path segments, a dash before a path's slash, ``./`` and
# ``../``, a parenthesis before a digit (a phone's area code). Inside a run of
# CJK letters only a time that starts with one ("午後3時", "下午3点") can start. So most
# prose words and marks are skipped at once (``tests/test_literals.py`` checks that the
# skip changes no match).
_END_MARK = r"""[\s,;!?)\]}"'’`*=<>&#|(\[{]"""
_PLAIN_END = r"(?:" + _END_MARK + r"|:(?!\\)|\.(?=" + _END_MARK + r"|$)|$)"
_CJK_START = (r"(?=(?:午[前後]|[上下]午|晚上|早上|中午|凌晨|傍晚|夜)\d"
              r"|(?:周|星期|礼拜|禮拜)[一二三四五六日天]|[月火水木金土日]曜|[月火水木金土日][〜~～\-–・、][月火水木金土日])")
_START = (r"(?:(?<![A-Za-z0-9_])(?=\w)(?:" + _CJK_START + r"|(?![" + _CJK + r"])"
          r"(?!(?!(?:https?|ftp|file)://)[a-z]{1,64}" + _PLAIN_END + ")"
          r"(?!(?!Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|Mon|Tue|Wed|Thu|Fri|Sat|Sun|Mo|Di|Mi|Do|Fr|Sa|So)"
          r"[A-Z][a-z]{1,63}" + _PLAIN_END + "))"
          r"|(?=[$€£¥₹￥₽₩/~“\"'`+\-.(「『《«„])(?:(?=[$€£¥₹￥₽₩]\s?\d)|(?=~?/[\w.\-@+]{1,255}/[\w.\-@+])"
          r"|(?=“[^“”\n]{1,120}”|「[^「」\n]{1,120}」|『[^『』\n]{1,120}』|《[^《》\n]{1,120}》|«[^«»\n]{1,120}»"
          r"|„[^„“”\n]{1,120}[“”])"
          r"|(?=\")(?<![\w\"])|(?=')(?<![\w'])|(?=`[^`\s])"
          r"|(?=[+\-]\d)|(?=[.+\-][A-Za-z0-9._%+\-]{0,63}@)(?<![A-Za-z0-9._%+\-])|(?=-[\w\-]{0,63}/)" + _NW + r"(?<!-)"
          r"|(?=\.\.?/)|(?=\(\d)))")


def _compile(patterns: list[tuple[str, str]]) -> re.Pattern[str]:
    return re.compile(_START + "(?:" + "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in patterns) + ")")


@functools.cache
def combined_pattern() -> re.Pattern[str]:
    """The combined literal pattern: compiled on first use, as compiling it is a sixth of a
    second of a fresh process's start-up (a conversation that fits needs none)."""
    return _compile(_PATTERNS)


@functools.cache
def comma_pattern() -> re.Pattern[str]:
    """The combined pattern for languages with decimal commas (compiled on first use)."""
    return _compile(_comma_patterns())


PATTERN_KINDS = frozenset(kind for kind, _ in _PATTERNS)
"""Kinds found by the patterns (every other kind is a name or a model's entity)."""
_TRAILING = ".,;:!?)]}'\""
_JSON_KEY = re.compile(r"[\"']\s{0,3}:")
_LIST_MARKER = re.compile(r"[ \t]*(?:[-*+]|\d{1,9}[.)])[ \t]+|[ \t]*#{1,6}[ \t]")
# Dotted "identifiers" that are ordinary abbreviations, not names in code.
_NOT_IDENTIFIER = frozenset({"e.g", "i.e", "etc", "vs", "a.m", "p.m", "u.s", "mr", "mrs", "dr"})


# A short text is scanned once per shape: its text with the digits 1-9 read as 1. No
# pattern and no check below tells 1 from 9 (only 0 is written in one: a phone's leading
# "0"), so a text's literals are at the spans of its shape's; a generated list ("- item 7
# value 21", 100,000 of them) or a run of similar messages costs a scan per shape and a
# slice per literal (``tests/test_literals.py`` checks the two agree).
_SHAPE_DIGITS = str.maketrans("23456789", "11111111")
SHAPE_MAX_CHARS = 200
"""Texts up to this long are scanned once per :func:`digit_shape`."""


def digit_shape(text: str) -> str:
    """``text`` with the digits 1-9 read as 1: what the patterns, and the names found by
    pattern, see of it (the spans of its literals are those of its shape's)."""
    return text.translate(_SHAPE_DIGITS)


def find_literals(text: str, language: str = "en") -> list[Literal]:
    """Pattern literals of ``text``, in order; list and heading markers are skipped. In a
    language of :data:`COMMA_LANGUAGES` a bare number may have a decimal comma."""
    comma = language in COMMA_LANGUAGES
    if len(text) > SHAPE_MAX_CHARS:
        return [Literal(text[s:e], kind, s, e) for kind, s, e in _scan(text, comma)]
    return [Literal(text[s:e], kind, s, e) for kind, s, e in _shape_spans(digit_shape(text), comma)]


@functools.lru_cache(maxsize=4096)
def _shape_spans(shape: str, comma: bool) -> tuple[tuple[str, int, int], ...]:
    return tuple(_scan(shape, comma))


def _scan(text: str, comma: bool) -> list[tuple[str, int, int]]:
    """``(kind, start, end)`` of each pattern literal of ``text``."""
    out: list[tuple[str, int, int]] = []
    skip = 0
    marker = _LIST_MARKER.match(text)
    if marker:
        skip = marker.end()
    combined = comma_pattern() if comma else combined_pattern()
    for m in combined.finditer(text, skip):
        kind = m.lastgroup or "number"
        start, end = m.span()
        if kind in ("url", "path"):
            while end > start and text[end - 1] in _TRAILING:
                end -= 1
        value = text[start:end]
        if kind == "identifier" and value.lower().rstrip(".") in _NOT_IDENTIFIER:
            continue
        if kind == "identifier" and value[0] in "nrt" and text[start - 1:start] == "\\" \
                and (start < 2 or text[start - 2] != "\\"):
            # "\nReservation": a JSON string's escaped line break and the word after it; an
            # id after the break ("\nXEHM4B") is still one
            start, value = start + 1, value[1:]
            if not (any(c.isdigit() for c in value) or sum(c.isupper() for c in value) > 1):
                continue
        if kind == "identifier" and _JSON_KEY.match(text, end) and text[start - 1:start] in "\"'":
            continue  # a JSON object key names a field: schema, not a value
        if kind == "identifier" and "." in value and value.replace(".", "").isalpha() \
                and all(len(p) <= 1 for p in value.split(".")):
            continue
        if end > start:
            out.append((kind, start, end))
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
    yeah yep yes yesterday yet you your yup whoa woah omg haha aww ooh phew gosh
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


# Words that start a chat's sentence again after a speaker's label or a comma: never a
# name there ("Maria: Yep John, Let's go" names John).
_RESTARTS = frozenset(
    "yep yeah yes yup nope no wow hey hi hello oh ah aw aww whoa woah omg haha ooh phew gosh well so okay ok "
    "thanks sorry lol hmm um cool nice great awesome congrats let let's".split()
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
                     ents: Iterable[tuple[int, int, str]] = (), language: str = "en") -> list[Literal]:
    """Names on tokens: runs of capitalised, non-stop-word tokens, then the entities
    ``(start, end, label)`` that no name or ``taken`` span covers.

    A capitalised word that opens its sentence is a name only if it is not a common
    sentence opener or stop word; after a list, heading or emphasis marker ("- Deploy
    the canary", "## Rollback") only if the text also capitalises it mid-sentence. A
    run starts with a stop word only mid-sentence and before another capitalised word
    ("One Way", "The Hague"). In another language than English (whose openers
    ``_COMMON_STARTERS`` lists) an opening word is a name only if the text also
    capitalises it mid-sentence. German capitalises every noun ("Der Preis", "Die
    Bestellung"): there a name is only the capitalised words after a title ("Herr
    Müller", "Frau Dr. Weber")."""
    if language == "de":
        return _title_names(toks, offset, taken) + _entities(toks.text, offset, taken, ents, ())
    english = language == "en"
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

    for i, (k, t, opener) in enumerate(capitals):
        capital = True
        if opener >= 0:
            if stops[k] or english and t.lower() in _COMMON_STARTERS:
                capital = False
            elif (opener < k or not english) and t not in mid_capitals:
                capital = False
        elif english and t.lower() in _RESTARTS and text[max(0, starts[k] - 3):starts[k]].rstrip()[-1:] in (",", ":"):
            capital = False  # a chat's sentence starting again after a comma or a label: "Maria: Yep John, Let's go"
        if capital and k == last + 1 and run_start >= 0:
            run_end = starts[k] + len(t)
            last = k
            continue
        flush()
        if capital and (not stops[k] or opener < 0 and i + 1 < len(capitals) and capitals[i + 1][0] == k + 1
                        and not stops[k + 1]):
            # (a capitalised stop word mid-sentence opens a run when a name follows it:
            # "Trip Type: One Way", "The Hague"; not "Way")
            run_start, run_end, last = starts[k], starts[k] + len(t), k
    flush()
    return out + _entities(text, offset, taken, ents, out)


def _entities(text: str, offset: int, taken: Iterable[tuple[int, int]], ents: Iterable[tuple[int, int, str]],
              names: list[Literal]) -> list[Literal]:
    """The entities that no name or ``taken`` span covers."""
    ents = list(ents)
    if not ents:
        return []
    free = Spans(taken).free
    spans = {(lit.start, lit.end) for lit in names}
    return [Literal(text[s:e], label, s - offset, e - offset) for s, e, label in ents
            if (s - offset, e - offset) not in spans and free(s, e)]


_TITLES = frozenset("Herr Herrn Frau Dr Dr. Prof Prof. Familie Fam.".split())


def _title_names(toks: DocTokens, offset: int, taken: Iterable[tuple[int, int]]) -> list[Literal]:
    """German names: a title and the capitalised words after it ("Herr Müller")."""
    free = Spans(taken).free
    text, starts, lengths = toks.text, toks.starts, toks.lengths
    out: list[Literal] = []
    n = len(starts)
    k = 0
    while k < n:
        if toks.token(k) in _TITLES:
            j = k + 1
            while j < n and (toks.token(j) in _TITLES or toks.token(j)[:1].isupper() and toks.token(j).isalpha()):
                j += 1
            if j > k + 1 and toks.token(j - 1) not in _TITLES:
                s, e = starts[k], starts[j - 1] + lengths[j - 1]
                if free(s, e):
                    out.append(Literal(text[s:e], "name", s - offset, e - offset))
            k = j
            continue
        k += 1
    return out


_CAPITAL_RUN = re.compile(r"\b[A-Z][a-z]{1,30}(?:[ \t][A-Z][a-z]{1,30}){0,4}\b")
# What a sentence's first word follows (a line's start, a comment's mark, a sentence's
# end) and a lower-case word or a year after it: "# Check if", "Copyright 2019".
_OPENS_LINE = re.compile(r"(?:^|[\n.!?]|#|//|/\*|--|\"\"\"|\'\'\')[ \t*#>\-]{0,12}$")
_LOWER_NEXT = re.compile(r"[ \t]{1,3}(?:[a-z]|\d{4}\b)")
_NOT_NAMES = frozenset(
    {"True", "False", "None", "Null", "Error", "Exception", "Traceback", "Warning", "File",
     "Line", "The", "This", "That", "These", "Those", "There", "Here", "And", "But", "For",
     "With", "From", "Yes", "No", "Not", "Note", "If", "In", "On", "At", "To", "Of", "It"}
)


_TITLE_RUN = re.compile(r"\b(?:Herrn?|Frau|Dr\.|Prof\.)(?:[ \t](?:Dr\.|Prof\.))?(?:[ \t][A-ZÄÖÜ][a-zäöüß]{1,30}){1,3}\b")


def find_names_by_pattern(text: str, taken: Iterable[tuple[int, int]] = (), language: str = "en") -> list[Literal]:
    """Names in text that is not prose (tool output, code, table cells): runs of
    capitalised words, minus a few words that code and logs capitalise (in German, only
    after a title, as on tokens)."""
    free = Spans(taken).free
    if language == "de":
        return [Literal(m.group(), "name", *m.span()) for m in _TITLE_RUN.finditer(text) if free(*m.span())]
    out = []
    for m in _CAPITAL_RUN.finditer(text):
        s, e = m.span()
        value = m.group()
        if value in _NOT_NAMES or value.split()[0] in _NOT_NAMES and " " not in value:
            continue
        if not free(s, e):
            continue
        if language == "en" and " " not in value and (
                value.lower() in _COMMON_STARTERS
                or _OPENS_LINE.search(text, max(0, s - 12), s) and _LOWER_NEXT.match(text, e)):
            continue  # "# Check if the ...", "Copyright 2019", "We need": a sentence's first word
        out.append(Literal(value, "name", s, e))
    return out


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

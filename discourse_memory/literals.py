"""Literals: the exact values a unit states.

Kinds: ``url``, ``email``, ``datetime``, ``date``, ``time``, ``phone``, ``amount``,
``percent``, ``quantity`` (a number with a unit a language pack counts in, a rating or a
number of days in Chinese, or a unit written against it: ``0.21s``, ``3.5GB``), ``version``,
``path``, ``identifier``, ``quoted``, ``number`` (found by the patterns below, leftmost
first, earlier kinds winning at a position; local formats of dates, times, amounts and
numbers included) and ``name`` (runs of capitalised words found on spaCy tokens, with
a statistical pipeline its entities too; in a language whose pack reads names, by that
reader: Chinese places and organisations by the words that end them,
:func:`discourse_memory.lang.zh.find_cjk_names`).

The shapes the language packs supply (currency words, count units, weekdays, dates and
times: :mod:`discourse_memory.lang`) join the patterns, in text of every language.

Every pattern is linear-time: no nested quantifiers, bounded repeats.
"""

from __future__ import annotations

import functools
import re
from bisect import bisect_left
from typing import Any, Iterable, NamedTuple

from . import lang
from .doc_tokens import DocTokens
from .lang import marks
from .limits import LIMITS

__all__ = ["COMMA_LANGUAGES", "PATTERN_KINDS", "Literal", "Spans", "digit_shape", "names_win", "find_literals",
           "find_names", "find_names_by_pattern", "find_token_names", "first_kinds", "patterns"]


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
    (a Chinese name holds the numbers and Latin words in it: a hotel chain's number and brand)."""
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
# still starts or ends (an order number or a price written against Han text), so the
# patterns' word boundaries
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
# Signs written before an amount (the yen's full-width form too), and the quote pairs of
# the unspaced scripts (corner brackets, title marks) beside the curly and guillemet ones.
_SIGNS = "$€£¥₹" + marks.YEN + "₽₩"
_PAIRED = "|".join(f"{o}[^{o}{c}\\n]{{1,120}}{c}" for o, c in marks.QUOTE_PAIRS)
# A number as the languages group it: 1 299,00 / 1.299,00 (space, no-break space or dot
# thousands, decimal comma), 12,800.50, or plain with either decimal mark.
_LOCAL_NUMBER = (r"(?:\d{1,3}(?:[.\u00a0\u202f ]\d{3}){1,6}(?:,\d{1,2})?(?!\d)"
                 r"|\d{1,3}(?:,\d{3}){1,6}(?:\.\d{1,2})?(?!\d)|\d{1,30}(?:[.,]\d{1,8})?)")
_COUNT_NUMBER = r"\d{1,12}(?:\.\d{1,4})?"
_DE_DAY = r"(?:Mo|Di|Mi|Do|Fr|Sa|So)\.?(?![A-Za-z])"
_HOUR = r"\d{1,2}(?::\d{2}|h\d{2})(?:\s?[AaPp]\.?[Mm]\.?)?|\d{1,2}\s?[AaPp]\.?[Mm]\.?(?![A-Za-z])"
# A number with a unit written against it, in code and tool output: a duration ("0.21s",
# "12ms"), a size ("3.5GB"), a factor ("2.5x"). Without it "12 passed in 0.21s" stated
# "0" and "21s".
_UNIT = r"(?:ms|µs|us|ns|s|min|h|[KMGTP]i?B|kB|KB|x|px|Hz|kHz|MHz|GHz|fps|rps|qps)"


# Lookaheads that every match of the alternative they open satisfies, so they change no
# match (``tests/test_literals.py`` compares the patterns with and without them): a path's
# ``(?:WL|-){1,64}`` and an id's lazy ``(?:WL|-){0,64}?\d`` are repeats the engine steps
# through a character at a time, tried at every word; ``[\w\-]{1,64}/`` is a run it
# counts at once, and a word with no slash (or dash) after it fails there. A number is
# tried as an amount with a currency after it (each way of reading its digits, each with
# a range or without) and as a count: a lookahead for the currency, or the unit, after the
# number fails a plain number once (``_build``).
_SLASH_AHEAD = r"(?=[\w\-]{1,64}/)"
_DASH_AHEAD = r"(?=[A-Za-z][A-Za-z0-9]{0,30}-)"


def _words(words: Iterable[str]) -> str:
    """Words as alternatives, the longest first (a word never loses to its own prefix);
    empty when there are none."""
    unique = list(dict.fromkeys(words))
    return "|".join(re.escape(w) for w in sorted(unique, key=len, reverse=True))


def _either(*alternatives: str) -> str:
    return "|".join(a for a in alternatives if a)


class _Shapes(NamedTuple):
    """The registered language packs' literal shapes, joined (see discourse_memory.lang)."""

    currency: str  # the currency words after an amount, with a multiplier before them
    amount_qualifier: str
    count_qualifier: str
    range_word: str
    count_unit: str
    weekday: str
    day_letters: str
    date: str
    time: str
    opener: str
    range_chars: str  # the characters of the range words
    range_width: int  # the longest range word's length


def _shapes() -> _Shapes:
    packs = lang.packs()

    def joined(field: str) -> str:
        return _either(*(p for pack in packs for p in getattr(pack, field)))

    def words(field: str) -> str:
        return _words(w for pack in packs for w in getattr(pack, field))

    currency = words("currency_after")
    multipliers = "".join(dict.fromkeys(c for pack in packs for c in pack.multipliers))
    if currency and multipliers:
        currency = f"[{re.escape(multipliers)}]?(?:{currency})"
    return _Shapes(currency, words("amount_qualifiers"), words("count_qualifiers"), words("range_words"),
                   words("count_units"), joined("weekdays"),
                   "".join(dict.fromkeys(c for pack in packs for c in pack.day_letters)),
                   joined("dates"), joined("times"), joined("openers"),
                   "".join(dict.fromkeys(c for pack in packs for w in pack.range_words for c in w)),
                   max((len(w) for pack in packs for w in pack.range_words), default=0))


def _build(s: _Shapes, guards: bool = True) -> tuple[list[tuple[str, str]], str]:
    """The literal patterns of each kind and the start of every literal (see below).
    ``guards``: with the lookaheads that only make alternatives fail sooner (see
    :data:`_SLASH_AHEAD`; without them the same matches, found slower: for the tests)."""

    def ahead(guard: str) -> str:
        return guard if guards else ""
    # Currencies written after the amount: signs, codes and words ("49,90 €", "12 500 ₽",
    # "30 Euro", "500 руб."), and the packs' words after a multiplier.
    currency_after = (
        r"(?:" + _either(s.currency, "[€₽¥" + marks.YEN + "₩₴₺]")
        + r"|(?:EUR|RUB|CNY|RMB|JPY|KRW|CHF|PLN|SEK|NOK|DKK|CZK|HUF|TRY|UAH|BRL|MXN|zł|Kč|Ft|kr|Fr\.|Euros?|euros?"
        r"|руб(?:\.|лей|ля|ль)?|р\.|грн|лв|pesos?|reais|francs?|Franken)" + _NA + r")"
        + (f"(?:{s.amount_qualifier})?" if s.amount_qualifier else "")
    )
    dashes = "-–~" + marks.TILDE
    rng = r"\s?(?:[" + dashes + "]" + (f"|{s.range_word}" if s.range_word else "") + r")\s?"
    dash_or_word = "(?:[" + dashes + marks.WAVE_DASH + "]" + (f"|{s.range_word}" if s.range_word else "") + ")"
    # Opening hours: days (one, a range or a list) with the times they hold, one value
    # ("Mon-Fri 09:00-17:00", "Mo-Fr 9:00-18:00 Uhr", a pack's weekdays): apart, "Mon"
    # and "Fri" were names and the times were of no day.
    day = (r"(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)(?:days?|sdays?|nesdays?|rsdays?|urdays?|s|rs)?\.?(?![A-Za-z])"
           + (f"|{s.weekday}" if s.weekday else "") + ")")
    day_mark = (r"\s?(?:[-–~" + marks.TILDE + marks.WAVE_DASH + marks.LIST_COMMA + ",/" + marks.MIDDLE_DOT + "]"
                + (f"|{s.range_word}" if s.range_word else "") + r"|to|through|bis)\s?")
    list_marks = marks.WAVE_DASH + "~" + marks.TILDE + r"\-–" + marks.MIDDLE_DOT + marks.LIST_COMMA
    letter = f"[{s.day_letters}]" if s.day_letters else ""
    # (German days of two letters only in a range or list, "Mo-Fr", "Sa, So": "So 9:30 works"
    # is English; a pack's day letters likewise, Japanese Monday to Friday)
    days = (r"(?:" + day + r"|" + _DE_DAY + r"(?=" + day_mark + _DE_DAY + r")"
            + (f"|{letter}(?=[{list_marks}])" if letter else "") + r")"
            r"(?:" + day_mark + r"(?:" + day + r"|" + _DE_DAY
            + (f"|{letter}(?![\\u3040-\\u30ff\\u3400-\\u9fff])" if letter else "") + r")){0,6}")
    hours = r"(?:" + _HOUR + r")(?:\s?" + dash_or_word + r"\s?(?:" + _HOUR + r"))?"
    schedule = (days + r"[ \t:" + marks.COLON + r"]{0,3}" + hours + r"(?:[ \t," + marks.COMMA + marks.LIST_COMMA
                + r"]{1,3}" + hours + r"){0,3}(?:\s?Uhr(?![A-Za-z]))?(?![\d:])")
    percent_sign = "[%" + marks.PERCENT + "]"
    count = ""
    if s.count_unit:
        unit = f"(?:{s.count_unit})"
        # (a number then a unit or a range: what any count has after its first number)
        count = (r"(?<![\d.,])" + ahead(r"(?=" + _COUNT_NUMBER + r"(?:" + unit + "|" + rng + r"))") + _COUNT_NUMBER
                 + r"(?:" + unit + r")?(?:" + rng + _COUNT_NUMBER + r")?" + unit
                 + (f"(?:{s.count_qualifier})?" if s.count_qualifier else "") + "|")
    # A grouped number, a range and a space are at most this many characters of these
    # (two numbers of :data:`_LOCAL_NUMBER`, 39 characters at most, and what joins them) before a
    # currency written after them: a number with none there is no such amount.
    amount_run = 2 * 39 + 3 + max(s.range_width, 1)
    amount_ahead = ahead(r"(?=\d[\d.,\u00a0\u202f\s" + re.escape(dashes) + re.escape(s.range_chars) + "]{0,%d}"
                         % amount_run + currency_after + ")")
    patterns: list[tuple[str, str]] = [
        ("url", r"(?:https?|ftp|file)://[^\s<>\"'`" + _CJK + r"\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]{1,2000}"
                r"|www\.[A-Za-z0-9\-]{1,63}\.[^\s<>\"'`" + _CJK + r"\u3000-\u303f\uff01-\uff0f\uff1a-\uff20]{1,2000}"),
        ("email", r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]{1,64}@[A-Za-z0-9\-]{1,63}(?:\.[A-Za-z0-9\-]{1,63}){1,8}"),
        ("datetime", r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+\-]\d{2}:?\d{2})?"),
        ("date", r"\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}|\d{1,2}\.\d{1,2}\.\d{4}"
                 r"|\d{1,2}(?:st|nd|rd|th)?\s" + _MONTH + r"\.?,?(?:\s\d{4})?"
                 r"|" + _MONTH + r"\.?\s\d{1,2}(?:st|nd|rd|th)?(?:,?\s\d{4})?(?!\d)"
                 r"|" + _MONTH + r"\s\d{4}"
                 + (f"|{s.date}" if s.date else "") +
                 r"|\d{1,2}-\d{1,2}-\d{4}(?!\d)"
                 r"|\d{1,2}\.\s?(?i:" + _MONTHS_DE + r")" + _NA + r"(?:\s\d{4}(?!\d))?"
                 r"|\d{1,2}(?:er)?\s(?i:" + _MONTHS_FR + r"|" + _MONTHS_IT_NL + r")" + _NA + r"(?:\s\d{4}(?!\d))?"
                 r"|\d{1,2}\sde\s(?i:" + _MONTHS_ES_PT + r")" + _NA + r"(?:\sde(?:l)?\s\d{4}(?!\d))?"
                 r"|\d{1,2}\s(?i:" + _MONTHS_RU + r")" + _NA + r"(?:\s\d{4}(?!\d)(?:\s?г\.|\s?года)?)?"),
        ("time", schedule + r"|\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?"
                 r"(?:" + rng + r"\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp]\.?[Mm]\.?)?)?(?:\s?Uhr" + _NA
                 + r"|\s?[A-Z]{3})?(?![\d:])"
                 r"|\d{1,2}\s?[AaPp]\.?[Mm]" + _BE + r"\.?"
                 r"|\d{1,2}h\d{2}(?!\d)|\d{1,2}(?:[:.]\d{2})?\s?Uhr" + _NA
                 + (f"|{s.time}" if s.time else "")),
        ("phone", r"(?<![\w.])\+\d{1,3}(?:[ .\-]?\(\d{1,4}\))?(?=(?:[ .\-]\d{1,8}){0,4}[ .\-]\d{3})(?:[ .\-]\d{1,8}){2,5}(?!\d)"
                  r"|(?<![\w.])\+\d{1,3}(?:[ .]\d{1,2}){4,6}(?!\d)(?!\.\d)"  # +33 1 42 68 53 00
                  r"|(?<![\w.])\+\d{8,15}(?!\d)"
                  r"|(?<![\w.+\-])\d{1,2} ?\(\d{3,5}\) ?\d{2,4}(?:[ \-]\d{2,4}){1,3}(?!\d)"  # 8 (495) 234-56-78
                  r"|(?<![\d.,\-+/:])0\d{1,4}(?:[\-/ ]\d{6,8}|[ \-/]\d{3,4}[ \-]\d{3,4}|(?: \d{2}){4})(?![\d\-])"
                  r"|\(\d{2,5}\)[ \-]?\d{3,4}[ \-]?\d{3,4}(?!\d)"
                  r"|(?<![\d\-])\d{3}-\d{3}-\d{4}(?![\d\-])"),
        ("amount", r"[" + _SIGNS + r"]\s?\d{1,3}(?:\.\d{3}){1,6},\d{1,2}(?!\d)"
                   r"|[" + _SIGNS + r"]\s?\d(?:,?\d){0,30}(?:\.\d{1,8})?(?:\s?(?:[kKmMbB]n?|million|billion)" + _BE + r")?"
                   r"|(?<![\d,.])\d(?:,?\d){0,30}(?:\.\d{1,8})?\s?(?:USD|EUR|GBP|JPY|CHF|CAD|AUD|dollars?|euros?|pounds?)"
                   + _BE + r"|(?<![\d,.])" + amount_ahead + _LOCAL_NUMBER + r"(?:" + rng + _LOCAL_NUMBER + r")?\s?"
                   + currency_after),
        ("percent", r"(?<![\d.])[+\-]?\d{1,15}(?:\.\d{1,8})?\s?" + percent_sign),
        ("quantity", count + _NW + r"(?<![.,])\d{1,12}(?:\.\d{1,12})?" + _UNIT + _NA),
        ("version", _BS + r"v\d{1,6}(?:\.\d{1,6}){0,4}(?:[\-+][A-Za-z0-9.]{1,20})?" + _B +
                    r"|" + _BS + r"\d{1,6}\.\d{1,6}\.\d{1,6}(?:\.\d{1,6})?(?:[\-+][A-Za-z0-9.]{1,20})?" + _B),
        ("path", r"(?:~|\.{1,2})?(?:/[\w.\-@+]{1,255}){2,64}/?"
                 r"|" + _NW + r"(?<!-)" + ahead(_SLASH_AHEAD) + r"(?:" + _WL + r"|-){1,64}(?:/[\w.\-]{1,255}){1,64}\.[A-Za-z0-9]{1,10}"
                 + _BE +
                 r"|" + _BS + r"[A-Za-z]:\\[\w.\-\\ ]{1,255}"),
        ("identifier", _BS + r"[A-Z][A-Z0-9]{1,15}-\d{1,12}(?:-[A-Za-z0-9]{1,12}){0,4}" + _BE +
                       r"|" + _NW + r"(?<!-)" + ahead(_DASH_AHEAD) + r"(?=(?:" + _WL + r"|-){0,64}?\d)"
                       r"[A-Za-z][A-Za-z0-9]{0,30}(?:-[A-Za-z0-9]{1,30}){1,6}" + _BE +
                       r"|" + _NW + r"(?<!\.)[A-Za-z_][A-Za-z0-9]{0,63}(?:[_.][A-Za-z0-9]{1,63}){1,16}(?:__(?![A-Za-z0-9]))?(?:\(\))?"
                       r"|" + _BS + r"[a-z][a-z0-9]{0,63}(?:[A-Z][a-z0-9]{0,63}){1,16}" + _BE +
                       r"|" + _BS + r"[A-Z][a-z0-9]{1,63}(?:[A-Z][a-z0-9]{0,63}){1,16}" + _BE +
                       r"|" + _BS + r"(?=[A-Za-z]{0,63}\d)(?=\d{0,63}[A-Za-z])[A-Za-z0-9]{2,64}" + _BE +
                       r"|" + _BS + r"[A-Z]{2,10}" + _BE),
        ("quoted", r"(?<![\w\"])\"(?=[^\"\n]{0,119}\s)(?=\S)[^\"\n]{1,120}(?<=\S)\"(?!\w)"
                   r"|“[^“”\n]{1,120}”|`(?=[^`\n]{0,119}\s)(?=[^`\s])[^`\n]{1,120}(?<=\S)`"
                   r"|(?<![\w'])'(?=[^'\n]{0,119}\s)(?=\S)[^'\n]{1,120}(?<=\S)'(?!\w)"
                   r"|" + _PAIRED + r"|«[^«»\n]{1,120}»|„[^„“”\n]{1,120}[“”]"),
        ("number", _NW + r"(?<!\.)[+\-]?\d{1,3}(?:,\d{3}){1,6}(?:\.\d{1,12})?(?![\d,])"
                   r"|" + _NW + r"(?<!\.)[+\-]?\d{1,3}(?:_\d{3}){1,6}" + _NA +
                   r"|" + _NW + r"(?<!\.)[+\-]?\d{1,40}(?:\.\d{1,40})?" + _NA),
    ]
    # Inside a run of letters of an unspaced script only a literal a pack says opens with
    # one (a time, a weekday: "3 in the afternoon" written with its word first; a list of
    # day letters) can start.
    openers = _either(s.opener, f"{letter}[{list_marks}]{letter}" if letter else "")
    start = (r"(?:(?<![A-Za-z0-9_])(?=\w)(?:" + (f"(?=(?:{openers}))|" if openers else "") + r"(?![" + _CJK + r"])"
             r"(?!(?!(?:https?|ftp|file)://)[a-z]{1,64}" + _PLAIN_END + ")"
             r"(?!(?!Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec|Mon|Tue|Wed|Thu|Fri|Sat|Sun|Mo|Di|Mi|Do|Fr|Sa|So)"
             r"[A-Z][a-z]{1,63}" + _PLAIN_END + "))"
             r"|(?=[" + _SIGNS + r"/~“\"'`+\-.(" + "".join(o for o, _ in marks.QUOTE_PAIRS) + r"«„])"
             r"(?:(?=[" + _SIGNS + r"]\s?\d)|(?=~?/[\w.\-@+]{1,255}/[\w.\-@+])"
             r"|(?=“[^“”\n]{1,120}”|" + _PAIRED + r"|«[^«»\n]{1,120}»"
             r"|„[^„“”\n]{1,120}[“”])"
             r"|(?=\")(?<![\w\"])|(?=')(?<![\w'])|(?=`[^`\s])"
             r"|(?=[+\-]\d)|(?=[.+\-][A-Za-z0-9._%+\-]{0,63}@)(?<![A-Za-z0-9._%+\-])|(?=-[\w\-]{0,63}/)" + _NW + r"(?<!-)"
             r"|(?=\.\.?/)|(?=\(\d)))")
    return patterns, start


# Languages that write a decimal comma (German, French, Spanish, Russian, ...): there a
# bare "49,90" or "3,5 %" is one number, "1.299,00" and "12 500" are grouped ones.
_COMMA_NUMBER = (r"(?:" + _NW + r"(?<![.,])[+\-]?\d{1,3}(?:[.\u00a0\u202f ]\d{3}){1,6}(?:,\d{1,12})?(?![\d.,])"
                 r"|" + _NW + r"(?<![.,])[+\-]?\d{1,40},\d{1,12}(?![\d,])|")
_COMMA_PERCENT = r"(?<![\d.,])[+\-]?\d{1,15}(?:[.,]\d{1,8})?\s?[%" + marks.PERCENT + "]"
COMMA_LANGUAGES = frozenset("de fr es it pt nl ru uk sv da nb fi pl cs sk sl hr ro hu tr ca".split())
"""Languages whose numbers read with a decimal comma (:func:`find_literals` ``language``)."""


def patterns() -> list[tuple[str, str]]:
    """The literal patterns of each kind, with the registered packs' shapes."""
    return _built(lang.generation())[0]


def _comma_patterns(built: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """The patterns (``built``, or :func:`patterns`) for languages with decimal commas."""
    out = []
    for kind, pattern in patterns() if built is None else built:
        if kind == "number":
            pattern = _COMMA_NUMBER + pattern + ")"
        elif kind == "percent":
            pattern = _COMMA_PERCENT
        out.append((kind, pattern))
    return out


@functools.lru_cache(maxsize=2)
def _built(_generation: int) -> tuple[list[tuple[str, str]], str]:
    return _build(_shapes())


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
# ``../``, a parenthesis before a digit (a phone's area code). Inside a run of letters of
# an unspaced script only a pack's openers can start. So most prose words and marks are
# skipped at once (``tests/test_literals.py`` checks that the skip changes no match).
_END_MARK = r"""[\s,;!?)\]}"'’`*=<>&#|(\[{]"""
_PLAIN_END = r"(?:" + _END_MARK + r"|:(?!\\)|\.(?=" + _END_MARK + r"|$)|$)"


def _compile(patterns: list[tuple[str, str]], start: str) -> re.Pattern[str]:
    return re.compile(start + "(?:" + "|".join(f"(?P<{kind}>{pattern})" for kind, pattern in patterns) + ")")


def combined_pattern() -> re.Pattern[str]:
    """The combined literal pattern: compiled on first use, as compiling it is a sixth of a
    second of a fresh process's start-up (a conversation that fits needs none), and again
    after a language pack is registered."""
    generation = lang.generation()
    if _COMPILED[0] != generation:  # (one comparison per text: read for every piece)
        built, start = _built(generation)
        _COMPILED[:] = [generation, _compile(built, start), None]
    return _COMPILED[1]


def comma_pattern() -> re.Pattern[str]:
    """The combined pattern for languages with decimal commas (compiled on first use)."""
    combined_pattern()
    if _COMPILED[2] is None:
        _COMPILED[2] = _compile(_comma_patterns(), _built(_COMPILED[0])[1])
    return _COMPILED[2]


_COMPILED: list[Any] = [-1, None, None]  # the generation of the packs, and its two patterns


PATTERN_KINDS = frozenset(("url", "email", "datetime", "date", "time", "phone", "amount", "percent", "quantity",
                           "version", "path", "identifier", "quoted", "number"))
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


def digit_shape(text: str) -> str:
    """``text`` with the digits 1-9 read as 1: what the patterns, and the names found by
    pattern, see of it (the spans of its literals are those of its shape's)."""
    return text.translate(_SHAPE_DIGITS)


def find_literals(text: str, language: str = "en") -> list[Literal]:
    """Pattern literals of ``text``, in order; list and heading markers are skipped. In a
    language of :data:`COMMA_LANGUAGES` a bare number may have a decimal comma."""
    comma = language in COMMA_LANGUAGES
    generation = lang.generation()
    if len(text) > LIMITS.shape_chars or not _shape_blind(generation):
        return [Literal(text[s:e], kind, s, e) for kind, s, e in _scan(text, comma)]
    return [Literal(text[s:e], kind, s, e) for kind, s, e in _shape_spans(digit_shape(text), comma, generation)]


@functools.lru_cache(maxsize=4096)
def _shape_spans(shape: str, comma: bool, _generation: int) -> tuple[tuple[str, int, int], ...]:
    # (keyed by the packs' generation: a pack registered later changes what a shape holds)
    return tuple(_scan(shape, comma))


@functools.lru_cache(maxsize=2)
def _shape_blind(generation: int) -> bool:
    """Whether the patterns of the packs of ``generation`` cannot tell a digit 1-9 from
    another (none is written in them outside a repeat count, an escape or a range), so a
    text's literals stand where its shape's do. A user's pack that writes one ("20[12]\\d")
    turns the shape path off."""
    built, start = _built(generation)
    source = start + "".join(p for _, p in built) + _COMMA_NUMBER + _COMMA_PERCENT
    source = re.sub(r"\{\d+(?:,\d*)?\}|\\[xX][0-9a-fA-F]{2}|\\u[0-9a-fA-F]{4}|\\U[0-9a-fA-F]{8}|[0-9]-[0-9]", "", source)
    return re.search(r"[1-9]", source) is None


def _scan(text: str, comma: bool) -> list[tuple[str, int, int]]:
    """``(kind, start, end)`` of each pattern literal of ``text``."""
    out: list[tuple[str, int, int]] = []
    skip = 0
    marker = _LIST_MARKER.match(text)
    if marker:
        skip = marker.end()
    combined = comma_pattern() if comma else combined_pattern()
    append = out.append
    for m in combined.finditer(text, skip):
        kind = m.lastgroup or "number"
        start, end = m.span()
        if kind == "identifier":  # (most literals are of other kinds: one comparison for them)
            value = text[start:end]
            if value.lower().rstrip(".") in _NOT_IDENTIFIER:
                continue
            if value[0] in "nrt" and text[start - 1:start] == "\\" and (start < 2 or text[start - 2] != "\\"):
                # "\nReservation": a JSON string's escaped line break and the word after it; an
                # id after the break ("\nXEHM4B") is still one
                start, value = start + 1, value[1:]
                if not (any(c.isdigit() for c in value) or sum(c.isupper() for c in value) > 1):
                    continue
            if _JSON_KEY.match(text, end) and text[start - 1:start] in "\"'":
                continue  # a JSON object key names a field: schema, not a value
            if "." in value and value.replace(".", "").isalpha() and all(len(p) <= 1 for p in value.split(".")):
                continue
        elif kind == "url" or kind == "path":
            while end > start and text[end - 1] in _TRAILING:
                end -= 1
        if end > start:
            append((kind, start, end))
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

"""Language packs: the registry, the built-in packs on sentences written for these tests,
the generic rules for a language without a pack, and a core that holds no CJK text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from discourse_memory import lang
from discourse_memory.focus import asked_kinds
from discourse_memory.labels import date_prefix, speaker_label
from discourse_memory.lang import GENERIC, LanguagePack, register
from discourse_memory.literals import find_literals
from discourse_memory.replies import asks
from discourse_memory.segment import han_words

CORE = Path(lang.__file__).resolve().parents[1]
# Han (and its extension A and compatibility forms), kana, Hangul (syllables and jamo),
# CJK punctuation and the full-width and half-width forms.
_CJK = re.compile(r"[\u1100-\u11ff\u3000-\u303f\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf"
                  r"\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef]")


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch):
    """A registry the test may change: restored after it (patterns are cached per
    generation, and a generation is never reused)."""
    lang.packs()
    monkeypatch.setattr(lang._REGISTRY, "_entries", dict(lang._REGISTRY._entries))
    monkeypatch.setattr(lang._REGISTRY, "_generation", lang.generation())
    return lang


def kinds(text: str) -> list[tuple[str, str]]:
    return [(lit.text, lit.kind) for lit in find_literals(text)]


def test_no_core_module_outside_lang_holds_a_cjk_character():
    found = []
    for path in sorted(CORE.rglob("*.py")):
        if path.relative_to(CORE).parts[0] == "lang":
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _CJK.search(line):
                found.append(f"{path.relative_to(CORE)}:{number}: {line.strip()[:80]}")
    assert not found, "CJK text belongs in discourse_memory/lang/:\n" + "\n".join(found)


def test_the_walk_sees_every_core_module():
    # (the check above must read the core, not an empty directory)
    names = {p.name for p in CORE.rglob("*.py")}
    assert {"literals.py", "segment.py", "replies.py", "focus.py"} <= names


def test_the_built_in_packs_are_registered_by_code():
    assert {"zh", "ja", "ko"} <= set(lang.available())
    assert lang.pack("zh").code == "zh" and lang.pack("zh-CN") is lang.pack("zh") and lang.pack("ZH_tw").code == "zh"
    assert lang.pack("th") is GENERIC and lang.pack("en") is GENERIC


def test_a_pack_is_checked_when_made_and_registered():
    with pytest.raises(ValueError, match="lower-case language code"):
        LanguagePack(code="ZH")
    with pytest.raises(ValueError):
        LanguagePack(code="")
    with pytest.raises(TypeError, match="LanguagePack"):
        register({"code": "th"})  # type: ignore[arg-type]


def test_a_users_pack_is_read_in_every_text_once_registered(registry):
    text = "The room is 1,500 บาท for 3 คืน."
    assert ("1,500 บาท", "amount") not in kinds(text)
    before = registry.generation()
    register(LanguagePack(code="th", currency_after=("บาท",), count_units=("คืน",)))
    assert registry.generation() != before and registry.pack("th").code == "th"
    found = kinds(text)
    assert ("1,500 บาท", "amount") in found
    assert ("3 คืน", "quantity") not in found  # a count unit is written against its number
    assert ("3คืน", "quantity") in kinds("for 3คืน")


def test_replacing_a_built_in_pack_leaves_the_generic_rules(registry):
    text = "房价是880元左右，住3晚。"
    assert ("880元左右", "amount") in kinds(text) and ("3晚", "quantity") in kinds(text)
    register(LanguagePack(code="zh"))  # a pack that supplies nothing
    found = kinds(text)
    assert ("880", "number") in found and ("3", "number") in found
    assert lang.find_names("我们住在长城饭店。", "zh") == []
    assert han_words("门票价格") == {"门票", "票价", "价格"}  # no function characters: every pair


def test_a_language_without_a_pack_gets_the_generic_rules():
    assert lang.find_names("Somchai stayed at the river hotel.", "th") == []
    assert kinds("Call +66 2 123 4567 before 9:30 on 2025-04-12.") == [
        ("+66 2 123 4567", "phone"), ("9:30", "time"), ("2025-04-12", "date")]


# The Chinese pack, on sentences written for these tests.

@pytest.mark.parametrize("text, expected", [
    ("房价是880元左右，住3晚。", [("880元左右", "amount"), ("3晚", "quantity")]),
    ("一共12万元以上", [("12万元以上", "amount")]),
    ("营业时间：周一至周五 09:00-18:00", [("周一至周五 09:00-18:00", "time")]),
    ("我们2025年4月12日下午3点半见", [("2025年4月12日", "date"), ("下午3点半", "time")]),
    ("评分4.5分，距离2公里", [("4.5分", "quantity"), ("2公里", "quantity")]),
    ("书名是《山中小记》", [("《山中小记》", "quoted")]),
    ("折扣15％", [("15％", "percent")]),
    ("价格￥300", [("￥300", "amount")]),
])
def test_chinese_shapes(text, expected):
    assert kinds(text) == expected


def test_chinese_names_by_the_words_that_end_them():
    found = [n.text for n in lang.find_names("我推荐你去青竹山庄，或者住在星河国际酒店(东门店)。", "zh")]
    assert found == ["青竹山庄", "星河国际酒店(东门店)"]
    assert lang.find_names("这家酒店不错。", "zh") == []  # an end word alone is a kind, not a name


def test_chinese_question_and_request_words():
    assert asked_kinds("请问电话是多少？") == ("amount", "number", "percent", "phone", "quantity")
    assert asked_kinds("电话是多少") == ()  # no question mark: no question
    assert asks("麻烦把地址告诉我一下。", requests=True) and not asks("地址在东门。", requests=True)


def test_chinese_content_words_leave_out_function_characters_and_courtesy():
    assert han_words("谢谢你，门票价格呢") == {"门票", "票价", "价格"}


# The Japanese and Korean packs.

@pytest.mark.parametrize("text, expected", [
    ("料金は1,200円です", [("1,200円", "amount")]),
    ("3万円", [("3万円", "amount")]),
    ("営業は月〜金 10:00-19:00です", [("月〜金 10:00-19:00", "time")]),
    ("午後3時半に会いましょう", [("午後3時半", "time")]),
    ("2泊します", [("2泊", "quantity")]),
    ("価格は5,000원", [("5,000원", "amount")]),
])
def test_japanese_and_korean_shapes(text, expected):
    assert kinds(text) == expected


def test_japanese_question_words_and_names():
    assert asked_kinds("何時に開きますか？") == ("date", "datetime", "time")
    assert asks("駅までの道を教えてください", requests=True)
    assert [n.text for n in lang.find_names("明日は青葉大学に行きます", "ja")] == ["青葉大学"]


# Date lines in brackets: a general rule (any date or time the literal patterns read).

@pytest.mark.parametrize("text, speaker", [
    ("[1:10 pm on 27 March, 2023] Audrey: Hi!", "Audrey"),
    ("[2025-04-12 14:00] Tomas: the build is green", "Tomas"),
    ("[9:05] Lena: morning", "Lena"),
    ("[3pm on 5 May] Ravi: ok", "Ravi"),
])
def test_a_bracketed_date_line_opens_a_turn(text, speaker):
    assert date_prefix(text) == text.index(speaker)
    assert speaker_label(text) == speaker


@pytest.mark.parametrize("text", [
    "[May I ask 3 things] about it",  # a month's name, no date
    "[1/2] Running the tests",  # a step, not a date
    "[see PR 1234-56] for details",
    "[1:10 pm on 27 March, 2023]",  # a date line alone: no turn after it
])
def test_brackets_without_a_date_line_open_no_turn(text):
    assert date_prefix(text) == -1


def test_a_pack_that_writes_a_digit_is_read_on_the_text_not_its_shape(registry):
    # A short text is scanned once per digit shape (1-9 read as 1): right only while no
    # pattern tells one digit from another. A pack that writes one turns that off.
    assert [(x.text, x.kind) for x in find_literals("in the year B.E. 1567 then")] == [("1567", "number")]
    register(LanguagePack(code="th", dates=(r"B\.E\. 25\d\d",)))
    assert [(x.text, x.kind) for x in find_literals("in the year B.E. 2567 then")] == [("B.E. 2567", "date")]
    assert [(x.text, x.kind) for x in find_literals("in the year B.E. 1567 then")] == [("1567", "number")]

"""The Japanese pack: yen, counters, weekdays, times and question words.

Japanese names are read with the Chinese pack's reader (:func:`.zh.find_cjk_names`: a
kanji place name ends in the same words, ``寺``, ``公園``, ``大学``) until a reader of its
own is written; dates in ``年月日`` are the Chinese pack's shapes, read in every text.
"""

from __future__ import annotations

from . import LanguagePack
from .zh import find_cjk_names

__all__ = ["PACK"]

PACK = LanguagePack(
    code="ja",
    currency_after=("円",),
    multipliers="万億千",
    count_units=("分間", "時間", "日間", "歳", "件", "本", "枚", "台", "泊", "層"),
    weekdays=(r"[月火水木金土日]曜日?",),
    day_letters="月火水木金土日",  # "月〜金 10:00-19:00": Monday to Friday
    times=(r"(?:午[前後]|夜)?\d{1,2}時(?:\d{1,2}分|半)?",),
    openers=(r"(?:午[前後]|夜)\d", r"[月火水木金土日]曜"),
    question_words=(
        ("count", ("いくつ", "いくら", "何人", "何日", "何回", "何時間")),
        ("when", ("いつ", "何時", "何月")),
        ("phone", ("電話",)),
        ("email", ("メール",)),
        ("amount", ("値段", "料金")),
        ("version", ("バージョン",)),
    ),
    requests=("教えて", "調べて", "知りたい"),
    find_names=find_cjk_names,
)

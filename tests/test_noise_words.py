"""The lower-case word pattern of record/noise.py finds what its first form found (issue 49:
it was reordered for a fresh worker's first view, which reads every message with it)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from discourse_memory.record.noise import _LOWER_WORD

# The form before: the look-behind first.
_BEFORE = re.compile(r"(?<![\w\-.@/])[a-z][a-z'’]+(?![\w\-@/]|\.\w)")

_CHARS = st.sampled_from(list("abz'’-.@/_ 9\nAZé\t:,") + ["don't", "we'll", "a.b", "chen_lee_6825"])


@settings(max_examples=400, deadline=None)
@given(st.lists(_CHARS, max_size=40).map("".join))
def test_the_same_words_as_the_look_behind_first(text: str) -> None:
    assert _LOWER_WORD.findall(text) == _BEFORE.findall(text)


def test_the_cases_it_turns_on() -> None:
    text = "ab don't we'll x.y.z foo.bar baz. qux's _ab 9ab ab-cd a@bc /ab ’ab a’b’ 'ab chen_lee_6825 zz"
    assert _LOWER_WORD.findall(text) == _BEFORE.findall(text)
    assert _LOWER_WORD.findall(text) == ["ab", "don't", "we'll", "baz", "qux's", "ab", "a’b’", "ab", "zz"]

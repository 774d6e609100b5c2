"""The pieces of reading a row entry (``fit/shared_rows.py``) made cheaper for a fresh worker's
first view (issue 49), each held equal to what it replaced; the entries' round trips and
refusals are tests/test_analysis_cache.py's."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from discourse_memory.fit import shared_rows
from discourse_memory.record import NAMED_NUMBER

# Texts near a named number and not: capitalised words, digits, spaces, NULs (an entry's
# strings may hold one), a line break.
_WORDS = st.sampled_from(["Gift", "Card", "Order", "Room", "A", "Ab", "abc", "Service", "Xyzzy", "", " ", "  ",
                          "12", "7", "0" * 41, "\0", "\n", "Order 5", "Card 12\0", "\0Order 7", "é", "٣"])
_TEXTS = st.one_of(st.lists(_WORDS, max_size=6).map(" ".join), st.lists(_WORDS, max_size=6).map("".join),
                   st.text(alphabet="AOGabcdr 0123\0", max_size=14))


@given(st.lists(_TEXTS, max_size=30))
def test_named_numbers_found_at_once_are_those_of_each_text(texts: list[str]) -> None:
    want = [NAMED_NUMBER.fullmatch(t) is not None for t in texts]
    assert shared_rows._named(texts).tolist() == want


def test_named_numbers_found_at_once_include_the_hard_cases() -> None:
    texts = ["Gift Card 12", "Order 5\0Order 6", "Order 5", "Ord\0er 5", "", "Order 7\0", "\0Order 7",
             "Room Service Bill 99", "a Order 5", "Order 5 ", "Order " + "1" * 40, "Order " + "1" * 41,
             "x\0Order 5", "abcdefg"]  # (a match within the one, as long as the other: not the other's)
    got = shared_rows._named(texts).tolist()
    assert got == [NAMED_NUMBER.fullmatch(t) is not None for t in texts]
    assert got == [True, False, True, False, False, False, False, True, False, False, True, False, False, False]
    assert shared_rows._named([]).tolist() == []

"""The ranking's place-within-a-group (``fit.gains._rank_within``) against the plain
definition it replaced: a ``lexsort`` by group, then score high to low, ties in order. The
fast path sorts a message's units as the rows of a padded matrix; these cases cover the
runs of every width, ties, signed zeros, infinities and NaN (which take the plain path)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from discourse_memory.fit.gains import _rank_within


def _reference(group: np.ndarray, score: np.ndarray) -> np.ndarray:
    rank = np.zeros(len(group))
    if not len(group):
        return rank
    order = np.lexsort((-score, group))
    starts = np.flatnonzero(np.r_[True, group[order][1:] != group[order][:-1]])
    rank[order] = np.arange(len(group)) - np.repeat(starts, np.diff(np.r_[starts, len(group)]))
    return rank


_SCORES = st.one_of(st.sampled_from([0.0, -0.0, 1.0, 2.0, 0.5, np.inf, -np.inf]),
                    st.floats(min_value=-10, max_value=10, allow_nan=False))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 12), _SCORES), max_size=120), st.booleans(), st.booleans())
def test_places_match_a_lexsort(pairs: list[tuple[int, float]], in_order: bool, with_nan: bool) -> None:
    if in_order:
        pairs = sorted(pairs, key=lambda p: p[0])  # (the units of messages in order: the fast path)
    group = np.array([g for g, _ in pairs], dtype=np.int64)
    score = np.array([s for _, s in pairs], dtype=np.float64)
    if with_nan and len(score):
        score[len(score) // 2] = np.nan
    assert np.array_equal(_rank_within(group, score), _reference(group, score))


def test_runs_of_every_width_and_ties() -> None:
    rng = np.random.default_rng(7)
    lengths = [1, 2, 3, 4, 5, 8, 9, 16, 17, 33, 100, 1000]
    group = np.repeat(np.arange(len(lengths)), lengths)
    for score in (rng.random(len(group)), rng.integers(0, 3, len(group)).astype(np.float64),
                  np.zeros(len(group))):
        assert np.array_equal(_rank_within(group, score), _reference(group, score))
    # the places within a run of five, ties in order
    got = _rank_within(np.zeros(5, dtype=np.int64), np.array([1.0, 3.0, 1.0, 3.0, 2.0]))
    assert got.tolist() == [3.0, 0.0, 4.0, 1.0, 2.0]

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
    for first in (0, 250, 65_524, 65_530, 70_000):  # (up to 65,535: 16-bit; past it: sorted as 64-bit)
        group = np.repeat(np.arange(len(lengths)), lengths) + first
        for score in (rng.random(len(group)), rng.integers(0, 3, len(group)).astype(np.float64),
                      np.zeros(len(group))):
            assert np.array_equal(_rank_within(group, score), _reference(group, score))
    # the places within a run of five, ties in order
    got = _rank_within(np.zeros(5, dtype=np.int64), np.array([1.0, 3.0, 1.0, 3.0, 2.0]))
    assert got.tolist() == [3.0, 0.0, 4.0, 1.0, 2.0]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), _SCORES), max_size=120), st.booleans(), st.booleans(),
       st.sampled_from([1, 2, 3.5, 4, 48.0]))
def test_only_larger_groups_ranked(pairs: list[tuple[int, float]], in_order: bool, with_nan: bool,
                                   more_than: float) -> None:
    """``more_than``: a group of more elements is ranked as in full, any other is 0; so the
    record's ``max(k - K, 0)`` (candidates: record_per_message) is the same with it."""
    if in_order:
        pairs = sorted(pairs, key=lambda p: p[0])
    group = np.array([g for g, _ in pairs], dtype=np.int64)
    score = np.array([s for _, s in pairs], dtype=np.float64)
    if with_nan and len(score):
        score[len(score) // 2] = np.nan
    full = _reference(group, score)
    got = _rank_within(group, score, more_than)
    large = np.bincount(group, minlength=7)[group] > more_than if len(group) else np.zeros(0, dtype=bool)
    assert np.array_equal(got[large], full[large])
    assert not got[~large].any()
    assert np.array_equal(np.maximum(got - more_than, 0.0), np.maximum(full - more_than, 0.0))


def _two_distinct_reference(groups: np.ndarray, values: np.ndarray, n_groups: int) -> np.ndarray:
    if not len(groups):
        return np.zeros(n_groups, dtype=bool)
    span = int(values.max()) + 1
    pairs = np.unique(groups.astype(np.int64) * span + values)
    return np.bincount(pairs // span, minlength=n_groups) >= 2


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 9), st.integers(0, 5)), max_size=60), st.booleans())
def test_two_distinct_ids_per_list(pairs: list[tuple[int, int]], in_order: bool) -> None:
    """``signals._two_distinct`` (the lists with two ids passed to calls since: pending ids)
    reads each run's least and greatest value; the same as counting distinct pairs."""
    from discourse_memory.fit.signals import _two_distinct

    if in_order:
        pairs = sorted(pairs, key=lambda p: p[0])
    groups = np.array([g for g, _ in pairs], dtype=np.int64)
    values = np.array([v for _, v in pairs], dtype=np.int64)
    assert np.array_equal(_two_distinct(groups, values, 10), _two_distinct_reference(groups, values, 10))


def test_two_distinct_cases() -> None:
    from discourse_memory.fit.signals import _two_distinct

    groups, values = np.array([0, 0, 1, 1, 3]), np.array([3, 4, 2, 2, 5])
    assert _two_distinct(groups, values, 4).tolist() == [True, False, False, False]
    assert _two_distinct(groups[::-1], values[::-1], 4).tolist() == [True, False, False, False]


def _places_reference(rel: np.ndarray) -> np.ndarray:
    rank = np.zeros(len(rel))
    matched = np.flatnonzero(rel > 0)
    if len(matched) + int(np.count_nonzero(rel == 0)) == len(rel):
        rank[matched[np.argsort(-rel[matched], kind="stable")]] = np.arange(len(matched))
    else:
        rank[np.argsort(-rel, kind="stable")] = np.arange(len(rel))
    return rank


_RELEVANCES = st.one_of(st.sampled_from([0.0, 1.0, 0.5, 5e-324, 2.2250738585072014e-308, np.inf]),
                        st.floats(min_value=0.0, max_value=1.0, allow_nan=False))


@settings(max_examples=300, deadline=None)
@given(st.lists(_RELEVANCES, max_size=150), st.sampled_from([None, -0.0, -1.0, np.nan]))
def test_focus_places_match_a_float_sort(values: list[float], odd: float | None) -> None:
    """``gains._places_high_first`` (the matches' places, best first, for the focus's
    diminishing returns) sorts positive floats by their bits as integers: the same places
    as a stable sort of the floats, ties in order, subnormals and infinity included; a
    negative value, a signed zero or NaN takes the plain sort."""
    from discourse_memory.fit.gains import _places_high_first

    rel = np.array(values, dtype=np.float64)
    if odd is not None and len(rel):
        rel[len(rel) // 3] = odd
    assert np.array_equal(_places_high_first(rel), _places_reference(rel))
    assert _places_high_first(np.array([0.5, 0.0, 1.0, 0.5, 0.25])).tolist() == [1.0, 0.0, 0.0, 2.0, 3.0]

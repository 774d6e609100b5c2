"""The fitting stage's sets of ids (``fit.sets``) against the numpy calls they replace:
the same values, places and dtype kind, for empty, repeated and unsorted ids."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from discourse_memory.fit.sets import first_of_each, member, unique_ids

_IDS = st.lists(st.integers(0, 40), max_size=80)


@settings(max_examples=300, deadline=None)
@given(_IDS)
def test_unique_ids_is_np_unique(ids: list[int]) -> None:
    a = np.asarray(ids, dtype=np.int64)
    got = unique_ids(a, 41)
    assert got.tolist() == np.unique(a).tolist() and got.dtype.kind == "i"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-5, 30), max_size=80))
def test_first_of_each_is_np_uniques_index(keys: list[int]) -> None:
    a = np.asarray(keys, dtype=np.int64)
    got = first_of_each(a)
    assert got.tolist() == np.unique(a, return_index=True)[1].tolist() and got.dtype.kind == "i"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(-3, 60), max_size=80), st.lists(st.integers(-3, 60), max_size=40))
def test_member_is_np_isin(keys: list[int], among: list[int]) -> None:
    a, b = np.asarray(keys, dtype=np.int64), np.asarray(among, dtype=np.int64)
    got = member(a, b)
    assert got.tolist() == np.isin(a, b).tolist() and got.dtype == bool and got.shape == a.shape

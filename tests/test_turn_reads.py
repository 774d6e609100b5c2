"""What a turn reads from the conversation's memos or at a few units, against the plain
computations they replaced: the record's candidate rows in value order (``fit.sources._by_value``,
merged in turn by turn) against a stable sort of them; the units stating a literal of a mask
(``fit.rank._states``) against a sum over every unit's literals; the take's per-item reads
(``fit.types._flat``) against lists."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discourse_memory.columns import Columns
from discourse_memory.fit.rank import _states
from discourse_memory.fit.sources import _by_value
from discourse_memory.fit.types import _flat
from discourse_memory.messages import validate_messages
from discourse_memory.sample import sample_conversation
from discourse_memory.tokens import get_token_counter
from discourse_memory.units import Analyzer

COUNTER = get_token_counter()
MESSAGES = validate_messages(sample_conversation(2))


def _sorted_rows(cols: Columns, owners: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """The order ``_items`` sorted its rows in: by value, then newest unit first, ties in row order."""
    lits, occ = cols.lit_idx.view[rows].astype(np.int64), owners[rows].astype(np.int64)
    span = int(occ.max()) + 1 if len(occ) else 1
    return rows[np.argsort(lits * span + (span - 1 - occ), kind="stable")]


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 40), min_size=1, max_size=5), st.integers(0, 2**32 - 1))
def test_rows_by_value_merged_turn_by_turn_are_a_stable_sort_of_them(batches: list[int], seed: int) -> None:
    rng = np.random.default_rng(seed)
    analyzer = Analyzer(COUNTER)
    cols = Columns(COUNTER.count)
    at = 0
    for size in batches:  # (a view between appends: the memo grows with the conversation)
        batch = MESSAGES[at:at + size]
        at += size
        if batch:
            cols.extend(batch, analyzer.fields(batch))
        owners = cols.unit_owner(cols.lit_ptr.view)
        n = len(cols.lit_idx.view)
        for share in (0.0, 0.3, 1.0):
            rows = np.flatnonzero(rng.random(n) < share)
            assert np.array_equal(_by_value(cols, owners, rows), _sorted_rows(cols, owners, rows))


@pytest.mark.parametrize("share", [0.0, 0.05, 0.5, 1.0])
def test_units_stating_a_literal_of_a_mask_match_a_sum_over_every_unit(share: float) -> None:
    analyzer = Analyzer(COUNTER)
    cols = Columns(COUNTER.count)
    cols.extend(MESSAGES, analyzer.fields(MESSAGES))
    rng = np.random.default_rng(3)
    mask = rng.random(len(cols.lit_text)) < share
    every = cols.per_unit_sum(mask.astype(np.float64)) > 0
    units = np.flatnonzero(rng.random(len(cols.units)) < 0.5)
    assert np.array_equal(_states(cols, units, mask), every[units])
    assert _states(cols, units[:0], mask).shape == (0,)


@pytest.mark.parametrize("values", [np.array([3, -1, 7]), np.array([True, False]), np.array([0.5, 2.0, -1.25]),
                                    np.array([4, 5], dtype=np.int8), np.zeros(0)])
def test_the_takes_reads_are_the_arrays_values_as_python_numbers(values: np.ndarray) -> None:
    flat = _flat(values)
    assert list(flat) == [int(v) if values.dtype.kind in "iub" else float(v) for v in values.tolist()]
    assert all(type(v) is (int if values.dtype.kind in "iub" else float) for v in flat)
    if len(values) > 1:
        assert list(flat[1:]) == list(flat)[1:]  # (a slice reads as a list's does)

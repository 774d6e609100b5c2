"""Sets of integer ids as the fitting stage reads them: ``np.unique`` and ``np.isin``'s
answers, by a sort or a mask of the ids' range (``focus._sorted_unique`` likewise).

(numpy 2's ``np.unique`` hashes its input first: 15-60 us for a handful of ids, half a
millisecond for 3,000; ``np.isin`` of 2,000 keys in 1,200 a third of one. A fresh worker's
first view, which reads every row of the conversation once, paid a few milliseconds of
them, and every turn a few hundred microseconds: issue 49. Its first call in a process also
imports ``numpy.ma``, ~9 ms, which a worker pays on its first view of any conversation.)
"""

from __future__ import annotations

import numpy as np

__all__ = ["first_of_each", "member", "unique_ids"]


def unique_ids(ids: np.ndarray, n: int) -> np.ndarray:
    """``np.unique(ids)`` of ids in ``[0, n)`` (rows, units, literals), by a mask of ``n``."""
    if not len(ids):
        return np.zeros(0, dtype=np.intp)
    seen = np.zeros(n, dtype=bool)
    seen[ids] = True
    return np.flatnonzero(seen)


def first_of_each(keys: np.ndarray) -> np.ndarray:
    """``np.unique(keys, return_index=True)[1]``: the place of each distinct key's first
    occurrence, in the keys' sorted order (a stable sort keeps the first of equal keys first)."""
    if not len(keys):
        return np.zeros(0, dtype=np.intp)
    order = np.argsort(keys, kind="stable")
    ordered = keys[order]
    first = np.empty(len(ordered), dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return order[first]


def member(keys: np.ndarray, among: np.ndarray) -> np.ndarray:
    """``np.isin(keys, among)``, by a binary search of ``among`` sorted."""
    if not len(among) or not len(keys):
        return np.zeros(len(keys), dtype=bool)
    ordered = np.sort(among)
    at = np.minimum(np.searchsorted(ordered, keys), len(ordered) - 1)
    return ordered[at] == keys

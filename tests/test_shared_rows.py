"""The pieces of reading a row entry (``fit/shared_rows.py``) made cheaper for a fresh worker's
first view (issue 49), each held equal to what it replaced; the entries' round trips and
refusals are tests/test_analysis_cache.py's."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from discourse_memory.fit import shared_rows

_NUMBER = st.one_of(st.integers(0, 3), st.integers(0, 1 << 40))  # (small: one sort key; large: three)


@settings(max_examples=300, deadline=None)
@given(spans=st.lists(st.tuples(_NUMBER, _NUMBER, _NUMBER, st.integers(0, 3)), max_size=30), big=st.booleans())
def test_new_spans_sorted_by_one_key_or_three_are_numbered_as_a_dictionary_numbers_them(spans, big):
    """``_new_spans`` sorts the spans by one number per (unit, a, b) where it fits in 62 bits,
    else by the three (``np.lexsort``): either way each span's id, and each id's literals, are
    those numbering them row by row in a dictionary gives."""
    from discourse_memory.fit.candidates import _Facts

    if big:  # (spans of a few units, ends far apart: the three keys)
        spans = [(u % 3, x % 5, y + (1 << 31), k) for u, x, y, k in spans]
    units, a, b, n = (np.array([x[i] for x in spans], dtype=np.int64) for i in range(4))
    at = np.cumsum(n) - n
    shown = np.arange(int(n.sum()), dtype=np.int64) + 100
    facts, read_span = _Facts(), np.full(len(spans), -1)
    shared_rows._new_spans(facts, units, a, b, at, n, shown, np.arange(len(spans)), read_span)
    ids: dict[tuple[int, tuple[int, int]], int] = {}
    lits: list[int] = []
    ptr = [0]
    for (u, x, y, k), s0 in zip(spans, at.tolist()):
        if (u, (x, y)) not in ids:
            ids[u, (x, y)] = len(ids)
            lits.extend(range(100 + s0, 100 + s0 + k))
            ptr.append(len(lits))
    assert facts.spans == ids and facts.span_ptr == ptr and facts.span_lits == lits
    assert read_span.tolist() == [ids[u, (x, y)] for u, x, y, _ in spans]


def test_spans_one_key_would_merge_are_kept_apart() -> None:
    """Spans whose one number would be the same (a start past every end; a number below 0; a
    key past 64 bits, where it wraps), sorted together and so one between two rows of the
    other, are told apart: each its own id, and one only."""
    from discourse_memory.fit.candidates import _Facts

    far = (1 << 32) - 1
    for spans in ([(0, 1, 0), (1, 0, 0), (0, 1, 0)], [(0, 0, far), (1, 0, far), (0, 0, far)],
                  [(-1, 1, 1), (0, -1, 1), (-1, 1, 1)], [(3, 5, 9), (0, 5, 9), (3, 5, 9)]):
        units, a, b = (np.array([x[i] for x in spans], dtype=np.int64) for i in range(3))
        n = np.zeros(len(spans), dtype=np.int64)
        facts, read_span = _Facts(), np.full(len(spans), -1)
        shared_rows._new_spans(facts, units, a, b, n, n, n, np.arange(len(spans)), read_span)
        ids = {s: i for i, s in enumerate(dict.fromkeys(spans))}
        assert read_span.tolist() == [ids[s] for s in spans]
        assert facts.spans == {(u, (x, y)): i for (u, x, y), i in ids.items()}


def _locomo(n: int) -> list[dict]:
    """The first ``n`` turns of locomo's first conversation, each session opened by its date
    line (an item covering more than one literal)."""
    import json

    import pytest

    from .conftest import SHARED_DATA

    path = SHARED_DATA / "locomo" / "locomo_dev.json"
    if not path.exists():
        pytest.skip(f"{path} is not there")
    conv = json.loads(path.read_text())[0]["conversation"]
    msgs, k = [], 1
    while f"session_{k}" in conv:
        for at, turn in enumerate(conv[f"session_{k}"]):
            text = f"{turn['speaker']}: {turn['text']}"
            if at == 0:
                text = f"[{conv[f'session_{k}_date_time']}]\n{text}"
            msgs.append({"role": "user" if turn["speaker"] == conv["speaker_a"] else "assistant", "content": text})
        k += 1
    return msgs[:n]


def test_the_covers_read_from_row_entries_are_their_items_and_kept() -> None:
    """The covers of every item a row entry gives, put in the facts as ``candidates._covered``
    reads them, are the item's (items of one literal and date lines of several), laid after
    those there; read again, covers put before are kept; a view through the entries is the view
    without them."""
    import pytest

    from discourse_memory import Compactor, DiscourseMemory
    from discourse_memory.fit.candidates import _Facts
    from discourse_memory.fit.sources import _row_memo

    from .test_analysis_cache import DictCache, _bytes, _swe_run

    msgs_swe, budget_swe = _swe_run(1)
    locomo = _locomo(160)
    several = 0
    for msgs, budget in ((msgs_swe, budget_swe), (locomo, Compactor().count_messages(locomo) // 4)):
        cache = DictCache()
        DiscourseMemory(msgs, cache=cache).view(budget)
        fresh = DiscourseMemory(msgs, cache=cache)
        seen = []
        real = shared_rows.decode_many

        def spy(cols, entries, secret=b""):  # type: ignore[no-untyped-def]
            facts = cols.memo(_Facts)
            facts.cover_lits.extend([-7, -7])  # (covers laid before, of no row: those put go after them)
            got = real(cols, entries, secret)
            before = (facts.cover_at.copy(), facts.cover_n.copy(), list(facts.cover_lits))
            again = real(cols, entries, secret)  # (the same rows read twice: the covers put first kept)
            assert again == got and (facts.cover_at == before[0]).all() and (facts.cover_n == before[1]).all()
            assert facts.cover_lits == before[2]
            items = _row_memo(cols).items
            for r in np.flatnonzero(facts.cover_n[:len(items)] >= 0).tolist():
                at, n = int(facts.cover_at[r]), int(facts.cover_n[r])
                seen.append((tuple(facts.cover_lits[at:at + n]), items[r].covers))
            return got

        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(shared_rows, "decode_many", spy)
            assert _bytes(fresh.view(budget)) == _bytes(DiscourseMemory(msgs).view(budget))
        assert len(seen) > 20 and all(got == want for got, want in seen)
        several += sum(len(want) > 1 for _, want in seen)
    assert several > 0

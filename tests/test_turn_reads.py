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

from discourse_memory import DiscourseMemory
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


def _agent_conversation(turns: int) -> list[dict]:
    """An agent's history written for these tests: a task, a list of ids it works through
    (each looked up by a call), a failing call and its retry, code read back with several
    values a line, and a chat turn between."""
    ids = ["8C8K4E", "UDMOP1", "4XGCCM", "Q7ZK2P", "MMN3TX"]
    msgs: list[dict] = [{"role": "system", "content": "You are an airline agent. Today's date is 2024-05-15."},
                        {"role": "user", "content": f"Please check my reservations {', '.join(ids)} for delays."}]
    for t in range(turns):
        rid = ids[t % len(ids)]
        call = {"id": f"c{t}", "type": "function",
                "function": {"name": "get_reservation", "arguments": f'{{"reservation_id": "{rid}"}}'}}
        msgs.append({"role": "assistant", "content": f"Looking up {rid}.", "tool_calls": [call]})
        if t % 4 == 3:
            msgs.append({"role": "tool", "tool_call_id": f"c{t}", "content": f"Error: reservation {rid} timed out"})
        else:
            content = (f"- reservation_id: {rid}\n- flight: HAT{100 + t}\n- origin: JFK\n- price: ${200 + t}\n"
                       f"```\nfare = lookup('{rid}', 'HAT{100 + t}', {t * 7})\ntotal = fare + {t * 3} + 15\n```")
            msgs.append({"role": "tool", "tool_call_id": f"c{t}", "content": content})
        if t % 3 == 2:
            asked = f"Is flight HAT{100 + t} from JFK still on time on 2024-05-{10 + t}?"
            msgs.append({"role": "user", "content": asked})
    return msgs


def _views_as_fresh(grown: DiscourseMemory, msgs: list[dict]) -> None:
    """``grown``'s views at 260 and 700 tokens are those a fresh memory of ``msgs`` makes (a
    budget too small for the history is passed over)."""
    from discourse_memory.errors import BudgetTooSmallError

    for budget in (260, 700):
        try:
            view = grown.view(budget)
        except BudgetTooSmallError:
            continue
        fresh = DiscourseMemory(msgs).view(budget)
        assert view.messages == fresh.messages
        assert view.note == fresh.note


def _plain_pending(cols: Columns) -> np.ndarray:
    """``signals.pending_ids`` as it read every row of the history on every view."""
    from discourse_memory.fit.signals import _CALL, _LIST_KINDS, _shape_ids, _two_distinct

    out = np.zeros(len(cols.lit_text), dtype=bool)
    ident, kind = cols.kind_code("identifier"), cols.u_kind.view
    is_call = kind == _CALL
    if ident < 0 or not is_call.any():
        return out
    lit_idx, u_msg = cols.lit_idx.view, cols.u_msg.view
    owners = cols.unit_owner(cols.lit_ptr.view)
    row_msg = u_msg[owners]
    last_call = np.full(len(cols.lit_text), -1, dtype=np.int64)
    call_rows = is_call[owners]
    np.maximum.at(last_call, lit_idx[call_rows], row_msg[call_rows])
    listed = _LIST_KINDS[kind] & ~is_call
    joins = np.zeros(len(kind), dtype=bool)
    joins[1:] = listed[1:] & listed[:-1] & (u_msg[1:] == u_msg[:-1])
    group = np.cumsum(~joins)[owners]
    rows = np.flatnonzero(~call_rows & (cols.lit_kind.view[lit_idx] == ident))
    if not len(rows):
        return out
    lits, groups = lit_idx[rows], group[rows]
    done = last_call[lits] > row_msg[rows]
    shapes = _shape_ids(cols)[lits]
    n_shapes = int(shapes.max()) + 1
    ready = done & _two_distinct(groups[done], lits[done], int(group.max()) + 1)[groups]
    keys = np.unique(groups[ready] * n_shapes + shapes[ready])
    out[lits[~done & np.isin(groups * n_shapes + shapes, keys)]] = True
    return out


def _plain_verdicts(cols: Columns, outputs: np.ndarray, info: np.ndarray) -> np.ndarray:
    """``signals.outcome_lines`` as it read arrays of every message."""
    from discourse_memory.columns import UNIT_KINDS
    from discourse_memory.fit.limits import LIMITS
    from discourse_memory.fit.signals import _VERDICT, listing_messages, reading_messages

    u_msg, kind = cols.u_msg.view, cols.u_kind.view
    ran = outputs & ~reading_messages(cols, outputs) & ~listing_messages(cols, outputs)
    rows = np.flatnonzero(ran[u_msg] & (kind == UNIT_KINDS.index("line")) & (info > 0) & ~cols.u_tag_line.view)
    last = np.full(len(cols), -1, dtype=np.int64)
    np.maximum.at(last, u_msg[rows], rows)
    last[np.bincount(u_msg[rows], minlength=len(cols)) < LIMITS.outcome_lines] = -1
    out = np.zeros(len(u_msg), dtype=bool)
    for u in last[last >= 0].tolist():
        out[u] = _VERDICT.search(cols.units.text(u)[-LIMITS.verdict_chars:]) is not None
    return out


@settings(max_examples=15, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=6), st.integers(0, 2**32 - 1))
def test_history_reads_extended_turn_by_turn_match_their_plain_definitions(batches: list[int], seed: int) -> None:
    """The reads a view extends by the rows, units and messages appended since (the rows'
    units, the values said outside tool output, pending ids, the messages with units, the
    calls answered, the replies to a question, the verdict lines, the word rows' stems and
    units) against the arrays of the
    whole history they were computed from on every view."""
    from discourse_memory.fit.gains import messages_with_units
    from discourse_memory.fit.rank import _answered, _asked, _owners
    from discourse_memory.fit.signals import _outputs, outcome_lines, pending_ids
    from discourse_memory.fit.sources import row_units, said_literals
    from discourse_memory.focus import _stems, _word_rows
    from discourse_memory.replies import question_units

    rng = np.random.default_rng(seed)
    msgs = validate_messages(_agent_conversation(12) + sample_conversation(1))
    analyzer = Analyzer(COUNTER)
    cols = Columns(COUNTER.count)
    at = 0
    for size in batches:
        batch = msgs[at:at + size]
        at += size
        if batch:
            cols.extend(batch, analyzer.fields(batch))
        outputs = _outputs(cols)
        u_msg = cols.u_msg.view
        assert np.array_equal(row_units(cols), cols.unit_owner(cols.lit_ptr.view))
        assert np.array_equal(said_literals(cols, outputs), cols.literal_counts(~outputs[u_msg]) > 0)
        assert np.array_equal(pending_ids(cols), _plain_pending(cols))
        assert np.array_equal(messages_with_units(cols), np.unique(u_msg))
        owner = _owners(cols)
        calls = _answered(cols, owner)
        counts = np.bincount(owner[owner >= 0], minlength=len(cols))
        assert np.array_equal(calls.counts, counts)
        assert np.array_equal(calls.callers, np.flatnonzero(counts > 0))
        assert np.array_equal(calls.results, np.flatnonzero(owner >= 0))
        question = question_units(cols)
        assert np.array_equal(_asked(cols, question), np.flatnonzero(question >= 0))
        stems, _ = _stems(cols)
        row_stems, word_units = _word_rows(cols, stems)
        assert np.array_equal(row_stems, stems[cols.word_idx.view])
        assert np.array_equal(word_units, cols.unit_owner(cols.word_ptr.view))
        info = (rng.random(len(u_msg)) < 0.7).astype(np.float64)
        assert np.array_equal(outcome_lines(cols, outputs, info), _plain_verdicts(cols, outputs, info))


def test_the_agent_conversation_has_pending_ids() -> None:
    # (the case the memo's test above must cover: after two lookups, the three ids left)
    from discourse_memory.fit.signals import pending_ids

    msgs = validate_messages(_agent_conversation(2))
    cols = Columns(COUNTER.count)
    cols.extend(msgs, Analyzer(COUNTER).fields(msgs))
    pending = sorted(cols.lit_text[i] for i in np.flatnonzero(pending_ids(cols)))
    assert pending == ["4XGCCM", "MMN3TX", "Q7ZK2P"]
    assert np.array_equal(pending_ids(cols), _plain_pending(cols))


def test_a_memory_viewed_turn_by_turn_gives_the_views_of_a_fresh_one() -> None:
    """What views keep for the next (the places of ranking, the spans a record item lists,
    the history reads extended turn by turn) changes no view: each turn's views, at two
    budgets, are those a fresh memory makes of the same history."""
    msgs = _agent_conversation(14)
    grown = DiscourseMemory(msgs[:3])
    for n in range(4, len(msgs) + 1):
        grown.append(msgs[n - 1])
        _views_as_fresh(grown, msgs[:n])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.dictionaries(st.integers(0, 12), st.tuples(st.integers(0, 2),
                                                              st.lists(st.integers(0, 5), min_size=1, max_size=4)),
                                max_size=8),
                min_size=1, max_size=6))
def test_a_span_lists_the_same_values_as_on_the_view_before_exactly_when_they_are_equal(
        views: list[dict[int, tuple[int, list[int]]]]) -> None:
    """``candidates._LastCovers``: a span's item is taken from the view before only when it
    is the same value's item and the span lists the same values in the same order as then
    (a span not listed on the view just before counts as changed)."""
    from discourse_memory.fit.candidates import _LastCovers

    last = _LastCovers()
    before: dict[int, tuple[int, list[int]]] = {}
    for listed in views:
        spans = np.array(sorted(listed), dtype=np.int64)
        owns = np.array([listed[s][0] for s in spans.tolist()], dtype=np.int64)
        k = np.array([len(listed[s][1]) for s in spans.tolist()], dtype=np.int64)
        lo = np.cumsum(k) - k
        lits = np.array([v for s in spans.tolist() for v in listed[s][1]], dtype=np.int64)
        same = last.unchanged(spans, owns, lo, k, lits)
        assert same.tolist() == [before.get(s) == listed[s] for s in spans.tolist()]
        last.keep(spans, owns, lo, k, lits)
        before = listed


def _plain_literal_counts(cols: Columns, unit_mask: np.ndarray, head_mask: np.ndarray | None) -> np.ndarray:
    """``Columns.literal_counts`` as it was: a mask of every row of the literal index."""
    rows = np.repeat(unit_mask, np.diff(cols.lit_ptr.view))
    out = np.bincount(cols.lit_idx.view[rows], minlength=len(cols.lit_text)).astype(np.float64)
    if head_mask is not None and head_mask.any():
        hrows = np.repeat(head_mask, np.diff(cols.head_ptr.view))
        out += np.bincount(cols.head_idx.view[hrows], minlength=len(cols.lit_text))
    return out


@settings(max_examples=25, deadline=None)
@given(st.sampled_from([0.0, 0.01, 0.2, 0.3, 0.9, 1.0]), st.sampled_from([None, 0.0, 0.05, 1.0]),
       st.integers(0, 2**32 - 1))
def test_literal_counts_read_at_the_units_spans_match_a_mask_of_every_row(share: float, head: float | None,
                                                                           seed: int) -> None:
    # (sparse masks gather the units' rows by their spans, dense ones mask every row: the same counts)
    rng = np.random.default_rng(seed)
    msgs = validate_messages(_agent_conversation(6) + sample_conversation(1))
    cols = Columns(COUNTER.count)
    cols.extend(msgs, Analyzer(COUNTER).fields(msgs))
    n = len(cols.units)
    unit_mask = rng.random(n) < share
    head_mask = None if head is None else rng.random(n) < head
    got = cols.literal_counts(unit_mask, head_mask)
    assert got.dtype == np.float64
    assert np.array_equal(got, _plain_literal_counts(cols, unit_mask, head_mask))


def test_message_references_counted_once_match_a_count_of_each() -> None:
    """The tokens of each message's ``#i`` (read when the model can recall), kept with the
    conversation and grown turn by turn, are those counted anew; another counter counts anew."""
    from discourse_memory.fit.rank import _ref_costs

    msgs = validate_messages(_agent_conversation(4) + sample_conversation(1))
    analyzer = Analyzer(COUNTER)
    cols = Columns(COUNTER.count)
    for at in range(0, len(msgs), 7):
        batch = msgs[at:at + 7]
        cols.extend(batch, analyzer.fields(batch))
        assert np.array_equal(_ref_costs(cols, COUNTER.count),
                              np.array([COUNTER.count(f"#{i}") for i in range(len(cols))], dtype=np.float64))
    assert np.array_equal(_ref_costs(cols, len), np.array([len(f"#{i}") for i in range(len(cols))], dtype=np.float64))


def test_a_memory_that_recalls_viewed_turn_by_turn_gives_the_views_of_a_fresh_one() -> None:
    # (the references' costs, kept with the conversation, change no view)
    from discourse_memory import DiscourseMemory
    from discourse_memory.errors import BudgetTooSmallError

    msgs = _agent_conversation(10)
    grown = DiscourseMemory(msgs[:3], recall=True)
    for n in range(4, len(msgs) + 1):
        grown.append(msgs[n - 1])
        try:
            view = grown.view(400)
        except BudgetTooSmallError:
            continue
        fresh = DiscourseMemory(msgs[:n], recall=True).view(400)
        assert view.messages == fresh.messages
        assert view.note == fresh.note


def _plain_sources(memo, rows: np.ndarray, first: np.ndarray, ends: np.ndarray, read, context) -> np.ndarray:  # type: ignore[no-untyped-def]
    """``sources._sources`` as it was first written: a walk of each unread value's rows, state by state."""
    from discourse_memory.fit.limits import LIMITS

    sizes = np.minimum(ends - first, LIMITS.occurrences)
    group = np.repeat(np.arange(len(first)), sizes)
    starts = np.cumsum(sizes) - sizes
    window = rows[first[group] + np.arange(len(group)) - starts[group]]
    state = memo.state
    found = state[window]
    before = np.cumsum(found == 3) - (found == 3)
    unread = np.flatnonzero((found == 0) & (before == before[starts][group]))
    for g in np.unique(group[unread]).tolist():
        lo = int(first[g])
        for r in rows[lo:lo + int(sizes[g])].tolist():
            if state[r] == 0:
                item = memo.items[r] = read(r)
                state[r] = 1 if item is None else 3 if context(r, item) else 2
            if state[r] == 3:
                break
    found = state[window]
    at = np.full(len(first), -1, dtype=np.int64)
    for level in (found >= 2, found == 3):
        hit = np.flatnonzero(level)
        if len(hit):
            g = group[hit]
            lead = np.r_[True, g[1:] != g[:-1]]
            at[g[lead]] = window[hit[lead]]
    return at


@settings(max_examples=80, deadline=None)
@given(st.lists(st.integers(1, 9), min_size=1, max_size=30), st.integers(0, 2**32 - 1))
def test_the_rows_a_value_is_listed_from_are_those_a_walk_of_each_row_finds(sizes: list[int], seed: int) -> None:
    """``sources._sources`` reads the rows of each value's window in order up to the first
    with a context, as a walk row by row does, whatever the rows read on earlier turns."""
    from discourse_memory.fit.sources import _RowMemo, _sources
    from discourse_memory.record import Item

    rng = np.random.default_rng(seed)
    n = sum(sizes)
    rows = rng.permutation(n).astype(np.int64)
    ends = np.cumsum(sizes).astype(np.int64)
    first = ends - np.array(sizes, dtype=np.int64)
    kind = rng.integers(0, 3, n)  # per row: 0 no item, 1 an item without context, 2 with one

    # (each row its own unit and literal here: the reader is told them, and a row by them)
    owners = np.arange(n, dtype=np.int64) + 1000
    lits = np.arange(n, dtype=np.int64)

    def read(u: int, lit: int) -> Item | None:
        assert u == lit + 1000
        return None if kind[lit] == 0 else Item(lit, u, 0, str(lit))

    def context(item: Item, lit: int) -> bool:
        assert item.literal == lit
        return bool(kind[lit] == 2)

    memos = [_RowMemo(), _RowMemo()]
    for memo in memos:
        memo.grow(n)
    for _ in range(3):  # turns: some rows already read, some not
        known = np.flatnonzero(rng.random(n) < 0.3)
        for memo in memos:
            for r in known.tolist():
                if memo.state[r] == 0:
                    memo.items[r] = read(r + 1000, r)
                    memo.state[r] = 1 if kind[r] == 0 else 2 if kind[r] == 1 else 3
        got = _sources(memos[0], rows, first, ends, owners, lits, read, context)
        want = _plain_sources(memos[1], rows, first, ends, lambda r: read(int(owners[r]), int(lits[r])),
                              lambda r, item: context(item, int(lits[r])))
        assert got.tolist() == want.tolist()
        assert memos[0].state.tolist() == memos[1].state.tolist()
        assert memos[0].items == memos[1].items


def test_the_values_items_list_read_as_arrays_are_those_of_their_covers(monkeypatch: pytest.MonkeyPatch) -> None:
    """``Listable.covered`` (read from the rows' arrays and the spans' values, not from each
    item) holds exactly the values the items list, turn by turn, and ``Ranked.candidate_lits``
    is those and the candidates made no item."""
    from discourse_memory import DiscourseMemory
    from discourse_memory.errors import BudgetTooSmallError
    from discourse_memory.fit import rank, types

    seen = []
    items_of = rank._items

    def checked(*args, **kwargs):
        listable = items_of(*args, **kwargs)
        assert sorted(listable.covered.tolist()) == sorted(c for it in listable.items for c in it.covers)
        seen.append(len(listable.covered))
        return listable

    plain = types.Ranked.candidate_lits.func

    def candidate_lits(self):
        mask = np.zeros(len(self.shown_lits), dtype=bool)
        mask[[c for it in self.item_of for c in it.covers]] = True
        mask[list(self.beyond)] = True
        got = plain(self)
        assert got.tobytes() == mask.tobytes()
        seen.append(-1)
        return got

    monkeypatch.setattr(rank, "_items", checked)
    monkeypatch.setattr(types.Ranked, "candidate_lits", property(candidate_lits))
    msgs = _agent_conversation(12)
    grown = DiscourseMemory(msgs[:3])
    for n in range(4, len(msgs) + 1):
        grown.append(msgs[n - 1])
        for budget in (260, 700):
            try:
                grown.view(budget)
            except BudgetTooSmallError:
                continue
    assert max(seen) > 5 and -1 in seen


def test_the_covering_memo_is_bounded_and_its_bound_changes_no_view() -> None:
    """``_Candidates.covering`` keeps at most about one item per unit: past that, only the
    items the view lists stay (here forced by filling it); the views stay a fresh memory's."""
    from discourse_memory.fit.candidates import _Candidates
    from discourse_memory.record import Item

    msgs = _agent_conversation(14)
    grown = DiscourseMemory(msgs[:3])
    cols = grown._compactor._cols
    filler = Item(0, 0, 0, "x")
    pruned = 0
    for n in range(4, len(msgs) + 1):
        grown.append(msgs[n - 1])
        covering = cols.memo(_Candidates).covering
        if n % 3 == 0:
            covering.update({("filler", i): filler for i in range(len(cols.u_msg.view) + 1)})
        _views_as_fresh(grown, msgs[:n])
        if n % 3 == 0 and n >= 7:  # (from the 7th message on, a view of each turn lists a line's values)
            assert not any(key[0] == "filler" for key in covering)
            pruned += 1
        assert len(covering) <= len(cols.u_msg.view) + 1
    assert pruned >= 3

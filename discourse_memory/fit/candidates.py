"""Record candidates: the items a view may list (each value left out, keyed from an
occurrence with a key or a context word), their gains and their costs."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from itertools import chain, islice
from operator import itemgetter, le
import re
from typing import ClassVar

import numpy as np

from ..columns import UNIT_KINDS, Columns
from ..field_units import Units
from ..plan import OMITTED
from ..record import NAMED_NUMBER, Item, UnitItems, comment_units, harness_units, message_label, prompt_units, \
    short_item_span, talk_counts, widened
from ..units import Unit
from .gains import _kind_values, _rank_within
from .signals import _SENTINEL, _outputs, defines, listing_line, pending_ids, reading_messages
from .sets import first_of_each, unique_ids
from .sources import _by_value, _has_context, _row_memo, _sources, row_units, said_literals
from .limits import LIMITS
from .names import name_group, result_name
from .types import _LINE_KIND, Scene


@dataclass(frozen=True)
class Listable:
    """The record items a view may list (:func:`_items`), each with its gain and costs."""

    items: list[Item]
    gain: np.ndarray
    cost: np.ndarray
    """Each item's tokens in the record."""
    value_cost: dict[int, float]
    """A keyed item -> the tokens of its ", value" after another value of its key."""
    entry_cost: dict[int, float]
    """Message -> the tokens of its entry's label (found when first asked)."""
    header_cost: dict[str, float]
    """A session's date line -> its tokens in the record (found when first asked)."""
    beyond: frozenset[int]
    """Values the record could list but made no item of."""
    row_cost: dict[int, float]
    """A listed record's head and braces, by group."""
    key_named: np.ndarray
    """Per item, whether the focus names its key."""
    headers: np.ndarray
    """The places of the items that are a session's date line, ascending."""
    covered: np.ndarray
    """Every literal id some item lists (``Item.covers`` of each, concatenated; repeats kept)."""

    @staticmethod
    def none() -> "Listable":
        return Listable([], np.zeros(0), np.zeros(0), {}, {}, {}, frozenset(), {}, np.zeros(0, dtype=bool),
                        np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64))


@dataclass
class _Candidates:
    """What making record items reads once and keeps (the conversation's memo, see
    ``Columns.memo``: a unit's text, and so its items, never changes)."""

    inner: dict = field(default_factory=dict)
    """(unit, span) -> the literal ids it shows (:func:`_shown_in`)."""
    covering: dict[tuple, Item] = field(default_factory=dict)
    """(unit, span, literals) -> the item listing them (at most about one per unit: see
    :func:`_cover_lines`)."""
    label_costs: dict[int, tuple[str | None, float]] = field(default_factory=dict)
    """Message -> (its speaker, the tokens of its entry's label)."""
    short_spans: dict[int, tuple[int, int] | None] = field(default_factory=dict)
    """Unit -> its short item's span (:func:`_short_span`)."""
    row_costs: dict[str, int] = field(default_factory=dict)
    """A record's head -> the tokens of ``{head, }``."""


def _items(scene: Scene, decision: np.ndarray, shown: np.ndarray, noise: np.ndarray, rel: np.ndarray | None,
           recency: np.ndarray, header_of: list[str | None], units: Sequence[Unit], verdicts: np.ndarray | None,
           ) -> Listable:
    """The record items a view may list: each value not shown by the base decisions, keyed
    from its newest occurrence with a key or a context word among the units that may be
    left out (else its newest)."""
    cols = scene.cols
    pol = scene.options.policy
    n_lits = len(cols.lit_text)
    if n_lits == 0:
        return Listable.none()
    owners = row_units(cols)
    lit_idx = cols.lit_idx.view
    open_units = (decision == OMITTED)[owners]
    missing = ~shown & ~noise
    rows = np.flatnonzero(open_units & missing[lit_idx])
    u_msg = cols.u_msg.view
    # A value a prompt states (a system message, an example of a task) and the talk states
    # too is listed from the talk: `#1 user: cat file.txt` cited a task's example response
    # for a file name an `ls` had printed.
    prompt = prompt_units(cols)
    if prompt.any() and len(rows):
        said_elsewhere = talk_counts(cols) > 0
        rows = rows[~(prompt[owners[rows]] & said_elsewhere[lit_idx[rows]])]
    if not len(rows):
        return Listable.none()
    starts = cols.msg_start.view
    reading: dict[int, UnitItems] = {}  # a unit is built and read once, not once per value it states

    def item_of(u: int, lit: int) -> Item | None:
        """The item of a row no view has read (see _RowMemo: it is kept per row)."""
        unit = reading.get(u)
        if unit is None:
            unit = reading[u] = UnitItems(cols, u, units[u], first=bool(starts[u_msg[u]] == u))
        return unit.item(lit)

    # (by value, then newest first, ties in row order)
    rows_sorted = _by_value(cols, owners, rows)
    lits, occ = lit_idx[rows_sorted], owners[rows_sorted]
    first = np.flatnonzero(np.concatenate(([True], lits[1:] != lits[:-1])))  # a value's occurrences: first[j]:ends[j]
    ends = np.append(first[1:], len(lits))
    candidates = lits[first]
    newest = occ[first]
    rarity = np.log1p(len(units) / np.maximum(cols.lit_df.view[candidates], 1.0))
    rarity /= max(float(rarity.mean()), 1e-9)
    # As recent as its newest occurrence, wherever it is keyed from.
    gain = pol.record_value * recency[u_msg[newest]] * np.clip(rarity, 0.5, 2.0)
    if rel is not None:
        lit_rel = np.zeros(n_lits)
        np.maximum.at(lit_rel, lit_idx, rel[owners])
        # A value the focus itself names (relevance is 0 in the focus's own units).
        gain *= 1.0 + pol.focus_record * np.minimum(lit_rel[candidates] * 2.0, 1.0)
    kind_names = cols.lit_kind_names
    kind_value = _kind_values(pol, kind_names)
    gain *= kind_value[cols.lit_kind.view[candidates]]
    # A value the user or the assistant put in words (not only a tool's output) is one
    # the conversation turned on: "your reservations are 8C8K4E, UDMOP1, ...".
    outputs = _outputs(cols)
    if outputs.any():  # (in a conversation without tool output, every value is said)
        said = said_literals(cols, outputs)
        gain *= np.where(said[candidates], pol.said, 1.0)
    # The ids of a list the agent is working through: after passing two or more of them to
    # calls, the ones it has not passed yet are its next arguments.
    pending = pending_ids(cols)
    if pending.any():
        gain *= np.where(pending[candidates], pol.pending, 1.0)
    # A record lists at most one value per two tokens of the budget: of more candidates than
    # twice that (a 1.6 MB code block, a 40,000-row table), only the best are made items, so
    # a view does not build a hundred thousand items to list a few hundred.
    cap = max(LIMITS.candidates_min, scene.budget)
    beyond: frozenset[int] = frozenset()  # candidates not made items: dropped, as the record counts
    if len(candidates) > cap:
        keep = np.sort(np.argsort(-gain, kind="stable")[:cap])
        beyond = frozenset(np.delete(candidates, keep).tolist())
        candidates, gain, first, ends = candidates[keep], gain[keep], first[keep], ends[keep]
    # Each value is listed from its newest occurrence that gives it a key or a context
    # ("trip to England", not the later "Where in England was it?"), among its newest few.
    memo = _row_memo(cols)
    at_row = _sources(memo, rows_sorted, first, ends, owners, lit_idx, item_of, partial(_has_context, cols))
    row_items = memo.items
    count = scene.count
    kept = cols.memo(_Candidates)
    row_at = np.maximum(at_row, 0)
    facts = _row_facts(cols, units, owners, kept, row_items, at_row[at_row >= 0], count)
    source = np.full(n_lits, -1, dtype=np.int64)
    source[candidates] = np.where(at_row >= 0, owners[np.maximum(at_row, 0)], occ[first])
    number = cols.kind_code("number")
    if number >= 0:
        # A number a capitalised noun names ("Certificate 4856383", record.item_for) is an id,
        # worth what one is, not what a count is.
        named = (cols.lit_kind.view[candidates] == number) & (at_row >= 0) & facts.named[row_at]
        gain[named] *= pol.typed_value / pol.number_value
    # Diminishing returns: the k-th best value of one unit is worth 1 / (1 + k / PER_UNIT)
    # (an entry of hundreds of values from one log line is read by nobody).
    src = source[candidates]
    if outputs.any():
        # A line of a tool's output that only lists names: the agent can list them again,
        # and a hundred file names crowd out what it found.
        in_output = np.flatnonzero(outputs[u_msg[src]] & (at_row >= 0))
        listing = memo.listing
        at = at_row[in_output]
        fresh = at[listing[at] == 0]
        if len(fresh):
            classes = []
            for r, u, line in zip(fresh.tolist(), owners[fresh].tolist(), _LINE_KIND[cols.u_kind.view[owners[fresh]]]
                                  .tolist()):
                item = row_items[r]
                classes.append(2 if listing_line(item.text, strict=not line) else 1 if not line or item.key is not None
                               else 3 if defines(units[u].text) else 4)
            listing[fresh] = classes
        gain[in_output[listing[at] == 3]] *= pol.defines
        read = reading_messages(cols, outputs)[u_msg[src[in_output]]]
        gain[in_output[read & (listing[at] == 4)]] *= pol.read_line
        hits = in_output[listing[at] == 2]
        if len(hits):
            # One listing of many lines is one listing: its values past the first few, in
            # whichever lines they stand, are worth less again (a file tree of 300 lines).
            gain[hits] *= pol.listing / (1.0 + _rank_within(u_msg[src[hits]], gain[hits]) / pol.listing_per_message)
    if verdicts is not None:  # a command's verdict is its record's first entry too ("12 passed in 0.15s")
        gain[verdicts[src]] *= pol.outcome
    harness = harness_units(cols)
    if harness.any():
        told = np.flatnonzero(harness[src])
        sentinel = np.array([_SENTINEL.fullmatch(cols.lit_text[c]) is not None for c in candidates[told].tolist()],
                            dtype=bool)
        gain[told[~sentinel]] *= pol.harness
    # A template's comments (see record.comment_units): no reader's values. Not made items:
    # dropped, as the record counts.
    hidden = comment_units(cols)[src]
    if hidden.any():
        beyond = beyond | frozenset(candidates[hidden].tolist())
    gain /= 1.0 + _rank_within(src, gain) / pol.record_per_unit
    # And of one message: an entry of six hundred values from one 150 KB diff (6,800 tokens of
    # fragments) reads worse than more of the diff's own text.
    gain /= 1.0 + np.maximum(_rank_within(u_msg[src], gain, pol.record_per_message) - pol.record_per_message, 0.0) \
        / pol.record_per_message  # (only a message of more than record_per_message values is ranked)
    have = at_row[at_row >= 0]
    uncounted = unique_ids(have[memo.cost[have] < 0], len(memo.cost))
    if len(uncounted):
        costs = [_item_costs(row_items[r], count) for r in uncounted.tolist()]
        memo.cost[uncounted] = [c for c, _ in costs]
        memo.value_cost[uncounted] = [v for _, v in costs]
    # Which candidates are made items, as the record reads them in literal order: not a value
    # the cap or a comment dropped, not a row without an item, not a session's date line after
    # its first value (it lists all of them), not a line of code or a short list item after
    # its first value (one item lists the line's values).
    n_c = len(candidates)
    place = np.arange(n_c)
    made = at_row >= 0
    if hidden.any():
        made &= ~hidden
    header = made & facts.header[row_at]
    if header.any():
        first_header = np.full(len(units), n_c)
        np.minimum.at(first_header, src[header], place[header])
        made &= ~(first_header[src] < place)
    span = np.where(made, facts.span[row_at], -1)
    spanned = np.flatnonzero(span >= 0)
    if len(spanned):
        firsts = spanned[first_of_each(span[spanned])]  # (the first of each, in literal order)
        made[spanned] = False  # (every spanned candidate is made: its span is -1 otherwise)
        made[firsts] = True
        spanned = firsts
        spanned.sort()
    picked = np.flatnonzero(made)
    rows_of = at_row[picked]
    item_rows = rows_of.tolist()  # (thousands a view: one itemgetter call, not a loop)
    items: list[Item] = list(itemgetter(*item_rows)(row_items)) if len(item_rows) > 1 \
        else [row_items[r] for r in item_rows]  # type: ignore[misc]
    item_gain = gain[picked].copy()
    # What the items list, read from the rows' arrays (a walk of every item's covers was a
    # third of a view's first plan): each row's item's own, and what a span's item lists
    # beside it (_cover_lines: an item widened lists its row item's covers and those).
    covered = _covered(cols, facts, row_items, rows_of)
    if len(spanned):
        # One item lists every value its line of code (short list item, or head of a line's
        # labels) shows: the line's tokens are paid once for all of them. (Not in prose: there it took
        # LoCoMo's with-context recall at 25% from 90.2 to 87.5, one span keying two
        # values by each other.)
        inner = _cover_lines(cols, kept.covering, facts, span[spanned], candidates, gain, src[spanned], spanned,
                             np.searchsorted(picked, spanned), items, item_gain)
        if len(inner):
            covered = np.concatenate([covered, inner])
    header_at = np.flatnonzero(facts.header[rows_of])
    if len(header_at):  # a date line is worth each value it lists
        item_gain[header_at] *= np.array([len(items[i].covers) for i in header_at.tolist()], dtype=np.float64)
    keyed = np.flatnonzero(facts.keyed[rows_of])
    value_cost = dict(zip(keyed.tolist(), memo.value_cost[rows_of[keyed]].tolist()))
    # A record's head and braces, paid once per group: the cost of its first item's row.
    groups = facts.group[rows_of]
    in_row = np.flatnonzero(facts.in_row[rows_of])
    first_of_group = first_of_each(groups[in_row])
    row_cost = dict(zip(groups[in_row[first_of_group]].tolist(),
                        facts.row_cost[rows_of[in_row[first_of_group]]].tolist()))
    key_named = np.zeros(len(items), dtype=bool)
    terms = scene.terms
    if terms and len(keyed):
        # (A named key's values are listed first, in the record's first claim; weighing
        # them more as well moved no measure: docs/changes.md, "focus_key".)
        keys_named: dict[str, bool] = {}  # a key -> whether the focus names it

        def names(key: str) -> bool:
            hit = keys_named.get(key)
            if hit is None:
                hit = keys_named[key] = _names_key(key, terms)
            return hit

        for i in keyed.tolist():
            key_named[i] = names(items[i].key)  # type: ignore[arg-type]
        if key_named.any():
            _name_results(cols, items, key_named, row_items, at_row, len(units), row_cost, count, names)
    return Listable(items, item_gain, memo.cost[rows_of], value_cost, _EntryCosts(cols, kept.label_costs, count),
                    _HeaderCosts(count), beyond, row_cost, key_named, header_at, covered)


def _name_results(cols: Columns, items: list[Item], key_named: np.ndarray, row_items: Sequence[Item | None],
                  at_row: np.ndarray, n_units: int, row_cost: dict[int, float], count: Callable[[str], float],
                  names: Callable[[str], bool]) -> None:
    """A value the question asks for across many results is listed with what names its
    result (``{ticket: OPS-4000, p99_latency_ms: 955}``: which ticket's p99?): rewrites, in
    place, each named item not already in a row under the field :func:`.names.result_name`
    finds for its result."""
    listed_keys: dict[int, set[str]] = {}  # a message -> the keys of its values the record may list
    for r in at_row[at_row >= 0].tolist():
        it = row_items[r]
        if it is not None and it.key is not None:
            listed_keys.setdefault(it.message, set()).add(it.key)
    result_rows: dict[int, str | None] = {}  # a tool result -> the field that names it
    for i in np.flatnonzero(key_named).tolist():
        item = items[i]
        if item.row is not None:
            continue
        m = item.message
        if m not in result_rows:
            result_rows[m] = result_name(cols, m, listed_keys.get(m, set()), names)
        row = result_rows[m]
        if row is None:
            continue
        items[i] = item = Item(item.literal, item.unit, item.message, item.text, item.span, item.covers, item.header,
                               item.key, item.value, row, name_group(n_units, m))
        if item.group not in row_cost:
            row_cost[item.group] = count("{" + row + ", }")


@dataclass
class _Facts:
    """Per row of the literal index whose item a view has read, what making the record's
    items reads of that item on every view, as arrays (the conversation's memo, see
    ``Columns.memo``: a row's item never changes, see ``sources._RowMemo``). A loop over
    every candidate of every view, reading its item's fields, was most of a turn's record
    upkeep; now a view reads these arrays."""

    UNREAD: ClassVar[int] = -2
    span: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """The id of the (unit, span) its item shows when one item lists every value of that
    span (a line of code, a short list item, a line's head: see :func:`_items`); -1 when it
    does not, -2 while the row is not read."""
    header: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Its item is a session's date line."""
    keyed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Its item has a key."""
    named: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Its item is a number a capitalised noun names (``NAMED_NUMBER``)."""
    in_row: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Its item is one record of a list (``Item.row``)."""
    group: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Its item's group (``Item.group``)."""
    row_cost: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """The tokens of ``{row, }`` of its item's row."""
    spans: dict[tuple[int, tuple[int, int]], int] = field(default_factory=dict)
    """(unit, span) -> its id."""
    span_ptr: list[int] = field(default_factory=lambda: [0])
    span_lits: list[int] = field(default_factory=list)
    """The literal ids span id ``s`` states: ``span_lits[span_ptr[s]:span_ptr[s + 1]]``
    (:func:`_shown_in`)."""
    cover_at: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Where its item's ``covers`` start in ``cover_lits``."""
    cover_n: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """How many literals its item covers (-1 while not read: read apart from the flags above,
    which a shared cache may fill, see :func:`_covered`)."""
    cover_lits: list[int] = field(default_factory=list)
    """The rows' items' ``covers``, row after row as they were read."""

    def grow(self, n: int) -> None:
        """Room for ``n`` rows, grown by doubling (as ``sources._RowMemo``)."""
        have = len(self.span)
        if n <= have:
            return
        more = max(n, 2 * have) - have
        self.span = np.concatenate([self.span, np.full(more, self.UNREAD, dtype=np.int64)])
        self.header = np.concatenate([self.header, np.zeros(more, dtype=bool)])
        self.keyed = np.concatenate([self.keyed, np.zeros(more, dtype=bool)])
        self.named = np.concatenate([self.named, np.zeros(more, dtype=bool)])
        self.in_row = np.concatenate([self.in_row, np.zeros(more, dtype=bool)])
        self.group = np.concatenate([self.group, np.zeros(more, dtype=np.int64)])
        self.row_cost = np.concatenate([self.row_cost, np.zeros(more)])
        self.cover_at = np.concatenate([self.cover_at, np.zeros(more, dtype=np.int64)])
        self.cover_n = np.concatenate([self.cover_n, np.full(more, -1, dtype=np.int64)])


def _row_facts(cols: Columns, units: Sequence[Unit], owners: np.ndarray, kept: _Candidates,
               row_items: list[Item | None], rows: np.ndarray, count: Callable[[str], int]) -> _Facts:
    """The conversation's :class:`_Facts`, with ``rows`` (rows with an item) read."""
    facts = cols.memo(_Facts)
    facts.grow(len(row_items))
    new = rows[facts.span[rows] == _Facts.UNREAD]
    if not len(new):
        return facts
    u_kind = cols.u_kind.view
    list_item = UNIT_KINDS.index("list_item")
    # (the flags gathered in lists and put in one assignment each: a first view reads a thousand
    # rows here, and a numpy scalar store per flag per row was a third of it)
    rows_read = unique_ids(new, len(row_items))
    read = rows_read.tolist()
    header, keyed, named, span = [], [], [], []
    in_row, groups, costs = [], [], []
    named_number, spans, row_costs = NAMED_NUMBER.fullmatch, facts.spans, kept.row_costs
    read_units = owners[rows_read]
    for r, u, kind in zip(read, read_units.tolist(), u_kind[read_units].tolist()):
        item = row_items[r]
        assert item is not None
        header.append(item.header)
        keyed.append(item.key is not None)
        named.append(named_number(item.text) is not None)
        if item.row is not None:
            in_row.append(r)
            groups.append(item.group)
            cost = row_costs.get(item.row)
            if cost is None:
                cost = row_costs[item.row] = count("{" + item.row + ", }")
            costs.append(cost)
        if item.key is None and item.span is not None and not item.header and (
                _LINE_KIND[kind] or kind == list_item and (
                    item.span == _short_span(kept.short_spans, units, u) or item.row == item.text)):
            sid = spans.get((u, item.span))
            if sid is None:
                sid = spans[u, item.span] = len(spans)
                facts.span_lits.extend(_shown_in(cols, units, kept.inner, u, item.span))
                facts.span_ptr.append(len(facts.span_lits))
            span.append(sid)
        else:
            span.append(-1)
    facts.header[read] = header
    facts.keyed[read] = keyed
    facts.named[read] = named
    facts.span[read] = span
    if in_row:
        facts.in_row[in_row] = True
        facts.group[in_row] = groups
        facts.row_cost[in_row] = costs
    return facts


def _covered(cols: Columns, facts: _Facts, row_items: list[Item | None], rows: np.ndarray) -> np.ndarray:
    """The ``covers`` of the items of ``rows``, laid end to end, read from ``facts`` (each
    row's read from its item once: a row's item never changes)."""
    new = unique_ids(rows[facts.cover_n[rows] < 0], len(facts.cover_n))
    if len(new):
        # (a first view reads a thousand rows here: their covers fetched in one call, laid
        # end to end in one extend, their places found by one cumulative sum)
        lits = facts.cover_lits
        covers = [it.covers for it in itemgetter(*new.tolist())(row_items)] if len(new) > 1 \
            else [row_items[int(new[0])].covers]  # type: ignore[union-attr]
        n = np.fromiter(map(len, covers), dtype=np.int64, count=len(covers))
        facts.cover_at[new] = len(lits) + np.cumsum(n) - n
        facts.cover_n[new] = n
        lits.extend(chain.from_iterable(covers))
    lo, n_cov = facts.cover_at[rows], facts.cover_n[rows]
    flat = cols.grown("_record_item_covers", facts.cover_lits, np.int64)
    return flat[np.repeat(lo - (np.cumsum(n_cov) - n_cov), n_cov) + np.arange(int(n_cov.sum()))]


def _cover_lines(cols: Columns, covering: dict[tuple, Item], facts: _Facts, sids: np.ndarray, candidates: np.ndarray,
                 gain: np.ndarray, units: np.ndarray, spanned: np.ndarray, at: np.ndarray, items: list[Item],
                 item_gain: np.ndarray) -> np.ndarray:
    """The items of candidates ``spanned`` (places among ``candidates``; ``at``: their places
    among ``items``; ``sids``, ``units``: their spans and units) widened to list every other
    candidate their span shows, each worth its own gain and theirs; returned: the values
    they list beside their own."""
    ptr = cols.grown("_record_span_ptr", facts.span_ptr, np.int64)
    flat = cols.grown("_record_span_lits", facts.span_lits, np.int64)
    lo = ptr[sids]
    lengths = ptr[sids + 1] - lo
    seg = np.repeat(np.arange(len(sids)), lengths)
    shown = flat[np.repeat(lo - (np.cumsum(lengths) - lengths), lengths) + np.arange(int(lengths.sum()))]
    own = candidates[spanned]
    candidate = np.zeros(len(cols.lit_text), dtype=bool)
    candidate[candidates] = True
    inside = candidate[shown] & (shown != own[seg])
    inner_lits, inner_seg = shown[inside], seg[inside]
    n = np.bincount(inner_seg, minlength=len(sids))
    if not n.any():
        if len(covering) > len(cols.u_msg.view):
            _bound(covering, [])
        return inner_lits
    by_lit = np.zeros(len(cols.lit_text))
    by_lit[candidates] = gain
    weights = by_lit[inner_lits]
    # Each span's added gain, summed value by value in order, as numpy sums an array of
    # fewer than eight values; longer ones are summed by numpy itself (pairwise): the same
    # sum, to the last bit, as the candidate's own (a ranking must not move with how it was
    # computed).
    starts = np.cumsum(n) - n
    added = np.bincount(inner_seg, weights=weights, minlength=len(sids))
    for j in np.flatnonzero(n >= 8).tolist():
        added[j] = float(weights[starts[j]:starts[j] + n[j]].sum())
    has = np.flatnonzero(n > 0)
    item_gain[at[has]] += added[has]
    # A span that lists the same values as on the view before takes the same item (the
    # one ``covering`` holds for them): only the spans whose values changed are looked up.
    last = cols.memo(_LastCovers)
    spans, lo, k, owns = sids[has], starts[has], n[has], own[has]
    same = last.unchanged(spans, owns, lo, k, inner_lits)
    wider_of = last.wider
    kept_at = at[has[same]].tolist()
    if kept_at:  # (a thousand a view: their items fetched in one call)
        for a, wider in zip(kept_at, itemgetter(*spans[same].tolist())(wider_of) if len(kept_at) > 1
                            else [wider_of[int(spans[same][0])]]):
            items[a] = wider
    changed = np.flatnonzero(~same)
    listed = inner_lits.tolist()
    for a, u, sid, start, m in zip(at[has[changed]].tolist(), units[has[changed]].tolist(), spans[changed].tolist(),
                                   lo[changed].tolist(), k[changed].tolist()):
        item = items[a]
        inner = tuple(listed[start:start + m])
        key = (u, item.span, item.literal, inner)  # (its own value too: another value of the span may be the candidate)
        wider = covering.get(key)
        if wider is None:
            wider = covering[key] = widened(item, item.covers + inner)
        items[a] = wider_of[sid] = wider
    last.keep(spans, owns, lo, k, inner_lits)
    if len(covering) > len(cols.u_msg.view):
        _bound(covering, [wider_of[s] for s in spans.tolist()])
    return inner_lits


def _bound(covering: dict[tuple, Item], listed: list[Item]) -> None:
    """``covering`` bounded by the history, not by the views taken (~95 new keys a turn on a
    long agent run): once it holds more entries than the conversation has units, the items
    this view lists (``listed``) are kept, the others dropped; one asked for again is made
    again, the same item (a view reads an item's fields, never its identity)."""
    live = set(map(id, listed))
    kept = {key: item for key, item in covering.items() if id(item) in live}
    covering.clear()
    covering.update(kept)


@dataclass
class _LastCovers:
    """The values each span's item listed beside its own on the view before, and that item
    (the conversation's memo, see ``Columns.memo``), by span id (see ``_Facts.spans``)."""

    lits: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """The values listed, span after span."""
    start: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Per span id, where its values start in ``lits`` (-1: not listed on the view before)."""
    count: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Per span id, how many values it listed."""
    own: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Per span id, the value whose item it was."""
    wider: dict[int, Item] = field(default_factory=dict)
    """Per span id, the item that listed them."""
    listed: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """The span ids listed on the view before."""

    def unchanged(self, spans: np.ndarray, owns: np.ndarray, lo: np.ndarray, k: np.ndarray,
                  lits: np.ndarray) -> np.ndarray:
        """Per span of ``spans`` (the item of value ``owns[j]``, listing ``lits[lo[j]:lo[j] + k[j]]``
        beside it), whether it is the same value's item listing the same values, in the same
        order, as on the view before."""
        known = spans < len(self.start)
        at = np.where(known, spans, 0)
        was = np.where(known, self.start[at] if len(self.start) else -1, -1)
        same = (was >= 0) & (self.count[at] == k if len(self.count) else False) \
            & (self.own[at] == owns if len(self.own) else False)
        check = np.flatnonzero(same)
        if len(check):
            m = k[check]
            offsets = np.arange(int(m.sum())) - np.repeat(np.cumsum(m) - m, m)
            differ = lits[np.repeat(lo[check], m) + offsets] != self.lits[np.repeat(was[check], m) + offsets]
            same[check[np.bincount(np.repeat(np.arange(len(check)), m)[differ], minlength=len(check)) > 0]] = False
        return same

    def keep(self, spans: np.ndarray, owns: np.ndarray, lo: np.ndarray, k: np.ndarray, lits: np.ndarray) -> None:
        """Remember this view's spans and their values for the next view."""
        top = int(spans.max()) + 1 if len(spans) else 0
        if top > len(self.start):
            more = max(top, 2 * len(self.start)) - len(self.start)
            self.start = np.concatenate([self.start, np.full(more, -1, dtype=np.int64)])
            self.count = np.concatenate([self.count, np.zeros(more, dtype=np.int64)])
            self.own = np.concatenate([self.own, np.full(more, -1, dtype=np.int64)])
        self.start[self.listed] = -1
        self.start[spans], self.count[spans], self.own[spans] = lo, k, owns
        self.lits, self.listed = lits, spans


class _EntryCosts(dict):
    """Message -> the tokens of its record entry's label, found when the take first asks
    (a view lists a few hundred of the thousands of messages its candidates come from)."""

    def __init__(self, cols: Columns, known: dict[int, tuple[str | None, float]], count: Callable[[str], int]) -> None:
        super().__init__()
        self._cols, self._known, self._count = cols, known, count

    def __missing__(self, m: int) -> float:
        speaker = self._cols.speaker(m)
        known = self._known.get(m)
        if known is None or known[0] != speaker:  # (a label changes only when its speaker starts to count)
            label = message_label(self._cols, self._cols.messages[m])
            known = self._known[m] = (speaker, self._count(label + ": ") + 1.0)
        self[m] = known[1]
        return known[1]


class _HeaderCosts(dict):
    """A session's date line -> its tokens in the record, found when the take first asks."""

    def __init__(self, count: Callable[[str], int]) -> None:
        super().__init__()
        self._count = count

    def __missing__(self, text: str) -> float:
        cost = self[text] = self._count(text) + 1.0
        return cost


_KEY_PART = re.compile(r"[^.\[\]]+")
_KEY_WORD = re.compile(r"[a-z]{3,}")


def _names_key(key: str, terms: frozenset[str]) -> bool:
    """Whether the focus's ``terms`` name a record key: its last part (``address1`` of
    ``address.address1``, ``price`` of ``flights[1].price``), or each of its words where it
    has two or more (``last_four``; not ``user_id`` by "user"), or one word of it that is a
    measure's name (``p99`` of ``p99_latency_ms``: letters and digits), or any word of it
    but where the key names a thing by it (``total`` of ``total_price``, ``latency`` of
    ``p99_latency_ms``; not ``user_id`` by "user", an id of the user), or an abbreviation of
    a term (``db`` of "database", ``qty`` of "quantity": the key's letters in the term's
    order, from its first)."""
    parts = _KEY_PART.findall(key)
    if not parts:
        return False
    last = parts[-1].strip()
    lower = last.lower()
    words = _KEY_WORD.findall(lower)
    if lower in terms or len(words) > 1 and all(w in terms for w in words):
        return True
    pieces = [p.lower() for p in _KEY_PIECE.findall(last)]
    if any(p in terms for p in pieces if _MEASURE_NAME.fullmatch(p)):
        return True
    if len(pieces) > 1 and pieces[-1] not in _NAMING_PARTS and any(p in terms for p in pieces if len(p) >= 3):
        return True
    return _ABBREVIATION.fullmatch(lower) is not None and any(
        len(t) >= 2 * len(lower) and t[0] == lower[0] and _subsequence(lower, t) for t in terms)


_KEY_PIECE = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")  # p99LatencyMs, p99_latency_ms: p99, latency, ms
_MEASURE_NAME = re.compile(r"[a-z]{1,4}[0-9]{1,3}")  # p99, p95, ipv4
_NAMING_PARTS = frozenset({"id", "ids", "name", "names", "number", "no", "code", "key", "type", "uuid"})
_ABBREVIATION = re.compile(r"[a-z]{2,4}")


def _subsequence(short: str, word: str) -> bool:
    letters = iter(word)
    return all(c in letters for c in short)


def _short_span(memo: dict, units: Sequence[Unit], u: int) -> tuple[int, int] | None:
    """``short_item_span`` of unit ``u``, read once (a unit's text never changes)."""
    if u in memo:
        return memo[u]
    span = memo[u] = short_item_span(units[u])
    return span


_PLACED_KEY = re.compile(r"[A-Za-z_][\w\-]{0,40}\[\d{1,6}(?:; ([^\]]{1,90}))?\]\.")


def _item_costs(item: Item, count: Callable[[str], int]) -> tuple[float, float]:
    """Tokens of an item in the record, and of its ", value" after another value of its key."""
    placed = None if item.key is None else _PLACED_KEY.match(item.text)
    # a field of one object of an array is shown in that object's braces, its path
    # said once (record._nested): "{first_name: Chen, …}", not "passengers[0].first_name"
    # (the object's naming field, shown once in its braces, is not charged to each field:
    # three fields of a passenger paid her name thrice, and the note listed less)
    cost = count(item.text[placed.end():] if placed else item.text) + (2.0 if placed else 1.0)
    return float(cost), float(count(", " + item.value)) if item.key is not None else 0.0


def _shown_in(cols: Columns, units: Sequence[Unit], cache: dict, u: int, span: tuple[int, int]) -> tuple[int, ...]:
    """The literal ids that unit ``u`` states inside ``span`` of its text (a unit's text never
    changes, so neither does this)."""
    found = cache.get((u, span))
    if found is None:
        by_start = cache.get(u)
        if by_start is None:  # a code block states thousands: one sort, then a bisection per span
            # (the literals alone, not the unit built, and no sort when they are in order, as
            # most are: a restored memory's first view reads a thousand units' here)
            got = units.literals(u) if isinstance(units, Units) else units[u].literals
            starts = [x[2] for x in got]
            if all(map(le, starts, islice(starts, 1, None))):
                lits = list(got)
            else:
                lits = sorted(got, key=lambda x: x.start)
                starts = [x.start for x in lits]
            by_start = cache[u] = (starts, lits)
        starts, lits = by_start
        ids = cols.lit_ids
        inside = []
        for x in lits[bisect.bisect_left(starts, span[0]):bisect.bisect_left(starts, span[1])]:
            if x.end <= span[1]:
                inside.append(ids[x.text])
        found = cache[u, span] = tuple(dict.fromkeys(inside))
    return found


# -- taking options ----------------------------------------------------------------------

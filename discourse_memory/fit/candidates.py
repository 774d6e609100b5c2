"""Record candidates: the items a view may list (each value left out, keyed from an
occurrence with a key or a context word), their gains and their costs."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
import re

import numpy as np

from ..columns import UNIT_KINDS, Columns
from ..literals import Literal
from ..plan import OMITTED
from ..record import NAMED_NUMBER, Item, comment_units, first_statements, harness_units, item_for, message_label, \
    prompt_units, short_item_span, talk_counts
from ..units import Unit
from .gains import _kind_values, _rank_within
from .signals import _SENTINEL, _outputs, defines, listing_line, pending_ids, reading_messages
from .sources import _has_context, _row_memo, _sources
from .limits import LIMITS
from .names import name_group, result_name
from .types import _LINE_KIND, Scene


@dataclass
class _Candidates:
    """What making record items reads once and keeps (the conversation's memo, see
    ``Columns.memo``: a unit's text, and so its items, never changes)."""

    inner: dict = field(default_factory=dict)
    """(unit, span) -> the literal ids it shows (:func:`_shown_in`)."""
    covering: dict[tuple, Item] = field(default_factory=dict)
    """(unit, span, literals) -> the item listing them."""
    label_costs: dict[int, tuple[str | None, float]] = field(default_factory=dict)
    """Message -> (its speaker, the tokens of its entry's label)."""
    short_spans: dict[int, tuple[int, int] | None] = field(default_factory=dict)
    """Unit -> its short item's span (:func:`_short_span`)."""
    row_costs: dict[str, int] = field(default_factory=dict)
    """A record's head -> the tokens of ``{head, }``."""


def _items(scene: Scene, decision: np.ndarray, shown: np.ndarray, noise: np.ndarray, rel: np.ndarray | None,
           recency: np.ndarray, header_of: list[str | None], units: Sequence[Unit], verdicts: np.ndarray | None,
           ) -> tuple[list[Item], np.ndarray, np.ndarray, dict[int, float], dict[int, float], dict[str, float],
                      frozenset[int], dict[int, float], np.ndarray]:
    """The record items a view may list: each value not shown by the base decisions, keyed
    from its newest occurrence with a key or a context word among the units that may be
    left out (else its newest)."""
    cols = scene.cols
    pol = scene.options.policy
    n_lits = len(cols.lit_text)
    if n_lits == 0:
        return [], np.zeros(0), np.zeros(0), {}, {}, {}, frozenset(), {}, np.zeros(0, dtype=bool)
    owners = cols.unit_owner(cols.lit_ptr.view)
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
        return [], np.zeros(0), np.zeros(0), {}, {}, {}, frozenset(), {}, np.zeros(0, dtype=bool)
    starts = cols.msg_start.view
    statements: dict[int, dict[str, Literal]] = {}  # unit -> first_statements, for units of many values

    built: dict[int, Unit] = {}  # a unit is built from its columns once, not once per value it states

    def item_of(u: int, lit: int) -> Item | None:
        """The item of a row no view has read (see _RowMemo: it is kept per row)."""
        unit = built.get(u)
        if unit is None:
            unit = built[u] = units[u]
        stated = None
        if len(unit.literals) > 16:
            stated = statements.get(u)
            if stated is None:
                stated = statements[u] = first_statements(unit)
        return item_for(cols, u, unit, lit, first=bool(starts[u_msg[u]] == u), stated=stated)

    lits, occ = lit_idx[rows], owners[rows]
    order = np.lexsort((-occ, lits))
    lits, occ = lits[order], occ[order]
    first = np.flatnonzero(np.r_[True, lits[1:] != lits[:-1]])  # a value's occurrences: first[j]:ends[j]
    ends = np.r_[first[1:], len(lits)]
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
        said = cols.literal_counts(~outputs[cols.u_msg.view]) > 0
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
    rows_sorted = rows[order]
    at_row = _sources(memo, rows_sorted, first, ends, lambda r: item_of(int(owners[r]), int(lit_idx[r])),
                      lambda r, item: _has_context(cols, item, int(lit_idx[r])))
    row_items = memo.items
    chosen: list[Item | None] = [row_items[r] if r >= 0 else None for r in at_row.tolist()]
    source = np.full(n_lits, -1, dtype=np.int64)
    source[candidates] = np.where(at_row >= 0, owners[np.maximum(at_row, 0)], occ[first])
    number = cols.kind_code("number")
    if number >= 0:
        # A number a capitalised noun names ("Certificate 4856383", record.item_for) is an id,
        # worth what one is, not what a count is.
        named = [k for k in np.flatnonzero(cols.lit_kind.view[candidates] == number).tolist()
                 if chosen[k] is not None and NAMED_NUMBER.fullmatch(chosen[k].text)]  # type: ignore[union-attr]
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
        for r in at[listing[at] == 0].tolist():
            item = row_items[r]
            line = _LINE_KIND[cols.u_kind.view[owners[r]]]
            listing[r] = 2 if listing_line(item.text, strict=not line) else 1 if not line or item.key is not None \
                else 3 if defines(units[int(owners[r])].text) else 4
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
    gain /= 1.0 + np.maximum(_rank_within(u_msg[src], gain) - pol.record_per_message, 0.0) / pol.record_per_message
    count = scene.count
    items: list[Item] = []
    keep_gain: list[float] = []
    keep_cost: list[float] = []
    keep_named: list[bool] = []  # per item, whether the focus (a question) names its key
    entry_cost: dict[int, float] = {}
    row_cost: dict[int, float] = {}
    header_cost: dict[str, float] = {}
    headers: dict[int, Item] = {}  # header unit -> its item
    value_cost: dict[int, float] = {}  # keyed item -> its cost after another value of its key
    spans_made: set[tuple[int, tuple[int, int]]] = set()
    u_kind = cols.u_kind.view
    list_item = UNIT_KINDS.index("list_item")
    kept = cols.memo(_Candidates)
    inner_cache = kept.inner
    at_of = dict(zip(candidates.tolist(), range(len(candidates))))  # literal -> its place among the candidates
    covering = kept.covering
    gains = gain.tolist()
    have = at_row[at_row >= 0]
    for r in np.unique(have[memo.cost[have] < 0]).tolist():
        memo.cost[r], memo.value_cost[r] = _item_costs(row_items[r], count)
    cost_of, value_cost_of = memo.cost[np.maximum(at_row, 0)].tolist(), memo.value_cost[np.maximum(at_row, 0)].tolist()
    srcs = source[candidates]
    # (per candidate, read once as lists: a value at a time, numpy's scalars cost more than the work)
    in_line, in_list = _LINE_KIND[u_kind[srcs]].tolist(), (u_kind[srcs] == list_item).tolist()
    # (what a message's label, a unit's short item and a record's head cost never change as the
    # conversation grows, but a label's speaker may start to count: read once, not per view)
    msg_label_cost = kept.label_costs
    short_spans = kept.short_spans
    row_costs = kept.row_costs
    terms = scene.terms
    keys_named: dict[str, bool] = {}  # a key -> whether the focus names it

    def names(key: str) -> bool:
        hit = keys_named.get(key)
        if hit is None:
            hit = keys_named[key] = _names_key(key, terms)
        return hit

    result_rows: dict[int, str | None] = {}  # a tool result -> the field that names it (.names)
    listed_keys: dict[int, set[str]] | None = None  # a message -> the keys of its values the record may list
    n_units = len(units)
    for k, (lit, u, m) in enumerate(zip(candidates.tolist(), srcs.tolist(), u_msg[srcs].tolist())):
        if u in headers or lit in beyond:
            continue  # the session's date line lists every value of it; a comment's are no values
        item = chosen[k]
        if item is None:
            continue
        if item.header:
            headers[u] = item
            header_cost[item.text] = count(item.text) + 1.0
        elif m not in entry_cost:
            speaker = cols.speaker(m)
            known = msg_label_cost.get(m)
            if known is None or known[0] != speaker:  # (a label changes only when its speaker starts to count)
                label = message_label(cols, cols.messages[m])
                known = msg_label_cost[m] = (speaker, count(label + ": ") + 1.0)
            entry_cost[m] = known[1]
            header = header_of[m]
            if header is not None and header not in header_cost:
                header_cost[header] = count(header) + 1.0
        g = gains[k]
        named = False
        if item.key is not None and terms:
            # (A named key's values are listed first, in the record's first claim; weighing
            # them more as well moved no measure: docs/changes.md, "focus_key".)
            named = names(item.key)
        if item.key is None and item.span is not None and not item.header and (
                in_line[k] or in_list[k] and (item.span == _short_span(short_spans, units, u) or item.row == item.text)):
            # One item lists every value its line of code (short list item, or head of a line's
            # labels) shows: the line's tokens are paid once for all of them. (Not in prose: there it took
            # LoCoMo's with-context recall at 25% from 90.2 to 87.5, one span keying two
            # values by each other.)
            if (u, item.span) in spans_made:
                continue
            spans_made.add((u, item.span))
            inner = tuple([c for c in _shown_in(cols, units, inner_cache, u, item.span) if c in at_of and c != lit])
            if inner:
                key = (u, item.span, inner)
                wider = covering.get(key)
                if wider is None:
                    wider = covering[key] = _covering(item, item.literal, item.covers + inner)
                item = wider
                g += float(gain[[at_of[c] for c in inner]].sum())
        if named and item.row is None:
            # A value the question asks for across many results is listed with what names
            # its result ("{ticket: OPS-4000, p99_latency_ms: 955}": which ticket's p99?).
            if m not in result_rows:
                if listed_keys is None:
                    listed_keys = {}
                    for it in chosen:
                        if it is not None and it.key is not None:
                            listed_keys.setdefault(it.message, set()).add(it.key)
                result_rows[m] = result_name(cols, m, listed_keys.get(m, set()), names)
            row = result_rows[m]
            if row is not None:
                item = Item(item.literal, item.unit, item.message, item.text, item.span, item.covers, item.header,
                            item.key, item.value, row, name_group(n_units, m))
                if item.group not in row_cost:
                    row_cost[item.group] = count("{" + row + ", }")
        if item.key is not None:
            value_cost[len(items)] = value_cost_of[k]
        if item.row is not None and item.group not in row_cost:
            cost = row_costs.get(item.row)
            if cost is None:
                cost = row_costs[item.row] = count("{" + item.row + ", }")
            row_cost[item.group] = cost
        items.append(item)
        keep_gain.append(g * (len(item.covers) if item.header else 1.0))
        keep_cost.append(cost_of[k])
        keep_named.append(bool(named))
    return (items, np.array(keep_gain), np.array(keep_cost), value_cost, entry_cost, header_cost, beyond, row_cost,
            np.array(keep_named, dtype=bool))


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


def _covering(item: Item, literal: int, covers: tuple[int, ...]) -> Item:
    """``item`` listing ``covers`` (built directly: ``dataclasses.replace`` was a tenth of a
    turn's record upkeep)."""
    return Item(literal, item.unit, item.message, item.text, item.span, covers, item.header, item.key, item.value,
                item.row, item.group)


def _shown_in(cols: Columns, units: Sequence[Unit], cache: dict, u: int, span: tuple[int, int]) -> tuple[int, ...]:
    """The literal ids that unit ``u`` states inside ``span`` of its text (a unit's text never
    changes, so neither does this)."""
    found = cache.get((u, span))
    if found is None:
        by_start = cache.get(u)
        if by_start is None:  # a code block states thousands: one sort, then a bisection per span
            lits = sorted(units[u].literals, key=lambda x: x.start)
            by_start = cache[u] = ([x.start for x in lits], lits)
        starts, lits = by_start
        ids = cols.lit_ids
        inside = []
        for x in lits[bisect.bisect_left(starts, span[0]):bisect.bisect_left(starts, span[1])]:
            if x.end <= span[1]:
                inside.append(ids[x.text])
        found = cache[u, span] = tuple(dict.fromkeys(inside))
    return found


# -- taking options ----------------------------------------------------------------------

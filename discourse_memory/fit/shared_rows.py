"""The fitting stage's row memo (:class:`.sources._RowMemo`), shared between workers.

Per row of the literal index (a unit stating a value), the record item the row gives, its
listing class and its costs: most of a fresh worker's first view (issue 49), and not a
function of one message (an item reads its unit's list heads, its JSON keys, its
message's label), so not in the per-text analysis entry. It is a function of the
conversation up to the row's message, though (the memo's own invariant: a row's item
never changes as the conversation grows), so the rows of messages ``a`` to ``b`` are
shared under a key of the conversation's first ``b`` messages, and serve every
conversation that starts with them.

Entries are per segment of messages (:func:`..cache_entry.segments`: messages 0-15, 16-31, ...
of the settled history, ``LIMITS.shared_segment * LIMITS.shared_group`` each, then 4 each:
128-131, 132-135), each holding the rows of its messages that views have read: a conversation's
entries together are at most its row memo twice (one key per segment end, a later write
replaces it; the short segments a settled one merged stay until they expire, unread), and a
warm worker writes the segment its turns completed, not the whole memo. A view reads the
entries of every complete segment of its conversation with its analyses, in their one
round trip, and computes the rows past the last one (fewer than a segment's messages')
and those no view had read.

Key: ``<settings>:r<b>:<tag>``, the analysis settings' digest (see :mod:`..analysis_cache`)
with this format's version, the segment's end ``b`` (which names it) and the compactor's chained digest of
the first ``b`` messages (every part of every message: :meth:`Compactor._columns`'s tags).

Value: the envelope of :mod:`..cache_entry`, as :mod:`..analysis_codec`'s: a magic, a BLAKE2b-128 digest of (key, body) (keyed by
the store's ``secret``), a zlib body of a JSON list of strings then integer columns, checked on
read against the reader's columns (rows within the segment's messages, an item's unit,
message and literal those of its row, every index in range). A row's context class is not
stored but recomputed. Whatever fails is a miss: the rows are computed.

With a row's item go its facts (``candidates._Facts``), where a view had read them: whether
its item lists the values of a span of its unit and which literals that span shows (a
bisection of the unit's literals per row: a tenth of a fresh worker's first view). Its
header, key and named-number flags are taken from the item itself, and so are its covers (as
``candidates._covered`` lays them end to end: a thousand items' on a first view); a row of a
list's records keeps its facts to the view (their cost is a token count there).

With its messages go their record labels, where a view had made them (``record.labels``:
``#12 tool (bash: ls)``, with the speaker it was made for and the tokens of ``label + ": "``):
the take asks for the labels of the fifty-odd messages its best candidates come from, a
millisecond and a half of a fresh worker's first view. A label is kept only for the speaker
the reader's columns give its message (a label changes only when its speaker starts to
count); one not of its message (``#<message> ``), or of a count out of bounds, refuses the entry.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

from ..cache_entry import seal, segments, unseal
from ..columns import Columns
from ..limits import LIMITS
from ..record import NAMED_NUMBER, built_items
from ..record.labels import LabelsMemo
from .candidates import _Candidates, _Facts
from .sources import _have_context, _row_memo

__all__ = ["SharedRows", "decode", "decode_many", "encode"]

MAGIC = b"DMR\x02"
ROWS_VERSION = "7"
"""Raised whenever what a row's item is (``record.item_for``, the listing classes, the costs)
changes: part of every key."""
PERSON = b"dm-rows"
"""The digest's personalisation (:mod:`..cache_entry`): an entry of another format never passes."""
# per row: row, has item, literal, unit, message, text, span start, span end (-1: none),
# covers, header, key (-1: none), value, row name (-1: none), group, listing, cost, value cost,
# and its facts' span (``candidates._Facts``: -2 not read, -1 none, else how many literals it shows);
# after the covers, per message of the entry its speaker (-1: none), then per label: message, speaker
# (-1: none), label, tokens of ``label + ": "``
_COLS = 18
_UNREAD = _Facts.UNREAD


def _row_range(cols: Columns, a: int, b: int) -> tuple[int, int]:
    """The rows of messages ``a`` to ``b - 1``."""
    starts, ptr = cols.msg_start.view, cols.lit_ptr.view
    return int(ptr[int(starts[a])]), int(ptr[int(starts[b])])


def encode(key: str, cols: Columns, a: int, b: int, secret: bytes = b"") -> bytes:
    """The entry of the rows of ``cols``' messages ``a`` to ``b - 1`` that views have read."""
    memo = _row_memo(cols)
    lo, hi = _row_range(cols, a, b)
    rows = (lo + np.flatnonzero(memo.state[lo:hi])).tolist()
    strings: dict[str, int] = {}
    s = strings.setdefault
    table: list[int] = []
    covers: list[int] = []
    shown: list[int] = []  # the literals of each read span, row after row
    items, listing, cost, value_cost = memo.items, memo.listing.tolist(), memo.cost.tolist(), memo.value_cost.tolist()
    facts = cols.memo(_Facts)
    fact_span, span_ptr, span_lits = facts.span, facts.span_ptr, facts.span_lits
    for r in rows:
        it = items[r]
        if it is None:
            table.extend((r, 0, -1, -1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, listing[r], int(cost[r]),
                          int(value_cost[r]), _UNREAD))
            continue
        span = it.span or (-1, -1)
        covers.extend(it.covers)
        # (a row of a list's records keeps its facts to the view: its cost is a count there)
        sid = int(fact_span[r]) if r < len(fact_span) and it.row is None else _UNREAD
        if sid >= 0:
            lits = span_lits[span_ptr[sid]:span_ptr[sid + 1]]
            shown.extend(lits)
            sid = len(lits)
        table.extend((r, 1, it.literal, it.unit, it.message, s(it.text, len(strings)), span[0], span[1],
                      len(it.covers), int(it.header), -1 if it.key is None else s(it.key, len(strings)),
                      s(it.value, len(strings)), -1 if it.row is None else s(it.row, len(strings)), it.group,
                      listing[r], int(cost[r]), int(value_cost[r]), sid))
    speakers = [-1 if who is None else s(who, len(strings)) for who in _speakers_of(cols, a, b)]
    labels: list[int] = []
    for m, speaker, label, tokens in _labels_of(cols, a, b):
        labels.extend((m, -1 if speaker is None else s(speaker, len(strings)), s(label, len(strings)), tokens))
    ints = np.asarray([a, b, len(rows), len(covers), *table, *shown, *covers, *speakers, *labels], dtype="<i8")
    return seal(MAGIC, PERSON, key, strings, ints, secret, 1)


def decode(key: str, blob: Any, cols: Columns, a: int, b: int, secret: bytes = b"") -> int:
    """Put the rows an entry holds into ``cols``' row memo; the rows put (-1: not a
    well-formed entry of this format, for this key and ``cols``' messages ``a`` to ``b - 1``:
    nothing put)."""
    return decode_many(cols, [(key, blob, a, b)], secret)[0]


def decode_many(cols: Columns, entries: list[tuple[str, Any, int, int]], secret: bytes = b"") -> list[int]:
    """:func:`decode` of each ``(key, blob, a, b)``, their numbers checked together (a few
    array operations for all the entries of a conversation, not for each)."""
    # (entry, a, b, strings, ints but the labels, shown, labels)
    opened: list[tuple[int, int, int, list[str], np.ndarray, int, list[tuple[int, str | None, str, int]]]] = []
    out = [-1] * len(entries)
    for e, (key, blob, a, b) in enumerate(entries):
        got = unseal(MAGIC, PERSON, key, blob, secret)
        if got is None or not 0 <= a < b <= len(cols.messages):
            continue
        strings, ints = got
        if len(ints) < 4:
            continue
        got_a, got_b, n_rows, n_covers = ints[:4].tolist()
        if (got_a, got_b) != (a, b) or min(n_rows, n_covers) < 0 or len(ints) < 4 + _COLS * n_rows + n_covers:
            continue
        n_shown = int(np.maximum(ints[4 + _COLS - 1:4 + _COLS * n_rows:_COLS], 0).sum())
        end = 4 + _COLS * n_rows + n_shown + n_covers
        labels = _labels(strings, ints[end + b - a:], a, b) if len(ints) >= end + b - a else None
        # (its messages' speakers as the writer's columns gave them: a message's items read its
        # speaker, and a later message can make one; an entry of other speakers is not taken)
        if labels is not None and _speakers(strings, ints[end:end + b - a]) == _speakers_of(cols, a, b):
            opened.append((e, a, b, strings, ints[:end], n_shown, labels))
    if not opened:
        return out
    n_rows_of = np.array([int(x[4][2]) for x in opened], dtype=np.int64)
    n_cov_of = np.array([int(x[4][3]) for x in opened], dtype=np.int64)
    n_shown_of = np.array([x[5] for x in opened], dtype=np.int64)
    table = np.concatenate([x[4][4:4 + _COLS * int(x[4][2])] for x in opened]).reshape(-1, _COLS)
    columns = np.ascontiguousarray(table.T)  # (a column a row: each read in one stretch of memory)
    shown = np.concatenate([x[4][4 + _COLS * int(x[4][2]):4 + _COLS * int(x[4][2]) + x[5]] for x in opened])
    covers = np.concatenate([x[4][4 + _COLS * int(x[4][2]) + x[5]:] for x in opened])
    eid = np.repeat(np.arange(len(opened)), n_rows_of)  # per row, its entry (of ``opened``)
    n_str = np.array([len(x[3]) for x in opened], dtype=np.int64)
    str_at = np.cumsum(n_str) - n_str  # each entry's strings in ``strings``
    starts, ptr = cols.msg_start.view, cols.lit_ptr.view
    ends_a = np.array([x[1] for x in opened], dtype=np.int64)
    ends_b = np.array([x[2] for x in opened], dtype=np.int64)
    first, limit = ptr[starts[ends_a]][eid], ptr[starts[ends_b]][eid]
    n_units = starts[ends_b][eid]
    n_lits, n_strings = len(cols.lit_text), n_str[eid]
    r, has, lit, unit, msg, text, sa, sb, n_cov, header, key, value, row, group, listing, cost, vcost, n_span = columns
    bad = ((r < first) | (r >= limit) | ((has != 0) & (has != 1)) | (listing < 0) | (listing > 4)
           | (cost < -1) | (vcost < 0) | ((has == 0) & (n_cov != 0)) | (n_span < _UNREAD)
           # (facts only of an item not of a list's records; a span's only of an item with a span, no key, no header)
           | ((n_span != _UNREAD) & ((has == 0) | (row != -1)))
           | ((n_span >= 0) & ((sa < 0) | (key != -1) | (header != 0))))
    bad[1:] |= (np.diff(r) <= 0) & (eid[1:] == eid[:-1])
    hit = (has == 1) & ~bad
    safe_r = np.where(hit, r, 0)
    safe_u = np.clip(unit, 0, max(len(cols.u_msg.view) - 1, 0))
    owners = np.searchsorted(ptr, safe_r, side="right") - 1
    # (an item's span, and a row's costs, within what its message's texts can hold: the characters
    # of its texts and calls, a generous bound for the tokens of what a row lists)
    u_msg = cols.u_msg.view
    chars = np.zeros(len(cols.messages) + 1, dtype=np.int64)
    room = np.zeros(len(r), dtype=np.int64)
    if len(u_msg) and len(cols.lit_idx.view):
        row_msg = u_msg[np.clip(np.searchsorted(ptr, np.clip(r, 0, len(cols.lit_idx.view) - 1), side="right") - 1,
                                0, len(u_msg) - 1)]  # (each row's message, where its number is in range)
        for m in np.unique(row_msg).tolist():
            message = cols.messages[m]
            chars[m] = sum(len(tf.text) for tf in message.texts) + sum(len(c.arguments) for c in message.tool_calls)
        room = chars[row_msg]
    bad |= (cost > 4 * (room + 64)) | (vcost > 4 * (room + 64))
    bad |= (has == 1) & (
        (sb > room) |
        (unit != owners) | (msg != cols.u_msg.view[safe_u]) | ((header != 0) & (header != 1))
        | ((header == 0) & (lit != cols.lit_idx.view[safe_r])) | (lit < 0) | (lit >= n_lits) | (n_cov < 1)
        | ~(((sa == -1) & (sb == -1)) | ((sa >= 0) & (sb >= sa)))
        | (text < 0) | (text >= n_strings) | (value < 0) | (value >= n_strings) | (key < -1) | (key >= n_strings)
        | (row < -1) | (row >= n_strings) | (group < -1) | (group >= n_units))
    refused = np.bincount(eid, weights=bad, minlength=len(opened)) > 0
    counted = np.where(has == 1, n_cov, 0)
    refused |= np.bincount(eid, weights=counted, minlength=len(opened)) != n_cov_of
    # Where each item's covers start in ``covers``: its entry's, then the items before it there.
    at_cov = _starts(counted, eid, n_rows_of, n_cov_of)
    if len(shown):
        shown_eid = np.repeat(np.arange(len(opened)), n_shown_of)
        refused |= np.bincount(shown_eid, weights=(shown < 0) | (shown >= n_lits), minlength=len(opened)) > 0
    if len(covers):
        cov_eid = np.repeat(np.arange(len(opened)), n_cov_of)
        refused |= np.bincount(cov_eid, weights=(covers < 0) | (covers >= n_lits), minlength=len(opened)) > 0
        if not refused.all():
            # (an item's covers open with its literal: where the counts hold, the first of each)
            ok_rows = (has == 1) & ~refused[eid]
            wrong = covers[at_cov[ok_rows]] != lit[ok_rows]
            refused |= np.bincount(eid[ok_rows], weights=wrong, minlength=len(opened)) > 0
    memo = _row_memo(cols)
    state, items, lit_idx = memo.state, memo.items, cols.lit_idx.view
    strings: list[str | None] = [t for x in opened for t in x[3]]
    taken = np.flatnonzero(~refused[eid])
    rows_t = r[taken]
    # (the numbers of every row taken at once)
    memo.listing[rows_t], memo.cost[rows_t], memo.value_cost[rows_t] = listing[taken], cost[taken], vcost[taken]
    bare = rows_t[has[taken] == 0]
    state[bare] = 1
    for rr in bare.tolist():
        items[rr] = None
    taken = taken[has[taken] == 1]
    rows_t = r[taken]
    state[rows_t] = np.where(_have_context(cols, header[taken] != 0, key[taken] >= 0, sa[taken], sb[taken],
                                           lit_idx[rows_t]), 3, 2)
    # The items, column by column (a loop of a row's eighteen numbers unpacked, an item built
    # by its dataclass __init__ and its facts appended was most of this: issue 49).
    at = str_at[eid][taken]
    strings.append(None)  # (the string of index -1: a key or a row an item has not)
    none = len(strings) - 1
    # (looked up by an array of the strings, in C: a look-up per item in Python took three times this)
    of = np.array(strings, dtype=object)
    texts = of[at + text[taken]].tolist()
    keys = of[np.where(key[taken] >= 0, at + key[taken], none)].tolist()
    values = of[at + value[taken]].tolist()
    heads = of[np.where(row[taken] >= 0, at + row[taken], none)].tolist()
    # (tuples made by zip, then the few rows that differ: an item without a span, -1 both
    # as checked; one of more covers than its literal, with which its covers open as checked)
    spans_of: list[tuple[int, int] | None] = list(zip(sa[taken].tolist(), sb[taken].tolist()))
    for j in np.flatnonzero(sa[taken] < 0).tolist():
        spans_of[j] = None
    lits_t = lit[taken].tolist()
    covered = list(zip(lits_t))
    n_cov_t = n_cov[taken]
    more = np.flatnonzero(n_cov_t != 1)
    if len(more):
        cov = covers.tolist()
        for j, c0, c1 in zip(more.tolist(), at_cov[taken[more]].tolist(), (at_cov[taken[more]] + n_cov_t[more]).tolist()):
            covered[j] = tuple(cov[c0:c1])
    built = built_items(lits_t, unit[taken].tolist(), msg[taken].tolist(), texts, spans_of, covered,
                        (header[taken] != 0).tolist(), keys, values, heads, group[taken].tolist())
    for rr, it in zip(rows_t.tolist(), built):
        items[rr] = it
    # Their facts, where a view had read them (as candidates._row_facts finds them: that reads
    # them no more). A span's id is given in row order, as that gives it.
    facts = cols.memo(_Facts)
    facts.grow(len(items))
    spans, span_ptr, span_lits = facts.spans, facts.span_ptr, facts.span_lits
    ns_t = n_span[taken]
    was_read = ns_t != _UNREAD
    read = rows_t[was_read]
    read_header = header[taken][was_read] != 0
    read_keyed = key[taken][was_read] >= 0
    named_number = NAMED_NUMBER.fullmatch
    read_named = [named_number(t) is not None for t, y in zip(texts, was_read.tolist()) if y]
    read_span = np.full(len(read), -1, dtype=np.int64)
    if (ns_t >= 0).any():
        # Where each row's span literals start in ``shown``: its entry's, then the rows before it there.
        at_shown = _starts(np.maximum(n_span, 0), eid, n_rows_of, n_shown_of)[taken]
        with_span = np.flatnonzero(ns_t >= 0)
        place = np.flatnonzero(ns_t[was_read] >= 0)
        if not spans:
            _new_spans(facts, unit[taken[with_span]], sa[taken[with_span]], sb[taken[with_span]],
                       at_shown[with_span], ns_t[with_span], shown, place, read_span)
        else:
            shown_l = shown.tolist()
            for j, p, u, s0, ns in zip(with_span.tolist(), place.tolist(), unit[taken[with_span]].tolist(),
                                       at_shown[with_span].tolist(), ns_t[with_span].tolist()):
                sid = spans.get((u, spans_of[j]))  # type: ignore[arg-type]
                if sid is None:
                    sid = spans[u, spans_of[j]] = len(spans)  # type: ignore[index]
                    span_lits.extend(shown_l[s0:s0 + ns])
                    span_ptr.append(len(span_lits))
                read_span[p] = sid
    if len(read):
        unread = facts.span[read] == _UNREAD  # (facts found here before are kept)
        read, read_header, read_keyed, read_span = read[unread], read_header[unread], read_keyed[unread], read_span[unread]
        facts.header[read] = read_header
        facts.keyed[read] = read_keyed
        facts.named[read] = np.asarray(read_named, dtype=bool)[unread]
        facts.span[read] = read_span
    # Every item's covers, as candidates._covered reads them from the items (a thousand rows'
    # on a first view): laid end to end from the entries' numbers at once.
    fresh = facts.cover_n[rows_t] < 0  # (covers read here before are kept)
    n_new = n_cov_t[fresh]
    before = np.cumsum(n_new) - n_new
    facts.cover_at[rows_t[fresh]] = len(facts.cover_lits) + before
    facts.cover_n[rows_t[fresh]] = n_new
    facts.cover_lits.extend(covers[np.repeat(at_cov[taken[fresh]] - before, n_new)
                                   + np.arange(int(n_new.sum()))].tolist())
    _seed_labels(cols, [x[6] for i, x in enumerate(opened) if not refused[i]])
    for i, x in enumerate(opened):
        if not refused[i]:
            out[x[0]] = int(n_rows_of[i])
    return out


def _new_spans(facts: _Facts, units: np.ndarray, a: np.ndarray, b: np.ndarray, at: np.ndarray, n: np.ndarray,
               shown: np.ndarray, place: np.ndarray, read_span: np.ndarray) -> None:
    """Into ``facts`` (which has no span yet), the spans ``(units, (a, b))`` of the rows read
    with one (their literals ``shown[at:at + n]``), each numbered on its first row as the loop
    of :func:`decode_many` numbers them; ``read_span[place]``: each row's span id. (With array
    operations: a first view reads a thousand and more, a dictionary look-up each.)"""
    if not len(units):
        return
    # The distinct spans by a stable sort of (unit, a, b): each one's first row and each row's
    # span (``np.unique(axis=0)`` gives the same and sorted rows as void records, six times this).
    top = max(int(a.max()), int(b.max())) + 1
    if min(int(units.min()), int(a.min()), int(b.min())) >= 0 and (int(units.max()) + 1) * top * top < 1 << 62:
        # (where it fits, one number per (unit, a, b) in their order, sorted as the three in a fifth of the time)
        by = np.argsort((units * top + a) * top + b, kind="stable")
    else:
        by = np.lexsort((b, a, units))
    su, sa, sb = units[by], a[by], b[by]
    new = np.ones(len(by), dtype=bool)
    new[1:] = (su[1:] != su[:-1]) | (sa[1:] != sa[:-1]) | (sb[1:] != sb[:-1])
    inverse = np.empty(len(by), dtype=np.int64)
    inverse[by] = np.cumsum(new) - 1
    first = by[new]
    # (the unique spans in order of their first row: the ids the loop gives)
    order = np.argsort(first, kind="stable")
    sid = np.empty(len(first), dtype=np.int64)
    sid[order] = np.arange(len(first))
    read_span[place] = sid[inverse]
    lead = first[order]  # each span's first row, in id order
    sizes = n[lead]
    lits = shown[np.repeat(at[lead] - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))]
    facts.span_lits.extend(lits.tolist())
    facts.span_ptr.extend((facts.span_ptr[-1] + np.cumsum(sizes)).tolist())
    facts.spans.update(zip(zip(units[lead].tolist(), zip(a[lead].tolist(), b[lead].tolist())), range(len(lead))))


def _labels_of(cols: Columns, a: int, b: int) -> list[tuple[int, str | None, str, int]]:
    """The labels of messages ``a`` to ``b - 1`` that views have made, with their costs:
    (message, speaker, label, tokens of ``label + ": "``)."""
    labels, costs = cols.memo(LabelsMemo).labels, cols.memo(_Candidates).label_costs
    out = []
    for m in sorted(m for m in costs if a <= m < b):
        speaker, cost = costs[m]
        known = labels.get(m)
        if known is not None and known[0] == speaker:  # (a cost is of its label: ``_EntryCosts``, + 1)
            out.append((m, speaker, known[1], int(cost - 1.0)))
    return out


def _speakers_of(cols: Columns, a: int, b: int) -> list[str | None]:
    """The speakers ``cols`` gives messages ``a`` to ``b - 1`` (a message's items read its
    speaker, which a later message can make: ``Columns.speaker``)."""
    return [cols.speaker(m) for m in range(a, b)]


def _speakers(strings: list[str], ids: np.ndarray) -> list[str | None] | None:
    """The speakers an entry names for its messages (-1: none); None if one is out of range."""
    out: list[str | None] = []
    for x in ids.tolist():
        if not -1 <= x < len(strings):
            return None
        out.append(None if x < 0 else strings[x])
    return out


def _labels(strings: list[str], quads: np.ndarray, a: int, b: int) -> list[tuple[int, str | None, str, int]] | None:
    """The labels an entry holds after its covers (see :func:`_labels_of`); None: not well-formed."""
    if len(quads) % 4:
        return None
    out = []
    n = len(strings)
    for m, speaker, label, tokens in quads.reshape(-1, 4).tolist():
        if not (a <= m < b and -1 <= speaker < n and 0 <= label < n):
            return None
        text = strings[label]
        # (a label opens with its message's number, on one line; its tokens, those of a text
        # of its characters and ": ", at most a few a character)
        if not text.startswith(f"#{m} ") or "\n" in text or not 0 < tokens <= 4 * (len(text) + 2):
            return None
        out.append((m, None if speaker < 0 else strings[speaker], text, tokens))
    return out


def _seed_labels(cols: Columns, entries: list[list[tuple[int, str | None, str, int]]]) -> None:
    """The labels of entries read, put into the memos of ``record.labels`` and of the take's
    costs (``candidates._EntryCosts``), for the speaker the columns give their message; a
    label already made here is kept."""
    labels, costs = cols.memo(LabelsMemo).labels, cols.memo(_Candidates).label_costs
    n = len(cols)
    for held in entries:
        for m, speaker, label, tokens in held:
            if m >= n or cols.speaker(m) != speaker:
                continue
            known = labels.setdefault(m, (speaker, label))
            if known == (speaker, label):
                costs.setdefault(m, (speaker, tokens + 1.0))


def _starts(per_row: np.ndarray, eid: np.ndarray, n_rows_of: np.ndarray, n_of: np.ndarray) -> np.ndarray:
    """Where each row's ``per_row`` numbers start in the entries' numbers laid end to end
    (``n_of`` of them per entry): its entry's, then the rows before it there."""
    before = np.cumsum(per_row) - per_row
    # (an entry of no rows has no first row: its place past the end reads 0, and no row reads it)
    first = np.r_[before, 0][np.cumsum(n_rows_of) - n_rows_of]
    return (np.cumsum(n_of) - n_of)[eid] + before - first[eid]


class SharedRows:
    """A compactor's reads and writes of row entries (see the module docstring)."""

    def __init__(self, shared: Any) -> None:
        self.shared = shared  # a SharedAnalyses: the store, its secret, settings and failure log
        self._settings = hashlib.blake2b(f"{shared.settings}:{ROWS_VERSION}".encode(), digest_size=8).hexdigest()
        self._cols: Columns | None = None
        self._known: dict[int, int] = {}  # segment end -> the rows its entry holds, as read or written here

    def key(self, b: int, tag: str) -> str:
        return f"{self._settings}:r{b}:{tag}"

    def _keys(self, tags: list[str]) -> tuple[list[tuple[int, int]], list[str]]:
        """The complete segments of a conversation with ``tags`` (:func:`..cache_entry.segments`),
        and their keys (a segment's end names it)."""
        spans = segments(len(tags), LIMITS.shared_segment, LIMITS.shared_group)
        return spans, [self.key(b, tags[b - 1]) for _, b in spans]

    def ride(self, tags: list[str]) -> None:
        """Ask for the entries of a conversation with ``tags`` (whose columns are about to be
        made) with its analyses, in their round trip (read by :meth:`seed`)."""
        self.shared.carried = {}
        self.shared.riders = self._keys(tags)[1]

    def seed(self, cols: Columns, tags: list[str]) -> None:
        """On the first view of ``cols`` (a conversation this compactor has not viewed), its row
        memo from the entries of its complete segments."""
        carried, self.shared.carried, self.shared.riders = self.shared.carried, {}, []
        if cols is self._cols:
            return
        self._cols, self._known = cols, {}
        n = min(len(tags), len(cols.messages))
        if n < LIMITS.shared_segment or _row_memo(cols).state.any():
            return
        spans, keys = self._keys(tags[:n])
        if all(k in carried for k in keys):  # (read with the analyses)
            blobs = [carried[k] for k in keys]
        else:
            got = self.shared.fetch(keys)
            if got is None:  # (a store's failure is a miss)
                return
            blobs = got
        present = [(key, blob, a, b) for (a, b), key, blob in zip(spans, keys, blobs) if blob is not None]
        for (_, _, _, b), put in zip(present, decode_many(cols, present, self.shared.secret)):
            self._known[b] = max(0, put)

    def save(self, cols: Columns, tags: list[str]) -> None:
        """Write the entries of the complete segments of ``cols`` whose rows views here have read
        and the store lacks (as far as this compactor knows)."""
        n = min(len(tags), len(cols.messages))
        if cols is not self._cols or n < LIMITS.shared_segment:
            return
        spans = segments(n, LIMITS.shared_segment, LIMITS.shared_group)
        ends = np.array([b for _, b in spans], dtype=np.int64)
        bounds = cols.lit_ptr.view[cols.msg_start.view[np.r_[0, ends]]]
        read = np.r_[0, np.cumsum(_row_memo(cols).state[:int(bounds[-1])] != 0)]
        per = (read[bounds[1:]] - read[bounds[:-1]]).tolist()
        items = {}
        for (a, b), got in zip(spans, per):
            known = self._known.get(b, 0)  # (a segment's end names it: cache_entry.segments)
            if got > known and (known == 0 or got >= known + LIMITS.shared_rewrite_rows):
                key = self.key(b, tags[b - 1])
                blob = encode(key, cols, a, b, self.shared.secret)
                self._known[b] = got
                if len(blob) <= LIMITS.shared_entry_bytes:
                    items[key] = blob
        if items:
            try:
                self.shared.store.set_many(items)
            except Exception as exc:
                self.shared._warn("write", exc)

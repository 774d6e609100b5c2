"""The fitting stage's row memo (:class:`.sources._RowMemo`), shared between workers.

Per row of the literal index (a unit stating a value), the record item the row gives, its
listing class and its costs: most of a fresh worker's first view (issue 49), and not a
function of one message (an item reads its unit's list heads, its JSON keys, its
message's label), so not in the per-text analysis entry. It is a function of the
conversation up to the row's message, though (the memo's own invariant: a row's item
never changes as the conversation grows), so the rows of messages ``a`` to ``b`` are
shared under a key of the conversation's first ``b`` messages, and serve every
conversation that starts with them.

Entries are per segment of :data:`SEGMENT` messages (messages 0-3, 4-7, ...), each holding
the rows of its messages that views have read: a conversation's entries together are at
most its row memo once (one key per segment, a later write replaces it), and a warm
worker writes the segment its turns completed, not the whole memo. A view reads the
entries of every complete segment of its conversation with its analyses, in their one
round trip, and computes the rows past the last one (fewer than :data:`SEGMENT` messages')
and those no view had read.

Key: ``<settings>:r<b>:<tag>``, the analysis settings' digest (see :mod:`..analysis_cache`)
with this format's version, the segment's end ``b`` and the compactor's chained digest of
the first ``b`` messages (every part of every message: :meth:`Compactor._columns`'s tags).

Value: as :mod:`..analysis_codec`'s: a magic, a BLAKE2b-128 digest of (key, body) (keyed by
the store's ``secret``), a zlib body of a JSON list of strings then int64 columns, checked on
read against the reader's columns (rows within the segment's messages, an item's unit,
message and literal those of its row, every index in range). A row's context class is not
stored but recomputed. Whatever fails is a miss: the rows are computed.
"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from typing import Any

import numpy as np

from ..columns import Columns
from ..limits import LIMITS
from ..record import Item
from .sources import _has_context, _row_memo

__all__ = ["SEGMENT", "SharedRows", "decode", "encode"]

MAGIC = b"DMR\x01"
ROWS_VERSION = "1"
"""Raised whenever what a row's item is (``record.item_for``, the listing classes, the costs)
changes: part of every key."""
SEGMENT = 4
"""Messages per entry."""
REWRITE_ROWS = 16
"""Rows more than its entry holds that a view must have read in a segment to write it again."""
_DIGEST = 16
# per row: row, has item, literal, unit, message, text, span start, span end (-1: none),
# covers, header, key (-1: none), value, row name (-1: none), group, listing, cost, value cost
_COLS = 17


def _digest(key: str, body: bytes, secret: bytes) -> bytes:
    h = hashlib.blake2b(digest_size=_DIGEST, key=secret, person=b"dm-rows")
    h.update(key.encode("utf-8", "surrogatepass"))
    h.update(b"\x00")
    h.update(body)
    return h.digest()


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
    items, listing, cost, value_cost = memo.items, memo.listing.tolist(), memo.cost.tolist(), memo.value_cost.tolist()
    for r in rows:
        it = items[r]
        if it is None:
            table.extend((r, 0, -1, -1, -1, -1, -1, -1, 0, 0, -1, -1, -1, -1, listing[r], int(cost[r]),
                          int(value_cost[r])))
            continue
        span = it.span or (-1, -1)
        covers.extend(it.covers)
        table.extend((r, 1, it.literal, it.unit, it.message, s(it.text, len(strings)), span[0], span[1],
                      len(it.covers), int(it.header), -1 if it.key is None else s(it.key, len(strings)),
                      s(it.value, len(strings)), -1 if it.row is None else s(it.row, len(strings)), it.group,
                      listing[r], int(cost[r]), int(value_cost[r])))
    names = json.dumps(list(strings), ensure_ascii=False, separators=(",", ":")).encode("utf-8", "surrogatepass")
    ints = np.asarray([a, b, len(rows), len(covers), *table, *covers], dtype="<i8")
    body = zlib.compress(struct.pack("<I", len(names)) + names + ints.tobytes(), 1)
    return MAGIC + _digest(key, body, secret) + body


def decode(key: str, blob: Any, cols: Columns, a: int, b: int, secret: bytes = b"") -> int:
    """Put the rows an entry holds into ``cols``' row memo; the rows put (-1: not a
    well-formed entry of this format, for this key and ``cols``' messages ``a`` to ``b - 1``:
    nothing put)."""
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        return -1
    blob = bytes(blob)
    if len(blob) < len(MAGIC) + _DIGEST or blob[:len(MAGIC)] != MAGIC:
        return -1
    body = blob[len(MAGIC) + _DIGEST:]
    if blob[len(MAGIC):len(MAGIC) + _DIGEST] != _digest(key, body, secret):
        return -1
    try:
        inflate = zlib.decompressobj()
        raw = inflate.decompress(body, LIMITS.inflated_bytes)
        if inflate.unconsumed_tail or not inflate.eof or len(raw) < 4:
            return -1
        (n_names,) = struct.unpack_from("<I", raw)
        strings = json.loads(raw[4:4 + n_names].decode("utf-8", "surrogatepass"))
        ints = raw[4 + n_names:]
        if len(ints) % 8 or type(strings) is not list or not all(type(x) is str for x in strings):
            return -1
        return _put(cols, a, b, strings, np.frombuffer(ints, dtype="<i8"))
    except (ValueError, TypeError, IndexError, KeyError, RecursionError, struct.error, zlib.error, UnicodeError):
        return -1


def _put(cols: Columns, a: int, b: int, strings: list[str], ints: np.ndarray) -> int:
    if len(ints) < 4 or not 0 <= a < b <= len(cols.messages):
        return -1
    got_a, got_b, n_rows, n_covers = ints[:4].tolist()
    if (got_a, got_b) != (a, b) or min(n_rows, n_covers) < 0 or len(ints) != 4 + _COLS * n_rows + n_covers:
        return -1
    table = ints[4:4 + _COLS * n_rows].reshape(n_rows, _COLS)
    covers = ints[4 + _COLS * n_rows:]
    n_units = int(cols.msg_start.view[b])
    first, limit = _row_range(cols, a, b)
    n_lits, n_strings = len(cols.lit_text), len(strings)
    r, has, lit, unit, msg, text, a, b, n_cov, header, key, value, row, group, listing, cost, vcost = table.T
    if n_rows and not (
            (r >= first).all() and (r < limit).all() and (np.diff(r) > 0).all()
            and ((has == 0) | (has == 1)).all() and (listing >= 0).all() and (listing <= 4).all()
            and (cost >= -1).all() and (vcost >= 0).all()):
        return -1
    hit = has == 1
    if int(n_cov[hit].sum()) != n_covers or (~hit & (n_cov != 0)).any():
        return -1
    if hit.any():
        ri, ui = r[hit], unit[hit]
        owners = np.searchsorted(cols.lit_ptr.view[:n_units + 1], ri, side="right") - 1
        heads = header[hit]
        spans_ok = ((a[hit] == -1) & (b[hit] == -1)) | ((a[hit] >= 0) & (b[hit] >= a[hit]))
        if not ((ui == owners).all() and (msg[hit] == cols.u_msg.view[ui]).all()
                and ((heads == 0) | (heads == 1)).all()
                and ((heads == 1) | (lit[hit] == cols.lit_idx.view[ri])).all()
                and (lit[hit] >= 0).all() and (lit[hit] < n_lits).all() and (n_cov[hit] >= 1).all()
                and spans_ok.all() and (text[hit] >= 0).all() and (text[hit] < n_strings).all()
                and (value[hit] >= 0).all() and (value[hit] < n_strings).all()
                and (key[hit] >= -1).all() and (key[hit] < n_strings).all()
                and (row[hit] >= -1).all() and (row[hit] < n_strings).all()
                and (group[hit] >= -1).all() and (group[hit] < n_units).all()):
            return -1
        if n_covers and not ((covers >= 0).all() and (covers < n_lits).all()):
            return -1
        firsts = np.cumsum(n_cov[hit]) - n_cov[hit]
        if (covers[firsts] != lit[hit]).any():
            return -1
    memo = _row_memo(cols)
    state, items = memo.state, memo.items
    lit_idx = cols.lit_idx.view
    cov = covers.tolist()
    at = 0
    for rr, h, li, u, m, t, sa, sb, nc, hd, k, v, rw, g, ls, c, vc in table.tolist():
        if not h:
            items[rr] = None
            state[rr] = 1
        else:
            item = items[rr] = Item(li, u, m, strings[t], None if sa < 0 else (sa, sb), tuple(cov[at:at + nc]),
                                    bool(hd), None if k < 0 else strings[k], strings[v],
                                    None if rw < 0 else strings[rw], g)
            at += nc
            state[rr] = 3 if _has_context(cols, item, int(lit_idx[rr])) else 2
        memo.listing[rr] = ls
        memo.cost[rr] = c
        memo.value_cost[rr] = vc
    return n_rows


class SharedRows:
    """A compactor's reads and writes of row entries (see the module docstring)."""

    def __init__(self, shared: Any) -> None:
        self.shared = shared  # a SharedAnalyses: the store, its secret, settings and failure log
        self._settings = hashlib.blake2b(f"{shared.settings}:{ROWS_VERSION}".encode(), digest_size=8).hexdigest()
        self._cols: Columns | None = None
        self._known: dict[int, int] = {}  # segment end -> the rows its entry holds, as read or written here

    def key(self, b: int, tag: str) -> str:
        return f"{self._settings}:r{b}:{tag}"

    def _keys(self, tags: list[str]) -> tuple[list[int], list[str]]:
        """The ends of the complete segments of a conversation with ``tags``, and their keys."""
        ends = list(range(SEGMENT, len(tags) + 1, SEGMENT))
        return ends, [self.key(b, tags[b - 1]) for b in ends]

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
        if n < SEGMENT or _row_memo(cols).state.any():
            return
        ends, keys = self._keys(tags[:n])
        if all(k in carried for k in keys):  # (read with the analyses)
            blobs = [carried[k] for k in keys]
        else:
            try:
                blobs = list(self.shared.store.get_many(keys))
            except Exception as exc:  # (a store's failure is a miss)
                self.shared._warn("read", exc)
                return
            if len(blobs) != len(keys):
                self.shared._warn("read", ValueError(f"get_many returned {len(blobs)} values for {len(keys)} keys"))
                return
        for b, key, blob in zip(ends, keys, blobs):
            if blob is not None:
                self._known[b] = max(0, decode(key, blob, cols, b - SEGMENT, b, self.shared.secret))

    def save(self, cols: Columns, tags: list[str]) -> None:
        """Write the entries of the complete segments of ``cols`` whose rows views here have read
        and the store lacks (as far as this compactor knows)."""
        n = min(len(tags), len(cols.messages))
        if cols is not self._cols or n < SEGMENT:
            return
        ends = np.arange(SEGMENT, n + 1, SEGMENT)
        bounds = cols.lit_ptr.view[cols.msg_start.view[np.r_[0, ends]]]
        read = np.r_[0, np.cumsum(_row_memo(cols).state[:int(bounds[-1])] != 0)]
        per = (read[bounds[1:]] - read[bounds[:-1]]).tolist()
        items = {}
        for b, got in zip(ends.tolist(), per):
            known = self._known.get(b, 0)
            if got > known and (known == 0 or got >= known + REWRITE_ROWS):
                key = self.key(b, tags[b - 1])
                blob = encode(key, cols, b - SEGMENT, b, self.shared.secret)
                self._known[b] = got
                if len(blob) <= LIMITS.shared_entry_bytes:
                    items[key] = blob
        if items:
            try:
                self.shared.store.set_many(items)
            except Exception as exc:
                self.shared._warn("write", exc)

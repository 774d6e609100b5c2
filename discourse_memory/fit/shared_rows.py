"""The fitting stage's row memo (:class:`.sources._RowMemo`), shared between workers.

Per row of the literal index (a unit stating a value), the record item the row gives, its
listing class and its costs: most of a fresh worker's first view (issue 49), and not a
function of one message (an item reads its unit's list heads, its JSON keys, its
message's label), so not in the per-text analysis entry. It is a function of the
conversation up to the row's message, though (the memo's own invariant: a row's item
never changes as the conversation grows), so an entry keyed by the conversation's first
``n`` messages serves any conversation that starts with them: a worker whose history is
those messages and ``k`` more reads it and computes the rows of the ``k`` itself.

Key: ``<settings>:r<n>:<tag>``, the analysis settings' digest (see :mod:`..analysis_cache`)
with this format's version, and the compactor's chained digest of the first ``n`` messages
(every part of every message: :meth:`Compactor._columns`'s tags). A view reads the keys of
the last :data:`PROBE` prefixes of its conversation in one round trip and takes the longest
valid entry; a compactor writes one when it has computed :data:`WRITE_ROWS` rows or more
itself since it last read or wrote one.

Value: as :mod:`..analysis_codec`'s: a magic, a BLAKE2b-128 digest of (key, body) (keyed by
the store's ``secret``), a zlib body of a JSON list of strings then int64 columns, checked on
read against the reader's columns (rows within the prefix, an item's unit, message and
literal those of its row, every index in range). A row's context class is not stored but
recomputed. Whatever fails is a miss: the rows are computed.
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

__all__ = ["PROBE", "WRITE_ROWS", "SharedRows", "decode", "encode"]

MAGIC = b"DMR\x01"
ROWS_VERSION = "1"
"""Raised whenever what a row's item is (``record.item_for``, the listing classes, the costs)
changes: part of every key."""
PROBE = 16
"""How many of a conversation's newest prefixes a view looks up: an entry written up to
this many messages ago is read."""
WRITE_ROWS = 64
"""Rows a compactor computes itself before it writes an entry (a warm worker's turn reads
a few rows: it writes every few turns, not every turn)."""
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


def encode(key: str, cols: Columns, n_messages: int, secret: bytes = b"") -> bytes:
    """The entry of the rows of ``cols``' first ``n_messages`` messages that a view has read."""
    memo = _row_memo(cols)
    limit = int(cols.lit_ptr.view[int(cols.msg_start.view[n_messages])])
    rows = np.flatnonzero(memo.state[:limit]).tolist()
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
    ints = np.asarray([n_messages, len(rows), len(covers), *table, *covers], dtype="<i8")
    body = zlib.compress(struct.pack("<I", len(names)) + names + ints.tobytes(), 1)
    return MAGIC + _digest(key, body, secret) + body


def decode(key: str, blob: Any, cols: Columns, n_messages: int, secret: bytes = b"") -> int:
    """Put the rows an entry holds into ``cols``' row memo; the rows put (-1: not a
    well-formed entry of this format, for this key and these columns' first
    ``n_messages`` messages: nothing put)."""
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
        return _put(cols, n_messages, strings, np.frombuffer(ints, dtype="<i8"))
    except (ValueError, TypeError, IndexError, KeyError, RecursionError, struct.error, zlib.error, UnicodeError):
        return -1


def _put(cols: Columns, n_messages: int, strings: list[str], ints: np.ndarray) -> int:
    if len(ints) < 3 or not 0 < n_messages <= len(cols.messages):
        return -1
    n_msgs, n_rows, n_covers = ints[:3].tolist()
    if n_msgs != n_messages or min(n_rows, n_covers) < 0 or len(ints) != 3 + _COLS * n_rows + n_covers:
        return -1
    table = ints[3:3 + _COLS * n_rows].reshape(n_rows, _COLS)
    covers = ints[3 + _COLS * n_rows:]
    n_units = int(cols.msg_start.view[n_messages])
    limit = int(cols.lit_ptr.view[n_units])
    n_lits, n_strings = len(cols.lit_text), len(strings)
    r, has, lit, unit, msg, text, a, b, n_cov, header, key, value, row, group, listing, cost, vcost = table.T
    if n_rows and not (
            (r >= 0).all() and (r < limit).all() and (np.diff(r) > 0).all()
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
        self._known = 0  # the longest prefix this compactor read or wrote an entry of
        self._base = 0  # rows read when it did

    def key(self, n: int, tag: str) -> str:
        return f"{self._settings}:r{n}:{tag}"

    def _probe(self, tags: list[str]) -> tuple[list[int], list[str]]:
        """The prefix lengths a view of a conversation with ``tags`` looks up, longest first, and their keys."""
        lengths = list(range(len(tags), max(0, len(tags) - PROBE), -1))
        return lengths, [self.key(k, tags[k - 1]) for k in lengths]

    def ride(self, tags: list[str]) -> None:
        """Ask for the entries of a conversation with ``tags`` (whose columns are about to be
        made) with its analyses, in their round trip (read by :meth:`seed`)."""
        self.shared.carried = {}
        self.shared.riders = self._probe(tags)[1]

    def seed(self, cols: Columns, tags: list[str]) -> None:
        """On the first view of ``cols`` (a conversation this compactor has not viewed), its row
        memo from the longest entry of its last :data:`PROBE` prefixes."""
        if cols is self._cols:
            return
        self._cols, self._known, self._base = cols, 0, 0
        carried, self.shared.carried, self.shared.riders = self.shared.carried, {}, []
        n = min(len(tags), len(cols.messages))
        if not n or _row_memo(cols).state.any():
            return
        lengths, keys = self._probe(tags[:n])
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
        for k, key, blob in zip(lengths, keys, blobs):
            if blob is not None:
                put = decode(key, blob, cols, k, self.shared.secret)
                if put >= 0:
                    self._known, self._base = k, put
                    return

    def save(self, cols: Columns, tags: list[str]) -> None:
        """Write the entry of ``cols`` as it is, if this compactor has computed enough rows itself."""
        n = min(len(tags), len(cols.messages))
        if cols is not self._cols or n <= self._known:
            return
        read = int(np.count_nonzero(_row_memo(cols).state))
        if read - self._base < WRITE_ROWS:
            return
        key = self.key(n, tags[n - 1])
        blob = encode(key, cols, n, self.shared.secret)
        self._known, self._base = n, read
        if len(blob) > LIMITS.shared_entry_bytes:
            return
        try:
            self.shared.store.set_many({key: blob})
        except Exception as exc:
            self.shared._warn("write", exc)

"""The token counts of the texts a view rendered, shared between workers per segment of a
conversation.

A view counts what it renders: the texts of each message it shows in part
(:func:`.render.render_messages`) and the record note, by its pieces (``tokens.count_lines``:
its entries, "; "-separated, and lines). A warm worker has those counts in its memos from its
earlier views; a fresh worker's first view BPE-encoded them all (270 texts, 37,000 characters,
about 6 ms of its first view of the benchmark's 65,000-token history: issue 49). A token count
is a function of a text alone, so a worker shares the counts its views used, as the analyses
are shared: what its renderings counted that is not one of a message's own texts (whose whole
counts come with their analyses), and each piece of its note (a note's line changes with any
entry of it; most of its entries were in the last view's note), each under a 64-bit BLAKE2b
digest of the exact text counted (its UTF-8 ``surrogatepass`` bytes). An entry holds what the
writer's last ``LIMITS.shared_count_views`` views of the conversation counted, not the last
alone: a view one message on often shows a message as a view two or three turns back did (on
the benchmark's history the last view's counts lacked 14,700 characters of texts the fresh
worker's view rendered, which the warm worker had counted two turns before).

Key: ``<settings>:k<b>:<tag>``, the analysis settings' digest (:mod:`.analysis_cache`) with this
format's version, ``b`` the largest multiple of ``LIMITS.shared_segment * LIMITS.shared_group``
(sixteen) up to the writer's messages, and the compactor's chained digest of the first ``b``
messages: one entry per settled segment of a conversation (none under sixteen messages),
replaced by each view that used counts the entry last written or read lacks. A reader of ``n`` messages reads the
entries of ``b(n)`` and ``b(n - 1)`` (the writer's one message back) in the round trip of its
analyses and keeps them in a table of its compactor (not in the process's counter, which every
compactor and thread shares): a rendered text or a note's piece it has not counted reads its
count there, taken only if ``1 <= count <=`` the text's UTF-8 bytes (a token is at least a byte);
any other is counted here. The counts read never enter the process's memos (a note's run
counted with one is not kept either).

Value: the envelope of :mod:`.cache_entry` (magic, digest of key and body keyed by the store's
``secret``, zlib at level 0: stored); no strings, numbers ``b``, ``k``, then ``k`` digests and ``k`` counts (``k`` at
most ``LIMITS.shared_counts``). An entry that fails is a miss: its texts are counted here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .cache_entry import seal, unseal
from .limits import LIMITS

__all__ = ["COUNTS_VERSION", "SharedCounts", "decode", "encode", "text_digest"]

MAGIC = b"DMK\x01"
COUNTS_VERSION = "1"
"""Raised whenever what a shared count means changes: part of every key."""
PERSON = b"dm-counts"
"""The entry digest's personalisation (:mod:`.cache_entry`)."""
TEXT = b"dm-text"
"""A text's digest's personalisation: the digest of a text counted whole (``counter.count``)."""


_TEXT_HASH = hashlib.blake2b(digest_size=8, person=TEXT)
"""A text's digest before its text: copied for each (40% less than a new one with its parameters,
and a first view hashes ~270 texts: every rendered text and note piece it counts)."""


def text_digest(text: str) -> tuple[int, int]:
    """``text``'s 64-bit digest (as a signed number, as an entry stores it) and its UTF-8 bytes."""
    raw = text.encode("utf-8", "surrogatepass")
    h = _TEXT_HASH.copy()
    h.update(raw)
    return int.from_bytes(h.digest(), "little", signed=True), len(raw)


def encode(key: str, b: int, counts: dict[int, int], secret: bytes = b"") -> bytes:
    """The entry of ``counts`` (digest -> tokens) under ``key``, for the segment ending at ``b``."""
    ints = np.fromiter((b, len(counts), *counts.keys(), *counts.values()), dtype="<i8", count=2 + 2 * len(counts))
    # (stored, not compressed: the digests do not compress, 6.2 KiB against 4.0 for the
    # benchmark's view, and compressing was 75 us of each warm turn that writes one)
    return seal(MAGIC, PERSON, key, [], ints, secret, 0)


def decode(key: str, blob: Any, b: int, secret: bytes = b"") -> dict[int, int] | None:
    """The counts an entry holds (digest -> tokens), if it is this format's, for ``key`` and
    the segment ending at ``b``; None for anything else (each count is checked when used)."""
    got = unseal(MAGIC, PERSON, key, blob, secret)
    if got is None:
        return None
    strings, ints = got
    if strings or len(ints) < 2 or int(ints[0]) != b:
        return None
    k = int(ints[1])
    if not 0 <= k <= LIMITS.shared_counts or len(ints) != 2 + 2 * k:
        return None
    return dict(zip(ints[2:2 + k].tolist(), ints[2 + k:].tolist()))


class SharedCounts:
    """A compactor's table of counts read from the store, and the counts its view used (see
    the module docstring)."""

    def __init__(self, shared: Any) -> None:
        self.shared = shared  # a SharedAnalyses: the store, its secret, settings, counter and failure log
        self._settings = hashlib.blake2b(f"{shared.settings}:k{COUNTS_VERSION}".encode(), digest_size=8).hexdigest()
        memo = getattr(shared.counter, "_cache", None)  # (the process's own counts, trusted before any read)
        self._memo: Callable[[str], int | None] = memo.get if memo is not None else (lambda text: None)
        self.read: dict[int, int] = {}
        """Digest -> tokens, from the entries of this compactor's conversation."""
        self.used: dict[int, int] = {}
        """Digest -> tokens, of what this view counted (see :meth:`save`)."""
        self._recent: list[dict[int, int]] = []  # (what this compactor's views before counted, oldest first)
        self.refused = 0
        """Counts read that failed their bound (counted here instead)."""
        self._last: tuple[str, dict[int, int]] | None = None  # (the entry last written or read: key, counts)
        # (a note's pieces' digests: a warm turn's note has a dozen new runs of lines, whose
        # hundreds of pieces are mostly the last note's, hashed again at each turn without it)
        self._pieces: dict[str, tuple[int, int]] = {}

    def key(self, b: int, tag: str) -> str:
        return f"{self._settings}:k{b}:{tag}"

    @staticmethod
    def _end(n: int) -> int:
        big = LIMITS.shared_segment * LIMITS.shared_group
        return n // big * big

    def _keys(self, tags: Sequence[str]) -> list[tuple[int, str]]:
        """The entries a conversation with ``tags`` reads: its segment's, then one message back's."""
        ends = dict.fromkeys(b for b in (self._end(len(tags)), self._end(len(tags) - 1)) if b > 0)
        return [(b, self.key(b, tags[b - 1])) for b in ends]

    def ride(self, tags: Sequence[str]) -> None:
        """Ask for the entries of a conversation with ``tags`` with its analyses, in their round trip."""
        self.shared.riders = [*self.shared.riders, *(k for _, k in self._keys(tags))]

    def take(self, carried: dict[str, Any], tags: Sequence[str]) -> None:
        """The table of a conversation with ``tags`` that this compactor starts: its entries, read
        with the analyses (``carried``) or here."""
        self.read, self.used, self._last, self._recent = {}, {}, None, []
        wanted = self._keys(tags)
        if not wanted:
            return
        if not all(k in carried for _, k in wanted):  # (no analyses were read: no round trip yet)
            blobs = self.shared.fetch([k for _, k in wanted])
            if blobs is None:  # (a store's failure is a miss)
                return
            carried = {k: blob for (_, k), blob in zip(wanted, blobs)}
        for b, key in reversed(wanted):  # (the segment's own entry last: it wins a digest both hold)
            blob = carried.get(key)
            got = None if blob is None else decode(key, blob, b, self.shared.secret)
            if got is not None:
                self.read.update(got)
                if b == wanted[0][0]:
                    self._last = (key, got)

    def look(self, text: str, piece: bool = False) -> tuple[int, int | None]:
        """``text``'s digest, and its count from the table if it holds one within bounds
        (``piece``: a note's piece, whose digest is kept)."""
        got = self._pieces.get(text) if piece else None
        if got is None:
            got = text_digest(text)
            if piece:
                if len(self._pieces) >= LIMITS.count_cache:
                    self._pieces.clear()
                self._pieces[text] = got
        d, size = got
        n = self.read.get(d)
        if n is not None and not 1 <= n <= size:
            self.refused += 1
            n = None
        return d, n

    def count(self, text: str, count: Callable[[str], int]) -> int:
        """``count(text)``, from the process's memo, the table or ``count``, in that order; noted as used."""
        return self._count(text, count)[1]

    def _count(self, text: str, count: Callable[[str], int]) -> tuple[int, int]:
        n = self._memo(text)
        d, read = self.look(text)
        if n is None:
            n = count(text) if read is None else read
        self.used[d] = n
        return d, n

    def rendered(self, texts: list[str], own: Callable[[], set[str]],
                 count: Callable[[str], int]) -> tuple[int, tuple[tuple[int, int], ...]]:
        """The tokens of a rendered message's ``texts``, and the (digest, tokens) of those that are
        not among its ``own`` texts (its fields' and calls' own: counted whole with their analyses),
        to keep with the rendering (a render-cache hit is then shared without hashing again)."""
        total = 0
        pairs = []
        mine: set[str] | None = None
        for text in texts:
            if not text:
                continue
            if mine is None:
                mine = own()
            if text in mine:
                total += count(text)
                continue
            pair = self._count(text, count)
            pairs.append(pair)
            total += pair[1]
        return total, tuple(pairs)

    def start(self) -> None:
        """A view begins: its set of counts used is empty (a view that raised left its own)."""
        self.used = {}

    def save(self, tags: Sequence[str]) -> None:
        """Write the counts this view and this compactor's views before it used (up to
        ``LIMITS.shared_count_views`` views: the next view, one message on, often renders what one
        of them did and the last did not) as its segment's entry (replacing it), unless this
        view's are all in the entry last written or read here (the views' before it are), or it
        has none; past ``LIMITS.shared_counts``, the counts of this view alone, or none."""
        views = [*self._recent, self.used][-LIMITS.shared_count_views:]
        self._recent = views[1:] if len(views) == LIMITS.shared_count_views else views
        b = self._end(len(tags))
        if not b or not self.used:
            return
        key = self.key(b, tags[b - 1])
        # (the views before this one in ``views`` each found its counts in the entry last written
        # or read, or wrote them there, unless the key changed: whether this view's are decides)
        if self._last is not None and self._last[0] == key and self.used.items() <= self._last[1].items():
            return
        used = self.used
        if len(views) > 1:
            used = {}
            for counts in views:
                used.update(counts)
            if len(used) > LIMITS.shared_counts:
                used = self.used
        if len(used) > LIMITS.shared_counts:
            return
        self._last = (key, used)
        blob = encode(key, b, used, self.shared.secret)
        if len(blob) > LIMITS.shared_entry_bytes:
            return
        try:
            self.shared.store.set_many({key: blob})
        except Exception as exc:  # (a store's failure: the counts are not shared)
            self.shared._warn("write", exc)

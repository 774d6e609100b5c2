"""The envelope of every shared-cache entry: a text's analysis (:mod:`.analysis_codec`) and a
conversation's record rows (:mod:`.fit.shared_rows`).

An entry comes from a store other processes write, so opening it trusts nothing: ``magic``
(4 bytes naming the format and its version), a BLAKE2b-128 digest of (cache key, body) keyed
by the store's ``secret`` and personalised per format (an entry copied to another key or
format, truncated or bit-flipped, fails it), then the body, compressed by DEFLATE without
zlib's header and Adler-32 check (the digest checks the body; a first view inflates some 800 KB
of a 65k-token history's entries, and the Adler-32 of it was 7% of the inflating): the strings'
length in bytes (4 bytes) and a byte giving the numbers' width (1, 2, 4 or 8 bytes: the least
that holds every one; plus ``JSON`` when the strings are a JSON array), the strings (UTF-8,
each ended by a NUL; a JSON array when one of them holds a NUL), then the numbers,
little-endian. An analysis entry's body is two such streams, the first's length (4 bytes)
before them (:func:`unseal_split`: the second is inflated when read, :class:`Later`).
:func:`unseal` checks the envelope only; what the strings and numbers mean is each format's
to check.

The numbers are mostly small (offsets, counts, ids within a text): at their width, a fresh
worker's first view inflates less than half the bytes it did at int64, the most of reading
its entries (issue 49), and the entries are smaller; NUL-ended strings split in half the time
JSON's parse and type check took.
"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from .limits import LIMITS

__all__ = ["DIGEST", "Later", "deflate", "digest", "seal", "segments", "unseal", "unseal_split"]

DIGEST = 16
"""Bytes of the digest after the magic."""
LAYOUT = b"numbers at their width, strings NUL-ended, raw deflate"
"""The envelope's layout, digested with every entry: an entry of another layout (the int64
numbers of before, the zlib stream of before) fails the digest, a miss."""
JSON = 0x80
"""The width byte's flag: the strings are a JSON array (one of them holds a NUL)."""
_WIDTHS = {np.dtype(f"<i{w}").itemsize: np.dtype(f"<i{w}") for w in (1, 2, 4, 8)}


def segments(n: int, step: int, group: int) -> list[tuple[int, int]]:
    """The messages ``(a, b)`` of each shared entry of a conversation of ``n`` messages (its
    rows' and its columns'), in order from its first message: entries of ``step * group``
    messages up to the last multiple of that, then entries of ``step`` up to the last multiple
    of ``step`` (the messages after it are each worker's own). An entry of ``step`` messages never
    ends at a multiple of ``step * group``, so an entry's end names it."""
    big = step * group
    settled = n // big * big
    return [(a, a + big) for a in range(0, settled, big)] + \
        [(b - step, b) for b in range(settled + step, n // step * step + 1, step)]


def digest(person: bytes, key: str, body: bytes, secret: bytes) -> bytes:
    """The digest binding ``body`` to cache ``key`` (under ``secret``) for the format ``person`` names."""
    h = hashlib.blake2b(digest_size=DIGEST, key=secret, person=person)
    h.update(LAYOUT)
    h.update(key.encode("utf-8", "surrogatepass"))
    h.update(b"\x00")
    h.update(body)
    return h.digest()


def seal(magic: bytes, person: bytes, key: str, strings: Iterable[str], ints: np.ndarray, secret: bytes = b"",
         level: int = 6, later: tuple[Iterable[str], np.ndarray] | None = None) -> bytes:
    """The entry holding ``strings`` and the int64 numbers ``ints`` under cache ``key``;
    ``later``: strings and numbers of a second stream, read by :func:`unseal_split` when asked for."""
    # Compressed, not stored: a stored body reads ~3 ms faster on a fresh worker's first view
    # of a 65k-token history but holds 2.2x the bytes in the store (docs/changes.md, stop 57).
    body = deflate(_raw(strings, ints), level)
    if later is not None:  # (the first stream's length, then both: one digest covers them)
        body = struct.pack("<I", len(body)) + body + deflate(_raw(*later), level)
    return magic + digest(person, key, body, secret) + body


def _raw(strings: Iterable[str], ints: np.ndarray) -> bytes:
    """One stream's bytes before DEFLATE: the strings' length and the numbers' width, the
    strings, the numbers."""
    strings = list(strings)
    joined = "".join([t + "\0" for t in strings])
    flag = 0
    if joined.count("\0") != len(strings):  # (a string holds a NUL)
        joined, flag = json.dumps(strings, ensure_ascii=False, separators=(",", ":")), JSON
    names = joined.encode("utf-8", "surrogatepass")
    numbers = np.asarray(ints, dtype="<i8")
    lo, hi = (int(numbers.min()), int(numbers.max())) if len(numbers) else (0, 0)
    width = next(d for d in _WIDTHS.values() if np.iinfo(d).min <= lo and hi <= np.iinfo(d).max)
    return struct.pack("<IB", len(names), width.itemsize | flag) + names + numbers.astype(width).tobytes()


def deflate(raw: bytes, level: int = 6) -> bytes:
    """``raw`` compressed as an entry's body is: DEFLATE, no zlib header or Adler-32."""
    c = zlib.compressobj(level, zlib.DEFLATED, -zlib.MAX_WBITS)
    return c.compress(raw) + c.flush()


class Later:
    """An entry's second stream, its digest checked with the entry's and inflated when first
    read: a fresh worker's first view reads a hundred analysis entries and builds pieces of
    few of them (issue 49)."""

    __slots__ = ("_body",)

    def __init__(self, body: bytes) -> None:
        self._body = body

    def open(self) -> tuple[list[str], np.ndarray] | None:
        """Its strings and int64 numbers (read-only); None if they are not well-formed (a
        writer without the store's secret can sign anything here)."""
        return _inflated(self._body)


def _body(magic: bytes, person: bytes, key: str, blob: Any, secret: bytes) -> bytes | None:
    """The body of an entry of ``magic``'s format written for ``key`` under ``secret``."""
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        return None
    blob = bytes(blob)
    head = len(magic) + DIGEST
    if len(blob) < head or blob[:len(magic)] != magic:
        return None
    body = blob[head:]
    if blob[len(magic):head] != digest(person, key, body, secret):
        return None
    return body


def unseal(magic: bytes, person: bytes, key: str, blob: Any, secret: bytes = b"",
           ) -> tuple[list[str], np.ndarray] | None:
    """An entry's strings and int64 numbers (read-only), if it is one of ``magic``'s format
    written for ``key`` under ``secret``; None for anything else."""
    body = _body(magic, person, key, blob, secret)
    return None if body is None else _inflated(body)


def unseal_split(magic: bytes, person: bytes, key: str, blob: Any, secret: bytes = b"",
                 ) -> tuple[list[str], np.ndarray, Later] | None:
    """:func:`unseal` of an entry sealed with ``later``: its first stream's strings and numbers,
    and its second stream (checked by the digest, inflated when read)."""
    body = _body(magic, person, key, blob, secret)
    if body is None or len(body) < 4:
        return None
    n, = struct.unpack_from("<I", body)
    if len(body) < 4 + n:
        return None
    got = _inflated(body[4:4 + n])
    return None if got is None else (*got, Later(body[4 + n:]))


def _inflated(body: bytes) -> tuple[list[str], np.ndarray] | None:
    """One DEFLATE stream's strings and int64 numbers (read-only); None if not well-formed."""
    try:
        inflate = zlib.decompressobj(-zlib.MAX_WBITS)
        raw = inflate.decompress(body, LIMITS.inflated_bytes)
        if inflate.unconsumed_tail or not inflate.eof or len(raw) < 5:
            return None
        n_names, width = struct.unpack_from("<IB", raw)
        dtype = _WIDTHS.get(width & ~JSON)
        text = raw[5:5 + n_names].decode("utf-8", "surrogatepass")
        ints = raw[5 + n_names:]
        if dtype is None or len(ints) % dtype.itemsize:
            return None
        strings: list[str]
        if width & JSON:
            strings = json.loads(text)
            # (the strings' types in one pass in C: a generator per string was a fifth of a decode)
            if type(strings) is not list or not set(map(type, strings)) <= {str}:
                return None
        else:
            strings = text.split("\0")
            if strings.pop():  # (every string ends with a NUL: nothing after the last)
                return None
        numbers = np.frombuffer(ints, dtype=dtype).astype("<i8")
        numbers.flags.writeable = False
        return strings, numbers
    except (ValueError, TypeError, RecursionError, struct.error, zlib.error, UnicodeError):
        return None

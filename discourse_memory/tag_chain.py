"""The conversation's tag: a chain of digests over every part of every message.

A message's tag is ``keys.digest(tag_before + "\\x00" + repr(fingerprint))``: the note prints
it ("[discourse-memory record 1a2b3c4d: ..."), and it names the conversation's shared entries,
so its value is fixed (a new formula moved 62 of 138 sample views at stop 59). :func:`chain`
computes exactly that value for a run of messages, faster: ``repr`` of a long text was most of
it (1.3 of 1.7 ms on a fresh worker's first view of a 65k-token history, issue 49), so the
message texts' reprs are made from their UTF-8 bytes in one batch (:func:`quoted`), where a
cheap check proves what ``repr`` writes, and by ``repr`` itself everywhere else.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

__all__ = ["chain", "quoted"]


def chain(tag: str, prints: Sequence[Any]) -> list[str]:
    """The tags after ``tag`` of messages whose fingerprints are ``prints``, each
    ``digest(tag + "\\x00" + repr(fingerprint))`` of the tag before it."""
    # (a fingerprint is (role, call id, ((field, text), ...), calls, canonical): its texts are
    # the long strings; any other shape is repr'd whole)
    shaped: list[int] = []
    texts: list[str] = []
    for p in prints:
        if type(p) is tuple and len(p) == 5 and type(p[2]) is tuple and all(
                type(f) is tuple and len(f) == 2 for f in p[2]):
            shaped.append(len(texts))
            texts.extend([f[1] for f in p[2]])
        else:
            shaped.append(-1)
    reprs = quoted(texts)
    out = []
    for p, at in zip(prints, shaped):
        h = hashlib.blake2b(_utf8(tag) + b"\x00", digest_size=8)
        if at < 0:
            h.update(_utf8(repr(p)))
        else:
            # (a tuple's repr: its items' reprs joined by ", ", in parentheses, a comma after a
            # sole item; hashed in parts, as the digest of their concatenation)
            role, call_id, fields, calls, canonical = p
            h.update(_utf8(f"({role!r}, {call_id!r}, ("))
            for k, (name, _) in enumerate(fields):
                h.update(_utf8(f"{', ' if k else ''}({name!r}, "))
                h.update(reprs[at + k])
                h.update(b")")
            h.update(_utf8(f"{',' if len(fields) == 1 else ''}), {calls!r}, {canonical!r})"))
        tag = h.hexdigest()
        out.append(tag)
    return out


def _utf8(text: str) -> bytes:
    # (as keys.digest encodes: UTF-8 of the concatenation is the concatenation of the parts')
    return text.encode("utf-8", "surrogatepass")


def quoted(texts: Sequence[Any]) -> list[bytes]:
    """``repr(t)`` of each of ``texts`` as UTF-8 bytes (surrogates passed): for a ``str`` of
    ASCII with no control character but tab, newline and carriage return, made from its bytes
    as ``repr`` makes it (its quote, then backslash, quote, tab, newline and return escaped);
    by ``repr`` for anything else."""
    out = []
    for t in texts:
        if type(t) is str and t.isascii():  # (a str's flag: no pass over it)
            b = t.encode("ascii")
            if not b.translate(None, _PLAIN):  # (nothing ``repr`` writes as \xNN)
                out.append(_escaped(b))
                continue
        out.append(_utf8(repr(t)))
    return out


# Every byte but those ``repr`` writes as \xNN (the control characters but tab, newline and
# carriage return, and DEL): deleting them leaves a text's bytes that need it.
_PLAIN = bytes([c for c in range(256) if c in b"\t\n\r" or 0x20 <= c < 0x7F or c > 0x7F])


def _escaped(b: bytes) -> bytes:
    """``repr`` of the ASCII text of bytes ``b`` (no byte of it written as ``\\xNN``), as bytes."""
    if b"\\" in b:
        b = b.replace(b"\\", b"\\\\")
    if b"\n" in b:
        b = b.replace(b"\n", b"\\n")
    if b"\t" in b:
        b = b.replace(b"\t", b"\\t")
    if b"\r" in b:
        b = b.replace(b"\r", b"\\r")
    # (``repr``'s quote: a double one for a text with a single quote and no double; with both,
    # a single one, and the single quotes escaped)
    if b"'" not in b:
        return b"'" + b + b"'"
    if b'"' not in b:
        return b'"' + b + b'"'
    return b"'" + b.replace(b"'", b"\\'") + b"'"

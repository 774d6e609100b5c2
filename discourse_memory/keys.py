"""Content keys: stable identities for units of text.

A key is a BLAKE2b digest of the unit's normalised text, so it is identical
across processes, machines and Python versions (unlike ``hash()``, which is
salted per process).
"""

from __future__ import annotations

import hashlib
import re
import unicodedata

__all__ = ["content_key", "digest", "normalise"]

_SPACE = re.compile(r"\s+")


def normalise(text: str) -> str:
    """NFC-normalise and collapse runs of whitespace, so re-wrapped copies match."""
    if text.isascii() and text.isprintable() and "  " not in text:
        return text.strip()  # already normal: single spaces are its only whitespace
    return _SPACE.sub(" ", unicodedata.normalize("NFC", text)).strip()


def digest(text: str) -> str:
    """16-hex-digit BLAKE2b of ``text`` exactly as given."""
    return hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


def content_key(text: str) -> str:
    """16-hex-digit stable key of ``text`` after :func:`normalise`."""
    return digest(normalise(text))

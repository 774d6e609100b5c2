"""A registry of named entries (language packs, trace readers): built-in entries loaded on
first use, the user's added or replacing them, and a generation that caches built from the
entries are keyed by."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Callable, Iterable
from typing import Generic, TypeVar

__all__ = ["Registry"]

T = TypeVar("T")

_COUNTER = itertools.count(1)  # (shared by every registry: a generation is never reused)


class Registry(Generic[T]):
    """Entries by name; ``built_in`` gives the built-in ones, read on first use (importing
    them costs start-up a conversation in one language never needs)."""

    def __init__(self, name_of: Callable[[T], str], built_in: Callable[[], Iterable[T]]) -> None:
        self._name_of = name_of
        self._built_in = built_in
        self._entries: dict[str, T] = {}
        self._loaded = False
        self._generation = 0
        self._lock = threading.RLock()

    def _load(self) -> None:
        if self._loaded:  # (the fast path: read for every text)
            return
        with self._lock:
            if self._loaded:
                return
            self._loaded = True
            for entry in self._built_in():
                self._entries.setdefault(self._name_of(entry), entry)

    def register(self, new: T) -> None:
        """Add ``new``, or replace the entry of its name (a built-in one too)."""
        self._load()
        with self._lock:
            self._entries[self._name_of(new)] = new
            self._generation = next(_COUNTER)

    def get(self, name: str) -> T | None:
        self._load()
        return self._entries.get(name)

    def names(self) -> list[str]:
        self._load()
        return list(self._entries)

    def entries(self) -> tuple[T, ...]:
        """Every entry: the built-in ones, then the user's, in order."""
        self._load()
        return tuple(self._entries.values())

    def generation(self) -> int:
        """A number that changes whenever an entry is registered."""
        if not self._loaded:
            self._load()
        return self._generation

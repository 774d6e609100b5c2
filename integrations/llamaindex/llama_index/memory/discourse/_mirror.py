"""A core ``DiscourseMemory`` kept in step with a message list, for cached compaction.

``discourse_memory.compact`` called with a token-counter object builds a fresh
compactor, so it analyses every message again on every call (about 0.5 s for a
690-message conversation). A ``DiscourseMemory`` keeps its compactor and caches the
analysis of each message text, so a view after one new message only analyses that
message. The adapters keep one mirror per memory object and hand it the current
message list before each view: appended messages are appended, anything else
reloads the mirror (texts already analysed stay cached). The same list asked again
at the same budget returns the previous result (the core is deterministic).
"""

from __future__ import annotations

import threading
from typing import Any

from discourse_memory import Compaction, DiscourseMemory

__all__ = ["Mirror", "Transient"]


class Transient:
    """Holds a cached value that copies (deepcopy, pickle) do not carry: a copy starts
    empty and recomputes it. Token counters hold locks, which cannot be copied."""

    def __init__(self) -> None:
        self.value: Any = None
        self.source: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]


class Mirror:
    """Compacts message lists with fixed settings, reusing the core's analysis cache."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._memory: DiscourseMemory | None = None
        self._key: Any = None
        self._loaded: list[dict[str, Any]] = []
        self._last: tuple[int, Compaction] | None = None

    # A copy (deepcopy, pickle) starts empty: the cache is rebuilt on the next view.
    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__()  # type: ignore[misc]

    def view(
        self,
        messages: list[dict[str, Any]],
        budget: int,
        *,
        token_counter: Any,
        keep_system: bool,
        keep_last_turn: bool,
        note_role: str,
    ) -> Compaction:
        """``discourse_memory.compact(messages, budget, ...)``, with cached analysis."""
        key = (id(token_counter), keep_system, keep_last_turn, note_role)
        with self._lock:
            if self._memory is None or self._key != key:
                self._memory = DiscourseMemory(
                    token_counter=token_counter,
                    keep_system=keep_system,
                    keep_last_turn=keep_last_turn,
                    note_role=note_role,
                )
                self._key = key
                self._loaded = []
                self._last = None
            n = len(self._loaded)
            if n <= len(messages) and messages[:n] == self._loaded:
                if n == len(messages) and self._last is not None and self._last[0] == budget:
                    return self._last[1]  # same input, same settings: the core is deterministic
                self._memory.extend(messages[n:])
            else:
                self._memory.clear()
                self._memory.extend(messages)
            self._loaded = list(messages)
            result = self._memory.view(budget)
            self._last = (budget, result)
            return result

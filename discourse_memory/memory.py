"""``DiscourseMemory``: a conversation's full history, and compacted views of it."""

from __future__ import annotations

import copy
import json
import threading
from typing import Any, Iterable, Mapping

from .compaction import Compaction, Compactor
from .errors import StateError
from .messages import validate_messages
from .policy import Settings
from .tokens import TokenCounterLike

__all__ = ["DiscourseMemory", "SCHEMA"]

SCHEMA = "discourse-memory/state"
SCHEMA_VERSION = 1


class DiscourseMemory:
    """Append messages; ask for a view that fits a budget; the full history stays.

    ``view()`` never changes the history: compaction is a view, not a deletion.
    Parsing is cached by message text, so appending one message and taking a new
    view analyses only that message. One instance may be shared between threads
    (appends and views are serialised by a lock).
    """

    def __init__(
        self,
        messages: Iterable[Mapping[str, Any]] = (),
        *,
        token_counter: TokenCounterLike | None = None,
        keep_system: bool = True,
        keep_last_turn: bool = True,
        note_role: str = "system",
        pipeline: str | None = None,
        clip_tokens: int = 12,
        relax: bool = False,
    ) -> None:
        self._token_counter_name = token_counter if isinstance(token_counter, str) or token_counter is None else None
        self._settings = Settings(keep_system=keep_system, keep_last_turn=keep_last_turn,
                                  clip_tokens=clip_tokens, note_role=note_role, relax=relax)
        self._pipeline = pipeline
        self._compactor = Compactor(token_counter, pipeline=pipeline, clip_tokens=clip_tokens)
        self._messages: list[dict[str, Any]] = []
        self._lock = threading.Lock()
        self.extend(messages)

    def append(self, message: Mapping[str, Any]) -> None:
        """Add one message (validated; stored as a deep copy)."""
        self.extend([message])

    def extend(self, messages: Iterable[Mapping[str, Any]]) -> None:
        """Add messages in order; all are validated before any is stored."""
        batch = [copy.deepcopy(dict(m)) if isinstance(m, Mapping) else m for m in messages]
        validate_messages(batch)
        with self._lock:
            self._messages.extend(batch)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The full, uncompacted history (copies)."""
        with self._lock:
            return copy.deepcopy(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def clear(self) -> None:
        with self._lock:
            self._messages.clear()

    def view(self, budget: int) -> Compaction:
        """The history compacted to ``budget`` tokens (see :func:`discourse_memory.compact`)."""
        with self._lock:
            snapshot = list(self._messages)
        return self._compactor.compact(snapshot, budget, self._settings)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe state; :meth:`from_dict` restores an identical view."""
        s = self._settings
        state = {
            "schema": SCHEMA,
            "version": SCHEMA_VERSION,
            "settings": {
                "token_counter": self._token_counter_name,
                "keep_system": s.keep_system,
                "keep_last_turn": s.keep_last_turn,
                "note_role": s.note_role,
                "pipeline": self._pipeline,
                "clip_tokens": s.clip_tokens,
                "relax": s.relax,
            },
            "messages": self.messages,
        }
        try:
            json.dumps(state)
        except (TypeError, ValueError) as exc:
            raise StateError(f"the history holds a value that is not JSON-serialisable: {exc}") from exc
        return state

    @classmethod
    def from_dict(cls, state: Mapping[str, Any], *,
                  token_counter: TokenCounterLike | None = None) -> "DiscourseMemory":
        """Restore a memory saved by :meth:`to_dict`. Pass ``token_counter`` if the
        saved one was a callable (callables are not saved)."""
        if not isinstance(state, Mapping) or state.get("schema") != SCHEMA:
            raise StateError(f"not a discourse-memory state (expected schema {SCHEMA!r})")
        version = state.get("version")
        if not isinstance(version, int) or version < 1:
            raise StateError(f"state version {version!r} is invalid")
        if version > SCHEMA_VERSION:
            raise StateError(
                f"state version {version} is newer than this discourse-memory understands "
                f"({SCHEMA_VERSION}); upgrade discourse-memory to load it"
            )
        settings = state.get("settings")
        messages = state.get("messages")
        if not isinstance(settings, Mapping) or not isinstance(messages, list):
            raise StateError("state must hold 'settings' (an object) and 'messages' (a list)")
        saved = settings.get("token_counter")
        if token_counter is None and saved is None and "token_counter" in settings and settings["token_counter"] is None \
                and settings.get("_callable"):
            raise StateError("this state was saved with a callable token counter: pass token_counter=")
        try:
            return cls(
                messages,
                token_counter=token_counter if token_counter is not None else saved,
                keep_system=bool(settings.get("keep_system", True)),
                keep_last_turn=bool(settings.get("keep_last_turn", True)),
                note_role=str(settings.get("note_role", "system")),
                pipeline=settings.get("pipeline"),
                clip_tokens=int(settings.get("clip_tokens", 12)),
                relax=bool(settings.get("relax", False)),
            )
        except (TypeError, ValueError) as exc:
            raise StateError(f"invalid state: {exc}") from exc

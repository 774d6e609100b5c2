"""``DiscourseMemoryBuffer``: a drop-in replacement for LlamaIndex's ``ChatMemoryBuffer``.

The full history lives in the chat store (any ``BaseChatStore``); ``get`` returns a
compacted view of it made by ``discourse_memory.compact`` instead of dropping whole
old messages. The buffer only converts messages at the edge; every decision about
what to keep is the core's.

Budget of a view: ``token_limit - initial_token_count`` tokens, counted as the core
counts them: the text of every message plus the name and the JSON arguments of every
tool call (``ChatMemoryBuffer`` does not count tool calls). Images, audio and other
non-text blocks are passed through and not counted, as in ``ChatMemoryBuffer``.

When even the protected messages do not fit (the core raises
``BudgetTooSmallError``), ``get`` never raises; it degrades in this order, taking
the first view that keeps at least one real message (a record note alone is not
accepted: the conversation itself would be gone):

1. the compaction as configured (``keep_last_turn=True`` by default);
2. the newest message alone kept verbatim (with the assistant message whose call
   it answers, when it is a tool result: the "tail group"), and everything before
   it compacted into what is left of the budget (there, a record note alone is
   accepted);
3. the compaction with the newest turn unprotected (``keep_last_turn=False``);
4. the tail group verbatim, even if it exceeds the budget -- the same last resort
   as ``ChatMemoryBuffer``, so the LLM reports an over-long prompt instead of the
   memory silently losing the user's question.

``get(initial_token_count=n)`` with ``n > token_limit`` raises ``ValueError`` exactly
like ``ChatMemoryBuffer``.
"""

from __future__ import annotations

import asyncio
import functools
import json
from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.bridge.pydantic import Field, PrivateAttr, field_serializer, model_validator
from llama_index.core.llms.llm import LLM
from llama_index.core.memory.types import DEFAULT_CHAT_STORE_KEY, BaseChatStoreMemory
from llama_index.core.storage.chat_store import BaseChatStore, SimpleChatStore
from llama_index.core.utils import get_tokenizer

import discourse_memory
from discourse_memory import BudgetTooSmallError, Compaction

from ._convert import (
    copy_message,
    counter_from_tokenizer_fn,
    from_compaction,
    to_core_messages,
    tool_calls_of,
)
from ._mirror import Mirror, Transient

__all__ = ["DiscourseMemoryBuffer"]

DEFAULT_TOKEN_LIMIT_RATIO = 0.75
DEFAULT_TOKEN_LIMIT = 3000
NOTE_ROLES = ("system", "user")
_STATE_VERSION = 1


def resolve_token_counter(tokenizer_fn: Callable[[str], Any]) -> Any:
    """The core token counter for a LlamaIndex ``tokenizer_fn``.

    LlamaIndex's default tokenizer is ``functools.partial(Encoding.encode, ...)`` of a
    tiktoken encoding; for that, the core's own counter of the same encoding is used
    (same BPE, cached and batched; text that looks like a special token is counted as
    plain text). Any other ``tokenizer_fn`` is wrapped as ``len(tokenizer_fn(text))``.
    """
    if isinstance(tokenizer_fn, functools.partial):
        encoding = getattr(tokenizer_fn.func, "__self__", None)
        name = getattr(encoding, "name", None)
        if isinstance(name, str) and hasattr(encoding, "encode_ordinary"):
            try:
                return discourse_memory.get_token_counter(name)
            except LookupError:  # EncodingUnavailableError: count with the callable instead
                pass
    return discourse_memory.get_token_counter(counter_from_tokenizer_fn(tokenizer_fn))


def _tail_start(history: Sequence[ChatMessage]) -> int:
    """Index where the newest self-contained group starts: the newest message, or, if
    it is a tool result, the assistant message whose calls it answers."""
    start = len(history) - 1
    if history[start].role == MessageRole.TOOL:
        for j in range(start - 1, -1, -1):
            role = history[j].role
            if role == MessageRole.ASSISTANT and tool_calls_of(history[j]):
                return j
            if role != MessageRole.TOOL:
                break
    return start


def _dump_store(store: BaseChatStore) -> dict[str, Any]:
    """JSON-safe dict of a chat store (``SimpleChatStore``'s own serialiser is broken
    under pydantic 2.14 once it holds a message, so its messages are dumped here)."""
    if isinstance(store, SimpleChatStore):
        return {
            "class_name": SimpleChatStore.class_name(),
            "store": {key: [m.model_dump(mode="json") for m in messages] for key, messages in store.store.items()},
        }
    data = store.model_dump(mode="json")
    data["class_name"] = store.class_name()
    return data


def _all_subclasses(cls: type[BaseChatStore]) -> list[type[BaseChatStore]]:
    out: list[type[BaseChatStore]] = []
    for sub in cls.__subclasses__():
        out.append(sub)
        out.extend(_all_subclasses(sub))
    return out


def _load_store(data: dict[str, Any] | None) -> BaseChatStore:
    if data is None:
        return SimpleChatStore()
    if not isinstance(data, dict) or "class_name" not in data:
        raise ValueError("chat_store in a saved DiscourseMemoryBuffer must be a dict with class_name")
    name = data["class_name"]
    payload = {k: v for k, v in data.items() if k != "class_name"}
    if name == SimpleChatStore.class_name():
        store = {
            key: [ChatMessage.model_validate(m) for m in messages]
            for key, messages in (payload.get("store") or {}).items()
        }
        return SimpleChatStore(store=store)
    # Only chat-store classes already imported by the application are considered:
    # loading a dict never imports a module named by the data.
    for cls in _all_subclasses(BaseChatStore):  # type: ignore[type-abstract]
        if cls.class_name() == name:
            return cls.model_validate(payload)
    raise ValueError(
        f"cannot rebuild chat store {name!r} from a dict: import its package first, "
        "or pass the store itself: DiscourseMemoryBuffer.from_dict(data, chat_store=store)"
    )


class DiscourseMemoryBuffer(BaseChatStoreMemory):
    """Chat memory whose ``get`` returns a compacted view that fits ``token_limit``.

    Use it wherever ``ChatMemoryBuffer`` is used (chat engines, workflow agents).
    The chat store keeps every message; only the view is compacted. Parts of old
    messages that do not fit are clipped or left out, and a record note (one message
    with role ``note_role``, placed after the leading system messages) lists the
    literals -- numbers, ids, dates, names, paths -- of what was left out.
    """

    token_limit: int = Field(description="Tokens the view may use, before initial_token_count.")
    tokenizer_fn: Callable[[str], list] = Field(
        default_factory=get_tokenizer,
        exclude=True,
        description="LlamaIndex tokenizer (text -> list of tokens); its length is the count.",
    )
    keep_system: bool = Field(default=True, description="Keep system messages verbatim.")
    keep_last_turn: bool = Field(
        default=True,
        description="Keep the newest user message and everything after it verbatim.",
    )
    note_role: str = Field(default="system", description="Role of the record note: system or user.")

    # Copies (deepcopy, pickle) start these empty: token counters hold locks.
    _counter: Transient = PrivateAttr(default_factory=Transient)
    _last: Transient = PrivateAttr(default_factory=Transient)  # the latest Compaction
    # Caches the core's analysis of every message: a get() after one new message
    # only analyses that message.
    _mirror: Mirror = PrivateAttr(default_factory=Mirror)

    @classmethod
    def class_name(cls) -> str:
        return "DiscourseMemoryBuffer"

    @field_serializer("chat_store")
    def serialize_courses_in_order(self, chat_store: BaseChatStore) -> dict:
        # Same name as the base class's serializer, so it replaces it: the base one
        # calls SimpleChatStore.model_dump, which fails under pydantic 2.14.
        return _dump_store(chat_store)

    @model_validator(mode="before")
    @classmethod
    def _validate(cls, values: Any) -> Any:
        if not isinstance(values, dict):
            return values
        token_limit = values.get("token_limit", -1)
        if not isinstance(token_limit, int) or isinstance(token_limit, bool) or token_limit < 1:
            raise ValueError("Token limit must be set and greater than 0.")
        if values.get("tokenizer_fn") is None:
            values["tokenizer_fn"] = get_tokenizer()
        note_role = values.get("note_role", "system")
        if note_role not in NOTE_ROLES:
            raise ValueError(f"note_role must be one of {NOTE_ROLES}, got {note_role!r}")
        return values

    @classmethod
    def from_defaults(
        cls,
        chat_history: list[ChatMessage] | None = None,
        llm: LLM | None = None,
        chat_store: BaseChatStore | None = None,
        chat_store_key: str = DEFAULT_CHAT_STORE_KEY,
        token_limit: int | None = None,
        tokenizer_fn: Callable[[str], list] | None = None,
        *,
        keep_system: bool = True,
        keep_last_turn: bool = True,
        note_role: str = "system",
        **kwargs: Any,
    ) -> DiscourseMemoryBuffer:
        """Create a buffer, with the same arguments as ``ChatMemoryBuffer.from_defaults``.

        The token limit is ``token_limit`` if given, else 75% of ``llm``'s context
        window if ``llm`` is given, else 3000. ``chat_history`` replaces what the store
        holds under ``chat_store_key``.
        """
        if kwargs:
            raise ValueError(f"Unexpected kwargs: {kwargs}")
        if llm is not None:
            context_window = llm.metadata.context_window
            token_limit = token_limit or int(context_window * DEFAULT_TOKEN_LIMIT_RATIO)
        elif token_limit is None:
            token_limit = DEFAULT_TOKEN_LIMIT
        chat_store = chat_store or SimpleChatStore()
        if chat_history is not None:
            chat_store.set_messages(chat_store_key, chat_history)
        return cls(
            token_limit=token_limit,
            tokenizer_fn=tokenizer_fn or get_tokenizer(),
            chat_store=chat_store,
            chat_store_key=chat_store_key,
            keep_system=keep_system,
            keep_last_turn=keep_last_turn,
            note_role=note_role,
        )

    # ---- reading -------------------------------------------------------------

    @property
    def last_compaction(self) -> Compaction | None:
        """The core's result behind the latest view (``None`` before the first ``get``
        and when the last view was the newest-message fallback)."""
        return self._last.value

    def get(self, input: str | None = None, initial_token_count: int = 0, **kwargs: Any) -> list[ChatMessage]:
        """The compacted view of the history; it fits ``token_limit - initial_token_count``.

        ``input`` is accepted for interface compatibility and not used.
        """
        self._check_initial(initial_token_count)
        return self._view(self.chat_store.get_messages(self.chat_store_key), initial_token_count)

    async def aget(self, input: str | None = None, initial_token_count: int = 0, **kwargs: Any) -> list[ChatMessage]:
        """Async ``get``: reads the store with ``aget_messages``, compacts in a worker
        thread (as ``ChatMemoryBuffer.aget`` does) so the event loop is not blocked."""
        self._check_initial(initial_token_count)
        history = await self.chat_store.aget_messages(self.chat_store_key)
        return await asyncio.to_thread(self._view, history, initial_token_count)

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        """Tokens of ``messages`` as the budget counts them (text + tool calls)."""
        counter = self._token_counter()
        total = 0
        for m in to_core_messages(messages):
            content = m.get("content")
            if isinstance(content, str):
                total += counter.count(content)
            for call in m.get("tool_calls") or []:
                total += counter.count(call["function"]["name"])
                total += counter.count(call["function"]["arguments"])
        return total

    def _check_initial(self, initial_token_count: int) -> None:
        if initial_token_count > self.token_limit:
            raise ValueError("Initial token count exceeds token limit")
        if initial_token_count < 0:
            raise ValueError("initial_token_count must be >= 0")

    def _token_counter(self) -> Any:
        slot = self._counter
        if slot.value is None or slot.source is not self.tokenizer_fn:
            slot.value = resolve_token_counter(self.tokenizer_fn)
            slot.source = self.tokenizer_fn
        return slot.value

    def _compact(self, sent: list[dict[str, Any]], budget: int, keep_last_turn: bool) -> Compaction:
        """One-off compaction (the fallback paths); the main path uses the mirror."""
        return discourse_memory.compact(
            sent,
            budget=budget,
            token_counter=self._token_counter(),
            keep_system=self.keep_system,
            keep_last_turn=keep_last_turn,
            note_role=self.note_role,
        )

    def _mirror_view(self, sent: list[dict[str, Any]], budget: int) -> Compaction:
        """Compaction with the buffer's settings through the cached mirror."""
        return self._mirror.view(
            sent,
            budget,
            token_counter=self._token_counter(),
            keep_system=self.keep_system,
            keep_last_turn=self.keep_last_turn,
            note_role=self.note_role,
        )

    def _attempt(
        self,
        sent: list[dict[str, Any]],
        budget: int,
        keep_last_turn: bool,
        mirrored: bool = False,
        note_alone_ok: bool = False,
    ) -> Compaction | None:
        """A compaction, or ``None`` if it fails or (unless ``note_alone_ok``) keeps
        no real message."""
        if budget <= 0:
            return None
        try:
            if mirrored:
                result = self._mirror_view(sent, budget)
            else:
                result = self._compact(sent, budget, keep_last_turn)
        except BudgetTooSmallError:
            return None
        if not note_alone_ok and not any(src is not None for src in result.sources):
            return None  # a record note alone: the conversation itself would be gone
        return result

    def _view(self, history: Sequence[ChatMessage], initial_token_count: int) -> list[ChatMessage]:
        self._last.value = None
        if not history:
            return []
        history = list(history)
        budget = self.token_limit - initial_token_count
        sent = to_core_messages(history)

        # 1. The configured compaction.
        result = self._attempt(sent, budget, self.keep_last_turn, mirrored=True)
        if result is not None:
            self._last.value = result
            return from_compaction(history, sent, result.messages, result.sources, self.note_role)

        # 2. The newest turn does not fit whole: keep only its newest message (group)
        #    verbatim and compact everything before it into the remaining budget.
        start = _tail_start(history)
        tail = [copy_message(m) for m in history[start:]]
        tail_tokens = self.count_tokens(tail)
        if self.keep_last_turn and tail_tokens <= budget:
            head = history[:start]
            head_sent = sent[:start]
            head_result = None
            if head:
                room = budget - tail_tokens
                head_result = self._attempt(head_sent, room, True, note_alone_ok=True) or self._attempt(
                    head_sent, room, False, note_alone_ok=True
                )
            if head_result is None:
                return tail
            self._last.value = head_result
            return [
                *from_compaction(head, head_sent, head_result.messages, head_result.sources, self.note_role),
                *tail,
            ]

        # 3. Let the core shorten the newest turn too.
        if self.keep_last_turn:
            result = self._attempt(sent, budget, False)
            if result is not None:
                self._last.value = result
                return from_compaction(history, sent, result.messages, result.sources, self.note_role)

        # 4. Last resort, as ChatMemoryBuffer: the newest message (group) verbatim.
        return tail

    # ---- serialisation -------------------------------------------------------

    def to_dict(self, **kwargs: Any) -> dict[str, Any]:
        """JSON-safe dict: settings and the chat store (messages too for ``SimpleChatStore``).

        ``tokenizer_fn`` is not saved; ``from_dict`` uses the default unless one is passed.
        """
        return {
            "class_name": self.class_name(),
            "version": _STATE_VERSION,
            "token_limit": self.token_limit,
            "chat_store_key": self.chat_store_key,
            "keep_system": self.keep_system,
            "keep_last_turn": self.keep_last_turn,
            "note_role": self.note_role,
            "chat_store": _dump_store(self.chat_store),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], **kwargs: Any) -> DiscourseMemoryBuffer:
        """Rebuild a buffer from ``to_dict`` output.

        Keyword arguments override saved fields; ``chat_store=`` supplies a store
        object (needed for stores whose class is not imported), ``tokenizer_fn=`` a
        tokenizer.
        """
        if not isinstance(data, dict):
            raise TypeError(f"DiscourseMemoryBuffer.from_dict needs a dict, got {type(data).__name__}")
        data = dict(data)
        data.pop("class_name", None)
        version = data.pop("version", _STATE_VERSION)
        if not isinstance(version, int) or version > _STATE_VERSION:
            raise ValueError(
                f"saved DiscourseMemoryBuffer has version {version!r}; this package reads "
                f"versions <= {_STATE_VERSION}: upgrade llama-index-memory-discourse"
            )
        store_data = data.pop("chat_store", None)
        if "chat_store" not in kwargs:
            data["chat_store"] = _load_store(store_data)
        data.update(kwargs)
        return cls(**data)

    def to_string(self) -> str:
        """``to_dict`` as a JSON string."""
        return json.dumps(self.to_dict())

    @classmethod
    def from_string(cls, json_str: str) -> DiscourseMemoryBuffer:
        """Rebuild a buffer from ``to_string`` output."""
        return cls.from_dict(json.loads(json_str))

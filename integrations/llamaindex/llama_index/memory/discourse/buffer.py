"""``DiscourseMemoryBuffer``: a ``ChatMemoryBuffer`` whose ``get`` compacts instead of dropping
(the chat store keeps the full history; see the README for every call)."""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.bridge.pydantic import Field, PrivateAttr, field_serializer, model_validator
from llama_index.core.llms.llm import LLM
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.core.memory.types import DEFAULT_CHAT_STORE_KEY
from llama_index.core.storage.chat_store import BaseChatStore

import discourse_memory
from discourse_memory import (
    NEWEST_TURN,
    AnalysisCache,
    BudgetTooSmallError,
    Compaction,
    Compactor,
    Options,
    Policy,
    Recalled,
)

from ._cache import _Cache, check_policy_and_cache
from ._convert import copy_message, from_compaction, to_core_messages, tool_calls_of
from ._stores import dump_store, load_store

__all__ = ["DiscourseMemoryBuffer"]

_STATE_VERSION = 1


def _tail(history: Sequence[ChatMessage]) -> list[ChatMessage]:
    """The newest message, with the assistant message whose calls it answers if it is a tool result."""
    start = j = len(history) - 1
    while j > 0 and history[j].role == MessageRole.TOOL:
        j -= 1
    if start != j and history[j].role == MessageRole.ASSISTANT and tool_calls_of(history[j]):
        start = j
    return [copy_message(m) for m in history[start:]]


class DiscourseMemoryBuffer(ChatMemoryBuffer):
    """A ``ChatMemoryBuffer`` (``isinstance`` holds) whose ``get`` returns a compacted view: a record
    note (role ``note_role``) lists the literals of what was left out; with ``recall=True`` it names
    references that ``recalled`` and ``as_recall_tool()`` get back."""

    keep_system: bool = Field(default=True, description="Keep system messages verbatim.")
    keep_last_turn: bool = Field(default=True, description="Keep the newest user message and what follows verbatim.")
    note_role: str = Field(default="user", description=(
        "Role of the record note: user (default: the view then opens with a user turn, as Anthropic "
        "and Gemini require), system or developer."))
    recall: bool = Field(default=False, description="The note names references for a recall tool.")
    policy: Any = Field(default=None, exclude=True, description=(
        "The core's weights (a discourse_memory.Policy; None: the default). Not serialised: pass it again."))
    cache: Any = Field(default=None, exclude=True, description=(
        "Analyses shared by the workers that serve this conversation (a discourse_memory.RedisAnalysisCache; "
        "None: this process's only). Not serialised."))

    _cache: _Cache = PrivateAttr(default_factory=_Cache)

    @classmethod
    def class_name(cls) -> str:
        return "DiscourseMemoryBuffer"

    @field_serializer("chat_store")
    def serialize_courses_in_order(self, chat_store: BaseChatStore) -> dict:  # replaces the base class's
        return dump_store(chat_store)

    @model_validator(mode="after")
    def _check_options(self) -> DiscourseMemoryBuffer:  # ChatMemoryBuffer's validator checks token_limit
        self._options()  # InvalidOptionError (a ValueError) for a bad note_role or flag
        # The counter's tables load now: tiktoken holds the interpreter lock while it builds them
        # (0.1-0.3 s), in whichever thread, so a first ``aget`` would stall its event loop that long.
        self._compactor()
        return self

    def _options(self) -> Options:
        check_policy_and_cache(self.policy, self.cache)
        return Options(keep_system=self.keep_system, keep_last_turn=self.keep_last_turn, note_role=self.note_role,
                       recall=self.recall, policy=self.policy)

    @classmethod
    def from_defaults(cls, chat_history: list[ChatMessage] | None = None, llm: LLM | None = None,
                      chat_store: BaseChatStore | None = None, chat_store_key: str = DEFAULT_CHAT_STORE_KEY,
                      token_limit: int | None = None, tokenizer_fn: Callable[[str], list] | None = None, *,
                      keep_system: bool = True, keep_last_turn: bool = True, note_role: str = "user",
                      recall: bool = False, policy: Policy | None = None, cache: AnalysisCache | None = None,
                      **kwargs: Any) -> DiscourseMemoryBuffer:
        """``ChatMemoryBuffer.from_defaults`` (limit: ``token_limit``, else 75% of ``llm``'s context
        window, else 3000), plus the core settings."""
        memory = super().from_defaults(chat_history, llm, chat_store, chat_store_key, token_limit, tokenizer_fn,
                                       **kwargs)
        memory.keep_system, memory.keep_last_turn, memory.note_role = keep_system, keep_last_turn, note_role
        memory.recall, memory.policy, memory.cache = recall, policy, cache
        return memory._check_options()

    @property
    def last_compaction(self) -> Compaction | None:
        """The core's ``Compaction`` behind the latest view (None before the first): its
        ``report``, ``note`` and ``to_html()``."""
        return self._cache.last

    def _compactor(self) -> Compactor:
        return self._cache.compactor_for(self.tokenizer_fn, self.cache)

    def recalled(self, reference: str, max_tokens: int = 1000) -> Recalled:
        """What the last view left out, verbatim, in at most ``max_tokens`` and half of ``token_limit``."""
        sent = to_core_messages(self.chat_store.get_messages(self.chat_store_key))
        return self._cache.recall(self._compactor(), sent, reference, min(max_tokens, max(1, self.token_limit // 2)))

    def as_recall_tool(self, max_tokens: int = 1000) -> Any:
        """A ``recall`` ``FunctionTool`` for ``FunctionAgent`` / ``ReActAgent`` (see :func:`.recall_tool`)."""
        from .recall import recall_tool

        return recall_tool(self, max_tokens=max_tokens)

    def get(self, input: str | None = None, initial_token_count: int = 0, *, focus: Any = NEWEST_TURN,
            **kwargs: Any) -> list[ChatMessage]:
        """The history compacted to ``token_limit - initial_token_count`` tokens, focused on ``input`` if
        given, else the newest turn (``focus=`` overrides both). ``ValueError`` as ``ChatMemoryBuffer``."""
        return self._view(self.chat_store.get_messages(self.chat_store_key), input, initial_token_count, focus)

    async def aget(self, input: str | None = None, initial_token_count: int = 0, *, focus: Any = NEWEST_TURN,
                   **kwargs: Any) -> list[ChatMessage]:
        """Async ``get``: reads the store with ``aget_messages``, compacts in a worker thread."""
        history = await self.chat_store.aget_messages(self.chat_store_key)
        return await asyncio.to_thread(self._view, history, input, initial_token_count, focus)

    def count_tokens(self, messages: Sequence[ChatMessage]) -> int:
        """Tokens of ``messages`` as the budget counts them, sent as a request: text, tool-call names and
        arguments, each message's framing and the reply priming (OpenAI's rule, with ``tokenizer_fn``)."""
        return discourse_memory.count_messages(to_core_messages(messages), self._compactor().counter)

    def _view(self, history: Sequence[ChatMessage], input: Any, initial_token_count: int, focus: Any
              ) -> list[ChatMessage]:
        if initial_token_count > self.token_limit:
            raise ValueError("Initial token count exceeds token limit")
        self._cache.last = None
        if not history:
            return []
        if focus is NEWEST_TURN and isinstance(input, str) and input.strip():
            focus = input
        history = list(history)
        sent = to_core_messages(history)
        try:
            result = self._compactor().compact(sent, max(0, self.token_limit - initial_token_count),
                                               self._options(), focus=focus)
        except BudgetTooSmallError:  # not even the newest message fits
            return _tail(history)
        self._cache.last, self._cache.sent = result, sent
        return from_compaction(history, sent, result.messages, result.sources, self.note_role)

    def to_dict(self, **kwargs: Any) -> dict[str, Any]:
        """JSON-safe: the settings and the chat store (``SimpleChatStore``: with its messages; ``RedisChatStore``:
        its server's address, never a password; see ``_stores``), no ``tokenizer_fn``."""
        return {**self.model_dump(mode="json"), "version": _STATE_VERSION}

    @classmethod
    def from_dict(cls, data: dict[str, Any], **kwargs: Any) -> DiscourseMemoryBuffer:
        """Rebuild from ``to_dict`` output; keyword arguments (``chat_store=``, ``tokenizer_fn=``) override.
        ``StateError`` (a ``ValueError``) naming ``chat_store=`` when the saved store cannot be rebuilt
        as it was (a Redis server that needs credentials, or cannot be reached)."""
        if not isinstance(data, dict):
            raise TypeError(f"DiscourseMemoryBuffer.from_dict needs a dict, got {type(data).__name__}")
        data = {k: v for k, v in data.items() if k != "class_name"}
        version = data.pop("version", _STATE_VERSION)
        if not isinstance(version, int) or version > _STATE_VERSION:
            raise ValueError(f"saved DiscourseMemoryBuffer has version {version!r}; this package reads versions "
                             f"<= {_STATE_VERSION}: upgrade llama-index-memory-discourse")
        store = data.pop("chat_store", None)
        if "chat_store" not in kwargs:
            data["chat_store"] = load_store(store)
        return cls(**{**data, **kwargs})

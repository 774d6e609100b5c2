"""``DiscourseMemoryBlock``: a ``BaseMemoryBlock`` for LlamaIndex's ``Memory`` class.

``Memory`` flushes its oldest messages out of short-term memory into its memory
blocks. The built-in blocks either lose them or send them to an LLM for fact
extraction; this block keeps them, and renders them through
``discourse_memory.compact`` as text that fits ``token_limit`` tokens: clipped or
omitted units are listed in the record note, so the literals of flushed messages
(numbers, ids, dates, names, paths) stay available to the model.

``atruncate`` (called by ``Memory`` when the blocks and the chat history together
exceed its limit, for blocks with ``priority > 0``) re-compacts the same messages to
the smaller size asked for, instead of dropping the block whole.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.bridge.pydantic import Field, PrivateAttr
from llama_index.core.memory.memory import BaseMemoryBlock

from discourse_memory import BudgetTooSmallError

from ._convert import to_core_messages
from ._mirror import Mirror, Transient
from .buffer import resolve_token_counter

__all__ = ["DiscourseMemoryBlock"]

DEFAULT_BLOCK_TOKEN_LIMIT = 2000
_MAX_SHRINK_STEPS = 8


def render(messages: Sequence[dict[str, Any]], sources: Sequence[int | None]) -> str:
    """Plain text of a compacted message list: one ``role: text`` entry per message,
    tool calls as ``assistant called name(arguments)``, the record note as is."""
    lines: list[str] = []
    for message, src in zip(messages, sources):
        content = message.get("content")
        if isinstance(content, list):
            content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
        if src is None:
            if content:
                lines.append(str(content))
            continue
        role = message.get("role", "user")
        if content:
            lines.append(f"{role}: {content}")
        for call in message.get("tool_calls") or []:
            function = call.get("function", {})
            lines.append(f"{role} called {function.get('name', '')}({function.get('arguments', '')})")
    return "\n".join(lines)


class DiscourseMemoryBlock(BaseMemoryBlock[str]):
    """Keeps the messages ``Memory`` flushes, and shows them compacted to ``token_limit``.

    Messages are kept per ``session_id`` (``Memory`` tags flushed messages with it).
    The default ``priority`` is 1, so ``Memory`` may shrink the block with
    ``atruncate``; set ``priority=0`` to never truncate it.
    """

    name: str = Field(default="DiscourseMemory", description="The name of the memory block.")
    description: str | None = Field(
        default="Earlier messages of this conversation, compacted; the record lists what was left out.",
        description="A description of the memory block.",
    )
    priority: int = Field(
        default=1,
        description="Truncation priority (0 = never truncated, 1 = truncated first...).",
    )
    token_limit: int = Field(
        default=DEFAULT_BLOCK_TOKEN_LIMIT,
        gt=0,
        description="Tokens the rendered block may use at most.",
    )
    tokenizer_fn: Callable[[str], list] | None = Field(
        default=None,
        exclude=True,
        description="LlamaIndex tokenizer (text -> tokens); default: LlamaIndex's default.",
    )
    messages: list[ChatMessage] = Field(
        default_factory=list, description="Every message flushed into this block, oldest first."
    )

    _counter: Transient = PrivateAttr(default_factory=Transient)
    _mirror: Mirror = PrivateAttr(default_factory=Mirror)
    _cache: dict[Any, str] = PrivateAttr(default_factory=dict)
    _last_session: str | None = PrivateAttr(default=None)

    def _token_counter(self) -> Any:
        slot = self._counter
        if slot.value is None or slot.source is not self.tokenizer_fn:
            if self.tokenizer_fn is None:
                from llama_index.core.utils import get_tokenizer

                slot.value = resolve_token_counter(get_tokenizer())
            else:
                slot.value = resolve_token_counter(self.tokenizer_fn)
            slot.source = self.tokenizer_fn
        return slot.value

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` with this block's tokenizer."""
        return int(self._token_counter().count(text))

    def _session_messages(self, session_id: str | None) -> list[ChatMessage]:
        if session_id is None:
            return list(self.messages)
        return [m for m in self.messages if m.additional_kwargs.get("session_id", session_id) == session_id]

    def render_within(self, limit: int, session_id: str | None = None) -> str:
        """The kept messages compacted and rendered in at most ``limit`` tokens
        (``""`` when ``limit`` is too small even for the record note's frame)."""
        if limit <= 0:
            return ""
        key = (session_id, id(self.messages), len(self.messages), limit)
        cached = self._cache.get(key)
        if cached is not None:
            return cached
        history = self._session_messages(session_id)
        if not history:
            return ""
        sent = to_core_messages(history)
        counter = self._token_counter()
        budget = limit
        text = ""
        for _ in range(_MAX_SHRINK_STEPS):
            try:
                result = self._mirror.view(
                    sent,
                    budget,
                    token_counter=counter,
                    keep_system=False,
                    keep_last_turn=False,
                    note_role="user",
                )
            except BudgetTooSmallError:  # not even the record's frame fits
                text = ""
                break
            text = render(result.messages, result.sources)
            over = counter.count(text) - limit
            if over <= 0:
                break
            # Role labels and line breaks are not counted by the core: shrink by the excess.
            budget -= max(over, 1)
            if budget <= 0:
                text = ""
                break
        if counter.count(text) > limit:
            text = text[: counter.head(text, limit)]
        if len(self._cache) > 64:
            self._cache.clear()
        self._cache[key] = text
        return text

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        session_id = block_kwargs.get("session_id")
        self._last_session = session_id
        return await asyncio.to_thread(self.render_within, self.token_limit, session_id)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        for message in messages:
            self.messages.append(
                message.model_copy(
                    update={
                        "blocks": list(message.blocks),
                        "additional_kwargs": dict(message.additional_kwargs),
                    }
                )
            )

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """Re-compact the kept messages to ``tokens(content) - tokens_to_truncate`` tokens."""
        if tokens_to_truncate <= 0:
            return content
        if not content:
            return None
        target = self.count_tokens(content) - tokens_to_truncate
        if target <= 0:
            return None
        text = await asyncio.to_thread(self.render_within, target, self._last_session)
        return text or None

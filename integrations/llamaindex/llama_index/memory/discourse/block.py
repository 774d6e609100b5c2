"""``DiscourseMemoryBlock``: a ``BaseMemoryBlock`` for LlamaIndex's ``Memory`` that keeps the messages
``Memory`` flushes and renders them compacted by the core to ``token_limit`` (``atruncate``: to less)."""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.bridge.pydantic import Field, PrivateAttr, model_validator
from llama_index.core.memory.memory import BaseMemoryBlock

from discourse_memory import NEWEST_TURN, BudgetTooSmallError, Compaction, Compactor, Options, Recalled

from ._cache import _Cache, check_policy_and_cache
from ._convert import copy_message, message_text, to_core_messages

__all__ = ["DiscourseMemoryBlock"]


def render(messages: Sequence[dict[str, Any]], sources: Sequence[int | None]) -> str:
    """One ``role: text`` line per message, calls as ``role called name(arguments)``, the note as is."""
    lines: list[str] = []
    for message, src in zip(messages, sources):
        role, content = message.get("role", "user"), message.get("content")
        if content:
            lines.append(str(content) if src is None else f"{role}: {content}")
        for call in message.get("tool_calls") or ():
            lines.append(f"{role} called {call['function']['name']}({call['function']['arguments']})")
    return "\n".join(lines)


def _line_overhead(count: Callable[[str], int]) -> Callable[[dict[str, Any]], int]:
    """What `render` adds to a message's texts (role prefix, line break), probed between two lines."""

    def added(line: str, *texts: str) -> int:
        return max(1, count(f"end.\n{line}") - count("end.") - sum(count(t) for t in texts))

    def overhead(message: dict[str, Any]) -> int:
        role = message.get("role", "user")
        lines = added(f"{role}: Start", "Start") if message.get("content") else 0
        return lines + len(message.get("tool_calls") or ()) * added(f"{role} called get({{}})", "get", "{}")

    return overhead


class DiscourseMemoryBlock(BaseMemoryBlock[str]):
    """Keeps the messages ``Memory`` flushes (per ``session_id``), shows them compacted to ``token_limit``;
    ``priority=1`` (default): ``Memory`` may truncate it (``atruncate``), ``0``: never."""

    name: str = Field(default="DiscourseMemory", description="The name of the memory block.")
    description: str | None = "Earlier messages of this conversation, compacted; the record lists what was left out."
    priority: int = Field(default=1, description="Truncation priority (0 = never truncated).")
    token_limit: int = Field(default=2000, gt=0, description="Tokens the rendered block may use at most.")
    tokenizer_fn: Callable[[str], list] | None = Field(
        default=None, exclude=True, description="LlamaIndex tokenizer (text -> tokens); default: LlamaIndex's.")
    messages: list[ChatMessage] = Field(default_factory=list, description="Every message flushed into this block.")
    recall: bool = Field(default=False, description="The note names references for a recall tool.")
    policy: Any = Field(default=None, exclude=True, description=(
        "The core's weights (a discourse_memory.Policy; None: the default). Not serialised: pass it again."))
    cache: Any = Field(default=None, exclude=True, description=(
        "Analyses shared by the workers that serve this conversation (a discourse_memory.RedisAnalysisCache; "
        "None: this process's only). Not serialised."))

    _cache: _Cache = PrivateAttr(default_factory=_Cache)
    _last: tuple[Any, Any] = PrivateAttr(default=(None, NEWEST_TURN))  # session and focus of the last aget

    @model_validator(mode="after")
    def _load_counter(self) -> DiscourseMemoryBlock:
        check_policy_and_cache(self.policy, self.cache)
        # Now, not in the first ``_aget``: tiktoken holds the interpreter lock while it builds its
        # tables (0.1-0.3 s), in whichever thread, which would stall the event loop that long.
        self._compactor()
        return self

    def _compactor(self) -> Compactor:
        return self._cache.compactor_for(self.tokenizer_fn, self.cache)

    @property
    def last_compaction(self) -> Compaction | None:
        """The core's ``Compaction`` behind the last rendering (None before the first): its
        ``report``, ``note`` and ``to_html()``."""
        return self._cache.last

    def count_tokens(self, text: str) -> int:
        """Tokens of ``text`` with this block's tokenizer."""
        return self._compactor().counter.count(text)

    def _history(self, session_id: str | None) -> list[ChatMessage]:
        return [m for m in self.messages
                if session_id is None or m.additional_kwargs.get("session_id", session_id) == session_id]

    def recalled(self, reference: str, max_tokens: int = 1000, session_id: str | None = None) -> Recalled:
        """What the last rendering left out, verbatim (``session_id``: default the last ``aget``'s)."""
        sent = to_core_messages(self._history(session_id if session_id is not None else self._last[0]))
        return self._cache.recall(self._compactor(), sent, reference, max_tokens)

    def render_within(self, limit: int, session_id: str | None = None, focus: Any = NEWEST_TURN) -> str:
        """The kept messages (of ``session_id``) compacted and rendered in at most ``limit`` tokens
        (``""`` if too few for the note's frame): the core fits the text plus `render`'s prefixes; if
        over, the excess spread over the messages is added to their overhead once, then cut."""
        history = self._history(session_id)
        if limit <= 0 or not history:
            return ""
        compactor = self._compactor()
        count, overhead = compactor.counter.count, _line_overhead(compactor.counter.count)
        options = Options(keep_system=False, keep_last_turn=False, note_role="user", message_overhead=overhead,
                          recall=self.recall, policy=self.policy)
        sent = to_core_messages(history)
        try:
            result = compactor.compact(sent, limit, options, focus=focus)
            text = render(result.messages, result.sources)
            if count(text) > limit:
                extra = math.ceil((count(text) - result.tokens_after) / len(result.messages))
                options = options.replace(message_overhead=lambda m: overhead(m) + extra)
                result = compactor.compact(sent, limit, options, focus=focus)
                text = render(result.messages, result.sources)
        except BudgetTooSmallError:
            return ""
        self._cache.last, self._cache.sent = result, sent
        return text if count(text) <= limit else text[: compactor.counter.head(text, limit)]

    async def _aget(self, messages: list[ChatMessage] | None = None, **block_kwargs: Any) -> str:
        # Memory passes its chat history, with the input as the last user message: the focus.
        asked = [message_text(m) for m in messages or () if m.role == MessageRole.USER]
        focus = asked[-1] if asked and asked[-1] and asked[-1].strip() else NEWEST_TURN
        self._last = (block_kwargs.get("session_id"), focus)
        return await asyncio.to_thread(self.render_within, self.token_limit, *self._last)

    async def _aput(self, messages: list[ChatMessage]) -> None:
        self.messages.extend(copy_message(m) for m in messages)

    async def atruncate(self, content: str, tokens_to_truncate: int) -> str | None:
        """The kept messages compacted again to ``tokens(content) - tokens_to_truncate`` tokens."""
        if tokens_to_truncate <= 0:
            return content
        return await asyncio.to_thread(self._truncated, content, tokens_to_truncate)

    def _truncated(self, content: str, tokens_to_truncate: int) -> str | None:
        target = self.count_tokens(content) - tokens_to_truncate if content else 0
        return (self.render_within(target, *self._last) if target > 0 else "") or None

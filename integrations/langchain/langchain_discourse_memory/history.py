"""`DiscourseChatMessageHistory`: the full history in a store, a compacted view on read."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from typing import Any

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage

from discourse_memory import NEWEST_TURN, AnalysisCache, Compaction, Policy, Recalled
from langchain_discourse_memory._counting import LangChainTokenCounter
from langchain_discourse_memory.compaction import CompactedView, NoteRole, _check_max_tokens, _Session

__all__ = ["DiscourseChatMessageHistory", "ListChatMessageHistory"]

logger = logging.getLogger(__name__)


class ListChatMessageHistory(BaseChatMessageHistory):
    """The default store, a list (`InMemoryChatMessageHistory` warns since langchain-core 1.6.4)."""

    def __init__(self, messages: Sequence[BaseMessage] = ()) -> None:
        self._messages: list[BaseMessage] = list(messages)

    @property  # type: ignore[override]
    def messages(self) -> list[BaseMessage]:
        return list(self._messages)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        self._messages.extend(messages)

    def clear(self) -> None:
        self._messages = []


class DiscourseChatMessageHistory(BaseChatMessageHistory):
    """A chat history whose `messages` is a compacted view (a pure function of the stored messages)
    of a full `store`; the full history, logged, if not even the note's frame fits (`view()` raises).
    With `recall=True` the note names references that `recalled` (and `RecallTool(history)`) resolves."""

    def __init__(self, store: BaseChatMessageHistory | None = None, *, max_tokens: int,
                 token_counter: LangChainTokenCounter = None, include_system: bool = True,
                 keep_last_turn: bool = True, note_role: NoteRole = "system", recall: bool = False,
                 policy: Policy | None = None, cache: AnalysisCache | None = None) -> None:
        """`policy`: the core's weights (a `discourse_memory.Policy`; None: the default). `cache`: analyses
        shared by the workers that serve this conversation (a `discourse_memory.RedisAnalysisCache`), so
        that a worker that never saw it makes its first view warm (docs/workers.md)."""
        if store is not None and not isinstance(store, BaseChatMessageHistory):
            raise TypeError(f"store must be a BaseChatMessageHistory, got {type(store).__name__}.")
        if isinstance(store, DiscourseChatMessageHistory):
            raise TypeError("store is already a DiscourseChatMessageHistory; pass its .store instead.")
        _check_max_tokens(max_tokens)
        self.store: BaseChatMessageHistory = store if store is not None else ListChatMessageHistory()
        self.max_tokens = max_tokens
        self._session = _Session(token_counter, keep_system=include_system, keep_last_turn=keep_last_turn,
                                 note_role=note_role, relax=True, recall=recall, policy=policy, cache=cache)

    def recalled(self, reference: str, max_tokens: int = 1000) -> Recalled:
        """What the last view left out, verbatim (`reference`: `#12`, `#12-#15`, `<tag>#12`, a part:
        `#12@5120`, `#12:L120-180`, `#12:words`; or words to search for)."""
        return self._session.recall(self.store.messages, reference, max_tokens)

    @property
    def last_compaction(self) -> Compaction | None:
        """The core's `Compaction` behind the last view read (`messages`, `view()`; None before the first)."""
        return self._session.last_compaction

    def count_tokens(self, messages: Sequence[BaseMessage]) -> int:
        """Tokens of `messages` as `max_tokens` counts them (this history's `token_counter`)."""
        return self._session.counting.messages(list(messages))

    def view(self, messages: Sequence[BaseMessage] | None = None, *, focus: Any = NEWEST_TURN) -> CompactedView:
        """The compacted view of `messages` (default: the stored ones), with its `Compaction`;
        `BudgetTooSmallError` if not even the record note's frame fits `max_tokens`."""
        return self._session.view(self.store.messages if messages is None else messages, self.max_tokens, focus)

    def _read(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        return self._session.view_or_all(messages, self.max_tokens, logger, type(self).__name__)

    @property  # type: ignore[override]
    def messages(self) -> list[BaseMessage]:
        """The compacted view of the stored history (a new list on every read)."""
        return self._read(list(self.store.messages))

    async def aget_messages(self) -> list[BaseMessage]:
        """The compacted view, made in a worker thread: the event loop's other tasks go on meanwhile."""
        return await asyncio.to_thread(self._read, list(await self.store.aget_messages()))

    async def aview(self, messages: Sequence[BaseMessage] | None = None, *, focus: Any = NEWEST_TURN) -> CompactedView:
        """Async `view` (the store read with `aget_messages`), made in a worker thread."""
        if messages is None:
            messages = await self.store.aget_messages()
        return await asyncio.to_thread(self.view, list(messages), focus=focus)

    @property
    def full_messages(self) -> list[BaseMessage]:  # every stored message, uncompacted
        return list(self.store.messages)

    async def aget_full_messages(self) -> list[BaseMessage]:
        return list(await self.store.aget_messages())

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        self.store.add_messages(list(messages))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        await self.store.aadd_messages(list(messages))

    def clear(self) -> None:
        self.store.clear()

    async def aclear(self) -> None:
        await self.store.aclear()

"""`DiscourseChatMessageHistory`: full history in a store, compacted view on read."""

from __future__ import annotations

import logging
from collections.abc import Sequence

from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage

from discourse_memory import BudgetTooSmallError
from langchain_discourse_memory._counting import LangChainTokenCounter, resolve_token_counter
from langchain_discourse_memory.compaction import NoteRole, _validate, compact_view

__all__ = ["DiscourseChatMessageHistory", "ListChatMessageHistory"]

logger = logging.getLogger(__name__)


class ListChatMessageHistory(BaseChatMessageHistory):
    """The default backing store: a plain in-memory list.

    Used instead of `InMemoryChatMessageHistory`, which langchain-core 1.6.4
    deprecated (constructing it warns).
    """

    def __init__(self, messages: Sequence[BaseMessage] = ()) -> None:
        super().__init__()
        self._messages: list[BaseMessage] = list(messages)

    @property  # type: ignore[override]
    def messages(self) -> list[BaseMessage]:
        """A copy of the stored messages."""
        return list(self._messages)

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append the messages."""
        self._messages.extend(messages)

    async def aget_messages(self) -> list[BaseMessage]:
        """Async `messages` (no I/O)."""
        return self.messages

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Async `add_messages` (no I/O)."""
        self.add_messages(messages)

    def clear(self) -> None:
        """Remove every message."""
        self._messages = []

    async def aclear(self) -> None:
        """Async `clear`."""
        self.clear()


class DiscourseChatMessageHistory(BaseChatMessageHistory):
    """A chat history whose `messages` is a compacted view of a full backing history.

    Writes (`add_message`, `add_messages`, their async twins) always append every
    message, unchanged, to the backing `store`: nothing is ever dropped or
    rewritten there. Reads (`messages`, `aget_messages`) return the store's
    messages compacted to `max_tokens` by the discourse-memory core.

    The view is a pure function of the stored messages and the settings, so two
    reads with no write in between give lists of the same length. That is what
    `RunnableWithMessageHistory` relies on: when it has no `history_messages_key`
    it prepends `messages` to the input and, after the run, stores only the input
    messages past `len(messages)`; with a `history_messages_key` it stores the
    input as is. Either way each new message is stored exactly once.

    If what must stay verbatim (system messages and the newest turn) does not
    fit, the core protects less (the newest message alone, then not the system
    messages either, then nothing); if even the record note's frame does not fit,
    the full history is returned and a warning is logged (a chat history must not
    make the chain fail). `view_strict()` raises instead.

    Example:
        ```python
        from langchain_discourse_memory import DiscourseChatMessageHistory

        history = DiscourseChatMessageHistory(max_tokens=2000)  # in memory
        # or, persistent: DiscourseChatMessageHistory(RedisChatMessageHistory(...), max_tokens=2000)
        ```

    Args:
        store: the backing history holding every message (default: a new
            in-memory `ListChatMessageHistory`), for example
            `langchain_redis.RedisChatMessageHistory`.
        max_tokens: budget of the view, measured with `token_counter`.
        token_counter: as in `compact_messages` (default: the core's offline
            tiktoken `cl100k_base`).
        include_system: keep system messages verbatim (default `True`).
        keep_last_turn: keep the last human message and what follows verbatim.
        note_role: role of the record note (`"system"` or `"user"`).
    """

    def __init__(
        self,
        store: BaseChatMessageHistory | None = None,
        *,
        max_tokens: int,
        token_counter: LangChainTokenCounter = None,
        include_system: bool = True,
        keep_last_turn: bool = True,
        note_role: NoteRole = "system",
    ) -> None:
        super().__init__()
        if store is not None and not isinstance(store, BaseChatMessageHistory):
            msg = f"store must be a BaseChatMessageHistory, got {type(store).__name__}."
            raise TypeError(msg)
        if isinstance(store, DiscourseChatMessageHistory):
            msg = "store is already a DiscourseChatMessageHistory; pass its .store instead."
            raise TypeError(msg)
        _validate(max_tokens, note_role)
        self.store: BaseChatMessageHistory = store if store is not None else ListChatMessageHistory()
        self.max_tokens = max_tokens
        self.include_system = include_system
        self.keep_last_turn = keep_last_turn
        self.note_role: NoteRole = note_role
        self._counting = resolve_token_counter(token_counter)
        self._compactor = self._counting.new_compactor()  # one conversation: the core reuses its analysis

    # -- reads -------------------------------------------------------------

    def view_strict(self, messages: Sequence[BaseMessage]) -> list[BaseMessage]:
        """Compact `messages` with this history's settings; raise if they cannot fit.

        Raises:
            BudgetTooSmallError: when the protected messages exceed `max_tokens`.
        """
        return self._compact(messages, relax=False)

    def _compact(self, messages: Sequence[BaseMessage], *, relax: bool) -> list[BaseMessage]:
        return compact_view(
            messages,
            max_tokens=self.max_tokens,
            counting=self._counting,
            keep_system=self.include_system,
            keep_last_turn=self.keep_last_turn,
            note_role=self.note_role,
            relax=relax,
            compactor=self._compactor,
        ).messages

    def _view(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        try:
            return self._compact(messages, relax=True)
        except BudgetTooSmallError as exc:
            logger.warning(
                "DiscourseChatMessageHistory: %s; returning the full history (%d messages).",
                exc,
                len(messages),
            )
            return list(messages)

    @property  # type: ignore[override]
    def messages(self) -> list[BaseMessage]:
        """The compacted view of the stored history (a new list on every read)."""
        return self._view(list(self.store.messages))

    async def aget_messages(self) -> list[BaseMessage]:
        """Async `messages`: reads the store with `aget_messages`."""
        return self._view(list(await self.store.aget_messages()))

    @property
    def full_messages(self) -> list[BaseMessage]:
        """Every stored message, uncompacted."""
        return list(self.store.messages)

    async def aget_full_messages(self) -> list[BaseMessage]:
        """Async `full_messages`."""
        return list(await self.store.aget_messages())

    # -- writes: always append everything to the store ----------------------

    def add_message(self, message: BaseMessage) -> None:
        """Append one message to the store."""
        self.store.add_messages([message])

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Append every message, unchanged and in order, to the store."""
        self.store.add_messages(list(messages))

    async def aadd_messages(self, messages: Sequence[BaseMessage]) -> None:
        """Async `add_messages`."""
        await self.store.aadd_messages(list(messages))

    def clear(self) -> None:
        """Remove every message from the store."""
        self.store.clear()

    async def aclear(self) -> None:
        """Async `clear`."""
        await self.store.aclear()

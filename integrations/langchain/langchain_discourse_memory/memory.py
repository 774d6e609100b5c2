"""`ConversationDiscourseMemory`: legacy `langchain-classic` memory (extra `classic`), compacted
without an LLM, for chains that still use the deprecated `BaseChatMemory`."""

from __future__ import annotations

import logging
from typing import Any

from langchain_classic.memory.chat_memory import BaseChatMemory
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage, get_buffer_string
from pydantic import Field, PrivateAttr, model_validator

from discourse_memory import Compaction, Recalled
from langchain_discourse_memory.compaction import NoteRole, _check_max_tokens, _Session
from langchain_discourse_memory.history import ListChatMessageHistory

__all__ = ["ConversationDiscourseMemory"]

logger = logging.getLogger(__name__)


class ConversationDiscourseMemory(BaseChatMemory):
    """`ConversationTokenBufferMemory`'s fields and methods, but `save_context` never prunes and
    no LLM is needed to count (`token_counter`, default `llm`, else `cl100k_base`): only what
    `load_memory_variables` returns is compacted to `max_token_limit` (the full history, logged,
    if not even the note's frame fits). `recall=True`: as `DiscourseChatMessageHistory`'s."""

    chat_memory: BaseChatMessageHistory = Field(default_factory=ListChatMessageHistory)
    human_prefix: str = "Human"
    ai_prefix: str = "AI"
    memory_key: str = "history"
    max_token_limit: int = 2000
    token_counter: Any = None
    llm: Any = None
    keep_system: bool = True
    keep_last_turn: bool = True
    note_role: NoteRole = "system"
    recall: bool = False

    _session: _Session = PrivateAttr()

    @model_validator(mode="after")
    def _resolve(self) -> ConversationDiscourseMemory:
        _check_max_tokens(self.max_token_limit)
        self._session = _Session(self.token_counter if self.token_counter is not None else self.llm,
                                 keep_system=self.keep_system, keep_last_turn=self.keep_last_turn,
                                 note_role=self.note_role, relax=True, recall=self.recall)
        return self

    def recalled(self, reference: str, max_tokens: int = 1000) -> Recalled:
        """What the last view left out, verbatim (`reference`: `#12`, `#12-#15`, `<tag>#12`, a part:
        `#12@5120`, `#12:L120-180`, `#12:words`; or words to search for)."""
        return self._session.recall(self.chat_memory.messages, reference, max_tokens)

    @property
    def last_compaction(self) -> Compaction | None:
        """The core's `Compaction` behind the last compacted buffer read (None before the first)."""
        return self._session.last_compaction

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    @property
    def buffer_as_messages(self) -> list[BaseMessage]:
        """The compacted history as messages."""
        return self._session.view_or_all(self.chat_memory.messages, self.max_token_limit, logger, type(self).__name__)

    @property
    def buffer_as_str(self) -> str:
        return get_buffer_string(self.buffer_as_messages, human_prefix=self.human_prefix, ai_prefix=self.ai_prefix)

    @property
    def buffer(self) -> Any:
        return self.buffer_as_messages if self.return_messages else self.buffer_as_str

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """`{memory_key: the compacted history}`."""
        return {self.memory_key: self.buffer}

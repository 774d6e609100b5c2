"""`ConversationDiscourseMemory`: legacy `langchain-classic` memory, compacted without an LLM.

Needs the `classic` extra. `BaseMemory` / `BaseChatMemory` are deprecated by LangChain
(removal in 2.0); this class exists for chains that still use them.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_classic.memory.chat_memory import BaseChatMemory
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage, get_buffer_string
from pydantic import Field, PrivateAttr, model_validator

from discourse_memory import BudgetTooSmallError, Recalled
from langchain_discourse_memory.compaction import NoteRole, _check_max_tokens, _Session
from langchain_discourse_memory.history import ListChatMessageHistory

__all__ = ["ConversationDiscourseMemory"]

logger = logging.getLogger(__name__)


class ConversationDiscourseMemory(BaseChatMemory):
    """`ConversationTokenBufferMemory`'s fields and methods, but `save_context` never prunes
    (`chat_memory` keeps every message) and no LLM is needed to count: only what
    `load_memory_variables` returns is compacted to `max_token_limit`, by `token_counter`
    (default: `llm` if given, else the core's offline `cl100k_base`). When not even the
    record note's frame fits, the full history is returned and a warning logged. With
    `recall=True` the note names references that `recalled` (and `RecallTool(memory)`) resolves.
    """

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
        """What the last view left out, verbatim (`reference`: `#12`, `#12-#15`, `<tag>#12`, or words)."""
        return self._session.recall(self.chat_memory.messages, reference, max_tokens)

    @property
    def memory_variables(self) -> list[str]:
        return [self.memory_key]

    @property
    def buffer_as_messages(self) -> list[BaseMessage]:
        """The compacted history as messages."""
        messages = list(self.chat_memory.messages)
        try:
            return self._session.view(messages, self.max_token_limit).messages
        except BudgetTooSmallError as exc:
            logger.warning("ConversationDiscourseMemory: %s; returning the full history.", exc)
            return messages

    @property
    def buffer_as_str(self) -> str:
        return get_buffer_string(self.buffer_as_messages, human_prefix=self.human_prefix, ai_prefix=self.ai_prefix)

    @property
    def buffer(self) -> Any:
        return self.buffer_as_messages if self.return_messages else self.buffer_as_str

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """`{memory_key: the compacted history}`."""
        return {self.memory_key: self.buffer}

"""`ConversationDiscourseMemory`: legacy `langchain-classic` memory, compacted without an LLM.

Needs the `classic` extra (`pip install "langchain-discourse-memory[classic]"`).
`BaseMemory` and `BaseChatMemory` are deprecated by LangChain (since 0.3.x, to be
removed in 2.0); this class exists for chains that still use them.
"""

from __future__ import annotations

import logging
from typing import Any

from langchain_classic.memory.chat_memory import BaseChatMemory
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import BaseMessage, get_buffer_string
from pydantic import Field, PrivateAttr, model_validator

from discourse_memory import BudgetTooSmallError, Compactor
from langchain_discourse_memory._counting import Counting, resolve_token_counter
from langchain_discourse_memory.compaction import NoteRole, _validate, compact_view
from langchain_discourse_memory.history import ListChatMessageHistory

__all__ = ["ConversationDiscourseMemory"]

logger = logging.getLogger(__name__)


class ConversationDiscourseMemory(BaseChatMemory):
    """Conversation memory whose loaded history is compacted to `max_token_limit`.

    A replacement for `ConversationTokenBufferMemory`: same fields
    (`memory_key`, `input_key`, `output_key`, `return_messages`, `human_prefix`,
    `ai_prefix`, `max_token_limit`, `chat_memory`), same methods
    (`load_memory_variables`, `save_context`, `clear`, and the async twins), but:

    * no LLM is needed: tokens are counted by `token_counter` (default: the
      core's offline tiktoken `cl100k_base`). If `llm` is given and
      `token_counter` is not, the LLM counts, as in `ConversationTokenBufferMemory`;
    * `save_context` never prunes: `chat_memory` keeps every message, and only
      what `load_memory_variables` returns is compacted.

    If the newest exchange alone does not fit, the core protects less (the
    newest message alone, then nothing); if even the record note's frame does
    not fit, the full history is returned and a warning is logged.

    Example:
        ```python
        from langchain_classic.chains import ConversationChain
        from langchain_discourse_memory import ConversationDiscourseMemory

        chain = ConversationChain(llm=llm, memory=ConversationDiscourseMemory(max_token_limit=2000))
        ```
    """

    chat_memory: BaseChatMessageHistory = Field(default_factory=ListChatMessageHistory)
    """Every message ever saved (never pruned). Default: an in-memory list."""
    human_prefix: str = "Human"
    ai_prefix: str = "AI"
    memory_key: str = "history"
    max_token_limit: int = 2000
    token_counter: Any = None
    """As in `compact_messages`; `None` uses `llm` if given, else tiktoken `cl100k_base`."""
    llm: Any = None
    """Optional `BaseLanguageModel`, only used to count tokens when `token_counter` is `None`."""
    keep_system: bool = True
    keep_last_turn: bool = True
    note_role: NoteRole = "system"

    _counting: Counting = PrivateAttr()
    _compactor: Compactor = PrivateAttr()

    @model_validator(mode="after")
    def _resolve(self) -> ConversationDiscourseMemory:
        _validate(self.max_token_limit, self.note_role)
        counter = self.token_counter if self.token_counter is not None else self.llm
        self._counting = resolve_token_counter(counter)
        self._compactor = self._counting.new_compactor()
        return self

    @property
    def memory_variables(self) -> list[str]:
        """The one key this memory adds to chain inputs: `memory_key`."""
        return [self.memory_key]

    @property
    def buffer_as_messages(self) -> list[BaseMessage]:
        """The compacted history as messages."""
        messages = list(self.chat_memory.messages)
        try:
            return compact_view(
                messages,
                max_tokens=self.max_token_limit,
                counting=self._counting,
                keep_system=self.keep_system,
                keep_last_turn=self.keep_last_turn,
                note_role=self.note_role,
                relax=True,
                compactor=self._compactor,
            ).messages
        except BudgetTooSmallError as exc:
            logger.warning("ConversationDiscourseMemory: %s; returning the full history.", exc)
            return messages

    @property
    def buffer_as_str(self) -> str:
        """The compacted history as a string (`human_prefix: ...` lines)."""
        return get_buffer_string(self.buffer_as_messages, human_prefix=self.human_prefix, ai_prefix=self.ai_prefix)

    @property
    def buffer(self) -> Any:
        """`buffer_as_messages` if `return_messages`, else `buffer_as_str`."""
        return self.buffer_as_messages if self.return_messages else self.buffer_as_str

    def load_memory_variables(self, inputs: dict[str, Any]) -> dict[str, Any]:
        """Return `{memory_key: compacted history}`."""
        del inputs
        return {self.memory_key: self.buffer}

"""LangChain integration for discourse-memory.

Keep long conversations inside a token budget without an LLM:

* `compact_messages`: a drop-in for `langchain_core.messages.trim_messages`
  (`compact_view` gives the core's report too; `count_tokens` is the count they fit).
* `DiscourseChatMessageHistory`: a `BaseChatMessageHistory` storing everything
  and reading back a compacted view.
* `DiscourseCompactionMiddleware`: for `langchain.agents.create_agent`
  (extra `agents`: `pip install "langchain-discourse-memory[agents]"`).
* `ConversationDiscourseMemory`: for legacy `langchain-classic` chains
  (extra `classic`: `pip install "langchain-discourse-memory[classic]"`).

The two extras' classes are imported on first use, so the package imports with
`langchain-core` alone.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from langchain_discourse_memory.compaction import CompactedView, compact_messages, compact_view, count_tokens
from langchain_discourse_memory.history import DiscourseChatMessageHistory, ListChatMessageHistory

if TYPE_CHECKING:
    from langchain_discourse_memory.memory import ConversationDiscourseMemory
    from langchain_discourse_memory.middleware import DiscourseCompactionMiddleware

__all__ = [
    "CompactedView",
    "ConversationDiscourseMemory",
    "DiscourseChatMessageHistory",
    "DiscourseCompactionMiddleware",
    "ListChatMessageHistory",
    "compact_messages",
    "compact_view",
    "count_tokens",
]

_LAZY = {
    "DiscourseCompactionMiddleware": ("langchain_discourse_memory.middleware", "agents", "langchain"),
    "ConversationDiscourseMemory": ("langchain_discourse_memory.memory", "classic", "langchain-classic"),
}


def __getattr__(name: str) -> Any:
    if name not in _LAZY:
        msg = f"module {__name__!r} has no attribute {name!r}"
        raise AttributeError(msg)
    module_name, extra, dist = _LAZY[name]
    try:
        module = import_module(module_name)
    except ImportError as exc:
        msg = f'{name} needs {dist}: pip install "langchain-discourse-memory[{extra}]" (import failed: {exc})'
        raise ImportError(msg) from exc
    value = getattr(module, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

"""LangChain integration for discourse-memory: keep long conversations inside a token budget
without an LLM.

* `compact_messages`: a drop-in for `trim_messages` (`compact_view` also gives the core's
  report; `count_tokens` is the count `max_tokens` limits).
* `DiscourseChatMessageHistory`: a `BaseChatMessageHistory` storing everything, reading a view.
* `DiscourseCompactionMiddleware`: for `langchain.agents.create_agent` (extra `agents`).
* `ConversationDiscourseMemory`: for legacy `langchain-classic` chains (extra `classic`).
* `RecallTool`: gets back what a view left out (the middleware registers one with `recall=True`).

The extras' classes are imported on first use: the package imports with `langchain-core` alone.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from langchain_discourse_memory.compaction import CompactedView, compact_messages, compact_view, count_tokens
from langchain_discourse_memory.history import DiscourseChatMessageHistory, ListChatMessageHistory
from langchain_discourse_memory.recall import RecallTool

if TYPE_CHECKING:
    from langchain_discourse_memory.memory import ConversationDiscourseMemory
    from langchain_discourse_memory.middleware import DiscourseCompactionMiddleware

__all__ = ["CompactedView", "ConversationDiscourseMemory", "DiscourseChatMessageHistory",
           "DiscourseCompactionMiddleware", "ListChatMessageHistory", "RecallTool", "compact_messages", "compact_view",
           "count_tokens"]

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
        value = getattr(import_module(module_name), name)
    except ImportError as exc:
        msg = f'{name} needs {dist}: pip install "langchain-discourse-memory[{extra}]" (import failed: {exc})'
        raise ImportError(msg) from exc
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

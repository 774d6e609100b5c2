"""LangChain integration for discourse-memory: keep long conversations inside a token budget
without an LLM (see the README). The extras' classes (`DiscourseCompactionMiddleware`: `agents`,
`ConversationDiscourseMemory`: `classic`) are imported on first use."""

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
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module_name, extra, dist = _LAZY[name]
    try:
        value = getattr(import_module(module_name), name)
    except ImportError as exc:
        raise ImportError(f'{name} needs {dist}: pip install "langchain-discourse-memory[{extra}]" '
                          f"(import failed: {exc})") from exc
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))

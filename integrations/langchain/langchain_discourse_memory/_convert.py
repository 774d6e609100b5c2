"""LangChain messages <-> the core's OpenAI-style dicts: translation only, no policy, no cache."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    AIMessageChunk,
    BaseMessage,
    ChatMessage,
    FunctionMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)

from discourse_memory import Compaction

__all__ = ["NOTE_SOURCE_TAG", "from_core", "is_text_block", "message_role", "orphan_tool_messages",
           "to_core_dict", "without_calls"]

NOTE_SOURCE_TAG = "discourse_memory"  # additional_kwargs["lc_source"] of the record note

TOOL_BLOCK_TYPES = frozenset({"tool_use", "tool_call", "function_call"})
_ALIASES = {"human": "user", "ai": "assistant"}


def message_role(message: BaseMessage) -> str:
    """The OpenAI role of a LangChain message (`SystemMessage` honours
    `additional_kwargs["__openai_role__"] == "developer"`, as `convert_to_openai_messages` does)."""
    if isinstance(message, SystemMessage):
        return "developer" if message.additional_kwargs.get("__openai_role__") == "developer" else "system"
    if isinstance(message, ChatMessage):
        return _ALIASES.get(message.role, message.role)
    # A FunctionMessage has no call id to pair with: an ordinary message for the core.
    for cls, role in ((AIMessage, "assistant"), (HumanMessage, "user"), (ToolMessage, "tool"),
                      (FunctionMessage, "function")):
        if isinstance(message, cls):
            return role
    if isinstance(message, BaseMessage):
        return message.type
    raise TypeError(f"Expected a LangChain BaseMessage, got {type(message).__name__}.")


def is_text_block(block: Any) -> bool:
    """A content block the core reads as text (a string, or `{"type": "text", "text": str}`)."""
    return isinstance(block, str) or (isinstance(block, dict) and block.get("type") == "text"
                                      and isinstance(block.get("text"), str))


def _call(call_id: Any, name: Any, arguments: str) -> dict[str, Any]:
    return {"id": call_id or "", "type": "function", "function": {"name": name or "", "arguments": arguments}}


def to_core_dict(message: BaseMessage) -> dict[str, Any]:
    """One LangChain message as the core's input dict."""
    content = message.content if isinstance(message.content, list) else message.content or ""
    out: dict[str, Any] = {"role": message_role(message), "content": content}
    if isinstance(message, AIMessage):
        calls = [_call(c.get("id"), c["name"], json.dumps(c["args"], ensure_ascii=False)) for c in message.tool_calls]
        # Malformed calls may still be answered by a ToolMessage: the core pairs them too.
        calls += [_call(c["id"], c.get("name"), c.get("args") or "") for c in message.invalid_tool_calls if c.get("id")]
        if calls:
            out["tool_calls"] = calls
    if isinstance(message, ToolMessage):
        out["tool_call_id"] = message.tool_call_id
    if message.name:
        out["name"] = message.name
    return out


def without_calls(message: BaseMessage, content: Any) -> BaseMessage:
    """A copy of `message` with `content` and, for an `AIMessage`, no tool calls, no content
    blocks mirroring them and no raw `additional_kwargs` calls."""
    update: dict[str, Any] = {"content": content}
    if isinstance(message, AIMessage):
        if isinstance(content, list):
            update["content"] = [b for b in content if not (isinstance(b, dict) and b.get("type") in TOOL_BLOCK_TYPES)]
        update.update(tool_calls=[], invalid_tool_calls=[])
        if isinstance(message, AIMessageChunk):
            update["tool_call_chunks"] = []
        kwargs = message.additional_kwargs
        update["additional_kwargs"] = {k: v for k, v in kwargs.items() if k not in ("tool_calls", "function_call")}
    return message.model_copy(update=update)


def _restore(original: BaseMessage, sent: dict[str, Any], got: dict[str, Any]) -> BaseMessage:
    content = "" if got.get("content") is None else got["content"]
    if sent.get("tool_calls") and not got.get("tool_calls"):
        return without_calls(original, content)
    return original if content == sent["content"] else original.model_copy(update={"content": content})


def make_note(text: str, note_role: str) -> BaseMessage:
    """The record note: a `SystemMessage` (`"developer"`: with `__openai_role__`), or a
    `HumanMessage` for `"user"`, tagged `additional_kwargs["lc_source"]`."""
    if note_role == "user":
        return HumanMessage(content=text, additional_kwargs={"lc_source": NOTE_SOURCE_TAG})
    extra = {"__openai_role__": "developer"} if note_role == "developer" else {}
    return SystemMessage(content=text, additional_kwargs={"lc_source": NOTE_SOURCE_TAG, **extra})


def from_core(originals: Sequence[BaseMessage], sent: Sequence[dict[str, Any]], compaction: Compaction,
              note_role: str) -> list[BaseMessage]:
    """LangChain messages for the core's output (`sent` are the dicts given to the core)."""
    return [
        make_note(compaction.note or "", note_role) if src is None else _restore(originals[src], sent[src], got)
        for got, src in zip(compaction.messages, compaction.sources, strict=True)
    ]


def orphan_tool_messages(messages: Sequence[BaseMessage]) -> list[ToolMessage]:
    """`ToolMessage`s whose call id was not made by an earlier `AIMessage` in `messages`."""
    called: set[str] = set()
    orphans: list[ToolMessage] = []
    for message in messages:
        if isinstance(message, AIMessage):
            called.update(c["id"] for c in [*message.tool_calls, *message.invalid_tool_calls] if c.get("id"))
        elif isinstance(message, ToolMessage) and message.tool_call_id not in called:
            orphans.append(message)
    return orphans

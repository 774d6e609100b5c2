"""``ChatMessage`` <-> the core's OpenAI-style dicts: translation only, nothing decided here (text:
the ``TextBlock``s joined with ``"\\n"``; calls: ``ToolCallBlock`` or ``additional_kwargs``)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock

__all__ = ["copy_message", "from_compaction", "message_text", "to_core_message", "to_core_messages", "tool_calls_of"]

_ROLE_MAP = {"system": "system", "developer": "developer", "user": "user", "assistant": "assistant",
             "chatbot": "assistant", "model": "assistant", "tool": "tool"}  # MessageRole values


def message_text(message: ChatMessage) -> str | None:
    """The ``TextBlock`` texts of a message joined with a newline, or ``None``."""
    texts = [block.text for block in message.blocks if isinstance(block, TextBlock)]
    return "\n".join(texts) if texts else None


def _call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    if not isinstance(arguments, str):
        arguments = "{}" if arguments is None else json.dumps(arguments, ensure_ascii=False, default=str)
    out: dict[str, Any] = {"type": "function", "function": {"name": str(name or ""), "arguments": arguments}}
    if call_id:
        out["id"] = str(call_id)
    return out


def _kwargs_call(item: Any) -> dict[str, Any] | None:
    """One entry of ``additional_kwargs["tool_calls"]`` in OpenAI form, or ``None``."""
    if isinstance(item, dict):
        function = item.get("function")
        if isinstance(function, dict):
            return _call(item.get("id"), function.get("name"), function.get("arguments"))
        if "name" in item or "tool_name" in item:
            args = next((item[k] for k in ("arguments", "input", "args", "tool_kwargs") if k in item), None)
            call_id = item.get("id", item.get("tool_id", item.get("tool_call_id")))
            return _call(call_id, item.get("name", item.get("tool_name")), args)
        return None
    function = getattr(item, "function", None)
    if function is not None:  # openai ChatCompletionMessageToolCall and friends
        return _call(getattr(item, "id", None), getattr(function, "name", None), getattr(function, "arguments", None))
    if hasattr(item, "tool_name"):  # llama_index ToolSelection
        return _call(getattr(item, "tool_id", None), item.tool_name, getattr(item, "tool_kwargs", None))
    return None


def tool_calls_of(message: ChatMessage) -> list[dict[str, Any]]:
    """An assistant message's calls in OpenAI form: ``ToolCallBlock`` blocks, then the entries of
    ``additional_kwargs["tool_calls"]`` whose id no block has (some integrations fill both)."""
    calls = [_call(b.tool_call_id, b.tool_name, b.tool_kwargs) for b in message.blocks if isinstance(b, ToolCallBlock)]
    seen = {c["id"] for c in calls if "id" in c}
    extra = message.additional_kwargs.get("tool_calls")
    for item in extra if isinstance(extra, (list, tuple)) else ():
        found = _kwargs_call(item)
        if found is not None and found.get("id", object()) not in seen:
            calls.append(found)
    return calls


def to_core_message(message: ChatMessage) -> dict[str, Any]:
    """One ``ChatMessage`` as an OpenAI-style dict for the core."""
    raw_role = message.role.value if isinstance(message.role, MessageRole) else str(message.role)
    tool_call_id = message.additional_kwargs.get("tool_call_id")
    # Legacy "function" results naming their call are tool results; other roles, user text.
    role = _ROLE_MAP.get(raw_role) or ("tool" if raw_role == "function" and tool_call_id else "user")
    out: dict[str, Any] = {"role": role, "content": message_text(message)}
    if role == "assistant":
        calls = tool_calls_of(message)
        if calls:
            out["tool_calls"] = calls
    elif role == "tool" and tool_call_id:
        out["tool_call_id"] = str(tool_call_id)
    name = message.additional_kwargs.get("name")
    if isinstance(name, str) and name:
        out["name"] = name
    return out


def to_core_messages(messages: Sequence[ChatMessage]) -> list[dict[str, Any]]:
    return [to_core_message(m) for m in messages]


def copy_message(message: ChatMessage) -> ChatMessage:
    """A copy whose blocks and kwargs can be changed without touching the store."""
    return message.model_copy(update={"blocks": list(message.blocks),
                                      "additional_kwargs": dict(message.additional_kwargs)})


def _rebuild(original: ChatMessage, sent: dict[str, Any], got: dict[str, Any]) -> ChatMessage:
    copy = copy_message(original)
    calls_dropped = bool(sent.get("tool_calls")) and not got.get("tool_calls")
    new_text = got.get("content")
    text_changed = new_text != sent.get("content")
    if not text_changed and not calls_dropped:
        return copy
    blocks: list[Any] = []
    placed = False
    for block in original.blocks:
        if isinstance(block, TextBlock) and text_changed:
            if not placed and new_text:
                blocks.append(TextBlock(text=new_text))
            placed = True
        elif not (calls_dropped and isinstance(block, ToolCallBlock)):
            blocks.append(block)
    if text_changed and not placed and new_text:
        blocks.insert(0, TextBlock(text=new_text))
    copy.blocks = blocks
    if calls_dropped:
        copy.additional_kwargs.pop("tool_calls", None)
    return copy


def from_compaction(originals: Sequence[ChatMessage], sent: Sequence[dict[str, Any]],
                    out_messages: Sequence[dict[str, Any]], sources: Sequence[int | None],
                    note_role: str = "system") -> list[ChatMessage]:
    """``ChatMessage`` objects for the core's output (``Compaction.messages`` and ``.sources``;
    ``sent``: the dicts given to the core)."""
    return [
        ChatMessage(role=note_role, content=got.get("content") or "") if src is None
        else _rebuild(originals[src], sent[src], got)
        for got, src in zip(out_messages, sources, strict=True)
    ]

"""Conversion between LlamaIndex ``ChatMessage`` objects and the core's message dicts.

The core (``discourse_memory``) works on OpenAI-style dicts. This module is the
only place that knows both shapes:

* :func:`to_core_messages` turns ``ChatMessage`` objects into dicts: the text of
  every ``TextBlock`` (joined with ``"\\n"``, as ``ChatMessage.content`` does),
  tool calls from ``ToolCallBlock`` blocks and from ``additional_kwargs["tool_calls"]``
  (OpenAI objects or dicts, LlamaIndex ``ToolSelection`` objects, Anthropic-style
  ``{"id", "name", "input"}`` dicts), and ``additional_kwargs["tool_call_id"]`` of
  ``tool`` messages.
* :func:`from_compaction` maps the core's output back with ``Compaction.sources``:
  each kept message is a copy of its original ``ChatMessage`` (role, metadata,
  images and other non-text blocks survive) whose text is replaced when the core
  shortened it, and whose tool calls are removed when the core removed them. The
  record note becomes a new ``ChatMessage`` with the note's role.

Nothing here decides what to keep: that is the core's job.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from llama_index.core.base.llms.types import (
    ChatMessage,
    MessageRole,
    TextBlock,
    ToolCallBlock,
)

__all__ = [
    "copy_message",
    "counter_from_tokenizer_fn",
    "from_compaction",
    "message_text",
    "to_core_message",
    "to_core_messages",
    "tool_calls_of",
]

# LlamaIndex roles -> the roles the core understands.
_ROLE_MAP = {
    MessageRole.SYSTEM.value: "system",
    MessageRole.DEVELOPER.value: "developer",
    MessageRole.USER.value: "user",
    MessageRole.ASSISTANT.value: "assistant",
    MessageRole.CHATBOT.value: "assistant",
    MessageRole.MODEL.value: "assistant",
    MessageRole.TOOL.value: "tool",
}


def message_text(message: ChatMessage) -> str | None:
    """The text of a message: its ``TextBlock`` texts joined with a newline, or ``None``."""
    texts = [block.text for block in message.blocks if isinstance(block, TextBlock)]
    if not texts:
        return None
    return "\n".join(texts)


def _arguments(value: Any) -> str:
    """Tool-call arguments as the JSON string OpenAI uses."""
    if value is None:
        return "{}"
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)


def _call(call_id: Any, name: Any, arguments: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "type": "function",
        "function": {"name": str(name or ""), "arguments": _arguments(arguments)},
    }
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
            name = item.get("name", item.get("tool_name"))
            args = next(
                (item[k] for k in ("arguments", "input", "args", "tool_kwargs") if k in item),
                None,
            )
            call_id = item.get("id", item.get("tool_id", item.get("tool_call_id")))
            return _call(call_id, name, args)
        return None
    function = getattr(item, "function", None)
    if function is not None:  # openai ChatCompletionMessageToolCall and friends
        return _call(
            getattr(item, "id", None),
            getattr(function, "name", None),
            getattr(function, "arguments", None),
        )
    if hasattr(item, "tool_name"):  # llama_index ToolSelection
        return _call(
            getattr(item, "tool_id", None),
            getattr(item, "tool_name", None),
            getattr(item, "tool_kwargs", None),
        )
    return None


def tool_calls_of(message: ChatMessage) -> list[dict[str, Any]]:
    """The tool calls an assistant message makes, in OpenAI form.

    ``ToolCallBlock`` blocks come first; entries of ``additional_kwargs["tool_calls"]``
    are added unless a block already has the same id (LLM integrations that fill
    both hold the same calls twice).
    """
    calls: list[dict[str, Any]] = []
    seen: set[str] = set()
    for block in message.blocks:
        if isinstance(block, ToolCallBlock):
            call = _call(block.tool_call_id, block.tool_name, block.tool_kwargs)
            calls.append(call)
            if "id" in call:
                seen.add(call["id"])
    extra = message.additional_kwargs.get("tool_calls")
    if isinstance(extra, (list, tuple)):
        for item in extra:
            found = _kwargs_call(item)
            if found is None:
                continue
            if "id" in found and found["id"] in seen:
                continue
            calls.append(found)
    return calls


def to_core_message(message: ChatMessage) -> dict[str, Any]:
    """One ``ChatMessage`` as an OpenAI-style dict for the core."""
    raw_role = message.role.value if isinstance(message.role, MessageRole) else str(message.role)
    tool_call_id = message.additional_kwargs.get("tool_call_id")
    role = _ROLE_MAP.get(raw_role)
    if role is None:
        # Legacy "function" results and unknown roles: a tool result when it names
        # its call, otherwise plain text the user side supplied.
        role = "tool" if (raw_role == "function" and tool_call_id) else "user"
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
    """Every message of ``messages`` as core dicts, in order."""
    return [to_core_message(m) for m in messages]


def copy_message(message: ChatMessage) -> ChatMessage:
    """A copy whose block list and kwargs can be changed without touching the store."""
    return message.model_copy(
        update={
            "blocks": list(message.blocks),
            "additional_kwargs": dict(message.additional_kwargs),
        }
    )


def _rebuild(original: ChatMessage, sent: dict[str, Any], got: dict[str, Any]) -> ChatMessage:
    copy = copy_message(original)
    calls_dropped = bool(sent.get("tool_calls")) and not got.get("tool_calls")
    new_text = got.get("content")
    if isinstance(new_text, list):  # parts: keep the text parts' text
        new_text = "\n".join(p.get("text", "") for p in new_text if isinstance(p, dict) and p.get("type") == "text")
    text_changed = new_text != sent.get("content")
    if not text_changed and not calls_dropped:
        return copy
    blocks: list[Any] = []
    placed = False
    for block in original.blocks:
        if isinstance(block, TextBlock):
            if text_changed:
                if not placed and new_text:
                    blocks.append(TextBlock(text=new_text))
                placed = True
                continue
            blocks.append(block)
            continue
        if calls_dropped and isinstance(block, ToolCallBlock):
            continue
        blocks.append(block)
    if text_changed and not placed and new_text:
        blocks.insert(0, TextBlock(text=new_text))
    copy.blocks = blocks
    if calls_dropped:
        copy.additional_kwargs.pop("tool_calls", None)
    return copy


def from_compaction(
    originals: Sequence[ChatMessage],
    sent: Sequence[dict[str, Any]],
    out_messages: Sequence[dict[str, Any]],
    sources: Sequence[int | None],
    note_role: str = "system",
) -> list[ChatMessage]:
    """``ChatMessage`` objects for the core's output.

    Args:
        originals: the messages given to the core, as ``ChatMessage``.
        sent: the same messages as the dicts handed to the core.
        out_messages: ``Compaction.messages``.
        sources: ``Compaction.sources`` (index into ``originals``; ``None`` for the note).
        note_role: role of the ``ChatMessage`` made for the record note.
    """
    if len(out_messages) != len(sources):
        raise ValueError(f"compaction returned {len(out_messages)} messages but {len(sources)} sources")
    result: list[ChatMessage] = []
    for got, src in zip(out_messages, sources):
        if src is None:
            content = got.get("content")
            if isinstance(content, list):
                content = "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
            result.append(ChatMessage(role=note_role, content=content or ""))
            continue
        result.append(_rebuild(originals[src], sent[src], got))
    return result


def counter_from_tokenizer_fn(tokenizer_fn: Callable[[str], Any]) -> Callable[[str], int]:
    """Wrap a LlamaIndex ``tokenizer_fn`` (text -> list of tokens) as text -> count."""

    def count(text: str) -> int:
        return len(tokenizer_fn(text))

    count.__name__ = getattr(tokenizer_fn, "__name__", "tokenizer_fn")
    return count

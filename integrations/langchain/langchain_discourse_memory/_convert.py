"""Convert LangChain messages to the core's OpenAI-style dicts and back.

This module holds no compaction policy. It only translates:

* `to_core_dicts` turns each LangChain message into one dict with `role`,
  `content` (text only), `tool_calls` (arguments as a JSON string),
  `tool_call_id` and `name`, as described in `docs/core-contract.md`.
* `from_core_messages` maps every message of a core `Compaction` back to the
  LangChain message it came from (through `Compaction.sources`), so ids, names,
  `additional_kwargs` and `response_metadata` survive. Only `content` changes
  when the core shortened it, and `tool_calls` disappear when the core dropped
  them (together with any provider tool blocks that mirror them).

List content: text blocks are joined (blank line between blocks) into the one
text the core sees. Non-text blocks (images, reasoning, `tool_use`, ...) are not
sent to the core, which neither counts nor changes them; they are put back in
place. If the core shortened the text, the first text block carries the new
text and the other text blocks are removed.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
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

__all__ = [
    "NOTE_SOURCE_TAG",
    "TOOL_BLOCK_TYPES",
    "content_text",
    "from_core_messages",
    "make_note_message",
    "message_role",
    "orphan_tool_messages",
    "to_core_dict",
    "to_core_dicts",
]

NOTE_SOURCE_TAG = "discourse_memory"
"""Value of `additional_kwargs["lc_source"]` on the record note message."""

TOOL_BLOCK_TYPES = frozenset({"tool_use", "tool_call", "function_call"})
"""Content block types that mirror an `AIMessage`'s `tool_calls`.

When the core drops an assistant message's tool calls, these blocks are dropped
too, so no provider sees a tool call without its result.
"""

_TEXT_JOINER = "\n\n"

_CHAT_ROLE_ALIASES = {
    "human": "user",
    "user": "user",
    "ai": "assistant",
    "assistant": "assistant",
    "system": "system",
    "developer": "developer",
    "tool": "tool",
}


def message_role(message: BaseMessage) -> str:
    """Return the OpenAI-style role of a LangChain message.

    `SystemMessage` honours `additional_kwargs["__openai_role__"]` (for example
    `"developer"`), like `langchain_core.messages.convert_to_openai_messages`.
    A `ChatMessage` keeps its role, with LangChain aliases (`human`, `ai`) mapped
    to their OpenAI names. A legacy `FunctionMessage` has no tool-call id to pair
    with, so it is given to the core as an ordinary `"function"` message.

    Raises:
        TypeError: for an object that is not a LangChain message.
    """
    if isinstance(message, AIMessage):
        return "assistant"
    if isinstance(message, HumanMessage):
        return "user"
    if isinstance(message, ToolMessage):
        return "tool"
    if isinstance(message, SystemMessage):
        role = message.additional_kwargs.get("__openai_role__", "system")
        return role if role in {"system", "developer"} else "system"
    if isinstance(message, ChatMessage):
        return _CHAT_ROLE_ALIASES.get(message.role, message.role)
    if isinstance(message, FunctionMessage):
        return "function"
    if isinstance(message, BaseMessage):
        return message.type
    msg = f"Expected a LangChain BaseMessage, got {type(message).__name__}."
    raise TypeError(msg)


def _is_text_block(block: Any) -> bool:
    return isinstance(block, str) or (
        isinstance(block, dict) and block.get("type") == "text" and isinstance(block.get("text"), str)
    )


def _is_tool_block(block: Any) -> bool:
    return isinstance(block, dict) and block.get("type") in TOOL_BLOCK_TYPES


def _block_text(block: Any) -> str:
    return block if isinstance(block, str) else block["text"]


def content_text(content: str | list[Any] | None) -> str:
    """Return the text the core sees for a message's `content`."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return _TEXT_JOINER.join(_block_text(b) for b in content if _is_text_block(b))


def _tool_calls_for_core(message: AIMessage) -> list[dict[str, Any]]:
    calls: list[dict[str, Any]] = []
    for call in message.tool_calls:
        calls.append(
            {
                "id": call.get("id") or "",
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": json.dumps(call["args"], ensure_ascii=False),
                },
            }
        )
    for call in message.invalid_tool_calls:
        # Malformed calls may still be answered by a ToolMessage; the core must
        # know about them to keep the pair together.
        if call.get("id"):
            calls.append(
                {
                    "id": call["id"],
                    "type": "function",
                    "function": {
                        "name": call.get("name") or "",
                        "arguments": call.get("args") or "",
                    },
                }
            )
    return calls


def to_core_dict(message: BaseMessage) -> dict[str, Any]:
    """Convert one LangChain message to the core's input dict."""
    role = message_role(message)
    out: dict[str, Any] = {"role": role, "content": content_text(message.content)}
    if isinstance(message, AIMessage):
        calls = _tool_calls_for_core(message)
        if calls:
            out["tool_calls"] = calls
    if isinstance(message, ToolMessage):
        out["tool_call_id"] = message.tool_call_id
    if message.name:
        out["name"] = message.name
    return out


_DICT_CACHE_SIZE = 16384
_dict_cache: OrderedDict[int, tuple[BaseMessage, Any, Any, dict[str, Any]]] = OrderedDict()
_dict_lock = threading.Lock()


def to_core_dicts(messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
    """Convert LangChain messages to the core's input dicts (one per message).

    Memoized by message identity: an agent loop sends the same message objects
    on every model call. An entry keeps the message and the identity of its
    `content` and `tool_calls`, so a reused `id()` or a reassigned field is a
    miss. (Like LangChain itself, this treats a message as immutable once sent: a
    list `content` changed in place is not noticed.)

    The same dict objects come back for the same messages, so the core can see
    that a conversation extends the one it compacted last and skip re-reading it.
    Callers must not modify them.
    """
    out: list[dict[str, Any] | None] = []
    misses: list[int] = []
    with _dict_lock:
        get = _dict_cache.get
        for i, message in enumerate(messages):
            hit = get(id(message))
            if (
                hit is not None
                and hit[0] is message
                and hit[1] is message.content
                and hit[2] is (message.tool_calls if isinstance(message, AIMessage) else None)
            ):
                out.append(hit[3])
            else:
                out.append(None)
                misses.append(i)
    if misses:
        fresh = [(i, messages[i], to_core_dict(messages[i])) for i in misses]
        with _dict_lock:
            for i, message, d in fresh:
                calls = message.tool_calls if isinstance(message, AIMessage) else None
                _dict_cache[id(message)] = (message, message.content, calls, d)
                out[i] = d
            while len(_dict_cache) > _DICT_CACHE_SIZE:
                _dict_cache.popitem(last=False)
    return out  # type: ignore[return-value]


def _rebuild_list_content(blocks: list[Any], new_text: str, *, drop_tool_blocks: bool) -> list[Any]:
    out: list[Any] = []
    placed = False
    for block in blocks:
        if _is_text_block(block):
            if not placed:
                placed = True
                if new_text:
                    if isinstance(block, dict):
                        out.append({**block, "text": new_text})
                    else:
                        out.append(new_text)
            continue
        if drop_tool_blocks and _is_tool_block(block):
            continue
        out.append(block)
    if not placed and new_text:
        out.insert(0, {"type": "text", "text": new_text})
    return out


_COPY_CACHE_SIZE = 8192
_copy_cache: OrderedDict[tuple[int, str, str, bool], tuple[BaseMessage, BaseMessage]] = OrderedDict()
_copy_lock = threading.Lock()


def _restore(original: BaseMessage, sent: dict[str, Any], received: dict[str, Any]) -> BaseMessage:
    """Map one core output message back onto its original LangChain message.

    Copies are memoized by (original object, its text, new text, calls dropped): in an agent
    loop the same older messages come back shortened the same way on every call,
    and `model_copy` is the adapter's main cost. The original object is kept in the
    entry and checked by identity, so a reused `id()` never returns a stale copy.
    """
    new_text = content_text(received.get("content"))
    text_changed = new_text != sent["content"]
    calls_dropped = bool(sent.get("tool_calls")) and not received.get("tool_calls")
    if not text_changed and not calls_dropped:
        return original
    key = (id(original), sent["content"], new_text, calls_dropped)
    with _copy_lock:
        hit = _copy_cache.get(key)
        if hit is not None and hit[0] is original:
            _copy_cache.move_to_end(key)
            return hit[1]
    copy = _copy(original, new_text, text_changed=text_changed, calls_dropped=calls_dropped)
    with _copy_lock:
        _copy_cache[key] = (original, copy)
        if len(_copy_cache) > _COPY_CACHE_SIZE:
            _copy_cache.popitem(last=False)
    return copy


def _copy(original: BaseMessage, new_text: str, *, text_changed: bool, calls_dropped: bool) -> BaseMessage:
    """`model_copy` of `original` with the core's text and, if dropped, no tool calls."""
    update: dict[str, Any] = {}
    content = original.content
    if isinstance(content, list):
        if text_changed:
            update["content"] = _rebuild_list_content(content, new_text, drop_tool_blocks=calls_dropped)
        else:
            update["content"] = [b for b in content if not _is_tool_block(b)]
    elif text_changed:
        update["content"] = new_text
    if calls_dropped and isinstance(original, AIMessage):
        update["tool_calls"] = []
        update["invalid_tool_calls"] = []
        if isinstance(original, AIMessageChunk):
            update["tool_call_chunks"] = []
        extra = {k: v for k, v in original.additional_kwargs.items() if k not in {"tool_calls", "function_call"}}
        if extra != original.additional_kwargs:
            update["additional_kwargs"] = extra
    return original.model_copy(update=update)


def orphan_tool_messages(messages: Sequence[BaseMessage]) -> list[ToolMessage]:
    """`ToolMessage`s whose call id was not made by an earlier `AIMessage` in `messages`."""
    called: set[str] = set()
    orphans: list[ToolMessage] = []
    for message in messages:
        if isinstance(message, AIMessage):
            called.update(c["id"] for c in message.tool_calls if c.get("id"))
            called.update(c["id"] for c in message.invalid_tool_calls if c.get("id"))
        elif isinstance(message, ToolMessage) and message.tool_call_id not in called:
            orphans.append(message)
    return orphans


def make_note_message(text: str, note_role: str) -> BaseMessage:
    """Build the record note message (`SystemMessage`, or `HumanMessage` for `"user"`)."""
    kwargs = {"lc_source": NOTE_SOURCE_TAG}
    if note_role == "user":
        return HumanMessage(content=text, additional_kwargs=kwargs)
    return SystemMessage(content=text, additional_kwargs=kwargs)


def from_core_messages(
    originals: Sequence[BaseMessage],
    sent: Sequence[dict[str, Any]],
    received: Sequence[dict[str, Any]],
    sources: Sequence[int | None],
    *,
    note_role: str,
) -> list[BaseMessage]:
    """Rebuild LangChain messages from the core's output.

    Args:
        originals: the LangChain messages given to the adapter.
        sent: `to_core_dicts(originals)`, as given to the core.
        received: `Compaction.messages`.
        sources: `Compaction.sources` (index into `originals`, `None` = the note).
        note_role: `"system"` or `"user"`; the note's message class.

    Raises:
        ValueError: when `received` and `sources` differ in length (a core bug).
    """
    if len(received) != len(sources):
        msg = f"core returned {len(received)} messages but {len(sources)} sources"
        raise ValueError(msg)
    out: list[BaseMessage] = []
    for message, source in zip(received, sources, strict=True):
        if source is None:
            out.append(make_note_message(content_text(message.get("content")), note_role))
        else:
            out.append(_restore(originals[source], sent[source], message))
    return out

"""Input messages: validate OpenAI-style chat messages into one internal shape.

Accepted (anything else raises :class:`~discourse_memory.errors.InvalidMessageError`
naming the message and the field):

- a mapping with ``role`` (a non-empty str; unknown roles are compacted like
  user/assistant messages and keep their role);
- ``content``: a str, ``None``, or a list of parts. Text parts are
  ``{"type": "text", "text": str}`` (bare strings are taken as text parts); any
  other part (images, audio, unknown types) passes through untouched and is not
  counted, since no text tokenizer can count it;
- ``tool_calls``: a list of ``{"id", "function": {"name", "arguments"}}``, the
  arguments a JSON string (a dict is accepted and counted as its JSON);
- ``tool_call_id`` on ``role: "tool"`` messages; ``name``; any other keys are kept
  unchanged in the output.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from .errors import InvalidMessageError

__all__ = ["Message", "TextField", "ToolCall", "SYSTEM_ROLES", "validate_messages"]

SYSTEM_ROLES = frozenset({"system", "developer"})


@dataclass(frozen=True, slots=True)
class TextField:
    """A piece of text of a message: ``"content"`` or ``"content.<part index>"``."""

    field: str
    text: str


@dataclass(frozen=True, slots=True)
class ToolCall:
    id: str
    name: str
    arguments: str


@dataclass(frozen=True, slots=True)
class Message:
    index: int
    role: str
    texts: tuple[TextField, ...]
    tool_calls: tuple[ToolCall, ...]
    tool_call_id: str | None
    raw: Mapping[str, Any]


def clean_text(text: str) -> str:
    """Replace lone surrogates (invalid in UTF-8) so every tokenizer accepts the text."""
    if text.isascii():
        return text
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-8", "replace").decode("utf-8")


_clean = clean_text


def _texts(i: int, content: Any) -> tuple[TextField, ...]:
    if content is None:
        return ()
    if isinstance(content, str):
        return (TextField("content", _clean(content)),)
    if isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        out = []
        for p, part in enumerate(content):
            if isinstance(part, str):
                out.append(TextField(f"content.{p}", _clean(part)))
            elif isinstance(part, Mapping):
                if part.get("type") == "text" and isinstance(part.get("text"), str):
                    out.append(TextField(f"content.{p}", _clean(part["text"])))
            else:
                raise InvalidMessageError(
                    f"message {i}: content part {p} is a {type(part).__name__}; "
                    "expected a dict like {'type': 'text', 'text': ...} or a str"
                )
        return tuple(out)
    raise InvalidMessageError(
        f"message {i}: content is a {type(content).__name__}; expected str, None or a list of parts"
    )


def _tool_calls(i: int, calls: Any) -> tuple[ToolCall, ...]:
    if calls is None:
        return ()
    if isinstance(calls, (str, bytes)) or not isinstance(calls, Sequence):
        raise InvalidMessageError(
            f"message {i}: tool_calls is a {type(calls).__name__}; expected a list of "
            "{'id': ..., 'type': 'function', 'function': {'name': ..., 'arguments': '<json>'}}"
        )
    out = []
    for c, call in enumerate(calls):
        fn = call.get("function") if isinstance(call, Mapping) else None
        if not isinstance(fn, Mapping) or not isinstance(fn.get("name"), str):
            raise InvalidMessageError(
                f"message {i}: tool_calls[{c}] has no function name; expected "
                "{'id': ..., 'function': {'name': str, 'arguments': str}}"
            )
        args = fn.get("arguments", "")
        if args is None:
            args = ""
        if not isinstance(args, str):
            try:
                args = json.dumps(args, ensure_ascii=False, sort_keys=True)
            except (TypeError, ValueError, RecursionError) as exc:  # (nested thousands deep: recursion)
                raise InvalidMessageError(
                    f"message {i}: tool_calls[{c}] arguments are not JSON-serialisable: {exc}"
                ) from exc
        call_id = call.get("id")
        out.append(ToolCall(str(call_id) if call_id is not None else "", fn["name"], _clean(args)))
    return tuple(out)


def validate_messages(messages: Any, start: int = 0) -> list[Message]:
    """Check ``messages`` and turn them into :class:`Message` objects, numbered from ``start``."""
    if isinstance(messages, (str, bytes, Mapping)) or not isinstance(messages, Sequence):
        raise InvalidMessageError(
            f"messages must be a list of dicts; got {type(messages).__name__}"
        )
    out = []
    for i, msg in enumerate(messages, start):
        if not isinstance(msg, Mapping):
            raise InvalidMessageError(
                f"message {i} is a {type(msg).__name__}; expected a dict with 'role' and 'content'"
            )
        role = msg.get("role")
        if not isinstance(role, str) or not role:
            raise InvalidMessageError(f"message {i}: 'role' must be a non-empty str, got {role!r}")
        tool_call_id = msg.get("tool_call_id")
        out.append(
            Message(
                index=i,
                role=role,
                texts=_texts(i, msg.get("content")),
                tool_calls=_tool_calls(i, msg.get("tool_calls")) if role == "assistant" or msg.get("tool_calls") else (),
                tool_call_id=str(tool_call_id) if tool_call_id is not None else None,
                raw=msg,
            )
        )
    return out

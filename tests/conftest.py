"""Shared helpers for the core tests."""

from __future__ import annotations

import json
from typing import Any

from discourse_memory import get_token_counter

COUNTER = get_token_counter()


def view_tokens(messages: list[dict[str, Any]]) -> int:
    """Tokens of a view, counted the documented way, independently of the compactor:
    text content + tool-call names + tool-call arguments."""
    total = 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            total += COUNTER.count(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, str):
                    total += COUNTER.count(part)
                elif isinstance(part, dict) and part.get("type") == "text":
                    total += COUNTER.count(part["text"])
        for call in m.get("tool_calls") or []:
            fn = call["function"]
            args = fn.get("arguments") or ""
            total += COUNTER.count(fn["name"]) + COUNTER.count(args if isinstance(args, str) else json.dumps(args))
    return total


def view_text(messages: list[dict[str, Any]]) -> str:
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(p if isinstance(p, str) else p.get("text", "") for p in content if isinstance(p, (str, dict)))
        for call in m.get("tool_calls") or []:
            out.append(call["function"]["name"])
            out.append(str(call["function"].get("arguments")))
    return "\n".join(out)


def assert_tool_pairs(messages: list[dict[str, Any]]) -> None:
    """Every tool result follows its call; every call has all its results."""
    open_calls: set[str] = set()
    answered: set[str] = set()
    for m in messages:
        for call in m.get("tool_calls") or []:
            open_calls.add(call["id"])
        if m.get("role") == "tool":
            assert m["tool_call_id"] in open_calls, f"orphan tool result {m['tool_call_id']}"
            answered.add(m["tool_call_id"])
    assert open_calls == answered, f"calls without results: {open_calls - answered}"

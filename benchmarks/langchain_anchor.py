"""The LangChain anchor the speed benchmarks time: OpenAI-style dicts as LangChain
messages, and the token counter a LangChain user hands ``trim_messages``.

Imported by ``bench_core_speed.py`` and ``bench_real_histories.py`` (scripts in this
folder, so it is on their import path); needs ``langchain-core``.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any


def to_langchain(msgs: list[dict[str, Any]]) -> list[Any]:
    """LangChain messages for OpenAI-style dicts (no content as "", content parts as JSON
    text; tool-call arguments that are not a JSON object kept under one key)."""
    from langchain_core.messages import (
        AIMessage,
        HumanMessage,
        SystemMessage,
        ToolMessage,
    )

    out: list[Any] = []
    for m in msgs:
        content = m.get("content")
        text = content if isinstance(content, str) else "" if content is None else json.dumps(content)
        if m["role"] == "tool":
            out.append(ToolMessage(text or "", tool_call_id=m.get("tool_call_id") or "?"))
        elif m["role"] == "assistant":
            calls = []
            for c in m.get("tool_calls") or []:
                try:
                    args = json.loads(c["function"]["arguments"] or "{}")
                except ValueError:
                    args = {"raw": c["function"]["arguments"]}
                calls.append({"id": c.get("id") or "?", "name": c["function"]["name"],
                              "args": args if isinstance(args, dict) else {"value": args}})
            out.append(AIMessage(content=text or "", tool_calls=calls))
        else:
            out.append((SystemMessage if m["role"] == "system" else HumanMessage)(text or ""))
    return out


def tiktoken_message_counter(encoding: str = "cl100k_base") -> Callable[[list[Any]], int]:
    """What a LangChain user passes as ``token_counter``: tiktoken's encoding (the same
    BPE file, loaded offline), counting each message's text and tool calls on every call."""
    import tiktoken

    enc = tiktoken.get_encoding(encoding + "_offline")

    def count(messages: list[Any]) -> int:
        total = 0
        for m in messages:
            total += len(enc.encode_ordinary(m.content if isinstance(m.content, str) else str(m.content)))
            for call in getattr(m, "tool_calls", None) or []:
                total += len(enc.encode_ordinary(call["name"] + str(call["args"])))
        return total

    return count

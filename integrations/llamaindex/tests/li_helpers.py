"""Shared helpers for the LlamaIndex adapter tests (imported as ``li_helpers``).

Token counts and tool-call pairing are checked here with code written
independently of the adapter (tiktoken directly, ``ToolCallBlock`` fields
directly), so a test never grades the adapter with the adapter's own logic.
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import tiktoken
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.utils import get_tokenizer

_ENC = None


def encoding() -> Any:
    global _ENC
    if _ENC is None:
        get_tokenizer()  # makes LlamaIndex's bundled tiktoken cache available
        import os

        from llama_index.core import utils

        os.environ.setdefault(
            "TIKTOKEN_CACHE_DIR",
            os.path.join(os.path.dirname(os.path.abspath(utils.__file__)), "_static/tiktoken_cache"),
        )
        _ENC = tiktoken.get_encoding("cl100k_base")
    return _ENC


def count(text: str | None) -> int:
    """cl100k tokens of ``text``, special-token text counted as plain text."""
    if not text:
        return 0
    return len(encoding().encode_ordinary(text))


def text_of(message: ChatMessage) -> str:
    return "\n".join(b.text for b in message.blocks if isinstance(b, TextBlock))


def call_blocks(message: ChatMessage) -> list[ToolCallBlock]:
    return [b for b in message.blocks if isinstance(b, ToolCallBlock)]


def view_tokens(view: Sequence[ChatMessage], framing: bool = True) -> int:
    """Text + tool-call name + JSON arguments, summed over the view, and (``framing``) the
    request's framing as OpenAI's cookbook counts it: 3 a message, its role, name (+1),
    tool_call_id and each call's id and type, and 3 to prime the reply."""
    from llama_index.memory.discourse._convert import to_core_message

    total = 3 if framing else 0
    for m in view:
        total += count(text_of(m))
        for b in call_blocks(m):
            args = b.tool_kwargs if isinstance(b.tool_kwargs, str) else json.dumps(b.tool_kwargs, ensure_ascii=False)
            total += count(b.tool_name) + count(args)
        if framing:
            d = to_core_message(m)  # (the role and ids it is sent with)
            total += 3 + count(d["role"]) + count(d.get("tool_call_id") or "")
            total += count(d["name"]) + 1 if "name" in d else 0
            total += sum(count(c.get("id") or "") + count(c.get("type", "function")) for c in d.get("tool_calls") or ())
    return total


def assert_tool_pairs(view: Sequence[ChatMessage]) -> None:
    """Every tool result follows the assistant message that made its call, and every
    call kept in the view has its result right after it."""
    i = 0
    while i < len(view):
        m = view[i]
        assert m.role != MessageRole.TOOL, f"tool message at {i} without its assistant call"
        calls = call_blocks(m)
        i += 1
        if m.role == MessageRole.ASSISTANT and calls:
            results = []
            while i < len(view) and view[i].role == MessageRole.TOOL:
                results.append(view[i].additional_kwargs.get("tool_call_id"))
                i += 1
            assert sorted(results) == sorted(b.tool_call_id for b in calls), (
                f"calls {[b.tool_call_id for b in calls]} answered by {results}"
            )


def dumped(messages: Sequence[ChatMessage]) -> list[dict]:
    return [m.model_dump(mode="json") for m in messages]


REPO = Path(__file__).resolve().parents[3]


def load_example(name: str) -> Any:
    """Import ``examples/<name>`` of the repository as a module."""
    path = REPO / "examples" / name
    spec = importlib.util.spec_from_file_location(f"example_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

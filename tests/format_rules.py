"""Independent token counts and request validators for each message format, written from
the providers' documentation (not from discourse_memory: nothing here imports it but the
shared tokenizer in conftest).

Counts follow docs/formats.md: text, tool-call names and arguments (JSON with sorted
keys when the format holds a dict), results, reasoning text, and the documented image
and document rules, recomputed here from the fixture's known sizes.
"""

from __future__ import annotations

import json
import math
from typing import Any

from .conftest import COUNTER

count = COUNTER.count


def dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True)


# Image costs of the fixture's two PNGs, by the documented rules:
# OpenAI (platform.openai.com/docs/guides/images-vision, "Calculating costs"): low = 85;
# high: fit in 2048x2048, shortest side to 768, 170 per 512px tile + 85.
#   1200x800 -> 1152x768 -> 3 x 2 tiles -> 85 + 6*170 = 1105;   320x200 -> 1 tile -> 255
# Anthropic (docs.anthropic.com/en/docs/build-with-claude/vision): tokens = w*h/750.
#   1200x800 -> 1280;   320x200 -> 85.3 -> 86
OPENAI = {("big", "high"): 1105, ("big", "auto"): 1105, ("small", "low"): 85, ("small", "high"): 255,
          ("small", None): 255, ("big", None): 1105}
ANTHROPIC = {"big": 1280, "small": 86}
# A PDF: each page as text (3,000, the top of Anthropic's documented 1,500-3,000) and as
# an image (1,600): the fixture's runbook has 2 pages.
PDF = 2 * (3000 + 1600)


def which(data: str) -> str:
    return "big" if len(data) > 3000 else "small"


def encrypted(payload: str) -> int:
    return max(1, math.ceil(len(payload) * 3 / 4 / 4))


# ---------------------------------------------------------------- OpenAI chat

def count_openai(messages: list[dict]) -> int:
    total = 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            total += count(content)
        for p in content if isinstance(content, list) else ():
            if isinstance(p, str):
                total += count(p)
            elif p["type"] in ("text", "input_text", "output_text"):
                total += count(p["text"])
            elif p["type"] == "refusal":
                total += count(p["refusal"])
            elif p["type"] == "image_url":
                url = p["image_url"]["url"]
                total += OPENAI[(which(url), p["image_url"].get("detail"))]
            elif p["type"] == "file":
                total += PDF + count(p["file"]["filename"])
            else:
                raise AssertionError(p["type"])
        if m.get("reasoning_content"):
            total += count(m["reasoning_content"])
        for c in m.get("tool_calls") or ():
            total += count(c["function"]["name"]) + count(c["function"]["arguments"])
        if m.get("function_call"):
            total += count(m["function_call"]["name"]) + count(m["function_call"]["arguments"])
    return total


def validate_openai(messages: list[dict]) -> None:
    """Chat completions: "messages with role 'tool' must be a response to a preceding
    message with 'tool_calls'", and an assistant message with 'tool_calls' must be
    followed by tool messages responding to each 'tool_call_id' (the API's 400 errors);
    a legacy 'function' message answers the assistant 'function_call' just before it."""
    i = 0
    while i < len(messages):
        m = messages[i]
        assert m.get("role") != "tool", f"message {i}: tool result without the assistant call before it"
        if m.get("role") == "function":
            raise AssertionError(f"message {i}: function result without its function_call just before it")
        ids = [c["id"] for c in m.get("tool_calls") or ()]
        j = i + 1
        if ids:
            answered = []
            while j < len(messages) and messages[j].get("role") == "tool":
                assert messages[j]["tool_call_id"] in ids, f"message {j}: answers no call of message {i}"
                answered.append(messages[j]["tool_call_id"])
                j += 1
            assert sorted(answered) == sorted(ids) or j == len(messages) and not answered, \
                f"message {i}: calls {ids} answered by {answered}"
        if m.get("function_call"):
            if j < len(messages):
                assert messages[j].get("role") == "function" and messages[j]["name"] == m["function_call"]["name"], \
                    f"message {i}: function_call not answered by the next message"
                j += 1
        for p in m.get("content") if isinstance(m.get("content"), list) else ():
            assert not (isinstance(p, dict) and p.get("type") == "text" and not p["text"]), "empty text part"
        i = j


# ---------------------------------------------------------------- Responses

def count_responses(items: list[dict], instructions: str | None = None) -> int:
    total = count(instructions) if instructions else 0
    for it in items:
        kind = it.get("type", "message")
        if kind == "message":
            content = it["content"]
            if isinstance(content, str):
                total += count(content)
                continue
            for p in content:
                if p["type"] in ("input_text", "output_text"):
                    total += count(p["text"])
                elif p["type"] == "refusal":
                    total += count(p["refusal"])
                elif p["type"] == "input_image":
                    total += OPENAI[(which(p["image_url"]), p.get("detail"))]
                elif p["type"] == "input_file":
                    total += PDF + count(p["filename"])
                else:
                    raise AssertionError(p["type"])
        elif kind == "function_call":
            total += count(it["name"]) + count(it["arguments"])
        elif kind == "custom_tool_call":
            total += count(it["name"]) + count(it["input"])
        elif kind in ("function_call_output", "custom_tool_call_output"):
            out = it["output"]
            if isinstance(out, str):
                total += count(out)
            else:
                for p in out:
                    total += count(p["text"]) if p["type"] == "input_text" else OPENAI[(which(p["image_url"]), p.get("detail"))]
        elif kind == "reasoning":
            total += sum(count(s["text"]) for s in it.get("summary") or ())
            total += sum(count(s["text"]) for s in it.get("content") or ())
            total += encrypted(it["encrypted_content"]) if it.get("encrypted_content") else 0
        else:
            raise AssertionError(kind)
    return total


def validate_responses(items: list[dict], original: list[dict]) -> None:
    """Responses API: a function_call_output needs the function_call of its call_id
    before it ("No tool call found for function call output with call_id ..."); a
    function_call needs its output ("No tool output found for function call ...") unless
    it is the newest; "Item 'rs_...' of type 'reasoning' was provided without its required
    following item"; "Item 'fc_...' of type 'function_call' was provided without its
    required 'reasoning' item"."""
    calls: dict[str, int] = {}
    outputs: set[str] = set()
    for i, it in enumerate(items):
        kind = it.get("type", "message")
        if kind in ("function_call", "custom_tool_call"):
            calls[it["call_id"]] = i
        elif kind.endswith("_call_output"):
            assert it["call_id"] in calls, f"item {i}: output of call {it['call_id']} with no call before it"
            outputs.add(it["call_id"])
    last_user = max((i for i, it in enumerate(items) if it.get("role") == "user"), default=-1)
    for cid, i in calls.items():
        assert cid in outputs or i > last_user, f"call {cid} has no output"
    position = {id(x): n for n, x in enumerate(original)}
    by_id = {x.get("id"): n for n, x in enumerate(original) if x.get("id")}
    for i, it in enumerate(items):
        if it.get("type") == "reasoning":
            n = next(k for k, x in enumerate(original) if x == it)
            if n + 1 < len(original):
                assert i + 1 < len(items) and _same_item(items[i + 1], original[n + 1]), \
                    f"item {i}: reasoning without its following item"
        if it.get("id") and it.get("type") != "reasoning" and it.get("id") in by_id:
            n = by_id[it["id"]]
            prev = original[n - 1] if n else None
            if prev is not None and prev.get("type") == "reasoning" and prev.get("id"):
                assert i > 0 and items[i - 1].get("id") == prev["id"], f"item {i}: its reasoning item is missing"
    del position


def _same_item(a: dict, b: dict) -> bool:
    for key in ("id", "call_id"):
        if b.get(key):
            return a.get(key) == b[key] and a.get("type") == b.get("type")
    return a.get("type") == b.get("type") and a.get("role") == b.get("role")


# ---------------------------------------------------------------- Anthropic

def count_anthropic_block(b: dict) -> int:
    kind = b["type"]
    if kind == "text":
        return count(b["text"])
    if kind == "image":  # a URL's size is unknown: the most an image costs (1,600)
        return ANTHROPIC[which(b["source"]["data"])] if "data" in b["source"] else 1600
    if kind == "document":
        return PDF + count(b.get("title", ""))
    if kind == "thinking":
        return count(b["thinking"])
    if kind == "redacted_thinking":
        return encrypted(b["data"])
    if kind == "tool_use":
        return count(b["name"]) + count(dumps(b["input"]))
    if kind == "tool_result":
        inner = b.get("content")
        if isinstance(inner, str):
            return count(inner)
        return sum(count_anthropic_block(x) for x in inner or ())
    raise AssertionError(kind)


def count_anthropic(messages: list[dict], system: Any = None) -> int:
    total = 0
    if isinstance(system, str):
        total += count(system)
    for b in system if isinstance(system, list) else ():
        total += count(b["text"])
    for m in messages:
        content = m["content"]
        if isinstance(content, str):
            total += count(content)
        else:
            total += sum(count_anthropic_block(b) for b in content)
    return total


def validate_anthropic(messages: list[dict], original: list[dict], system: Any = None) -> None:
    """Messages API (docs.anthropic.com: messages, tool use, extended thinking):
    roles are user/assistant, the first message is a user message ("messages: first
    message must use the "user" role"); content is non-empty, no empty text blocks;
    "Each `tool_use` block must have a corresponding `tool_result` block in the next
    message" and a tool_result answers a tool_use of the message just before it; in a
    user message "tool_result blocks must come FIRST in the content array"; thinking
    blocks are passed back unmodified (their signature covers them); and each message's
    blocks are the input's, in the input's order (only text may be shortened)."""
    assert messages and messages[0]["role"] == "user", "the first message must be a user message"
    originals = [b for m in original if isinstance(m["content"], list) for b in m["content"]]
    for i, m in enumerate(messages):
        assert m["role"] in ("user", "assistant"), f"message {i}: role {m['role']}"
        content = m["content"]
        assert content, f"message {i}: empty content"
        if isinstance(content, str):
            continue
        for b in content:
            assert b["type"] != "text" or b["text"], f"message {i}: empty text block"
            if b["type"] in ("thinking", "redacted_thinking", "image", "document", "tool_use"):
                assert b in originals, f"message {i}: a {b['type']} block that is not the input's, verbatim"
        kinds = [b["type"] for b in content]
        if "tool_result" in kinds:
            assert m["role"] == "user"
            first_other = next((k for k, t in enumerate(kinds) if t != "tool_result"), len(kinds))
            assert "tool_result" not in kinds[first_other:], f"message {i}: text before a tool_result"
            prev = messages[i - 1] if i else None
            assert prev is not None and prev["role"] == "assistant", f"message {i}: results after a non-assistant"
            calls = {b["id"] for b in prev["content"] if b["type"] == "tool_use"}
            for b in content:
                if b["type"] == "tool_result":
                    assert b["tool_use_id"] in calls, f"message {i}: result of {b['tool_use_id']} not called just before"
        if m["role"] == "assistant":
            uses = {b["id"] for b in content if b["type"] == "tool_use"}
            if uses and i + 1 < len(messages):
                nxt = messages[i + 1]
                got = {b["tool_use_id"] for b in nxt["content"] if isinstance(nxt["content"], list)
                       and b["type"] == "tool_result"}
                assert uses <= got, f"message {i}: tool_use {uses - got} not answered in the next message"
            assert any(b["type"] not in ("thinking", "redacted_thinking") for b in content), \
                f"message {i}: only thinking"


# ---------------------------------------------------------------- LangChain

def count_langchain_block(b: Any) -> int:
    if isinstance(b, str):
        return count(b)
    kind = b["type"]
    if kind == "text":
        return count(b["text"])
    if kind == "reasoning":
        return count(b["reasoning"])
    if kind == "image":  # provider-neutral: the larger of OpenAI's and Anthropic's rules
        size = which(b["base64"])
        return max(OPENAI[(size, None)], ANTHROPIC[size])
    if kind == "file":
        return PDF
    if kind == "tool_call":
        return 0  # counted once, from tool_calls
    raise AssertionError(kind)


def count_langchain(messages: list[dict]) -> int:
    total = 0
    for m in messages:
        content = m["content"]
        total += count(content) if isinstance(content, str) else sum(count_langchain_block(b) for b in content)
        for c in m.get("tool_calls") or ():
            total += count(c["name"]) + count(dumps(c["args"]))
    return total


def validate_langchain(messages: list[dict]) -> None:
    """Loaded by LangChain itself (``messages_from_dict``); each ToolMessage answers a
    tool call of the AI message before its run of tool messages, and every call of an AI
    message is answered (providers reject either, as for OpenAI chat above); an AI
    message's ``tool_call`` blocks are among its ``tool_calls``."""
    from langchain_core.messages import AIMessage, ToolMessage, messages_from_dict

    loaded = messages_from_dict([{"type": m["type"], "data": m} for m in messages])
    i = 0
    while i < len(loaded):
        m = loaded[i]
        assert not isinstance(m, ToolMessage), f"message {i}: tool result without its call"
        j = i + 1
        if isinstance(m, AIMessage) and m.tool_calls:
            ids = [c["id"] for c in m.tool_calls]
            blocks = {b["id"] for b in m.content if isinstance(b, dict) and b.get("type") == "tool_call"} \
                if isinstance(m.content, list) else set()
            assert blocks <= set(ids), f"message {i}: tool_call blocks {blocks} not in tool_calls {ids}"
            answered = []
            while j < len(loaded) and isinstance(loaded[j], ToolMessage):
                answered.append(loaded[j].tool_call_id)
                j += 1
            assert sorted(answered) == sorted(ids) or (j == len(loaded) and not answered), \
                f"message {i}: calls {ids} answered by {answered}"
        i = j


# ---------------------------------------------------------------- LlamaIndex

def count_llamaindex(messages: list[dict]) -> int:
    total = 0
    for m in messages:
        if "blocks" not in m:
            total += count(m.get("content") or "")
            continue
        for b in m["blocks"]:
            kind = b["block_type"]
            if kind == "text":
                total += count(b["text"])
            elif kind == "thinking":
                total += count(b["content"])
            elif kind == "image":
                size = which(b["image"])
                total += max(OPENAI[(size, b.get("detail"))], ANTHROPIC[size])
            elif kind == "document":
                total += PDF + count(b["title"])
            elif kind == "tool_call":
                total += count(b["tool_name"]) + count(dumps(b["tool_kwargs"]))
            else:
                raise AssertionError(kind)
    return total


def validate_llamaindex(messages: list[dict]) -> None:
    """Loaded by LlamaIndex itself (``ChatMessage.model_validate``); each tool message
    answers a ToolCallBlock of the assistant message before its run of tool messages,
    and every call is answered."""
    from llama_index.core.base.llms.types import ChatMessage, ToolCallBlock

    loaded = [ChatMessage.model_validate(m) for m in messages]
    i = 0
    while i < len(loaded):
        m = loaded[i]
        assert m.role.value != "tool", f"message {i}: tool result without its call"
        j = i + 1
        ids = [b.tool_call_id for b in m.blocks if isinstance(b, ToolCallBlock)]
        if ids:
            answered = []
            while j < len(loaded) and loaded[j].role.value == "tool":
                answered.append(loaded[j].additional_kwargs["tool_call_id"])
                j += 1
            assert sorted(answered) == sorted(ids) or (j == len(loaded) and not answered), \
                f"message {i}: calls {ids} answered by {answered}"
        i = j


# ---------------------------------------------------------------- fidelity

def assert_derived(out: dict, original: dict, blocks_key: str, text_keys: tuple[str, ...]) -> None:
    """``out`` is ``original`` with only text shortened and blocks left out: the same
    keys and values elsewhere, its blocks (``blocks_key``, or a Responses ``output``) a
    subsequence of the original's, each equal to the original's but for a shortened text."""
    varying = (blocks_key, "output", "tool_calls", "reasoning_content", "function_call", "additional_kwargs")
    for k, v in original.items():
        if k not in varying:
            assert out.get(k) == v, f"key {k} changed"
    for key in (blocks_key, "output"):
        src = original.get(key)
        if isinstance(src, str):
            assert isinstance(out.get(key), str) and _shortened(out[key], src), f"{key} is not the original's text"
        if not isinstance(src, list):
            continue
        k = 0
        for b in out[key]:
            if isinstance(b, dict) and b.get("text") == "…" and b not in src:
                continue  # the mark of a result whose text was all left out
            while k < len(src) and not _same_block(b, src[k], text_keys):
                k += 1
            assert k < len(src), f"block {b!r:.120} is not one of the original's, in order"
            k += 1


def _same_block(b: Any, o: Any, text_keys: tuple[str, ...]) -> bool:
    if isinstance(b, str) or isinstance(o, str):
        return isinstance(b, str) and isinstance(o, str) and _shortened(b, o)
    if b == o:
        return True
    if set(b) != set(o):
        return False
    diff = [k for k in b if b[k] != o[k]]
    return all(k in text_keys and isinstance(b[k], str) and _shortened(b[k], o[k]) for k in diff) or (
        diff == ["content"] and b.get("type") == "tool_result")


def _shortened(new: str, old: str) -> bool:
    """Every run of words the compacted text shows is in the original."""
    pieces = [p.strip() for p in new.replace("…", "\x00").split("\x00")]
    return all(p[:40] in old for p in pieces if p)

"""LangChain messages as dicts: ``message.model_dump()`` (``{"type": "human" | "ai" |
"system" | "tool", "content", "tool_calls", "tool_call_id", ...}``), ``messages_to_dict``
(``{"type", "data": {...}}``), or role dicts (``{"role", "content"}``), with content a
string or a list of LangChain v1 standard content blocks.

- ``text`` and ``text-plain`` blocks are text parts; ``reasoning`` blocks are text parts
  compacted like text, unless their ``extras`` hold a signature or encrypted content
  (then, like Anthropic's ``thinking`` blocks LangChain passes through, stand-ins in an
  assistant message of their own before the message: kept whole or left out);
- ``tool_calls`` (``{"name", "args", "id"}``, or OpenAI's ``{"id", "function"}``, which
  ``convert_to_messages`` reads too) and ``tool_call`` / ``tool_use`` blocks are tool calls
  (one per id); a ``tool`` message is the result of its ``tool_call_id``;
- ``image`` blocks cost the larger of OpenAI's and Anthropic's rules (size from
  ``base64``; a ``url`` or ``file_id``: the unknown-size estimate); ``image_url`` parts
  OpenAI's; ``audio`` 10 tokens a second; ``file`` a PDF's pages; ``video``, chunks,
  invalid calls, server tool blocks and ``non_standard`` blocks their estimate or JSON.

Out: the caller's dicts in their own style, text replaced, blocks and calls left out
removed from both ``content`` and ``tool_calls``; an AI message left with only
reasoning is dropped; the record note is a system message in the input's style.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Layout, Reader, Slot, dumps, need, resolve, split_attachments, stand_in, text_part
from .media import (UNKNOWN_MEDIA, audio_tokens, image_size, media_type_of, neutral_image_tokens, pdf_tokens)
from .openai_chat import image_part_tokens

__all__ = ["NAME", "accepts", "decisive", "LangChainReader", "write", "note_message", "style_of"]

NAME = "langchain"
TYPES = {"human": "user", "ai": "assistant", "system": "system", "tool": "tool", "function": "function",
         "chat": None, "developer": "developer", "HumanMessageChunk": "user", "AIMessageChunk": "assistant",
         "SystemMessageChunk": "system", "ToolMessageChunk": "tool"}
V1 = frozenset({"reasoning", "tool_call", "tool_call_chunk", "invalid_tool_call", "server_tool_call",
                "server_tool_call_chunk", "server_tool_result", "text-plain", "non_standard", "video", "file",
                "audio"})
BLOCKS = frozenset({*V1, "text", "image", "image_url", "tool_use", "thinking", "redacted_thinking", "refusal"})
SIGNED = ("signature", "encrypted_content", "data", "redacted")


def _unwrap(m: Any) -> Mapping[str, Any]:
    if isinstance(m, Mapping) and isinstance(m.get("data"), Mapping) and m.get("type") in TYPES:
        return m["data"]
    return m


def style_of(m: Any) -> str:
    if isinstance(m, Mapping) and isinstance(m.get("data"), Mapping) and m.get("type") in TYPES:
        return "wrapped"
    return "role" if isinstance(m, Mapping) and "role" in m else "type"


def _role(m: Mapping[str, Any]) -> str | None:
    if isinstance(m.get("role"), str):
        return m["role"]
    t = m.get("type")
    if t == "chat":
        return m.get("role") if isinstance(m.get("role"), str) else None
    return TYPES.get(t) if isinstance(t, str) else None


def accepts(m: Any) -> bool:
    d = _unwrap(m)
    if not isinstance(d, Mapping) or "blocks" in d or _role(d) is None:
        return False
    if "role" not in d and d.get("type") not in TYPES:
        return False
    content = d.get("content")
    if isinstance(content, list):
        if not all(isinstance(b, str) or (isinstance(b, Mapping) and b.get("type") in BLOCKS) for b in content):
            return False
    elif content is not None and not isinstance(content, str):
        return False
    calls = d.get("tool_calls")
    if calls and not all(isinstance(c, Mapping) and (isinstance(c.get("name"), str) or _openai_call(c))
                         for c in calls):
        return False
    return True


def _openai_call(c: Mapping[str, Any]) -> bool:
    """An OpenAI-style call (``convert_to_messages`` reads those too)."""
    return isinstance(c.get("function"), Mapping) and isinstance(c["function"].get("name"), str)


def decisive(m: Any) -> bool:
    d = _unwrap(m)
    if not isinstance(d, Mapping):
        return False
    if d is not m or ("role" not in d and d.get("type") in TYPES):
        return True
    content = d.get("content")
    if isinstance(content, list) and any(isinstance(b, Mapping) and (
            b.get("type") in V1 or (b.get("type") == "image" and any(k in b for k in ("base64", "url", "file_id"))))
            for b in content):
        return True
    return any(isinstance(c, Mapping) and "args" in c for c in d.get("tool_calls") or ())


def _signed(b: Mapping[str, Any]) -> bool:
    extras = b.get("extras")
    return b.get("type") in ("thinking", "redacted_thinking") or (
        isinstance(extras, Mapping) and any(extras.get(k) for k in SIGNED))


def _block_tokens(b: Mapping[str, Any], count: Any) -> tuple[str, int]:
    kind = b.get("type")
    if kind == "image":
        size = image_size(b.get("base64")) if isinstance(b.get("base64"), str) else None
        detail = (b.get("extras") or {}).get("detail") if isinstance(b.get("extras"), Mapping) else None
        return "image", neutral_image_tokens(*(size or (None, None)), detail)
    if kind == "image_url":
        image = b.get("image_url")
        return "image", image_part_tokens(image.get("url") if isinstance(image, Mapping) else image,
                                          image.get("detail") if isinstance(image, Mapping) else None)
    if kind == "audio":
        return "audio", audio_tokens(b.get("base64")) if b.get("base64") else UNKNOWN_MEDIA
    if kind == "file":
        data = b.get("base64")
        pdf = data and (b.get("mime_type") in (None, "application/pdf") or media_type_of(data) == "application/pdf")
        return "file", pdf_tokens(data) if pdf else UNKNOWN_MEDIA
    if kind == "video":
        return "video", UNKNOWN_MEDIA
    if kind == "reasoning":
        return "reasoning", count(b.get("reasoning") or "")
    if kind == "thinking":
        return "reasoning", count(b.get("thinking") or "")
    if kind == "redacted_thinking":
        from .media import encrypted_tokens
        return "reasoning", encrypted_tokens(b.get("data"))
    if kind == "non_standard":
        return "non_standard", count(dumps(b.get("value")))
    return str(kind), count(dumps(b))


class LangChainReader(Reader):
    name = NAME

    def read(self, m: Any, index: int) -> tuple[list[dict[str, Any]], Layout]:
        d = _unwrap(m)
        need(isinstance(d, Mapping), index, "expected a LangChain message dict")
        role = _role(d)
        need(role is not None, index, f"unknown LangChain message type {d.get('type')!r}")
        internal_role = "tool" if role in ("tool", "function") and d.get("tool_call_id") is not None else role
        content = d.get("content")
        pieces: list[dict[str, Any]] = []
        slots: list[Slot] = []
        if isinstance(content, list) and role == "assistant":
            signed = [k for k, b in enumerate(content) if isinstance(b, Mapping) and b.get("type") in
                      ("reasoning", "thinking", "redacted_thinking") and _signed(b)]
            if signed:
                parts = []
                for k in signed:
                    label, tokens = _block_tokens(content[k], self.count)
                    parts.append(stand_in(label, tokens, k, self.count))
                    slots.append(Slot("opaque", 0, k, k))
                pieces.append({"role": "assistant", "content": parts})
        else:
            signed = []
        main = len(pieces)
        msg: dict[str, Any] = {"role": internal_role}
        if internal_role == "tool":
            # Without an id it answers no call: an orphan, as an OpenAI tool message would be.
            msg["tool_call_id"] = "" if d.get("tool_call_id") is None else str(d["tool_call_id"])
        calls: list[dict[str, Any]] = []
        seen: set[str] = set()
        for c in d.get("tool_calls") or ():
            need(isinstance(c, Mapping) and (isinstance(c.get("name"), str) or _openai_call(c)), index,
                 "tool_calls entries need a name")
            cid = "" if c.get("id") is None else str(c["id"])
            if cid in seen:
                continue
            seen.add(cid)
            if _openai_call(c):
                c = {"name": c["function"]["name"], "args": c["function"].get("arguments") or ""}
            args = c.get("args", {})
            calls.append({"id": cid, "type": "function",
                          "function": {"name": c["name"], "arguments": args if isinstance(args, str) else dumps(args)}})
            slots.append(Slot("call", main, cid, None))
        if isinstance(content, str) or content is None:
            msg["content"] = content if content is not None else None
            slots.append(Slot("content", main))
        else:
            need(isinstance(content, list), index, "content must be a str or a list of blocks")
            parts = []
            for k, b in enumerate(content):
                if k in signed:
                    continue
                if isinstance(b, str):
                    parts.append(text_part(b, k))
                    slots.append(Slot("text", main, k, k))
                    continue
                need(isinstance(b, Mapping), index, f"content block {k} is not a dict")
                kind = b.get("type")
                if kind in ("text", "text-plain") and isinstance(b.get("text"), str):
                    parts.append(text_part(b["text"], k))
                    slots.append(Slot("text", main, k, k))
                elif kind == "reasoning" and isinstance(b.get("reasoning"), str):
                    parts.append(text_part(b["reasoning"], k))
                    slots.append(Slot("text", main, k, k))
                elif kind == "refusal" and isinstance(b.get("refusal"), str):
                    parts.append(text_part(b["refusal"], k))
                    slots.append(Slot("text", main, k, k))
                elif kind in ("tool_call", "tool_use") and isinstance(b.get("name"), str):
                    cid = "" if b.get("id") is None else str(b["id"])
                    if cid not in seen:
                        seen.add(cid)
                        args = b.get("args", b.get("input", {}))
                        calls.append({"id": cid, "type": "function", "function": {
                            "name": b["name"], "arguments": args if isinstance(args, str) else dumps(args)}})
                    slots.append(Slot("call", main, cid, k))
                else:
                    label, tokens = _block_tokens(b, self.count)
                    parts.append(stand_in(label, tokens, k, self.count))
                    slots.append(Slot("opaque", main, k, k))
            msg["content"] = parts or None
        if calls:
            msg["tool_calls"] = calls
        if msg.get("content") is not None or calls or role != "assistant" or not pieces:
            pieces.append(msg)
            pieces.extend(split_attachments(msg, slots, main))
        return pieces, Layout(len(pieces), slots, {"main": main})


_TEXT_KEY = {"text": "text", "text-plain": "text", "reasoning": "reasoning", "refusal": "refusal"}


def write(m: Mapping[str, Any], layout: Layout, outs: list[Any]) -> dict[str, Any] | None:
    d = _unwrap(m)
    fates = resolve(layout, outs)
    if not any(o is not None for o in outs):
        return None
    new = dict(d)
    content = d.get("content")
    kept_ids = {s.key for s, f in zip(layout.slots, fates) if s.kind == "call" and f is not None}
    if d.get("tool_calls"):
        calls = [c for c in d["tool_calls"] if ("" if c.get("id") is None else str(c["id"])) in kept_ids]
        new["tool_calls"] = calls
    if isinstance(content, str) or content is None:
        fate = next((f for s, f in zip(layout.slots, fates) if s.kind == "content"), None)
        main = outs[layout.info["main"]] if layout.info["main"] < len(outs) else None
        if fate is None and main is not None and isinstance(main.get("content"), list):
            fate = "".join(p.get("text", "") for p in main["content"] if isinstance(p, dict) and "_dm" not in p)
        new["content"] = fate if fate is not None else ("" if content is not None else content)
        if not new["content"] and not new.get("tool_calls") and _role(d) != "tool":
            return None
    else:
        blocks: list[Any] = []
        for s, fate in zip(layout.slots, fates):
            if s.block is None or fate is None:
                continue
            b = content[s.block]
            if s.kind == "text":
                blocks.append(fate if isinstance(b, str) else {**b, _TEXT_KEY.get(b.get("type"), "text"): fate})
            else:
                blocks.append(b)
        main = outs[layout.info["main"]] if layout.info["main"] < len(outs) else None
        if main is not None and isinstance(main.get("content"), list):
            blocks += [{"type": "text", "text": p["text"]} for p in main["content"]
                       if isinstance(p, dict) and "_dm" not in p]
        if not blocks and not new.get("tool_calls") and _role(d) != "tool":
            return None
        if _role(d) == "assistant" and not new.get("tool_calls") and blocks and all(
                isinstance(b, Mapping) and b.get("type") in ("reasoning", "thinking", "redacted_thinking")
                for b in blocks):
            return None  # reasoning alone answers nothing
        new["content"] = blocks
    if isinstance(m, Mapping) and d is not m:
        return {**m, "data": new}
    return new


def note_message(note: str, role: str, style: str) -> dict[str, Any]:
    if style == "role":
        return {"role": role, "content": note}
    kind = "human" if role == "user" else "system"
    if style == "wrapped":
        return {"type": kind, "data": {"type": kind, "content": note}}
    return {"type": kind, "content": note}

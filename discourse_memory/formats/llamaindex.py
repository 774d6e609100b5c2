"""LlamaIndex ``ChatMessage`` serialisations (``message.model_dump(mode="json")``):
``{"role", "additional_kwargs", "blocks": [{"block_type": ...}, ...]}`` (or the older
``{"role", "content": str, "additional_kwargs"}``).

- ``text`` blocks are text parts; ``thinking`` blocks (``content``) are text parts
  compacted like text, unless ``additional_information`` holds a signature (then a
  stand-in in an assistant message of its own before the message: kept whole or left
  out);
- ``tool_call`` blocks (``tool_call_id``, ``tool_name``, ``tool_kwargs``) and
  ``additional_kwargs["tool_calls"]`` (OpenAI-style) are tool calls; a ``role: "tool"``
  message with ``additional_kwargs["tool_call_id"]`` is the result of that call;
- ``image`` blocks cost the larger of OpenAI's and Anthropic's rules (size from the
  base64 ``image``; ``url``/``path``: the unknown-size estimate; ``detail`` honoured);
  ``audio`` 10 tokens a second; ``document`` a PDF's pages (a text document its text);
  ``video``, ``citable``, ``citation`` and unknown blocks their estimate or JSON; a
  ``cache`` point costs nothing and stays with its message.

Out: the caller's dicts, text replaced, blocks and calls left out removed; the record
note is a ``{"role": note_role, "blocks": [text]}`` message.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Layout, Reader, Slot, dumps, need, resolve, split_attachments, stand_in, text_part
from .media import UNKNOWN_MEDIA, audio_tokens, decode_base64, image_size, neutral_image_tokens, pdf_tokens

__all__ = ["NAME", "accepts", "decisive", "LlamaIndexReader", "write", "note_message"]

NAME = "llamaindex"
ROLES = frozenset({"system", "developer", "user", "assistant", "function", "tool", "chatbot", "model"})
BLOCK_TYPES = frozenset({"text", "image", "audio", "video", "document", "thinking", "tool_call", "cache",
                         "citable", "citation"})


def accepts(m: Any) -> bool:
    if not isinstance(m, Mapping) or m.get("role") not in ROLES or "tool_calls" in m:
        return False
    blocks = m.get("blocks")
    if blocks is not None:
        return isinstance(blocks, list) and all(isinstance(b, Mapping) and isinstance(b.get("block_type"), str)
                                                for b in blocks)
    return isinstance(m.get("content"), (str, type(None))) and isinstance(m.get("additional_kwargs", {}), Mapping)


def decisive(m: Any) -> bool:
    return isinstance(m, Mapping) and ("blocks" in m or (
        isinstance(m.get("additional_kwargs"), Mapping) and "content" in m and not isinstance(m.get("content"), list)
        and m.get("role") in ROLES))


def _signed(b: Mapping[str, Any]) -> bool:
    info = b.get("additional_information")
    return isinstance(info, Mapping) and any(info.get(k) for k in ("signature", "encrypted_content", "redacted"))


def _tokens(b: Mapping[str, Any], count: Any) -> tuple[str, int]:
    kind = b.get("block_type")
    if kind == "image":
        size = image_size(b["image"]) if isinstance(b.get("image"), str) else None
        return "image", neutral_image_tokens(*(size or (None, None)), b.get("detail"))
    if kind == "audio":
        return "audio", audio_tokens(b["audio"]) if isinstance(b.get("audio"), str) else UNKNOWN_MEDIA
    if kind == "document":
        extra = count(b["title"]) if isinstance(b.get("title"), str) else 0
        data = b.get("data")
        mime = b.get("document_mimetype") or ""
        if isinstance(data, str) and mime.startswith("text/"):
            raw = decode_base64(data)
            try:
                return "document", count((raw or b"").decode("utf-8")) + extra
            except UnicodeDecodeError:
                pass
        if isinstance(data, str):
            return "document", pdf_tokens(data) + extra
        return "document", UNKNOWN_MEDIA + extra
    if kind == "video":
        return "video", UNKNOWN_MEDIA
    if kind == "thinking":
        return "thinking", count(b.get("content") or "")
    return str(kind), count(dumps(b))


class LlamaIndexReader(Reader):
    name = NAME

    def read(self, m: Any, index: int) -> tuple[list[dict[str, Any]], Layout]:
        need(isinstance(m, Mapping) and isinstance(m.get("role"), str), index,
             "expected a LlamaIndex ChatMessage dict with 'role' and 'blocks'")
        role = m["role"]
        extra = m.get("additional_kwargs") if isinstance(m.get("additional_kwargs"), Mapping) else {}
        internal_role = {"chatbot": "assistant", "model": "assistant"}.get(role, role)
        result_of = extra.get("tool_call_id")
        if role in ("tool", "function") and result_of is not None:
            internal_role = "tool"
        blocks = m.get("blocks")
        pieces: list[dict[str, Any]] = []
        slots: list[Slot] = []
        signed = []
        if isinstance(blocks, list) and internal_role == "assistant":
            signed = [k for k, b in enumerate(blocks) if b.get("block_type") == "thinking" and _signed(b)]
            if signed:
                parts = []
                for k in signed:
                    parts.append(stand_in("thinking", _tokens(blocks[k], self.count)[1], k, self.count))
                    slots.append(Slot("opaque", 0, k, k))
                pieces.append({"role": "assistant", "content": parts})
        main = len(pieces)
        msg: dict[str, Any] = {"role": internal_role}
        if internal_role == "tool":
            msg["tool_call_id"] = str(result_of)
        calls: list[dict[str, Any]] = []
        seen: set[str] = set()
        for c in extra.get("tool_calls") or ():
            fn = c.get("function") if isinstance(c, Mapping) else None
            need(isinstance(fn, Mapping) and isinstance(fn.get("name"), str), index,
                 "additional_kwargs tool_calls need {'id', 'function': {'name', 'arguments'}}")
            cid = "" if c.get("id") is None else str(c["id"])
            seen.add(cid)
            args = fn.get("arguments")
            calls.append({"id": cid, "type": "function", "function": {
                "name": fn["name"], "arguments": args if isinstance(args, str) else dumps(args or {})}})
            slots.append(Slot("call", main, cid, None))
        if blocks is None:
            content = m.get("content")
            msg["content"] = content
            slots.append(Slot("content", main))
        else:
            parts = []
            for k, b in enumerate(blocks):
                if k in signed:
                    continue
                kind = b.get("block_type")
                if kind == "text" and isinstance(b.get("text"), str):
                    parts.append(text_part(b["text"], k))
                    slots.append(Slot("text", main, k, k))
                elif kind == "thinking" and isinstance(b.get("content"), str):
                    parts.append(text_part(b["content"], k))
                    slots.append(Slot("text", main, k, k))
                elif kind == "tool_call" and isinstance(b.get("tool_name"), str):
                    cid = "" if b.get("tool_call_id") is None else str(b["tool_call_id"])
                    if cid not in seen:
                        seen.add(cid)
                        args = b.get("tool_kwargs", {})
                        calls.append({"id": cid, "type": "function", "function": {
                            "name": b["tool_name"], "arguments": args if isinstance(args, str) else dumps(args)}})
                    slots.append(Slot("call", main, cid, k))
                elif kind == "cache":
                    slots.append(Slot("always", main, None, k))
                else:
                    label, tokens = _tokens(b, self.count)
                    parts.append(stand_in(label, tokens, k, self.count))
                    slots.append(Slot("opaque", main, k, k))
            msg["content"] = parts or None
        if calls:
            msg["tool_calls"] = calls
        if msg.get("content") is not None or calls or not pieces:
            pieces.append(msg)
            pieces.extend(split_attachments(msg, slots, main))
        return pieces, Layout(len(pieces), slots, {"main": main})


def write(m: Mapping[str, Any], layout: Layout, outs: list[Any]) -> dict[str, Any] | None:
    if not any(o is not None for o in outs):
        return None
    fates = resolve(layout, outs)
    new = dict(m)
    extra = m.get("additional_kwargs") if isinstance(m.get("additional_kwargs"), Mapping) else {}
    kept_ids = {s.key for s, f in zip(layout.slots, fates) if s.kind == "call" and f is not None}
    has_calls = bool(kept_ids)
    if extra.get("tool_calls"):
        new["additional_kwargs"] = {**extra, "tool_calls": [
            c for c in extra["tool_calls"] if ("" if c.get("id") is None else str(c["id"])) in kept_ids]}
        if not new["additional_kwargs"]["tool_calls"]:
            new["additional_kwargs"].pop("tool_calls")
    main = outs[layout.info["main"]] if layout.info["main"] < len(outs) else None
    placeholder = [p["text"] for p in (main or {}).get("content") or () if isinstance(p, dict) and "_dm" not in p] \
        if main is not None and isinstance(main.get("content"), list) else []
    is_result = main is not None and main.get("role") == "tool"
    blocks = m.get("blocks")
    if blocks is None:
        fate = next((f for s, f in zip(layout.slots, fates) if s.kind == "content"), None)
        new["content"] = fate if fate is not None else "".join(placeholder)
        if not new["content"] and not has_calls and not is_result:
            return None
        return new
    out_blocks = []
    for s, fate in zip(layout.slots, fates):
        if s.block is None or fate is None:
            continue
        b = blocks[s.block]
        if s.kind == "text":
            out_blocks.append({**b, "content" if b.get("block_type") == "thinking" else "text": fate})
        else:
            out_blocks.append(b)
    out_blocks += [{"block_type": "text", "text": t} for t in placeholder]
    meaningful = [b for b in out_blocks if b.get("block_type") not in ("cache", "thinking")]
    if not meaningful and not has_calls and not is_result:
        return None
    new["blocks"] = out_blocks
    return new


def note_message(note: str, role: str) -> dict[str, Any]:
    return {"role": role, "additional_kwargs": {}, "blocks": [{"block_type": "text", "text": note}]}

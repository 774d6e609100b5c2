"""Anthropic Messages (a list of messages, or a request body with ``system``).

Into the internal shape, per message:

- a user message's ``tool_result`` blocks each become a ``role: "tool"`` result of
  their ``tool_use_id`` (their content a string, or text parts and stand-ins), and its
  other blocks one user message after them: a result is shown exactly when its call
  is, and the user's text is compacted on its own;
- an assistant message's ``text`` blocks are text parts, its ``tool_use`` blocks tool
  calls (``input`` as JSON arguments); its ``thinking`` / ``redacted_thinking`` blocks
  (signed: never edited) become one assistant message of stand-ins placed before it,
  costing the thinking text's tokens (``redacted_thinking``: its data's estimate), kept
  whole or left out; its server-tool blocks (``server_tool_use`` and their results) are
  stand-ins costing their JSON;
- ``image`` blocks cost ``width * height / 750`` (size from base64 data; unknown:
  1,600); ``document`` blocks: a text document is a text part (its title and context
  added to its cost), a PDF its pages; ``search_result`` and unknown blocks their JSON.
- a body's ``system`` (string or text blocks) is a system message.

Out: each message is the caller's, its blocks in their order, text replaced, blocks the
view left out removed; a message left with nothing, or an assistant message left with
only thinking, is dropped; a server-tool block is kept only with its partner. The
record note is the first message, a user message (the Messages API has no system role
in ``messages``; a request must open with a user message).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Layout, Reader, Slot, dumps, need, resolve, split_attachments, stand_in, text_part
from .media import anthropic_image_tokens, encrypted_tokens, image_size, pdf_tokens, UNKNOWN_MEDIA

__all__ = ["NAME", "accepts", "decisive", "AnthropicReader", "write", "note_message", "fix", "read_system",
           "write_system", "block_tokens"]

NAME = "anthropic"
THINKING = frozenset({"thinking", "redacted_thinking"})
DECISIVE = frozenset({"tool_use", "tool_result", "thinking", "redacted_thinking", "document", "server_tool_use",
                      "search_result", "container_upload", "mcp_tool_use", "mcp_tool_result"})
_NOT_OURS = frozenset({"image_url", "input_text", "output_text", "input_image", "input_file", "input_audio",
                       "tool_call", "reasoning", "text-plain", "non_standard", "refusal", "file"})


def _block_ok(b: Any) -> bool:
    return isinstance(b, Mapping) and isinstance(b.get("type"), str) and b["type"] not in _NOT_OURS and not (
        b["type"] == "image" and not isinstance(b.get("source"), Mapping))


def accepts(m: Any) -> bool:
    if not isinstance(m, Mapping) or m.get("role") not in ("user", "assistant", "system") or "blocks" in m:
        return False
    if m.get("tool_calls") or "tool_call_id" in m:
        return False
    content = m.get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and all(_block_ok(b) for b in content)


def decisive(m: Any) -> bool:
    content = m.get("content") if isinstance(m, Mapping) else None
    return isinstance(content, list) and any(
        isinstance(b, Mapping) and (b.get("type") in DECISIVE or b.get("type", "").endswith("_tool_result")
                                    or (b.get("type") == "image" and isinstance(b.get("source"), Mapping)))
        for b in content)


def block_tokens(b: Mapping[str, Any], count: Any) -> int:
    """Tokens of an opaque block (not text, not a call)."""
    kind = b.get("type")
    if kind == "image":
        src = b.get("source") or {}
        size = image_size(src.get("data")) if src.get("type") == "base64" else None
        return anthropic_image_tokens(*(size or (None, None)))
    if kind == "document":
        src = b.get("source") or {}
        extra = sum(count(b[k]) for k in ("title", "context") if isinstance(b.get(k), str))
        if src.get("type") == "base64":
            return pdf_tokens(src.get("data")) + extra
        if src.get("type") == "content" and isinstance(src.get("content"), list):
            return sum(block_tokens(x, count) if x.get("type") != "text" else count(x.get("text", ""))
                       for x in src["content"] if isinstance(x, Mapping)) + extra
        return UNKNOWN_MEDIA + extra
    if kind == "thinking":
        return count(b.get("thinking") or "")
    if kind == "redacted_thinking":
        return encrypted_tokens(b.get("data"))
    body = {k: v for k, v in b.items() if k not in ("cache_control", "citations")}
    return count(dumps(body))


def _inner(b: Any, k: Any, count: Any, index: int) -> tuple[dict[str, Any], str]:
    """The internal part for a block that is not a tool_use/tool_result, and its slot kind."""
    need(isinstance(b, Mapping) and isinstance(b.get("type"), str), index,
         f"content block {k} is not a dict with a 'type'")
    if b["type"] == "text" and isinstance(b.get("text"), str):
        return text_part(b["text"], k), "text"
    if b["type"] == "document" and isinstance(b.get("source"), Mapping) and b["source"].get("type") == "text" \
            and isinstance(b["source"].get("data"), str):
        extra = sum(count(b[x]) for x in ("title", "context") if isinstance(b.get(x), str))
        return text_part(b["source"]["data"], k, extra), "text"
    label = "thinking" if b["type"] in THINKING else b["type"]
    return stand_in(label, block_tokens(b, count), k, count), "opaque"


class AnthropicReader(Reader):
    name = NAME

    def read(self, m: Any, index: int) -> tuple[list[dict[str, Any]], Layout]:
        need(isinstance(m, Mapping) and isinstance(m.get("role"), str), index,
             "expected an Anthropic message: a dict with 'role' and 'content'")
        role = m["role"]
        content = m.get("content")
        base = {"role": role}
        if isinstance(content, str) or content is None:
            return [{**base, "content": content or ""}], Layout(1, [Slot("content", 0)])
        need(isinstance(content, list), index, f"content is a {type(content).__name__}; expected str or blocks")
        pieces: list[dict[str, Any]] = []
        slots: list[Slot] = []
        if role == "assistant":
            thinking = [k for k, b in enumerate(content) if isinstance(b, Mapping) and b.get("type") in THINKING]
            if thinking:
                parts = []
                for k in thinking:
                    part, _ = _inner(content[k], k, self.count, index)
                    parts.append(part)
                pieces.append({"role": "assistant", "content": parts})
            main = len(pieces)
            parts, calls = [], []
            for k, b in enumerate(content):
                if isinstance(b, Mapping) and b.get("type") in THINKING:
                    slots.append(Slot("opaque", 0, k, k))
                elif isinstance(b, Mapping) and b.get("type") == "tool_use":
                    need(isinstance(b.get("name"), str), index, f"tool_use block {k} has no name")
                    call_id = str(b.get("id") or "")
                    calls.append({"id": call_id, "type": "function",
                                  "function": {"name": b["name"], "arguments": dumps(b.get("input", {}))}})
                    slots.append(Slot("call", main, call_id, k))
                else:
                    part, kind = _inner(b, k, self.count, index)
                    parts.append(part)
                    slots.append(Slot(kind, main, k, k))
            if parts or calls:
                msg: dict[str, Any] = {"role": "assistant", "content": parts or None}
                if calls:
                    msg["tool_calls"] = calls
                pieces.append(msg)
            return pieces, Layout(len(pieces), slots)
        rest: list[dict[str, Any]] = []
        user_piece = sum(1 for b in content if isinstance(b, Mapping) and b.get("type") == "tool_result")  # the user's own blocks follow the results
        for k, b in enumerate(content):
            if isinstance(b, Mapping) and b.get("type") == "tool_result":
                pieces.append(self._result(b, k, index))
                slots.append(Slot("result", len(pieces) - 1, None, k))
            else:
                part, kind = _inner(b, k, self.count, index)
                rest.append(part)
                slots.append(Slot(kind, user_piece, k, k))
        if rest:
            piece = {"role": role, "content": rest}
            pieces.append(piece)
            pieces.extend(split_attachments(piece, slots, user_piece))
        return pieces, Layout(len(pieces), slots)

    def _result(self, b: Mapping[str, Any], k: int, index: int) -> dict[str, Any]:
        inner = b.get("content")
        msg: dict[str, Any] = {"role": "tool", "tool_call_id": str(b.get("tool_use_id") or "") or None}
        if isinstance(inner, list):
            msg["content"] = [_inner(x, j, self.count, index)[0] for j, x in enumerate(inner)]
        else:
            msg["content"] = inner if isinstance(inner, str) else ""
        return msg


def read_system(system: Any, count: Any) -> tuple[dict[str, Any], Layout]:
    if isinstance(system, str):
        return {"role": "system", "content": system}, Layout(1, [Slot("content", 0)])
    need(isinstance(system, list), -1, "system must be a str or a list of text blocks")
    parts, slots = [], []
    for k, b in enumerate(system):
        part, kind = _inner(b, k, count, -1)
        parts.append(part)
        slots.append(Slot(kind, 0, k, k))
    return {"role": "system", "content": parts}, Layout(1, slots)


def write_system(system: Any, layout: Layout, out: Any) -> Any:
    if out is None:
        return None
    if isinstance(system, str):
        fates = resolve(layout, [out])
        return fates[0]
    return _blocks(system, layout, [out]) or None


def _rebuild_result(b: Mapping[str, Any], fate: Any) -> dict[str, Any]:
    inner = b.get("content")
    new = dict(b)
    if isinstance(inner, list):
        items = []
        marks = {p.get("_dm"): p for p in fate if isinstance(p, dict)} if isinstance(fate, list) else {}
        for j, x in enumerate(inner):
            p = marks.get(j)
            if p is None:
                continue
            if x.get("type") == "text":
                items.append({**x, "text": p["text"]})
            elif x.get("type") == "document" and (x.get("source") or {}).get("type") == "text" and "_dm_tokens" not in p:
                items.append({**x, "source": {**x["source"], "data": p["text"]}})
            else:
                items.append(x)
        if isinstance(fate, list):
            items += [{"type": "text", "text": p["text"]} for p in fate if isinstance(p, dict) and "_dm" not in p]
        elif isinstance(fate, str) and fate:
            items.append({"type": "text", "text": fate})
        new["content"] = items
    elif isinstance(inner, str):
        new["content"] = fate if isinstance(fate, str) else "".join(
            p.get("text", "") for p in fate or () if isinstance(p, dict))
    # no content in the input: none in the output (the core's "…" for it is not sent)
    return new


def _blocks(content: list[Any], layout: Layout, outs: list[Any]) -> list[dict[str, Any]]:
    fates = resolve(layout, outs)
    blocks: list[dict[str, Any]] = []
    for s, fate in zip(layout.slots, fates):
        if fate is None or s.block is None:
            continue
        b = content[s.block]
        if s.kind == "text":
            if b.get("type") == "document":
                blocks.append({**b, "source": {**b["source"], "data": fate}})
            else:
                blocks.append({**b, "text": fate})
        elif s.kind == "result":
            blocks.append(_rebuild_result(b, fate))
        else:
            blocks.append(b)
    return blocks


def write(m: Mapping[str, Any], layout: Layout, outs: list[Any]) -> dict[str, Any] | None:
    content = m.get("content")
    if not isinstance(content, list):
        fate = resolve(layout, outs)[0]
        return {**m, "content": fate} if fate else None
    blocks = _blocks(content, layout, outs)
    if not blocks:
        return None
    if m.get("role") == "assistant" and all(b.get("type") in THINKING for b in blocks):
        return None  # thinking alone answers nothing
    return {**m, "content": blocks}


def note_message(note: str, role: str) -> dict[str, Any]:
    return {"role": "user", "content": [{"type": "text", "text": note}]}


def fix(out: list[tuple[dict[str, Any], int | None]]) -> tuple[list[tuple[dict[str, Any], int | None]], list[str]]:
    """Keep the view a valid request: server-tool blocks with their partners, every
    ``tool_use`` answered in the next message and every ``tool_result`` answering the
    message before it (the core keeps calls and results together; this only checks)."""
    drops: list[str] = []
    fixed: list[tuple[dict[str, Any], int | None]] = []
    for m, src in out:
        content = m.get("content")
        if isinstance(content, list) and m.get("role") == "assistant":
            ids = {b.get("id") for b in content if b.get("type") not in ("tool_use", "text") and b.get("id")}
            answered = {b.get("tool_use_id") for b in content if b.get("tool_use_id")}
            keep = [b for b in content if not (
                (b.get("tool_use_id") and b["tool_use_id"] not in ids)
                or (b.get("type") not in ("tool_use", "text") and b.get("id") and b["type"].endswith("_use")
                    and b["id"] not in answered))]
            if len(keep) != len(content):
                drops.append(f"message {src}: server-tool blocks without their partner")
                if not keep or all(b.get("type") in THINKING for b in keep):
                    continue
                m = {**m, "content": keep}
        fixed.append((m, src))
    # Every tool_use answered in the next message, every tool_result answering a
    # tool_use of the message before it: a pair that is not adjacent goes, both sides.
    while True:
        bad: set[str] = set()
        for i, (m, src) in enumerate(fixed):
            content = m.get("content")
            if not isinstance(content, list):
                continue
            if m.get("role") == "assistant":
                nxt = fixed[i + 1][0] if i + 1 < len(fixed) else None
                if nxt is None:
                    continue  # the newest step: its results are still to come
                results = _ids(nxt, "tool_result", "tool_use_id") if nxt.get("role") == "user" else set()
                bad |= {b.get("id") for b in content if b.get("type") == "tool_use" and b.get("id") not in results}
            elif m.get("role") == "user":
                prev = fixed[i - 1][0] if i else None
                calls = _ids(prev, "tool_use", "id") if prev is not None and prev.get("role") == "assistant" else set()
                bad |= {b.get("tool_use_id") for b in content
                        if b.get("type") == "tool_result" and b.get("tool_use_id") not in calls}
        if not bad:
            break
        drops.append("calls and results not adjacent: " + ", ".join(sorted(map(str, bad))))
        kept = []
        for m, src in fixed:
            content = m.get("content")
            if isinstance(content, list):
                keep = [b for b in content if not (
                    (b.get("type") == "tool_use" and b.get("id") in bad)
                    or (b.get("type") == "tool_result" and b.get("tool_use_id") in bad))]
                if not keep or (m.get("role") == "assistant" and all(b.get("type") in THINKING for b in keep)):
                    continue
                m = {**m, "content": keep} if len(keep) != len(content) else m
            kept.append((m, src))
        fixed = kept
    return fixed, drops


def _ids(m: Mapping[str, Any] | None, kind: str, key: str) -> set[Any]:
    content = (m or {}).get("content")
    if not isinstance(content, list):
        return set()
    return {b.get(key) for b in content if isinstance(b, dict) and b.get("type") == kind}

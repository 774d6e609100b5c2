"""OpenAI Responses API input items (a list of items, or a request body with ``input``
and ``instructions``).

One internal message per item:

- ``message`` items (with ``type`` or the short ``{"role", "content"}`` form): their
  ``input_text`` / ``output_text`` / ``refusal`` parts are text parts, ``input_image``
  costs OpenAI's image rule, ``input_file`` a PDF's pages, ``input_audio`` 10 tokens a
  second;
- ``function_call`` / ``custom_tool_call`` (and any ``*_call`` item with a ``call_id``):
  an assistant tool call (``arguments``; ``input``; else the item's JSON); its
  ``*_call_output`` item (same ``call_id``) the tool result: a call and its output are
  kept or left out together;
- ``reasoning``: one stand-in costing its summary and content texts plus an estimate of
  its ``encrypted_content`` (never edited: kept whole or left out);
- any other item: a stand-in costing its JSON (``item_reference``: 1,600, a stated
  estimate: what it points to is not in the request).

Out: the caller's items, text replaced, items left out removed; then the two
documented rules on reasoning: a ``reasoning`` item is sent only with the item that
followed it in the input, right after it; an item with an ``id`` that followed a
``reasoning`` item with an ``id`` is sent only with it (a call with its outputs). The
record note is a ``message`` item of ``note_role`` after the leading system/developer
messages.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import BOUND, Layout, Reader, Slot, dumps, need, resolve, split_attachments, stand_in
from .media import UNKNOWN_MEDIA, encrypted_tokens
from .openai_chat import part_parts

__all__ = ["NAME", "accepts", "decisive", "ResponsesReader", "write", "note_message", "fix", "kind_of"]

NAME = "responses"
TEXT_KEYS = {"input_text": "text", "output_text": "text", "text": "text", "refusal": "refusal"}
PART_TYPES = frozenset({*TEXT_KEYS, "input_image", "input_file", "input_audio"})
ITEM_TYPES = frozenset({"message", "function_call", "function_call_output", "custom_tool_call",
                        "custom_tool_call_output", "reasoning", "item_reference", "web_search_call",
                        "file_search_call", "computer_call", "computer_call_output", "local_shell_call",
                        "local_shell_call_output", "shell_call", "shell_call_output", "apply_patch_call",
                        "apply_patch_call_output", "mcp_call", "mcp_list_tools", "mcp_approval_request",
                        "mcp_approval_response", "image_generation_call", "code_interpreter_call", "compaction",
                        "tool_search_call", "tool_search_output"})


def kind_of(item: Any) -> str | None:
    if not isinstance(item, Mapping):
        return None
    kind = item.get("type")
    if kind is None and isinstance(item.get("role"), str):
        return "message"
    return kind if isinstance(kind, str) else None


def accepts(item: Any) -> bool:
    kind = kind_of(item)
    if kind is None or "blocks" in item or item.get("tool_calls"):
        return False
    if kind == "message":
        content = item.get("content")
        if isinstance(content, str):
            return isinstance(item.get("role"), str)
        return isinstance(content, list) and all(
            isinstance(p, Mapping) and p.get("type") in PART_TYPES for p in content)
    return kind in ITEM_TYPES or kind.endswith("_call") or kind.endswith("_call_output")


def decisive(item: Any) -> bool:
    kind = kind_of(item)
    if kind is None:
        return False
    if kind != "message":
        return kind in ITEM_TYPES or kind.endswith("_call") or kind.endswith("_call_output")
    if item.get("type") == "message":
        return True
    content = item.get("content")
    return isinstance(content, list) and any(isinstance(p, Mapping) and p.get("type") in ("input_image", "input_file")
                                             for p in content)


def _reasoning_tokens(item: Mapping[str, Any], count: Any) -> int:
    total = 0
    for key in ("summary", "content"):
        for p in item.get(key) or ():
            if isinstance(p, Mapping) and isinstance(p.get("text"), str):
                total += count(p["text"])
    return total + encrypted_tokens(item.get("encrypted_content"))


def _bound(reasoning: Any, follower: Any) -> bool:
    return (kind_of(reasoning) == "reasoning" and bool(reasoning.get("id")) and isinstance(follower, Mapping)
            and bool(follower.get("id")) and kind_of(follower) != "reasoning")


class ResponsesReader(Reader):
    name = NAME

    def read(self, item: Any, index: int) -> tuple[list[dict[str, Any]], Layout]:
        pieces, layout = self._read(item, index)
        # A reasoning item with an id, followed by an item with an id: the API wants them
        # together (either without the other is rejected), so the reasoning is sent with
        # that item, its tokens paid by it, never on its own.
        prev = self.messages[index - 1] if 0 < index <= len(self.messages) else None
        if _bound(prev, item) and pieces:
            pieces[0] = {**pieces[0], BOUND: _reasoning_tokens(prev, self.count)}
            layout.info["with"] = (index - 1,)
        return pieces, layout

    def _read(self, item: Any, index: int) -> tuple[list[dict[str, Any]], Layout]:
        kind = kind_of(item)
        need(kind is not None, index, "expected a Responses item: a dict with 'type' (or 'role' and 'content')")
        if kind == "message":
            role = item.get("role")
            need(isinstance(role, str), index, "message item has no role")
            content = item.get("content")
            if isinstance(content, str):
                return [{"role": role, "content": content}], Layout(1, [Slot("content", 0)])
            need(isinstance(content, list), index, "message content must be a str or a list of parts")
            parts, slots = [], []
            for k, p in enumerate(content):
                part, slot = part_parts(p, k, self.count, index)
                parts.append(part)
                slots.append(Slot(slot, 0, k, k))
            piece = {"role": role, "content": parts}
            attachments = split_attachments(piece, slots, 0)
            return [piece, *attachments], Layout(1 + len(attachments), slots)
        call_id = item.get("call_id")
        if kind.endswith("_call") and call_id is not None:
            if isinstance(item.get("arguments"), str):
                args = item["arguments"]
            elif isinstance(item.get("input"), str):
                args = item["input"]
            elif "arguments" in item:
                args = dumps(item["arguments"])
            else:
                args = dumps({k: v for k, v in item.items() if k not in ("type", "id", "call_id", "status", "name")})
            name = item.get("name") if isinstance(item.get("name"), str) else kind
            call = {"id": str(call_id), "type": "function", "function": {"name": name, "arguments": args}}
            return [{"role": "assistant", "content": None, "tool_calls": [call]}], Layout(1, [Slot("call", 0, str(call_id))])
        if kind.endswith("_call_output") and call_id is not None:
            output = item.get("output")
            msg: dict[str, Any] = {"role": "tool", "tool_call_id": str(call_id)}
            if isinstance(output, str):
                msg["content"] = output
            elif isinstance(output, list):
                msg["content"] = [part_parts(p, k, self.count, index)[0] for k, p in enumerate(output)]
            elif isinstance(output, Mapping) and output.get("type") in ("computer_screenshot", "input_image"):
                msg["content"] = [part_parts({**output, "type": "input_image"}, 0, self.count, index)[0]]
            else:
                msg["content"] = [stand_in("output", self.count(dumps(output)), 0, self.count)]
            return [msg], Layout(1, [Slot("result", 0)])
        if kind == "reasoning":
            nxt = self.messages[index + 1] if index + 1 < len(self.messages) else None
            if _bound(item, nxt):
                return [], Layout(0, [], {"bound": True})  # sent with the next item
            tokens = _reasoning_tokens(item, self.count)
            return [{"role": "assistant", "content": [stand_in("reasoning", tokens, "r", self.count)]}], \
                Layout(1, [Slot("opaque", 0, "r")], {"reasoning": True})
        tokens = UNKNOWN_MEDIA if kind == "item_reference" else self.count(dumps(item))
        return [{"role": "assistant", "content": [stand_in(kind, tokens, "i", self.count)]}], \
            Layout(1, [Slot("opaque", 0, "i")])


def write(item: Mapping[str, Any], layout: Layout, outs: list[Any]) -> dict[str, Any] | None:
    if all(o is None for o in outs):
        return None
    kind = kind_of(item)
    fates = resolve(layout, outs)
    if kind == "message":
        content = item.get("content")
        if isinstance(content, str):
            return {**item, "content": fates[0]} if fates[0] else None
        parts = []
        for s, fate in zip(layout.slots, fates):
            if fate is None:
                continue
            p = content[s.block]
            parts.append({**p, TEXT_KEYS.get(p.get("type"), "text"): fate} if s.kind == "text" else p)
        return {**item, "content": parts} if parts else None
    slot = layout.slots[0]
    if slot.kind == "result":
        output = item.get("output")
        fate = fates[0]
        if isinstance(output, str):
            text = fate if isinstance(fate, str) else "".join(p.get("text", "") for p in fate or ()
                                                               if isinstance(p, dict))
            return {**item, "output": text}
        if isinstance(output, list):
            marks = {p.get("_dm"): p for p in fate if isinstance(p, dict)} if isinstance(fate, list) else {}
            parts = []
            for k, p in enumerate(output):
                got = marks.get(k)
                if got is None:
                    continue
                key = TEXT_KEYS.get(p.get("type")) if isinstance(p, Mapping) else None
                parts.append({**p, key: got["text"]} if key and "_dm_tokens" not in got else p)
            if isinstance(fate, list):
                parts += [{"type": "input_text", "text": p["text"]} for p in fate if isinstance(p, dict)
                          and "_dm" not in p]
            return {**item, "output": parts}
        return dict(item)
    return dict(item) if fates[0] is not None else None


def note_message(note: str, role: str) -> dict[str, Any]:
    return {"type": "message", "role": role, "content": [{"type": "input_text", "text": note}]}


def fix(out: list[tuple[dict[str, Any], int | None]], inputs: list[Any]) -> tuple[
        list[tuple[dict[str, Any], int | None]], list[str]]:
    """The reasoning rules (see the module docstring), applied until nothing changes."""
    drops: list[str] = []
    while True:
        present = {src for _, src in out if src is not None}
        gone: set[int] = set()
        for i, (item, src) in enumerate(out):
            if src is None:
                continue
            if kind_of(item) == "reasoning":
                nxt = out[i + 1][1] if i + 1 < len(out) else None
                if src + 1 < len(inputs) and nxt != src + 1:
                    gone.add(src)
                    drops.append(f"item {src}: reasoning without the item that followed it")
            elif src > 0 and item.get("id") and kind_of(inputs[src - 1]) == "reasoning" \
                    and inputs[src - 1].get("id") and src - 1 not in present:
                gone.add(src)
                drops.append(f"item {src}: its reasoning item {inputs[src - 1].get('id')} was left out")
        if not gone:
            return out, drops
        calls = {str(out_item.get("call_id")) for out_item, src in out if src in gone and out_item.get("call_id")
                 and kind_of(out_item).endswith("_call")}
        out = [(item, src) for item, src in out if src not in gone and not (
            calls and str(item.get("call_id")) in calls and (kind_of(item) or "").endswith("_call_output"))]

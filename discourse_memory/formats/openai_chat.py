"""OpenAI chat completions messages.

A message the core already reads (string or ``text`` parts, ``tool_calls``,
``tool_call_id``) is its own internal message, unchanged (byte-identical behaviour).
Converted, one internal message each:

- ``reasoning_content`` (a str): a text part the core counts and compacts like any
  text (written back to ``reasoning_content``; left out: the key is removed);
- content parts ``input_text`` / ``output_text`` (``text``) and ``refusal``
  (``refusal``): text parts;
- ``image_url``: a stand-in costing OpenAI's image rule (``detail``, the size read from a
  ``data:`` URL); ``input_audio``: 10 tokens a second; ``file``: a PDF's pages; any
  other part: its JSON's tokens;
- legacy ``function_call`` on an assistant message: a tool call with the id
  ``dm-function-call-<index>``; a ``role: "function"`` result answers the latest
  unanswered function call (of its name, if any has it): a tool result of that id, so
  a call and its result are kept or left out together. A result with no call is an
  orphan (never shown).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .base import Layout, Reader, Slot, clean_part, dumps, need, resolve, split_attachments, stand_in, text_part
from .media import audio_tokens, image_size, media_type_of, openai_image_tokens, pdf_tokens, UNKNOWN_MEDIA

__all__ = ["NAME", "accepts", "plain", "ChatReader", "write", "note_message", "image_part_tokens"]

NAME = "openai"
TEXT_PARTS = {"text": "text", "input_text": "text", "output_text": "text", "refusal": "refusal"}
PART_TYPES = frozenset({*TEXT_PARTS, "image_url", "input_audio", "file"})


def accepts(m: Any) -> bool:
    if not isinstance(m, Mapping) or not isinstance(m.get("role"), str) or "blocks" in m:
        return False
    content = m.get("content")
    if isinstance(content, list):
        for p in content:
            if isinstance(p, str):
                continue
            if not isinstance(p, Mapping) or p.get("type") not in PART_TYPES:
                return False
    elif content is not None and not isinstance(content, str):
        return False
    calls = m.get("tool_calls")
    if calls:
        if not isinstance(calls, list) or not all(isinstance(c, Mapping) and isinstance(c.get("function"), Mapping)
                                                  for c in calls):
            return False
    return True


def plain(m: Any) -> bool:
    """A message the core reads as it is (nothing to convert)."""
    if not isinstance(m, dict):
        return False
    if m.get("role") == "function" or m.get("function_call") is not None or m.get("reasoning_content"):
        return False
    if "blocks" in m or ("type" in m and "role" not in m):
        return False
    extra = m.get("additional_kwargs")
    if isinstance(extra, dict) and (extra.get("tool_calls") or extra.get("tool_call_id")):
        return False  # LlamaIndex keeps calls and results there
    content = m.get("content")
    if isinstance(content, list):
        for p in content:
            if not isinstance(p, str) and not (isinstance(p, dict) and p.get("type") == "text"
                                               and isinstance(p.get("text"), str)):
                return False
    calls = m.get("tool_calls")
    if calls:
        if not isinstance(calls, list):
            return True  # the core names the error
        for c in calls:
            if isinstance(c, dict) and "function" not in c and ("args" in c or "name" in c):
                return False  # LangChain-shaped calls
    return True


def image_part_tokens(url: Any, detail: Any) -> int:
    size = image_size(url) if isinstance(url, str) and url.startswith("data:") else None
    return openai_image_tokens(*(size or (None, None)), detail if isinstance(detail, str) else None)


def part_parts(part: Any, k: Any, count: Any, index: int) -> tuple[dict[str, Any], str]:
    """The internal part for a content part of OpenAI chat or Responses, and its slot kind."""
    if isinstance(part, str):
        return text_part(part, k), "text"
    need(isinstance(part, Mapping), index, f"content part {k} is a {type(part).__name__}; expected a dict")
    kind = part.get("type")
    key = TEXT_PARTS.get(kind)
    if key is not None and isinstance(part.get(key), str):
        return text_part(part[key], k), "text"
    if kind in ("image_url", "input_image"):
        image = part.get("image_url")
        detail = part.get("detail")
        if isinstance(image, Mapping):
            detail = image.get("detail", detail)
            image = image.get("url")
        return stand_in("image", image_part_tokens(image, detail), k, count), "opaque"
    if kind == "input_audio":
        audio = part.get("input_audio") if isinstance(part.get("input_audio"), Mapping) else part
        return stand_in("audio", audio_tokens(audio.get("data"), audio.get("format")), k, count), "opaque"
    if kind in ("file", "input_file"):
        f = part.get("file") if isinstance(part.get("file"), Mapping) else part
        data = f.get("file_data")
        is_pdf = isinstance(data, str) and (media_type_of(data) in (None, "application/pdf"))
        tokens = pdf_tokens(data) if is_pdf and data else UNKNOWN_MEDIA
        name = f.get("filename")
        if isinstance(name, str):
            tokens += count(name)
        return stand_in("file", tokens, k, count), "opaque"
    return stand_in(str(kind or "part"), count(dumps(part)), k, count), "opaque"


class ChatReader(Reader):
    name = NAME

    def __init__(self, count: Any) -> None:
        super().__init__(count)
        self._pending: list[tuple[str, str]] = []  # unanswered legacy function calls (id, name)

    def state(self) -> Any:
        return tuple(self._pending)

    def restore(self, state: Any) -> None:
        self._pending = list(state or ())

    def read(self, m: Any, index: int) -> tuple[list[dict[str, Any]], Layout]:
        if plain(m):
            return [m], Layout(1, [], {"plain": True})
        need(isinstance(m, Mapping), index, f"is a {type(m).__name__}; expected a dict with 'role' and 'content'")
        role = m.get("role")
        new = {k: v for k, v in m.items() if k not in ("content", "reasoning_content", "function_call")}
        layout = Layout(1)
        fc = m.get("function_call")
        if role == "function":
            name = m.get("name")
            pick = next((i for i in range(len(self._pending) - 1, -1, -1) if self._pending[i][1] == name),
                        len(self._pending) - 1)
            new["role"] = "tool"
            new["tool_call_id"] = self._pending.pop(pick)[0] if self._pending else None
            layout.info["function"] = True
        if isinstance(fc, Mapping):
            need(isinstance(fc.get("name"), str), index, "function_call has no name")
            call_id = f"dm-function-call-{index}"
            args = fc.get("arguments")
            args = "" if args is None else args if isinstance(args, str) else dumps(args)
            new["tool_calls"] = list(new.get("tool_calls") or []) + [
                {"id": call_id, "type": "function", "function": {"name": fc["name"], "arguments": args}}]
            self._pending.append((call_id, fc["name"]))
            layout.slots.append(Slot("call", 0, call_id))
            layout.info["function_call"] = call_id
        content = m.get("content")
        reasoning = m.get("reasoning_content")
        parts: list[dict[str, Any]] = []
        if isinstance(reasoning, str) and reasoning:
            parts.append(text_part(reasoning, "reasoning"))
            layout.slots.append(Slot("text", 0, "reasoning"))
        if isinstance(content, str):
            if parts:
                parts.append(text_part(content, "content"))
                layout.slots.append(Slot("content", 0, "content"))
                new["content"] = parts
            else:
                new["content"] = content
                layout.slots.append(Slot("content", 0, None))
        elif isinstance(content, list):
            for p, part in enumerate(content):
                internal, kind = part_parts(part, p, self.count, index)
                parts.append(internal)
                layout.slots.append(Slot(kind, 0, p, p))
            new["content"] = parts
        elif content is None:
            new["content"] = parts or None
        else:
            need(False, index, f"content is a {type(content).__name__}; expected str, None or a list of parts")
        attachments = split_attachments(new, layout.slots, 0)
        layout.pieces = 1 + len(attachments)
        return [new, *attachments], layout


def write(m: Mapping[str, Any], layout: Layout, outs: list[Any]) -> dict[str, Any] | None:
    if all(o is None for o in outs):
        return None
    if layout.info.get("plain"):
        return dict(outs[0])
    out = outs[0] if outs[0] is not None else {}
    fates = resolve(layout, outs)
    new = {k: v for k, v in m.items()}
    calls_kept = bool(out.get("tool_calls"))
    fc_id = layout.info.get("function_call")
    if fc_id is not None:
        if not any(c.get("id") == fc_id for c in out.get("tool_calls") or ()):
            new.pop("function_call", None)
    if "tool_calls" in m and not calls_kept:
        new.pop("tool_calls", None)
    content = m.get("content")
    for s, fate in zip(layout.slots, fates):
        if s.kind == "text" and s.key == "reasoning":
            if fate is None:
                new.pop("reasoning_content", None)
            else:
                new["reasoning_content"] = fate
    if isinstance(content, str):
        fate = next((f for s, f in zip(layout.slots, fates) if s.kind == "content"), None)
        new["content"] = fate if fate is not None else _placeholder(out)
    elif isinstance(content, list):
        parts: list[Any] = []
        for s, fate in zip(layout.slots, fates):
            if s.block is None or fate is None:
                continue
            part = content[s.block]
            if s.kind == "text":
                if isinstance(part, str):
                    parts.append(fate)
                else:
                    parts.append({**part, TEXT_PARTS.get(part.get("type"), "text"): fate})
            else:
                parts.append(part)
        parts.extend(_unmarked(out))
        new["content"] = parts
    elif _unmarked(out) or isinstance(out.get("content"), str) and out.get("content"):
        new["content"] = _placeholder(out)  # a result with no content: the core's mark
    return new


def _unmarked(out: Mapping[str, Any]) -> list[dict[str, Any]]:
    """Parts the core added (the ``…`` of a result with no text left)."""
    content = out.get("content")
    if not isinstance(content, list):
        return []
    return [clean_part(p) for p in content if isinstance(p, dict) and "_dm" not in p]


def _placeholder(out: Mapping[str, Any]) -> str:
    content = out.get("content")
    if isinstance(content, str):
        return content
    return "".join(p.get("text", "") for p in _unmarked(out))


def note_message(note: str, role: str) -> dict[str, Any]:
    return {"role": role, "content": note}

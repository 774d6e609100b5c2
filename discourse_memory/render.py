"""Render a plan: the compacted messages, and the note that records what was left out."""

from __future__ import annotations

import copy
from typing import Any

from .messages import Message
from .policy import CLIPPED, KEPT, PLACEHOLDER, Plan
from .units import Unit, render_clipped

__all__ = ["render_messages", "render_note"]


def _render_field(text: str, units: list[Unit], plan: Plan) -> str:
    if all(plan.decision[u.id] == KEPT for u in units):
        return text
    parts = []
    for u in units:
        d = plan.decision[u.id]
        if d == KEPT:
            parts.append(u.gap + u.text + u.suffix)
        elif d == CLIPPED:
            parts.append(u.gap + render_clipped(u) + u.suffix)
    return "".join(parts).strip()


def render_messages(
    messages: list[Message],
    units: list[list[Unit]],
    plan: Plan,
    results: dict[int, list[int]],
    orphans: set[int],
) -> tuple[list[dict[str, Any]], list[int], list[list[str]]]:
    """Compacted messages, the input index of each, and the texts to count per message
    (rendered text fields, tool-call names and arguments)."""
    result_owner = {r: a for a, rs in results.items() for r in rs}
    out: list[dict[str, Any]] = []
    sources: list[int] = []
    counted: list[list[str]] = []
    for m in messages:
        raw = m.raw
        calls_texts = [t for c in m.tool_calls for t in (c.name, c.arguments)]
        if m.index in plan.protected:
            out.append(copy.copy(dict(raw)))
            sources.append(m.index)
            counted.append([tf.text for tf in m.texts] + calls_texts)
            continue
        owner = result_owner.get(m.index)
        if m.index in orphans or (owner is not None and owner not in plan.calls_present):
            continue
        if m.role == "tool" and owner is None:
            continue
        by_field: dict[str, list[Unit]] = {}
        for u in units[m.index]:
            if u.kind != "tool_call":
                by_field.setdefault(u.field, []).append(u)
        rendered = {tf.field: _render_field(tf.text, by_field.get(tf.field, []), plan) for tf in m.texts}
        calls_kept = m.index in plan.calls_present
        is_result = owner is not None
        has_text = any(rendered.values())
        if not has_text and not calls_kept and not is_result:
            continue
        new = dict(raw)
        content = raw.get("content")
        if isinstance(content, str):
            new["content"] = rendered["content"] or (PLACEHOLDER if is_result else "")
        elif isinstance(content, list):
            parts = []
            for p, part in enumerate(content):
                key = f"content.{p}"
                if key not in rendered:
                    parts.append(part)
                elif rendered[key]:
                    parts.append(rendered[key] if isinstance(part, str) else {**part, "text": rendered[key]})
            if not parts and is_result:
                parts = [{"type": "text", "text": PLACEHOLDER}]
            new["content"] = parts
        elif is_result:
            new["content"] = PLACEHOLDER
        if not calls_kept:
            new.pop("tool_calls", None)
            if new.get("content") is None:
                new["content"] = ""
        texts = [v for v in rendered.values()]
        if is_result and not has_text:
            texts = [PLACEHOLDER]
        out.append(new)
        sources.append(m.index)
        counted.append(texts + (calls_texts if calls_kept else []))
    return out, sources, counted


def render_note(tag: str, omitted: int, clipped: int, deduplicated: int,
                literals: list[str], dropped: int) -> str:
    """The record of what was left out. ``tag`` is derived from the conversation,
    so text inside a message cannot pass itself off as this note."""
    lines = [
        f"[discourse-memory record {tag}: earlier turns compacted to fit; {omitted} parts omitted, "
        f"{clipped} clipped (cut at …), {deduplicated} repeats shown only where they last occur]"
    ]
    if literals:
        lines.append("Values from parts not shown: " + "; ".join(literals))
    if dropped:
        lines.append(f"({dropped} more values dropped to fit)")
    lines.append(f"[end of record {tag}]")
    return "\n".join(lines)

"""Render a plan: the compacted messages, and the note that records what was left out."""

from __future__ import annotations

import copy
from typing import Any

import numpy as np

from .columns import Columns
from .policy import CLIPPED, KEPT, PLACEHOLDER, Plan
from .units import Unit, render_clipped

__all__ = ["render_messages", "render_note"]


def _render_field(text: str, units: list[Unit], decisions: list[int]) -> str:
    if all(d == KEPT for d in decisions):
        return text
    parts = []
    for u, d in zip(units, decisions):
        if d == KEPT:
            parts.append(u.gap + u.text + u.suffix)
        elif d == CLIPPED:
            parts.append(u.gap + render_clipped(u) + u.suffix)
    return "".join(parts).strip()


def render_messages(
    cols: Columns,
    plan: Plan,
    results: dict[int, list[int]],
    orphans: set[int],
    inputs: Any,
    reclipped: dict[int, Unit] | None = None,
) -> tuple[list[dict[str, Any]], list[int], list[list[str]]]:
    """Compacted messages, the input index of each, and the texts to count per message
    (rendered text fields, tool-call names and arguments). Output messages are copies
    of ``inputs`` (this call's messages) with their text replaced. ``reclipped`` maps a
    unit's index to the same unit clipped at a longer head."""
    result_owner = {r: a for a, rs in results.items() for r in rs}
    decision = plan.decision
    shown = (decision == KEPT) | (decision == CLIPPED)
    any_shown = np.bincount(cols.u_msg.view[shown], minlength=len(cols)) > 0
    starts = cols.msg_start.view
    out: list[dict[str, Any]] = []
    sources: list[int] = []
    counted: list[list[str]] = []
    for m in cols.messages:
        i = m.index
        raw = inputs[i]
        if i in plan.protected:
            out.append(copy.copy(dict(raw)))
            sources.append(i)
            counted.append([tf.text for tf in m.texts] + [t for c in m.tool_calls for t in (c.name, c.arguments)])
            continue
        owner = result_owner.get(i)
        is_result = owner is not None
        if i in orphans or (is_result and owner not in plan.calls_present) or (m.role == "tool" and not is_result):
            continue
        calls_kept = i in plan.calls_present
        if not any_shown[i] and not calls_kept and not is_result:
            continue
        s, e = int(starts[i]), int(starts[i + 1])
        heads = tuple((k, u.head_end) for k, u in reclipped.items() if s <= k < e) if reclipped else ()
        key = (i, decision[s:e].tobytes(), calls_kept, is_result, heads)
        hit = cols.rendered.get(key)
        if hit is not None and (hit[0] is None or hit[2] is raw):
            if hit[0] is not None:
                out.append(dict(hit[0]))
                sources.append(i)
                counted.append(hit[1])
            continue
        units = cols.units[s:e]
        if heads:
            units = [reclipped[s + j] if (s + j) in reclipped else u for j, u in enumerate(units)]  # type: ignore[index]
        decisions = decision[s:e].tolist()
        by_field: dict[str, tuple[list[Unit], list[int]]] = {}
        for u, d in zip(units, decisions):
            if u.kind != "tool_call":
                us, ds = by_field.setdefault(u.field, ([], []))
                us.append(u)
                ds.append(d)
        rendered = {tf.field: _render_field(tf.text, *by_field.get(tf.field, ([], []))) for tf in m.texts}
        has_text = any(rendered.values())
        if not has_text and not calls_kept and not is_result:
            cols.remember_render(key, None, [], raw)
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
        texts = list(rendered.values())
        if is_result and not has_text:
            texts = [PLACEHOLDER]
        texts = texts + ([t for c in m.tool_calls for t in (c.name, c.arguments)] if calls_kept else [])
        cols.remember_render(key, new, texts, raw)
        out.append(dict(new))
        sources.append(i)
        counted.append(texts)
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

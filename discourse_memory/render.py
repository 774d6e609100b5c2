"""Render a plan: the compacted messages, in the input's format, and the texts to count.

Readable joins: where units of a message were left out, one ``…`` marks the gap (on a
line of its own where the gap spanned lines), so kept pieces never run together; a
message whose speaker label ("Caroline: ...") was in an omitted unit keeps the label.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from .columns import Columns
from .plan import CLIPPED, KEPT, PLACEHOLDER, Plan
from .shared_counts import SharedCounts
from .units import Unit, _clipped, clipped_text

__all__ = ["RenderCache", "render_messages"]



class RenderCache:
    """Rendered messages and their tokens by their decisions (bounded): a view of a long history re-renders
    only what changed. Valid for one conversation's columns (the compactor clears it when
    it starts over): a message of the same index is then the same message, down to every
    part its fingerprint covers, whatever dict object the caller passes."""

    LIMIT = 20_000

    def __init__(self) -> None:
        self._data: dict[tuple[Any, ...], tuple[dict[str, Any] | None, int, tuple[tuple[int, int], ...]]] = {}
        self.note_lines: dict[Any, Any] = {}
        """The note's entry lines (see ``record.render_note``)."""

    def get(self, key: tuple[Any, ...]) -> tuple[dict[str, Any] | None, int, tuple[tuple[int, int], ...]] | None:
        return self._data.get(key)

    def put(self, key: tuple[Any, ...], message: dict[str, Any] | None, tokens: int,
            shared: tuple[tuple[int, int], ...] = ()) -> None:
        """``shared``: the (digest, tokens) of the rendered texts a view shares (:mod:`.shared_counts`)."""
        if len(self._data) > self.LIMIT:
            self._data.clear()
        self._data[key] = (message, tokens, shared)

    def clear(self) -> None:
        self._data.clear()
        self.note_lines.clear()


def render_field(text: str, units: Sequence[Unit], decisions: list[int], heads: dict[int, int],
                 ref: str = "", speaker: str | None = None) -> str:
    """One text field of a message with only its shown units (``heads``: a later cut for
    some clipped units, by position in ``units``); ``ref`` follows the first mark (the
    message's reference, for recall); ``speaker``: the message's speaker label, kept
    when the unit that opens with it is left out."""
    if all(d == KEPT for d in decisions):
        return text
    first_mark = [ref]

    def mark() -> str:
        out = PLACEHOLDER + first_mark[0]
        first_mark[0] = ""
        return out

    parts: list[str] = []
    marked = False  # the last shown piece already ends with the mark (a clip)
    label: str | None = None
    # (an omitted unit's text and gap are read without building it, where the units can)
    text_of = getattr(units, "text", None) or (lambda j: units[j].text)
    gap_of = getattr(units, "gap", None) or (lambda j: units[j].gap)
    # (a unit shown whole is written from its kind, text, gap and suffix: read without building
    # it where the units can, as a restored memory's first view renders hundreds)
    shown_of = getattr(units, "shown", None)
    # (and a clipped one from those and its head's end, where the units can read it: building
    # a unit read from the shared cache reads every literal and word of its text)
    head_of = getattr(units, "head_end", None) if shown_of is not None else None
    # Only the shown units are visited: an omitted run is looked at only where it can matter
    # (its label before the first shown unit, its gaps' line breaks where the shown unit after
    # it opens no line of its own): a view shows a few of a long tool output's hundreds of units.
    after = 0  # the unit after the last shown one
    for j in [j for j, d in enumerate(decisions) if d == KEPT or d == CLIPPED]:
        d = decisions[j]
        omitted_run = j > after
        if omitted_run and not parts and speaker and label is None:
            opener = speaker + ":"
            if any(text_of(q).startswith(opener) for q in range(after, j)):
                label = speaker + ": "
        if d == KEPT and shown_of is not None:
            kind, body, gap, suffix = shown_of(j)
        elif head_of is not None:
            kind, body, gap, suffix = shown_of(j)  # type: ignore[misc]
            body = _clipped(body, heads[j] if j in heads else head_of(j), kind)
        else:
            u = units[j]
            kind, gap, suffix = u.kind, u.gap, u.suffix
            body = u.text if d == KEPT else clipped_text(u, heads.get(j, u.head_end))
        if d == CLIPPED and first_mark[0] and kind != "code" and body.endswith(PLACEHOLDER):
            body = body[:-len(PLACEHOLDER)] + mark()
        # (a gap that spanned lines: the shown unit opens a line, with its source indentation)
        line = None
        if omitted_run and ("\n" in gap or (parts and any("\n" in gap_of(q) for q in range(after, j)))):
            line = "\n" + _indent(gap)
        if not parts:
            if omitted_run:
                lead = (label or "") + mark()
                parts.append(lead + (line or " ") + body)
            else:
                parts.append(body)
        elif omitted_run:
            if marked:
                sep = line or " "
            else:
                sep = f"\n{mark()}" + line if line else f" {mark()} "
            parts.append(sep + body)
        else:
            # Units that touch in the source touch here ("django.core.exceptions." and
            # "FieldError: ..." are two sentences to spaCy): a space is added only after a
            # clip's mark, which the source never had.
            parts.append((gap or (" " if marked else "")) + body)
        parts.append(suffix)
        marked = d == CLIPPED and kind != "code"
        after = j + 1
    if after < len(decisions) and parts and not marked:
        gap_lines = any("\n" in gap_of(q) for q in range(after, len(decisions)))
        parts.append(f"\n{mark()}" if gap_lines else f" {mark()}")
    return "".join(parts).strip()


def _indent(gap: str) -> str:
    """The indentation a unit's line opens with in the source (what follows the last line
    break of the gap before it), kept after a gap mark: a line of Python shown at the left
    margin reads as another block ("        else:" shown as "else:")."""
    at = gap.rfind("\n")
    tail = gap[at + 1:] if at >= 0 else ""
    return tail if not tail.strip(" \t") else ""


def render_messages(cols: Columns, plan: Plan, inputs: Any, count: Callable[[str], int],
                    cache: RenderCache | None = None, recall: bool = False,
                    shared: SharedCounts | None = None) -> tuple[list[dict[str, Any]], list[int], list[int]]:
    """Compacted messages, the input index of each, and the tokens of each (``count`` of
    its rendered text fields, tool-call names and arguments; no framing). Output messages
    are copies of ``inputs`` (this call's messages) with their text replaced. ``recall``:
    the first mark of a message that lost text names it (``…#12``). A message's count is
    kept with its rendering: a view's plans re-count only the messages they render anew.
    ``shared``: the counts shared between workers (:mod:`.shared_counts`), read for what is
    rendered anew and told what every rendering counted."""
    owner_of = cols.pairs.owner
    orphans = cols.pairs.orphans
    decision = plan.decision
    shown = (decision == KEPT) | (decision == CLIPPED)
    # (the messages of the few hundred shown units, as a set: a count over every message
    # of a 200,000-message history was a fraction of a millisecond each render)
    any_shown = set(cols.u_msg.view[shown].tolist())
    # (read a message at a time, a thousand times a render of a long history's view: its
    # units' decisions as bytes sliced from one copy, its bounds as Python numbers)
    starts = memoryview(cols.msg_start.view.astype(np.int64, copy=False))
    decided = decision.tobytes() if decision.dtype.itemsize == 1 else None
    out: list[dict[str, Any]] = []
    sources: list[int] = []
    counted: list[int] = []
    heads = plan.heads
    # Only messages that can show anything: protected, with a shown unit, with their calls
    # kept, or a result of a kept call (a view of a long history shows few of its messages).
    results = cols.pairs.results
    candidates = any_shown | set(plan.protected) | set(plan.calls_present)
    candidates.update(r for a in plan.calls_present for r in results.get(a, ()))
    messages = cols.messages
    for i in sorted(candidates):
        m = messages[i]
        if i in plan.protected:
            out.append(copy.copy(dict(inputs[i])))
            sources.append(i)
            counted.append(int(cols.msg_cost.view[i]))
            continue
        owner = owner_of.get(i)
        is_result = owner is not None
        if i in orphans or (is_result and owner not in plan.calls_present) or (m.role == "tool" and not is_result):
            continue
        calls_kept = i in plan.calls_present
        if i not in any_shown and not calls_kept and not is_result:
            continue
        s, e = starts[i], starts[i + 1]
        my_heads = tuple((k, h) for k, h in heads.items() if s <= k < e) if heads else ()
        # The speaker is in the key: whether a label counts as one can change as the conversation grows.
        key = (i, decided[s:e] if decided is not None else decision[s:e].tobytes(), calls_kept, is_result, my_heads,
               recall, cols.speaker(i))
        hit = cache.get(key) if cache is not None else None
        if hit is not None:
            if shared is not None:
                shared.used.update(hit[2])
            if hit[0] is not None:
                out.append(dict(hit[0]))
                sources.append(i)
                counted.append(hit[1])
            continue
        new, texts = _render_message(cols, m, inputs[i], decision[s:e].tolist(), s, dict(my_heads), calls_kept,
                                     is_result, f"#{i}" if recall else "")
        if shared is None:
            tokens, pairs = sum(count(t) for t in texts), ()
        else:  # (a message's own texts are counted with their analyses: the rest are shared)
            tokens, pairs = shared.rendered(texts, lambda: _own_texts(m), count)
        if cache is not None:
            cache.put(key, new, tokens, pairs)
        if new is not None:
            out.append(dict(new))
            sources.append(i)
            counted.append(tokens)
    return out, sources, counted


def _own_texts(m: Any) -> set[str]:
    """A message's own texts: its fields', its calls' names and arguments."""
    return {tf.text for tf in m.texts} | {t for c in m.tool_calls for t in (c.name, c.arguments)}


def _render_message(cols: Columns, m: Any, raw: Any, decisions: list[int], s: int, heads: dict[int, int],
                    calls_kept: bool, is_result: bool, ref: str) -> tuple[dict[str, Any] | None, list[str]]:
    # (each field's units are built only where its rendering looks at them: the shown ones,
    # and an omitted one's gap or label where it matters)
    by_field: dict[str, tuple[Sequence[Unit], list[int], dict[int, int]]] = {}
    at = s
    for name, units in cols.units.by_field(s, s + len(decisions)):
        first, at = at, at + len(units)
        if not units or (units.kind(0) if hasattr(units, "kind") else units[0].kind) == "tool_call":
            continue
        hs = {k - first: h for k, h in heads.items() if first <= k < at}
        ds = decisions[first - s:at - s]
        if name in by_field:  # (a field in two runs: one list)
            us0, ds0, hs0 = by_field[name]
            hs0.update((len(us0) + j, h) for j, h in hs.items())
            units, ds, hs = [*us0, *units], ds0 + ds, hs0
        by_field[name] = (units, ds, hs)
    rendered = {}
    for tf in m.texts:
        text = render_field(tf.text, *by_field.get(tf.field, ([], [], {})), ref=ref, speaker=cols.speaker(m.index))
        if ref and PLACEHOLDER + ref in text:
            ref = ""  # one reference per message
        rendered[tf.field] = text
    has_text = any(rendered.values())
    if not has_text and not calls_kept and not is_result:
        return None, []
    new = dict(raw)
    content = raw.get("content")
    if isinstance(content, str):
        new["content"] = rendered["content"] or (PLACEHOLDER + ref if is_result else "")
    elif isinstance(content, list):
        parts = []
        for p, part in enumerate(content):
            field = f"content.{p}"
            if field not in rendered:
                parts.append(part)
            elif rendered[field]:
                parts.append(rendered[field] if isinstance(part, str) else {**part, "text": rendered[field]})
        if not parts and is_result:
            parts = [{"type": "text", "text": PLACEHOLDER + ref}]
        new["content"] = parts
    elif is_result:
        new["content"] = PLACEHOLDER + ref
    if not calls_kept:
        new.pop("tool_calls", None)
        if new.get("content") is None:
            new["content"] = ""
    texts = list(rendered.values())
    if is_result and not has_text:
        texts = [PLACEHOLDER + ref]  # a result left out names itself, for recall
    if calls_kept:
        texts += [t for c in m.tool_calls for t in (c.name, c.arguments)]
    return new, texts

"""``compact``: messages in, a curated view and its report out."""

from __future__ import annotations

import copy
import threading
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Sequence

from .errors import BudgetTooSmallError
from .keys import content_key
from .messages import Message, validate_messages
from .policy import (
    CLIPPED, DEDUPLICATED, KEPT, OMITTED, PLACEHOLDER, Plan, Settings, decide, protected_messages,
    tool_groups,
)
from .render import render_messages, render_note
from .report import Report, UnitReport
from .tokens import TokenCounter, TokenCounterLike, get_token_counter
from .units import Analyzer, Unit

__all__ = ["Compaction", "Compactor", "compact"]

# Literal kinds, most worth keeping in a cut record first.
_KIND_RANK = {
    "identifier": 0, "email": 0, "url": 0, "path": 0, "amount": 0, "datetime": 0, "date": 0,
    "version": 0, "time": 1, "percent": 1, "quoted": 1, "name": 1, "number": 2,
}


@dataclass(frozen=True)
class Compaction:
    """The result of a compaction: what the model sees, and what was left out."""

    messages: list[dict[str, Any]]
    """The compacted messages, in the input's format."""
    sources: tuple[int | None, ...]
    """For each output message, the index of its input message (None: the record note)."""
    tokens_before: int
    tokens_after: int
    budget: int
    note: str | None
    """The record note exactly as the model receives it (None if nothing was compacted)."""
    _build_report: Callable[[], Report] = field(repr=False, compare=False)

    @cached_property
    def report(self) -> Report:
        """Per-unit decisions, the record and what was dropped (built on first access)."""
        return self._build_report()

    def to_dict(self) -> dict[str, Any]:
        return {
            "messages": self.messages,
            "sources": list(self.sources),
            "report": self.report.to_dict(),
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "budget": self.budget,
        }

    def to_html(self, original: Sequence[Any] | None = None) -> str:
        """A self-contained HTML page showing this compaction (see :mod:`.inspect`)."""
        from .inspect import render_html

        return render_html(self, original)


class Compactor:
    """Holds what compaction caches (pipeline, token counter, analysed texts).

    Safe to share between threads: the caches are locked, the policy is pure.
    """

    def __init__(self, token_counter: TokenCounterLike | None = None, *,
                 pipeline: str | None = None, clip_tokens: int = 12) -> None:
        self.counter: TokenCounter = get_token_counter(token_counter)
        self.analyzer = Analyzer(self.counter, pipeline=pipeline, clip_tokens=clip_tokens)
        # The last conversation's units by message, to reuse for a conversation that
        # starts the same way (an agent loop sends its history again plus one message).
        self._prefix: tuple[list[tuple[Any, ...]], list[list[Unit]]] = ([], [])
        self._prefix_lock = threading.Lock()

    def _units(self, msgs: list[Message]) -> list[list[Unit]]:
        prints = [_fingerprint(m) for m in msgs]
        with self._prefix_lock:
            old_prints, old_units = self._prefix
        k = 0
        limit = min(len(prints), len(old_prints))
        while k < limit and prints[k] == old_prints[k]:
            k += 1
        units = self.analyzer.units(msgs, old_units[:k])
        with self._prefix_lock:
            self._prefix = (prints, list(units))
        return units

    def compact(self, messages: Any, budget: int, settings: Settings = Settings()) -> Compaction:
        if isinstance(budget, bool) or not isinstance(budget, int):
            raise TypeError(f"budget must be an int number of tokens; got {type(budget).__name__}")
        if budget < 0:
            raise ValueError(f"budget must be >= 0 tokens; got {budget}")
        if settings.note_role not in ("system", "user", "developer"):
            raise ValueError(f"note_role must be 'system', 'user' or 'developer'; got {settings.note_role!r}")
        msgs = validate_messages(messages)
        units = self._units(msgs)
        count = self.counter.count
        costs = [
            sum(count(tf.text) for tf in m.texts) + sum(count(c.name) + count(c.arguments) for c in m.tool_calls)
            for m in msgs
        ]
        before = sum(costs)
        results, orphans, unanswered = tool_groups(msgs)
        protected = protected_messages(msgs, settings)
        well_formed = not orphans and not (unanswered - protected)
        if before <= budget and well_formed:
            return _unchanged(msgs, units, before, budget)

        tag = content_key("\x00".join(u.key for us in units for u in us))[:8]
        frame = count(render_note(tag, 99999, 99999, 99999, [], 999999))
        fixed = sum(costs[i] for i in protected) + frame
        # Calls whose results are protected are shown too, with placeholders for other results.
        for a, rs in results.items():
            if a not in protected and any(r in protected for r in rs):
                fixed += costs[a] + sum(count(PLACEHOLDER) for r in rs if r not in protected)
        if fixed > budget:
            raise BudgetTooSmallError(budget, fixed)
        literal_cost: dict[str, int] = {}
        for us in units:
            for u in us:
                for lit in u.literals:
                    if lit.text not in literal_cost:
                        literal_cost[lit.text] = count(lit.text) + 1
        margin = max(2, budget // 200)
        plan = decide(msgs, units, budget - margin, fixed, literal_cost, settings)
        while True:
            out, sources, counted = render_messages(msgs, units, plan, results, orphans)
            text_cost = sum(count(t) for ts in counted for t in ts)
            note = _fit_note(msgs, units, plan, tag, budget - text_cost, count, literal_cost, results)
            if note is not None:
                break
            if not _undo_last(plan, units, results):
                raise BudgetTooSmallError(budget, text_cost + frame)
        note_text, record, dropped = note
        position = 0
        while position < len(out) and out[position].get("role") in ("system", "developer") \
                and sources[position] in plan.protected:
            position += 1
        out.insert(position, {"role": settings.note_role, "content": note_text})
        sources.insert(position, None)
        after = text_cost + count(note_text)
        return Compaction(out, tuple(sources), before, after, budget, note_text,
                          lambda: _report(msgs, units, plan, record, dropped, note_text, orphans, results))


def _fingerprint(m: Message) -> tuple[Any, ...]:
    return (m.role, m.tool_call_id, tuple(tf.text for tf in m.texts),
            tuple((c.id, c.name, c.arguments) for c in m.tool_calls))


def _present_literals(units: list[list[Unit]], plan: Plan) -> set[str]:
    shown: set[str] = set()
    for us in units:
        for u in us:
            d = plan.decision[u.id]
            if d == KEPT:
                shown.update(lit.text for lit in u.literals)
            elif d == CLIPPED:
                shown.update(lit.text for lit in u.literals if lit.end <= u.head_end)
    return shown


def _fit_note(msgs: list[Message], units: list[list[Unit]], plan: Plan, tag: str, room: int,
              count: Any, literal_cost: dict[str, int], results: dict[int, list[int]]
              ) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
    """The largest record that fits ``room`` tokens, or None if even its frame does not."""
    shown = _present_literals(units, plan)
    order: dict[str, tuple[int, int, int]] = {}  # text -> (first message, last message, kind rank)
    for us in units:
        for u in us:
            for lit in u.literals:
                if lit.text in shown:
                    continue
                first = order.get(lit.text)
                rank = _KIND_RANK.get(lit.kind, 1)
                if first is None:
                    order[lit.text] = (u.message, u.message, rank)
                else:
                    order[lit.text] = (first[0], u.message, min(rank, first[2]))
    counts = {OMITTED: 0, CLIPPED: 0, DEDUPLICATED: 0}
    for us in units:
        for u in us:
            d = plan.decision[u.id]
            if d in counts:
                counts[d] += 1
    chronological = sorted(order, key=lambda t: (order[t][0], t))
    priority = sorted(order, key=lambda t: (order[t][2], -order[t][1], t))

    def note_for(k: int) -> str:
        keep = set(priority[:k])
        lits = [t for t in chronological if t in keep]
        return render_note(tag, counts[OMITTED], counts[CLIPPED], counts[DEDUPLICATED], lits, len(order) - k)

    full = note_for(len(order))
    if count(full) <= room:
        return full, tuple(chronological), ()
    if count(note_for(0)) > room:
        return None
    # Estimate k from per-literal costs, then correct with exact counts.
    lo, hi = 0, len(order)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(note_for(mid)) <= room:
            lo = mid
        else:
            hi = mid - 1
    keep = set(priority[:lo])
    record = tuple(t for t in chronological if t in keep)
    dropped = tuple(t for t in chronological if t not in keep)
    return note_for(lo), record, dropped


def _undo_last(plan: Plan, units: list[list[Unit]], results: dict[int, list[int]]) -> bool:
    if not plan.accepted:
        return False
    kind, key, prev = plan.accepted.pop()
    if kind == "calls":
        a = int(key)
        plan.calls_present.discard(a)
        for u in units[a]:
            if u.kind == "tool_call":
                plan.decision[u.id] = OMITTED
        for r in results.get(a, []):
            for u in units[r]:
                if plan.decision[u.id] in (KEPT, CLIPPED):
                    plan.decision[u.id] = OMITTED
    else:
        plan.decision[key] = prev
    return True


def _unchanged(msgs: list[Message], units: list[list[Unit]], before: int, budget: int) -> Compaction:
    reports = lambda: tuple(
        UnitReport(u.id, u.kind, u.message, u.field, u.start, u.end, KEPT, u.tokens, u.tokens,
                   tuple(lit.text for lit in u.literals), (), ())
        for us in units for u in us
    )
    return Compaction([copy.copy(dict(m.raw)) for m in msgs], tuple(range(len(msgs))),
                      before, before, budget, None, lambda: Report(reports(), (), (), None, (), ()))


def _report(msgs: list[Message], units: list[list[Unit]], plan: Plan, record: tuple[str, ...],
            dropped: tuple[str, ...], note: str, orphans: set[int],
            results: dict[int, list[int]]) -> Report:
    shown = _present_literals(units, plan)
    recorded = set(record)
    out = []
    for us in units:
        for u in us:
            d = plan.decision[u.id]
            after = u.tokens if d == KEPT else u.clip_tokens if d == CLIPPED else 0
            kept = tuple(lit.text for lit in u.literals if lit.text in shown)
            rec = tuple(lit.text for lit in u.literals if lit.text not in shown and lit.text in recorded)
            drop = tuple(lit.text for lit in u.literals if lit.text not in shown and lit.text not in recorded)
            out.append(UnitReport(u.id, u.kind, u.message, u.field, u.start, u.end, d, u.tokens,
                                  after, kept, rec, drop, plan.duplicate_of.get(u.id),
                                  u.message in plan.protected,
                                  u.head_end if d == CLIPPED else None))
    return Report(tuple(out), record, dropped, note, tuple(sorted(plan.dropped_messages)),
                  tuple(sorted(orphans)))


_COMPACTORS: dict[tuple[Any, ...], Compactor] = {}
_LOCK = threading.Lock()


def _compactor(token_counter: TokenCounterLike | None, pipeline: str | None, clip_tokens: int) -> Compactor:
    if token_counter is None or isinstance(token_counter, str):
        key = (token_counter or "cl100k_base", pipeline, clip_tokens)
        with _LOCK:
            c = _COMPACTORS.get(key)
            if c is None:
                c = _COMPACTORS[key] = Compactor(token_counter, pipeline=pipeline, clip_tokens=clip_tokens)
            return c
    return Compactor(token_counter, pipeline=pipeline, clip_tokens=clip_tokens)


def compact(
    messages: Sequence[Any],
    budget: int,
    *,
    token_counter: TokenCounterLike | None = None,
    keep_system: bool = True,
    keep_last_turn: bool = True,
    note_role: str = "system",
    pipeline: str | None = None,
    clip_tokens: int = 12,
) -> Compaction:
    """Compact OpenAI-style chat ``messages`` to at most ``budget`` tokens.

    Args:
        messages: dicts with ``role``, ``content`` (str, None, or a list of parts),
            and optionally ``tool_calls``, ``tool_call_id``, ``name``; other keys are
            copied to the output unchanged.
        budget: the most tokens the output may hold: message text, tool-call names
            and arguments, and the record note.
        token_counter: a tiktoken encoding name (default ``"cl100k_base"``, offline),
            a ``callable(str) -> int``, or a :class:`~discourse_memory.TokenCounter`.
        keep_system: keep system/developer messages verbatim.
        keep_last_turn: keep the last user message and everything after it verbatim.
        note_role: role of the record note message.
        pipeline: spaCy pipeline: ``"blank:en"`` (default) or an installed model name
            such as ``"en_core_web_sm"`` (adds its statistical entities).
        clip_tokens: how many tokens a clipped unit keeps (twice that for code and tables).

    Returns:
        A :class:`Compaction`; when the input already fits, its messages are copies of
        the input and there is no note.

    Raises:
        BudgetTooSmallError: the protected messages and the note's frame do not fit;
            ``.minimum`` says how many tokens they need.
        InvalidMessageError: a message is malformed (the error names it).
    """
    settings = Settings(keep_system=keep_system, keep_last_turn=keep_last_turn,
                        clip_tokens=clip_tokens, note_role=note_role)
    return _compactor(token_counter, pipeline, clip_tokens).compact(messages, budget, settings)

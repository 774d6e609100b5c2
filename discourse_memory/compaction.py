"""``compact``: messages in, a curated view and its report out."""

from __future__ import annotations

import copy
import threading

import numpy as np
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Sequence

from .errors import BudgetTooSmallError
from .gc_pause import gc_paused, is_bulk
from .keys import content_key, digest
from .messages import Message, validate_messages
from .columns import Columns
from .policy import (
    CLIPPED, DECISION_NAMES, DEDUPLICATED, KEPT, OMITTED, PLACEHOLDER, RECORD_SHARE, Plan, Settings, decide,
    protected_messages, relax_steps, top_up, undo_last,
)
from .render import render_messages, render_note
from .report import Report, UnitReport
from .tokens import TokenCounter, TokenCounterLike, get_token_counter, head_of
from .units import Analyzer, Unit, reclipped

__all__ = ["Compaction", "Compactor", "compact"]

# Room left after the note worth a top-up or longer heads of clipped units: at least
# this many tokens and this share of the budget (less is not worth a second render and
# count on every view); how many units get a longer head; how many renders a top-up
# may take before it is given up.
LENGTHEN_MIN_TOKENS = 16
LENGTHEN_MIN_SHARE = 0.02
LENGTHEN_MAX_UNITS = 8
TOP_UP_TRIES = 4



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
    _inputs: Sequence[Any] = field(repr=False, compare=False, default=())

    @property
    def inputs(self) -> list[Any]:
        """Copies of the messages this compaction was made from (editing them changes
        nothing else)."""
        return [json_copy(m) for m in self._inputs]

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
        """A self-contained HTML page showing this compaction (see :mod:`.inspect`).

        ``original`` defaults to the messages the compaction was made from."""
        from .inspect import render_html

        return render_html(self, original if original is not None else self._inputs)


class Compactor:
    """Holds what compaction caches (pipeline, token counter, analysed texts, and the
    columns of the last conversation, which a longer version of it extends).

    Safe to share between threads: compactions through one compactor are serialised.
    """

    def __init__(self, token_counter: TokenCounterLike | None = None, *,
                 pipeline: str | None = None, clip_tokens: int = 12) -> None:
        self.counter: TokenCounter = get_token_counter(token_counter)
        self.analyzer = Analyzer(self.counter, pipeline=pipeline, clip_tokens=clip_tokens)
        self._lock = threading.RLock()
        self._raw: list[tuple[Any, ...]] = []
        self._prints: list[tuple[Any, ...]] = []
        self._cols = Columns(self.counter.count)
        self._tags: list[str] = []

    def __deepcopy__(self, memo: dict[int, Any]) -> "Compactor":
        return self  # caches only: sharing them is safe

    def _columns(self, messages: Any, owned: bool = False) -> tuple[Columns, str]:
        """Columns for ``messages``, extending the last conversation's when it is a prefix.

        ``owned``: the messages are never edited in place (a ``DiscourseMemory``'s own
        copies), so the same object is the same message."""
        if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
            validate_messages(messages)  # raises the right error
        # Same dict objects with the same content: no need to validate again.
        k = 0
        limit = min(len(messages), len(self._raw))
        raw = self._raw
        if owned:
            while k < limit and messages[k] is raw[k][0]:
                k += 1
        else:
            while k < limit and _same_object(messages[k], raw[k]):
                k += 1
        fresh = validate_messages(messages[k:], start=k)
        prints = self._prints[:k] + [_fingerprint(m) for m in fresh]
        j = 0
        limit = min(len(prints), len(self._prints))
        while j < limit and prints[j] == self._prints[j]:
            j += 1
        cols = self._cols
        if j < len(cols):
            # Not an extension of the last conversation: start over.
            cols = Columns(self.counter.count)
            self._tags = []
            j = 0
        msgs = cols.messages[:j] + [m for m in fresh if m.index >= j]
        if len(msgs) < len(messages):  # messages j..k-1 were reused objects, not revalidated
            msgs = cols.messages[:j] + validate_messages(messages[j:], start=j)
        new = msgs[j:]
        with gc_paused(is_bulk([tf.text for m in new for tf in m.texts])):
            keys = cols.extend(new, self.analyzer.fields(new))
        tag = self._tags[-1] if self._tags else ""
        for ks in keys:
            # Hex keys joined by NULs: normalising them (content_key) would change nothing.
            tag = digest(tag + "\x00".join(ks))
            self._tags.append(tag)
        self._cols = cols
        if owned:
            # Only identities are compared next time; a later call that is not owned
            # sees these short entries as different and validates again.
            self._raw = raw[:k] + [(m,) for m in messages[k:]] if k == len(raw) else [(m,) for m in messages]
        else:
            # The first k were just checked to be the same objects with the same parts.
            self._raw = raw[:k] + [_identity(m) for m in messages[k:]]
        self._prints = prints
        return cols, (self._tags[-1] if self._tags else content_key(""))[:8]

    def compact(self, messages: Any, budget: int, settings: Settings = Settings(), *,
                _owned: bool = False) -> Compaction:
        if isinstance(budget, bool) or not isinstance(budget, int):
            raise TypeError(f"budget must be an int number of tokens; got {type(budget).__name__}")
        if budget < 0:
            raise ValueError(f"budget must be >= 0 tokens; got {budget}")
        if settings.note_role not in ("system", "user", "developer"):
            raise ValueError(f"note_role must be 'system', 'user' or 'developer'; got {settings.note_role!r}")
        with self._lock:
            cols, tag = self._columns(messages, _owned)
            steps = relax_steps(settings)
            for step in steps:
                try:
                    return self._compact(cols, tag, messages, budget, step)
                except BudgetTooSmallError as exc:
                    if step is steps[-1]:
                        raise
                    error = exc
            raise error  # pragma: no cover  (the loop returns or raises)

    def _compact(self, cols: Columns, tag: str, messages: Any, budget: int,
                 settings: Settings) -> Compaction:
        msgs = list(cols.messages)
        units: Sequence[Unit] = cols.units
        count = self.counter.count
        costs = cols.msg_cost.view
        before = int(costs.sum())
        results, orphans, unanswered = cols.tool_groups()
        protected = protected_messages(msgs, settings)
        well_formed = not orphans and not (unanswered - protected)
        if before <= budget and well_formed:
            return _unchanged(msgs, units, before, budget, messages)

        frame = count(render_note(tag, 99999, 99999, 99999, [], 999999))
        fixed = int(sum(int(costs[i]) for i in protected)) + frame
        # Calls whose results are protected are shown too, with placeholders for other results.
        for a, rs in results.items():
            if a not in protected and any(r in protected for r in rs):
                fixed += int(costs[a]) + sum(count(PLACEHOLDER) for r in rs if r not in protected)
        if fixed > budget:
            raise BudgetTooSmallError(budget, fixed, settings.protection)
        margin = max(2, budget // 200)
        plan = decide(cols, budget - margin, fixed, settings, protected, results, orphans, unanswered)
        while True:
            (out, sources, counted), text_cost = self._render(cols, plan, results, orphans, messages)
            note = _fit_note(cols, plan, tag, budget - text_cost, count)
            if note is not None:
                break
            if not undo_last(plan, cols, results):
                raise BudgetTooSmallError(budget, text_cost + frame, settings.protection)
        # The plan estimated the record; the rendered one may still leave room (at least
        # the longer heads' threshold): more options at full cost, the last ones given up
        # if token seams overflow (all of them after a few tries).
        unused = budget - text_cost - count(note[0]) - margin
        enough = max(LENGTHEN_MIN_TOKENS, int(LENGTHEN_MIN_SHARE * budget))
        if unused >= enough and not note[2]:
            added = top_up(plan, cols, results, unused)
            for _ in range(TOP_UP_TRIES):
                if not added:
                    break
                rendered, cost = self._render(cols, plan, results, orphans, messages)
                refit = _fit_note(cols, plan, tag, budget - cost, count)
                if refit is not None and not refit[2]:
                    (out, sources, counted), text_cost, note = rendered, cost, refit
                    added = 0
                    break
                undo_last(plan, cols, results)
                added -= 1
            for _ in range(added):
                undo_last(plan, cols, results)
        # The note fills the room the text left. Up to the record's share of the budget
        # (policy step 4) that room is the record's; past it, clipped units get it first.
        longer: dict[int, Unit] = {}
        record_room = frame + int(RECORD_SHARE * (budget - fixed))
        room = budget - min(count(note[0]), record_room)
        if room - text_cost >= enough and bool((plan.decision == CLIPPED).any()):
            saved = plan.decision.copy()
            rendered, longer_cost, longer = self._lengthen_clips(
                cols, plan, results, orphans, messages, room, text_cost, (out, sources, counted))
            refit = _fit_note(cols, plan, tag, budget - longer_cost, count) if longer_cost != text_cost else None
            if refit is not None:
                (out, sources, counted), text_cost, note = rendered, longer_cost, refit
            else:
                plan.decision[:] = saved
                longer = {}
        if longer:
            units = cols.units.replaced(longer)
        note_text, record, dropped = note
        position = 0
        while position < len(out) and out[position].get("role") in ("system", "developer") \
                and sources[position] in plan.protected:
            position += 1
        out.insert(position, {"role": settings.note_role, "content": note_text})
        sources.insert(position, None)
        after = text_cost + count(note_text)
        shown = set(sources)
        dropped_messages = tuple(i for i in range(len(msgs)) if i not in shown and i not in orphans)
        decision = plan.decision.copy()
        winner = plan.winner
        return Compaction(out, tuple(sources), before, after, budget, note_text,
                          lambda: _report(units, decision, winner, plan.protected, record, dropped,
                                          note_text, orphans, dropped_messages, settings.protection),
                          messages)


    def _render(self, cols: Columns, plan: Plan, results: dict[int, list[int]], orphans: set[int],
                messages: Any, longer: dict[int, Unit] | None = None,
                ) -> tuple[tuple[list[dict[str, Any]], list[int], list[list[str]]], int]:
        """The plan rendered (see :func:`render_messages`), and the exact tokens of its texts."""
        rendered = render_messages(cols, plan, results, orphans, messages, longer)
        return rendered, sum(self.counter.count(t) for ts in rendered[2] for t in ts)

    def _lengthen_clips(self, cols: Columns, plan: Plan, results: dict[int, list[int]], orphans: set[int],
                        messages: Any, room: int, text_cost: int,
                        rendered: tuple[list[dict[str, Any]], list[int], list[list[str]]],
                        ) -> tuple[tuple[list[dict[str, Any]], list[int], list[list[str]]], int, dict[int, Unit]]:
        """Spend what the budget has left after the note on longer heads for clipped
        units, newest message first: otherwise a huge unit (a 1 MB log line, a minified
        JSON result) shows its first dozen tokens however much room is left. Heads are
        sized from the units' own token counts, then the view is rendered and counted
        once; while it does not fit, the last longer head is given up. Literals a longer
        head shows may also stay in the record."""
        count = self.counter.count
        decision = plan.decision
        clipped = np.flatnonzero(decision == CLIPPED)
        order = clipped[np.argsort(-cols.u_msg.view[clipped], kind="stable")]
        longer: dict[int, Unit] = {}
        taken: list[int] = []
        estimate = text_cost
        for k in order[:LENGTHEN_MAX_UNITS].tolist():
            spare = room - estimate
            if spare < LENGTHEN_MIN_TOKENS:
                break
            unit = cols.units[k]
            head = head_of(self.counter, unit.text, count(unit.text[:unit.head_end]) + spare - 4)  # 4: the mark, seams
            if head <= unit.head_end:
                continue
            if head >= len(unit.text):
                decision[k] = KEPT
                estimate += unit.tokens - unit.clip_tokens
            else:
                longer[k] = reclipped(unit, head, count)
                estimate += longer[k].clip_tokens - unit.clip_tokens
            taken.append(k)
        while taken:
            out, cost = self._render(cols, plan, results, orphans, messages, longer)
            if cost <= room:
                return out, cost, longer
            k = taken.pop()  # token seams made the estimate short: give up the last one
            decision[k] = CLIPPED
            longer.pop(k, None)
        return rendered, text_cost, longer


def json_copy(value: Any) -> Any:
    """A copy of JSON-like data: dicts and lists copied all the way down (faster than
    ``copy.deepcopy``); other values shared."""
    if isinstance(value, dict):
        return {k: json_copy(v) for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) for v in value]
    return value


def _identity(message: Any) -> tuple[Any, ...]:
    """A message and what it is made of, down to its texts: a message edited in place
    (a part's text or a call's arguments replaced) no longer matches. Holding this tuple
    keeps the objects alive, so an identity check cannot be fooled by a reused id."""
    if not isinstance(message, dict):
        return (None,)
    content = message.get("content")
    calls = message.get("tool_calls")
    if isinstance(content, list):
        content = tuple(p.get("text") if isinstance(p, dict) else p for p in content)
    if isinstance(calls, list):
        calls = tuple(
            (c.get("id"), c["function"].get("name"), c["function"].get("arguments"))
            if isinstance(c, dict) and isinstance(c.get("function"), dict) else c
            for c in calls
        )
    return (message, message.get("role"), content, calls, message.get("tool_call_id"))


def _same_object(message: Any, old: tuple[Any, ...]) -> bool:
    # Strings compare by identity first, so an unchanged message costs a few pointer checks.
    return message is old[0] and _identity(message)[1:] == old[1:]


def _fingerprint(m: Message) -> tuple[Any, ...]:
    # Field names too: "x" as a string and as the text part of a list are different
    # messages to render, though their units are the same.
    return (m.role, m.tool_call_id, tuple((tf.field, tf.text) for tf in m.texts),
            tuple((c.id, c.name, c.arguments) for c in m.tool_calls))


def _shown_literals(cols: Columns, decision: np.ndarray) -> np.ndarray:
    return cols.literal_counts(decision == KEPT, head_mask=decision == CLIPPED) > 0


def _fit_note(cols: Columns, plan: Plan, tag: str, room: int, count: Any
              ) -> tuple[str, tuple[str, ...], tuple[str, ...]] | None:
    """The largest record that fits ``room`` tokens, or None if even its frame does not."""
    decision = plan.decision
    missing = np.flatnonzero(~_shown_literals(cols, decision))  # in order of first appearance
    n_dec = np.bincount(decision, minlength=4)
    texts = cols.lit_text

    def note_for(ids: np.ndarray) -> str:
        return render_note(tag, int(n_dec[OMITTED]), int(n_dec[CLIPPED]), int(n_dec[DEDUPLICATED]),
                           [texts[i] for i in ids.tolist()], len(missing) - len(ids))

    frame = count(note_for(missing[:0]))
    if frame > room:
        return None
    estimate = frame + float(cols.lit_cost.view[missing].sum())
    if estimate <= room * 1.1:  # otherwise it cannot fit: skip counting a long note
        full = note_for(missing)
        if count(full) <= room:
            return full, tuple(texts[i] for i in missing.tolist()), ()
    # Keep the most specific kinds and the most recently stated literals first. Estimate
    # how many fit from each literal's own tokens, then correct with exact counts.
    priority = missing[np.lexsort((missing, -cols.lit_last_msg.view[missing], cols.lit_rank.view[missing]))]
    running = np.cumsum(cols.lit_cost.view[priority])
    # Literals cost a little more inside the note than alone (separators merge
    # differently): aim 6% low so that the first exact count usually fits.
    k = int(np.searchsorted(running, (room - frame) * 0.94, side="right"))
    while k > 0:
        n = count(note_for(np.sort(priority[:k])))
        if n <= room:
            break
        # Drop at least enough literals to cover the excess, by their own token counts.
        k = min(k - 1, int(np.searchsorted(running, running[k - 1] - (n - room), side="right")))
    keep = np.sort(priority[:k])
    kept = set(keep.tolist())
    record = tuple(texts[i] for i in keep.tolist())
    dropped = tuple(texts[i] for i in missing.tolist() if i not in kept)
    return note_for(keep), record, dropped


def _unchanged(msgs: list[Message], units: Sequence[Unit], before: int, budget: int,
               inputs: Any) -> Compaction:
    def report() -> Report:
        reports = tuple(
            UnitReport(u.id, u.kind, u.message, u.field, u.start, u.end, "kept", u.tokens, u.tokens,
                       tuple(u.literal_texts), (), ())
            for u in units
        )
        return Report(reports, (), (), None, (), (), "everything (nothing compacted)")

    return Compaction([copy.copy(dict(m)) for m in inputs], tuple(range(len(msgs))),
                      before, before, budget, None, report, inputs)


def _report(units: Sequence[Unit], decision: np.ndarray, winner: np.ndarray, protected: frozenset[int],
            record: tuple[str, ...], dropped: tuple[str, ...], note: str, orphans: set[int],
            dropped_messages: tuple[int, ...], protection: str) -> Report:
    units = list(units)  # built once: read twice below
    recorded = set(record)
    shown: set[str] = set()
    for u, d in zip(units, decision.tolist()):
        if d == KEPT:
            shown.update(u.literal_texts)
        elif d == CLIPPED:
            shown.update(u.head_literal_texts)
    out = []
    for i, (u, d) in enumerate(zip(units, decision.tolist())):
        after = u.tokens if d == KEPT else u.clip_tokens if d == CLIPPED else 0
        lits = u.literal_texts
        kept = tuple(t for t in lits if t in shown)
        rec = tuple(t for t in lits if t not in shown and t in recorded)
        drop = tuple(t for t in lits if t not in shown and t not in recorded)
        w = int(winner[i])
        out.append(UnitReport(u.id, u.kind, u.message, u.field, u.start, u.end, DECISION_NAMES[d],
                              u.tokens, after, kept, rec, drop,
                              units[w].id if d == DEDUPLICATED else None,
                              u.message in protected,
                              u.head_end if d == CLIPPED else None))
    return Report(tuple(out), record, dropped, note, dropped_messages, tuple(sorted(orphans)), protection)


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
    relax: bool = False,
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
        relax: when the protected messages do not fit, protect less instead of raising:
            first only the newest message, then not the system messages either, then
            nothing (``report.protection`` says what was protected). For agent loops
            that must never stop on a long prompt.

    Returns:
        A :class:`Compaction`; when the input already fits, its messages are copies of
        the input and there is no note.

    Raises:
        BudgetTooSmallError: the protected messages and the note's frame do not fit;
            ``.minimum`` says how many tokens they need (never with ``relax=True``
            unless even the record's frame does not fit).
        InvalidMessageError: a message is malformed (the error names it).
    """
    settings = Settings(keep_system=keep_system, keep_last_turn=keep_last_turn,
                        clip_tokens=clip_tokens, note_role=note_role, relax=relax)
    return _compactor(token_counter, pipeline, clip_tokens).compact(messages, budget, settings)

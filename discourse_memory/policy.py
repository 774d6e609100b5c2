"""The compaction policy: decide, for each unit, what the model sees.

Pure: takes units and their token costs, returns a :class:`Plan`; rendering is
:mod:`.render`'s job. Under pressure, in this order:

1. **Protect** system messages and the newest turn (the last user message and
   everything after it): kept verbatim.
2. **Deduplicate**: a unit of at least ``dedup_min_tokens`` tokens whose exact
   text (normalised whitespace) appears again in a newer message is dropped;
   the newest copy wins.
3. **Clip and omit**: every other unit starts omitted, its literals in the
   record. Units are then brought back, best value per token first: a clip
   (the unit's head and a ``…`` mark) is worth a unit's opening, a full unit
   is worth the rest; newer messages weigh up to twice as much as the oldest;
   a unit whose literals would otherwise be in the record costs less by what
   the record saves. An assistant's tool calls come back together with (at
   least a placeholder for) every one of their results, and a result's text only
   when its call is back.
4. **Record**: what is still not shown contributes its literals to the record.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field

from .messages import SYSTEM_ROLES, Message
from .units import Unit

__all__ = ["Plan", "Settings", "decide", "protected_messages", "tool_groups"]

OMITTED, CLIPPED, KEPT, DEDUPLICATED = "omitted", "clipped", "kept", "deduplicated"
_KIND_WEIGHT = {"heading": 1.5, "tool_call": 3.0, "field": 1.2, "table_row": 1.1}
PLACEHOLDER = "…"
# Value of showing a unit's opening, against one content word or literal it states.
OPENING = float(__import__("os").environ.get("DM_OPENING", "1.0"))
RECENCY = float(__import__("os").environ.get("DM_RECENCY", "1.0"))
# The most of the compactable budget the record may take before it is cut.
RECORD_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class Settings:
    keep_system: bool = True
    keep_last_turn: bool = True
    dedup_min_tokens: int = 4
    clip_tokens: int = 12
    note_role: str = "system"


@dataclass
class Plan:
    """What each unit becomes. ``accepted`` lists upgrades in order, so the
    renderer can undo the last ones if the exact count overshoots."""

    decision: dict[str, str]
    duplicate_of: dict[str, str]
    calls_present: set[int]
    protected: frozenset[int]
    dropped_messages: frozenset[int]
    accepted: list[tuple[str, str, str]] = field(default_factory=list)
    """(option kind, unit id or message index, previous decision)."""


def protected_messages(messages: list[Message], settings: Settings) -> frozenset[int]:
    keep: set[int] = set()
    if settings.keep_system:
        keep.update(m.index for m in messages if m.role in SYSTEM_ROLES)
    if settings.keep_last_turn and messages:
        last_user = max((m.index for m in messages if m.role == "user"), default=None)
        start = last_user if last_user is not None else messages[-1].index
        keep.update(range(start, len(messages)))
    return frozenset(keep)


def tool_groups(messages: list[Message]) -> tuple[dict[int, list[int]], set[int], set[int]]:
    """Pair calls with results.

    Returns (assistant message -> its result messages, orphan result messages,
    assistant messages whose calls lack a result and so cannot be shown).
    """
    owner: dict[str, int] = {}
    for m in messages:
        for call in m.tool_calls:
            owner[call.id] = m.index
    results: dict[int, list[int]] = defaultdict(list)
    answered: dict[int, set[str]] = defaultdict(set)
    orphans: set[int] = set()
    for m in messages:
        if m.role != "tool":
            continue
        a = owner.get(m.tool_call_id or "")
        if a is None or a > m.index:
            orphans.add(m.index)
        else:
            results[a].append(m.index)
            answered[a].add(m.tool_call_id or "")
    unanswered = {
        m.index for m in messages
        if m.tool_calls and {c.id for c in m.tool_calls} - answered.get(m.index, set())
    }
    return dict(results), orphans, unanswered


def decide(
    messages: list[Message],
    units: list[list[Unit]],
    budget: int,
    fixed_cost: int,
    literal_cost: dict[str, int],
    settings: Settings,
) -> Plan:
    """Choose each unit's decision so that text + record fit ``budget``.

    ``fixed_cost`` is what protected messages and the note's frame cost;
    ``literal_cost`` gives each literal's tokens in the record.
    """
    protected = protected_messages(messages, settings)
    results, orphans, unanswered = tool_groups(messages)
    result_owner = {r: a for a, rs in results.items() for r in rs}
    decision: dict[str, str] = {}
    duplicate_of: dict[str, str] = {}
    calls_present: set[int] = set()
    n = max(len(messages) - 1, 1)

    # Calls whose result is protected must be shown, and so must all their results.
    forced_calls = {result_owner[r] for r in protected if r in result_owner}
    for a in forced_calls | {m for m in protected if m in results}:
        calls_present.add(a)
    must_show = set(protected) | {r for a in calls_present for r in results.get(a, [])} | calls_present

    # 1-2. Protection and deduplication.
    last_seen: dict[str, tuple[str, int]] = {}
    for m in reversed(messages):
        for u in reversed(units[m.index]):
            if u.kind == "tool_call":
                continue
            winner = last_seen.get(u.key)
            if m.index in protected:
                decision[u.id] = KEPT
            elif winner is not None and u.tokens >= settings.dedup_min_tokens \
                    and winner[1] != m.index:
                decision[u.id] = DEDUPLICATED
                duplicate_of[u.id] = winner[0]
            if winner is None:
                last_seen[u.key] = (u.id, m.index)
    for m in messages:
        for u in units[m.index]:
            if u.kind == "tool_call":
                decision[u.id] = KEPT if m.index in calls_present else OMITTED
            else:
                decision.setdefault(u.id, OMITTED)

    # Literal visibility: protected and forced text is visible from the start.
    visible: set[str] = set()
    occurrences: Counter[str] = Counter()
    for m in messages:
        for u in units[m.index]:
            if decision[u.id] == KEPT:
                visible.update(u.literal_texts)
            elif decision[u.id] == OMITTED:
                occurrences.update(u.literal_texts)
    record_cost = sum(literal_cost[t] for t in occurrences if t not in visible)
    share = {t: literal_cost[t] / k for t, k in occurrences.items() if t not in visible}
    cap = int(RECORD_SHARE * (budget - fixed_cost))
    if record_cost > cap:
        # The record will be cut anyway: showing a unit frees no tokens, and the
        # text gets what the capped record leaves.
        record_cost, share = cap, {}
    # fixed_cost already holds the protected messages, the calls they force and the note's frame.
    slack = budget - fixed_cost - record_cost

    # 3. Upgrades, best value per token first. The record saving of a literal is
    # shared among the units that state it, so the order is computed once.
    def saved(texts: tuple[str, ...]) -> float:
        return sum(share.get(t, 0.0) for t in texts)

    options: list[tuple[float, int, str, Unit, float]] = []  # (-ratio, seq, kind, unit, cost)
    call_cost: dict[int, float] = {}
    for m in messages:
        if m.index in protected or m.index in orphans:
            continue
        w_msg = 1.0 + RECENCY * m.index / n
        for u in units[m.index]:
            if decision[u.id] != OMITTED:
                continue
            w = w_msg * _KIND_WEIGHT.get(u.kind, 1.0)
            if u.kind == "tool_call":
                if m.index in unanswered or u.field != "tool_calls.0" or m.index in calls_present:
                    continue
                calls = [x for x in units[m.index] if x.kind == "tool_call"]
                cost = sum(x.tokens for x in calls) + len(results.get(m.index, []))
                cost -= sum(saved(x.literal_texts) for x in calls)
                call_cost[m.index] = cost
                options.append((-(w * len(calls)) / max(cost, 0.5), len(options), "calls", u, cost))
                continue
            full_gain, full_cost = w * (OPENING + u.info), u.tokens - saved(u.literal_texts)
            if u.head_end < len(u.text):
                part = u.head_end / max(len(u.text), 1)
                clip_gain = w * (OPENING + part * u.info)
                clip_cost = u.clip_tokens - saved(u.head_literal_texts)
                rest_gain, rest_cost = full_gain - clip_gain, full_cost - clip_cost
                clip_ratio = clip_gain / max(clip_cost, 0.5)
                if rest_gain / max(rest_cost, 0.5) < clip_ratio:
                    options.append((-clip_ratio, len(options), "clip", u, clip_cost))
                    options.append((-rest_gain / max(rest_cost, 0.5), len(options), "full", u, rest_cost))
                    continue
            options.append((-full_gain / max(full_cost, 0.5), len(options), "full", u, full_cost))
    options.sort()

    accepted: list[tuple[str, str, str]] = []

    def show_calls(a: int) -> None:
        calls_present.add(a)
        for x in units[a]:
            if x.kind == "tool_call":
                decision[x.id] = KEPT
        accepted.append(("calls", str(a), OMITTED))

    for _, _, kind, u, cost in options:
        if slack <= 0:
            break
        if kind == "calls":
            if u.message not in calls_present and cost <= slack:
                slack -= cost
                show_calls(u.message)
            continue
        owner = result_owner.get(u.message)
        extra = call_cost[owner] if owner is not None and owner not in calls_present else 0.0
        if owner is not None and owner not in calls_present and owner not in call_cost:
            continue
        prev = decision[u.id]
        if kind == "full" and prev == OMITTED and u.head_end < len(u.text):
            continue  # its clip did not fit; the rest alone means nothing
        if cost + extra > slack:
            continue
        if extra:
            show_calls(owner)  # type: ignore[arg-type]
        slack -= cost + extra
        decision[u.id] = CLIPPED if kind == "clip" else KEPT
        accepted.append((kind, u.id, prev))

    dropped = frozenset(
        m.index for m in messages
        if m.index not in protected and m.index not in calls_present
        and m.index not in {r for a in calls_present for r in results.get(a, [])}
        and all(decision[u.id] in (OMITTED, DEDUPLICATED) for u in units[m.index])
    )
    return Plan(decision, duplicate_of, calls_present, protected, dropped, accepted)

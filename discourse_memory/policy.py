"""The compaction policy: decide, for each unit, what the model sees.

Pure: takes a conversation's unit columns, returns a :class:`Plan`; rendering
is :mod:`.render`'s job. Under pressure, in this order:

1. **Protect** system messages and the newest turn (the last user message and
   everything after it): kept verbatim. Tool calls whose results are protected
   are shown too.
2. **Deduplicate**: a unit of at least ``dedup_min_tokens`` tokens whose exact
   text (normalised whitespace) appears again in a newer message is dropped;
   the newest copy wins.
3. **Clip and omit**: every other unit starts omitted, its literals in the
   record. Units are then brought back, best value per token first, while the
   budget allows. Value: a unit's opening is worth ``OPENING``, each content word
   or literal it states worth 1 more (a clip earns its share of those); newer
   messages weigh up to ``1 + RECENCY`` times the oldest. Cost: the tokens shown,
   less what the record saves (a literal's record cost is shared among the units
   that state it). An assistant's tool calls come back with a placeholder for each
   result, and a result's text only after its call.
4. **Top up**: the record is estimated again from what is now shown (shown literals
   leave it); the room it no longer needs takes more options in the same order, at
   their full cost.
5. **Record**: the literals of what is still not shown. If they exceed
   ``RECORD_SHARE`` of the budget left after step 1, the record is cut (most
   generic kinds and oldest first) and the text gets the rest.

Once the plan is rendered and counted, :class:`~.compaction.Compactor` spends room the
exact count still leaves on one more top-up (:func:`top_up`), then room the text and the
record's share leave on longer heads of clipped units (exact, since it needs the
rendered text).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .columns import Columns
from .messages import SYSTEM_ROLES, Message

__all__ = ["Plan", "Settings", "decide", "protected_messages", "relax_steps", "top_up", "undo_last"]

OMITTED, CLIPPED, KEPT, DEDUPLICATED = 0, 1, 2, 3
DECISION_NAMES = ("omitted", "clipped", "kept", "deduplicated")
PLACEHOLDER = "…"
OPENING = 1.0
RECENCY = 0.6
RECORD_SHARE = 0.35
IDF_POWER = 2.0
# Literals cost a little more inside the note than alone (separators merge differently).
NOTE_OVERHEAD = 1.06
# Room the record turns out not to need is worth a top-up from this share of the budget.
TOP_UP_MIN_SHARE = 0.01
TOP_UP_ROUNDS = 3
_CALLS, _CLIP, _FULL, _REST, _OPEN = 0, 1, 2, 3, 4
# Messages this small open as a whole (see decide).
SHORT_UNITS = 12
SHORT_TOKENS = 400


@dataclass(frozen=True, slots=True)
class Settings:
    keep_system: bool = True
    keep_last_turn: bool = True
    dedup_min_tokens: int = 4
    clip_tokens: int = 12
    note_role: str = "system"
    relax: bool = False
    """When what must be kept does not fit, protect less instead of raising (see RELAX_STEPS)."""
    keep_last_message: bool = False
    """Protect the newest message alone (a relaxation step)."""

    @property
    def protection(self) -> str:
        parts = []
        if self.keep_system:
            parts.append("system")
        if self.keep_last_turn:
            parts.append("newest turn")
        elif self.keep_last_message:
            parts.append("newest message")
        return " + ".join(parts) or "nothing"


def relax_steps(settings: Settings) -> list[Settings]:
    """The settings to try in turn: as given, then the newest turn shrunk to the newest
    message, then system messages compactable too, then nothing protected."""
    from dataclasses import replace

    steps = [settings]
    if not settings.relax:
        return steps
    if settings.keep_last_turn:
        steps.append(replace(steps[-1], keep_last_turn=False, keep_last_message=True))
    if settings.keep_system:
        steps.append(replace(steps[-1], keep_system=False))
    if steps[-1].keep_last_turn or steps[-1].keep_last_message:
        steps.append(replace(steps[-1], keep_last_turn=False, keep_last_message=False))
    return steps


@dataclass
class Plan:
    """What each unit becomes (``decision[i]`` for unit ``i`` of the columns)."""

    decision: np.ndarray
    winner: np.ndarray
    """For each unit, the unit that holds its newest copy (itself if none)."""
    calls_present: set[int]
    protected: frozenset[int]
    opening: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int8))
    """Per unit, what opening its message shows of it (clipped, or kept if short)."""
    candidate: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Units that open with their (short) message."""
    accepted: list[tuple[int, int]] = field(default_factory=list)
    """(option kind, unit or message index) in the order taken, so the last can be undone."""
    options: _Options | None = None
    """Every option the plan ranked."""


@dataclass(frozen=True)
class _Options:
    """The options :func:`decide` ranked, best value per token first."""

    kinds: np.ndarray
    targets: np.ndarray
    order: np.ndarray
    full_costs: np.ndarray
    """Each option's tokens shown, with no credit for what it takes out of the record."""
    full_call_cost: dict[int, float]
    owner_of_msg: np.ndarray
    owner_u: np.ndarray


def protected_messages(messages: list[Message], settings: Settings) -> frozenset[int]:
    keep: set[int] = set()
    if settings.keep_system:
        keep.update(m.index for m in messages if m.role in SYSTEM_ROLES)
    if settings.keep_last_turn and messages:
        last_user = max((m.index for m in messages if m.role == "user"), default=None)
        start = last_user if last_user is not None else messages[-1].index
        keep.update(range(start, len(messages)))
    elif settings.keep_last_message and messages:
        keep.add(messages[-1].index)
    return frozenset(keep)


def decide(cols: Columns, budget: int, fixed_cost: int, settings: Settings,
           protected: frozenset[int], results: dict[int, list[int]], orphans: set[int],
           unanswered: set[int]) -> Plan:
    """Choose each unit's decision so that text + record fit ``budget``.

    ``fixed_cost`` is what the protected messages, the calls they force and the
    note's frame cost.
    """
    n_msgs = len(cols)
    n_units = len(cols.units)
    u_msg = cols.u_msg.view
    is_call = cols.u_is_call.view
    tokens = cols.u_tokens.view
    result_owner = {r: a for a, rs in results.items() for r in rs}

    prot_msg = np.zeros(n_msgs, dtype=bool)
    prot_msg[list(protected)] = True
    calls_present = {result_owner[r] for r in protected if r in result_owner}
    calls_present |= {a for a in protected if a in results}
    prot_u = prot_msg[u_msg]

    decision = np.zeros(n_units, dtype=np.int8)
    decision[prot_u] = KEPT
    present_msg = np.zeros(n_msgs, dtype=bool)
    present_msg[list(calls_present)] = True
    decision[is_call & present_msg[u_msg]] = KEPT

    winner = cols.key_newest.view[cols.u_key.view]
    dedup = (~prot_u) & (~is_call) & (u_msg[winner] != u_msg) & (tokens >= settings.dedup_min_tokens)
    decision[dedup] = DEDUPLICATED

    visible = cols.literal_counts(decision == KEPT) > 0
    occurrences = cols.literal_counts(decision == OMITTED)
    in_record = (occurrences > 0) & ~visible
    lit_cost = cols.lit_cost.view
    record_cost = float(lit_cost[in_record].sum())
    share = np.where(in_record, lit_cost / np.maximum(occurrences, 1), 0.0)
    cap = RECORD_SHARE * (budget - fixed_cost)
    if record_cost > cap:
        # The record will be cut anyway: showing a unit frees no tokens, and the
        # text gets what the capped record leaves.
        record_cost, share = cap, np.zeros_like(share)
    slack = budget - fixed_cost - record_cost
    saved_all = cols.per_unit_sum(share)
    saved_head = cols.per_unit_sum(share, head=True)

    weight = (1.0 + RECENCY * u_msg / max(n_msgs - 1, 1)) * cols.u_kind_weight.view
    # What a unit says: its literals, and its content words weighted by rarity.
    info = np.diff(cols.lit_ptr.view) + cols.word_weights(IDF_POWER)

    # Options: bring back an assistant's calls; or a unit whole, its clip, or the rest after a clip.
    blocked = np.zeros(n_msgs, dtype=bool)
    blocked[list(orphans)] = True
    for r, a in result_owner.items():
        if a in unanswered and a not in calls_present:
            blocked[r] = True
    candidate = (decision == OMITTED) & ~is_call & ~blocked[u_msg] & ~prot_u

    call_msgs = [a for a in results if a not in calls_present and a not in unanswered
                 and a not in protected and a not in orphans]
    call_rows = u_msg[is_call]
    per_msg_cost = np.bincount(call_rows, weights=(tokens - saved_all)[is_call], minlength=n_msgs)
    per_msg_gain = np.bincount(call_rows, weights=weight[is_call], minlength=n_msgs)
    call_cost = {a: float(per_msg_cost[a]) + len(results[a]) for a in call_msgs}
    call_ratio = np.full(n_msgs, np.inf)
    for a in call_msgs:
        call_ratio[a] = per_msg_gain[a] / max(call_cost[a], 0.5)

    full_gain = weight * (OPENING + info)
    full_cost = tokens - saved_all
    clip_gain = weight * (OPENING + cols.u_head_share.view * info)
    clip_cost = cols.u_clip.view - saved_head
    rest_gain, rest_cost = full_gain - clip_gain, full_cost - clip_cost
    clip_ratio = clip_gain / np.maximum(clip_cost, 0.5)
    split = candidate & cols.u_clippable.view & (rest_gain / np.maximum(rest_cost, 0.5) < clip_ratio)
    whole = candidate & ~split

    # Short messages open whole: every unit's opening (a clip, or the unit itself
    # if short) comes back at once, so a shown message never loses a sentence
    # outright; the rest of each clipped unit can follow.
    starts = cols.msg_start.view
    n_units_msg = np.diff(starts)
    short = (n_units_msg <= SHORT_UNITS) & (cols.msg_cost.view <= SHORT_TOKENS)
    in_short = candidate & short[u_msg]
    open_cost_u = np.where(split, clip_cost, full_cost)
    open_gain_u = np.where(split, clip_gain, full_gain)
    open_msgs = np.flatnonzero(np.bincount(u_msg[in_short], minlength=n_msgs) > 0)
    open_cost = np.bincount(u_msg[in_short], weights=open_cost_u[in_short], minlength=n_msgs)
    open_gain = np.bincount(u_msg[in_short], weights=open_gain_u[in_short], minlength=n_msgs)
    open_ratio = np.full(n_msgs, np.inf)
    open_ratio[open_msgs] = open_gain[open_msgs] / np.maximum(open_cost[open_msgs], 0.5)

    # A result's text never comes before its call.
    owner_of_msg = np.full(n_msgs, -1)
    for r, a in result_owner.items():
        owner_of_msg[r] = a
    owner_u = owner_of_msg[u_msg]
    cap_ratio = np.where(owner_u >= 0, call_ratio[np.maximum(owner_u, 0)], np.inf)

    open_owner = owner_of_msg[open_msgs]
    open_cap = np.where(open_owner >= 0, call_ratio[np.maximum(open_owner, 0)], np.inf)
    # In short messages, the rest of a clipped unit never comes before the message opens.
    cap_ratio = np.where(in_short, np.minimum(cap_ratio, open_ratio[u_msg]), cap_ratio)
    idx_clip = np.flatnonzero(split & ~in_short)
    idx_rest = np.flatnonzero(split)
    idx_whole = np.flatnonzero(whole & ~in_short)
    kinds = np.concatenate([np.full(len(call_msgs), _CALLS), np.full(len(open_msgs), _OPEN),
                            np.full(len(idx_clip), _CLIP), np.full(len(idx_rest), _REST),
                            np.full(len(idx_whole), _FULL)])
    targets = np.concatenate([np.array(call_msgs, dtype=np.int64), open_msgs, idx_clip, idx_rest, idx_whole])
    ratios = np.concatenate([
        np.array([call_ratio[a] for a in call_msgs]),
        np.minimum(open_ratio[open_msgs], open_cap),
        np.minimum(clip_ratio[idx_clip], cap_ratio[idx_clip]),
        np.minimum(rest_gain[idx_rest] / np.maximum(rest_cost[idx_rest], 0.5), cap_ratio[idx_rest]),
        np.minimum(full_gain[idx_whole] / np.maximum(full_cost[idx_whole], 0.5), cap_ratio[idx_whole]),
    ])
    def option_costs(calls: dict[int, float], opening: np.ndarray, clip: np.ndarray,
                     full: np.ndarray) -> np.ndarray:
        """Per option (in ``kinds`` order), from per-message and per-unit costs."""
        return np.concatenate([np.array([calls[a] for a in call_msgs]), opening[open_msgs], clip[idx_clip],
                               (full - clip)[idx_rest], full[idx_whole]])

    costs = option_costs(call_cost, open_cost, clip_cost, full_cost)
    tier = (kinds != _CALLS).astype(np.int64) + (kinds == _OPEN) + 2 * (kinds == _REST)
    order = np.lexsort((targets, tier, -ratios))

    # The same options at their full cost, for topping up once the real record is known.
    full_msg_cost = np.bincount(call_rows, weights=tokens[is_call], minlength=n_msgs)
    full_call_cost = {a: float(full_msg_cost[a]) + len(results[a]) for a in call_msgs}
    open_full_u = np.where(split, cols.u_clip.view, tokens)
    open_full = np.bincount(u_msg[in_short], weights=open_full_u[in_short], minlength=n_msgs)
    full_costs = option_costs(full_call_cost, open_full, cols.u_clip.view, tokens)

    # Take options in order while every running total fits; then fill what is left.
    running = np.cumsum(costs[order])
    over = np.flatnonzero(running > slack)
    p = int(over[0]) if len(over) else len(order)
    taken = order[:p]
    left = slack - (float(running[p - 1]) if p else 0.0)
    plan = Plan(decision, winner, calls_present, protected, opening=np.where(split, CLIPPED, KEPT).astype(np.int8),
                candidate=in_short,
                options=_Options(kinds, targets, order, full_costs, full_call_cost, owner_of_msg, owner_u))
    _apply(plan, cols, kinds[taken], targets[taken], results)
    plan.accepted.extend(zip(kinds[taken].tolist(), targets[taken].tolist()))
    shown_cost = float(full_costs[taken].sum())
    shown_cost += _fill(plan, cols, results, order[p:], left, costs, call_cost)

    # The record was set aside for the literals of every unit omitted at the start, and
    # each unit brought back was credited only a share of the literals it shows; with
    # them shown the record is often much shorter. Top up: the room the record no longer
    # needs goes to more options, at their full cost; what they show leaves the record
    # too, so repeat while that frees enough.
    for _ in range(TOP_UP_ROUNDS):
        shown = cols.literal_counts(decision == KEPT, head_mask=decision == CLIPPED) > 0
        record_now = min(float(lit_cost[~shown].sum()) * NOTE_OVERHEAD, cap)
        spare = budget - fixed_cost - shown_cost - record_now
        if spare < TOP_UP_MIN_SHARE * budget:
            break
        shown_cost += _fill(plan, cols, results, order, spare, full_costs, full_call_cost)
    return plan


def top_up(plan: Plan, cols: Columns, results: dict[int, list[int]], room: float) -> int:
    """After rendering: take more of the plan's options, in its order, while their full
    token cost fits ``room``. Returns how many were taken; :func:`undo_last` takes them
    back, newest first."""
    if plan.options is None or room <= 0:
        return 0
    before = len(plan.accepted)
    _fill(plan, cols, results, plan.options.order, room, plan.options.full_costs, plan.options.full_call_cost)
    return len(plan.accepted) - before


def _fill(plan: Plan, cols: Columns, results: dict[int, list[int]], candidates: np.ndarray, left: float,
          costs: np.ndarray, call_cost: dict[int, float]) -> float:
    """Take each of ``candidates`` (option rows, best first) that still fits ``left``;
    returns the full token cost of what was taken."""
    o = plan.options
    assert o is not None
    spent = 0.0
    decision = plan.decision
    clipped_now = decision == CLIPPED
    opened = {t for k, t in plan.accepted if k == _OPEN}
    for row in candidates[costs[candidates] <= left].tolist():
        cost = float(costs[row])
        if cost > left:
            continue
        kind, target = int(o.kinds[row]), int(o.targets[row])
        if kind == _CALLS:
            if target in plan.calls_present:
                continue
        else:
            if kind == _REST and not clipped_now[target]:
                continue  # its clip is not shown: the rest alone means nothing
            if kind in (_CLIP, _FULL) and decision[target] != OMITTED:
                continue  # already taken
            if kind == _OPEN and target in opened:
                continue
            owner = int(o.owner_of_msg[target]) if kind == _OPEN else int(o.owner_u[target])
            if owner >= 0 and owner not in plan.calls_present:
                extra = call_cost.get(owner)
                if extra is None or cost + extra > left:
                    continue
                left -= extra
                spent += o.full_call_cost[owner]
                _apply(plan, cols, np.array([_CALLS]), np.array([owner]), results)
                plan.accepted.append((_CALLS, owner))
        left -= cost
        spent += float(o.full_costs[row])
        _apply(plan, cols, np.array([kind]), np.array([target]), results)
        plan.accepted.append((kind, target))
        if kind == _CLIP:
            clipped_now[target] = True
        elif kind == _OPEN:
            opened.add(target)
            clipped_now[:] = decision == CLIPPED
    return spent


def _apply(plan: Plan, cols: Columns, kinds: np.ndarray, targets: np.ndarray,
           results: dict[int, list[int]]) -> None:
    d = plan.decision
    opened = targets[kinds == _OPEN]
    if len(opened):
        mask = plan.candidate & np.isin(cols.u_msg.view, opened)
        d[mask] = plan.opening[mask]
    d[targets[kinds == _CLIP]] = CLIPPED
    d[targets[(kinds == _FULL) | (kinds == _REST)]] = KEPT
    calls = targets[kinds == _CALLS].tolist()
    if calls:
        plan.calls_present.update(calls)
        starts = cols.msg_start.view
        is_call = cols.u_is_call.view
        for a in calls:
            s, e = int(starts[a]), int(starts[a + 1])
            d[s:e][is_call[s:e]] = KEPT


def undo_last(plan: Plan, cols: Columns, results: dict[int, list[int]]) -> bool:
    """Take back the last option taken; False if there is none."""
    if not plan.accepted:
        return False
    kind, target = plan.accepted.pop()
    d = plan.decision
    if kind == _CALLS:
        plan.calls_present.discard(target)
        starts = cols.msg_start.view
        for m in [target, *results.get(target, [])]:
            s, e = int(starts[m]), int(starts[m + 1])
            block = d[s:e]
            block[(block == KEPT) | (block == CLIPPED)] = OMITTED
    elif kind == _REST:
        d[target] = CLIPPED
    elif kind == _OPEN:
        mask = plan.candidate & (cols.u_msg.view == target)
        d[mask] = OMITTED
    else:
        d[target] = OMITTED
    return True

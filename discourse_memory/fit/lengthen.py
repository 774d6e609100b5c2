"""Longer heads: room a view leaves goes to the heads of clipped units, newest first."""

from __future__ import annotations

import numpy as np

from ..plan import CLIPPED, KEPT, Plan
from ..units import before_values, clip_cost
from .plan import _plan
from .types import Chosen, Ranked, Scene


MARGIN_SHARE = 0.005
ENOUGH_TOKENS = 16
"""Room worth another pass or longer heads: at least this many tokens (and ``fitting.ENOUGH_SHARE`` of the budget)."""
LENGTHEN_MAX_UNITS = 8


def _lengthen(scene: Scene, r: Ranked, plan: Plan, tokens: int) -> Plan:
    """Room the view leaves goes to longer heads of clipped units, newest message first:
    otherwise a huge unit (a 1 MB log line, a minified JSON result) shows its first dozen
    tokens however much room is left. Heads are sized from token counts, the view is
    measured, and the last longer head is given up while it does not fit."""
    cols, budget, count = scene.cols, scene.budget, scene.count
    decision = plan.decision.copy()
    clipped = np.flatnonzero(decision == CLIPPED)
    order = clipped[np.argsort(-cols.u_msg.view[clipped], kind="stable")]
    units = cols.units
    heads: dict[int, int] = dict(plan.heads)
    kept: list[int] = []
    taken: list[int] = []
    estimate = tokens
    margin = max(2, int(budget * MARGIN_SHARE))
    for k in order[:LENGTHEN_MAX_UNITS].tolist():
        spare = budget - margin - estimate
        if spare < ENOUGH_TOKENS:
            break
        unit = units[k]
        now = heads.get(k, unit.head_end)
        head = scene.head(unit.text, count(unit.text[:now]) + spare - 4)  # 4: the mark, seams
        head = before_values(unit.literals, head, unit.text)
        if head <= now:
            continue
        if head >= len(unit.text):
            decision[k] = KEPT
            kept.append(k)
            estimate += unit.tokens - unit.clip_tokens
        else:
            estimate += clip_cost(unit, head, count) - clip_cost(unit, now, count)
            heads[k] = head
        taken.append(k)
    chosen_items = [it for e in plan.record.entries for it in e.items]
    while taken:
        candidate = _plan(scene, r, Chosen(decision, set(plan.calls_present), chosen_items), plan.protection,
                          heads)
        got, _ = scene.measure(candidate)
        if got <= budget:
            return candidate
        k = taken.pop()  # token seams made the estimate short: give up the last one
        decision[k] = CLIPPED
        if k in plan.heads:
            heads[k] = plan.heads[k]
        else:
            heads.pop(k, None)
    return plan

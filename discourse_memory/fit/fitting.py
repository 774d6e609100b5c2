"""The fitting stage's driver: each protection step in turn, a few passes of take and
plan to fit the exact count, then longer heads."""

from __future__ import annotations

from ..columns import Columns
from ..errors import BudgetTooSmallError
from ..plan import CLIPPED, PLACEHOLDER, Plan
from ..record import Record, render_note
from .lengthen import _lengthen
from .limits import LIMITS
from .plan import _plan
from .protect import LARGE_OUTPUT, Protection, _protected, protections
from .rank import _rank
from .take import _take
from .types import Scene


def _minimum(scene: Scene, step: Protection, frame: int) -> int:
    """The smallest budget the last protection step fits: what must be shown, and the
    note saying what it could not list. At a larger budget a tool output may no longer
    be over half of it, and so be protected: the minimum is one that holds there too."""
    cols = scene.cols
    budget = scene.budget
    for _ in range(LIMITS.minimum_rounds):
        protected, _large = _protected(cols, step, budget, scene.options.policy)
        ranked = _rank(scene, protected)
        need = max(_fixed_cost(cols, protected, scene) + frame,
                   scene.measure(_plan(scene, ranked, _take(ranked, 0.0), step.name))[0])
        if need <= budget:
            break
        budget = need
    # A well-formed conversation that fits whole is returned as it is: no more is needed.
    # (Not a memory's window: beyond its horizon, a view always has its note.)
    whole = sum(int(cols.msg_cost.view[m.index]) + scene.frame(m.index) for m in cols.messages)
    if whole < budget and cols.pairs.well_formed(cols.messages) and scene.beyond is None:
        budget = whole
    return max(budget, scene.budget + 1)


def fit(scene: Scene) -> Plan:
    """The plan of the view (see the module docstring); raises
    :class:`~discourse_memory.BudgetTooSmallError` when not even the last protection
    step fits."""
    cols, budget, options = scene.cols, scene.budget, scene.options
    frame = scene.count(_frame(scene.tag, len(cols.units), bool(cols.u_clippable.view.any()), scene.beyond,
                               len(cols) if options.recall else None)) + \
        options.overhead({"role": options.note_role, "content": ""})
    steps = protections(options)
    for k, step in enumerate(steps):
        protected, large = _protected(cols, step, budget, scene.options.policy)
        if large:
            step = Protection(step.name + LARGE_OUTPUT, step.system, step.turn)
        fixed = _fixed_cost(cols, protected, scene) + frame
        if fixed <= budget:
            try:
                return _fit(scene, step, protected, fixed)
            except BudgetTooSmallError:  # the exact count of the bare view overflows
                pass
        if k == len(steps) - 1:
            raise BudgetTooSmallError(budget, _minimum(scene, steps[-1], frame), step.name)
    raise AssertionError("unreachable: the last protection step returns or raises")


def _frame(tag: str, units: int, clippable: bool, beyond: tuple[int, int] | None, recall: int | None) -> str:
    """The note's frame at its longest for this conversation: every count at most the
    number of units; the clipped clause only if some unit can be clipped."""
    most = max(units, 1)
    return render_note(tag, most, most if clippable else 0, most, Record((), (), ()), recall=recall, beyond=beyond)


def _fixed_cost(cols: Columns, protected: frozenset[int], scene: Scene) -> int:
    costs = cols.msg_cost.view
    fixed = sum(int(costs[i]) + scene.frame(i) for i in protected)
    # Calls whose results are protected are shown too, with placeholders for other results.
    # (Found from the protected results, not by a walk of every call of the history.)
    owner = cols.pairs.owner
    for a in sorted({owner[r] for r in protected if r in owner}):
        rs = cols.pairs.results[a]
        if a not in protected:
            fixed += int(costs[a]) + scene.frame(a)
            fixed += sum(scene.count(PLACEHOLDER) for r in rs if r not in protected)
    return fixed


def _fit(scene: Scene, step: Protection, protected: frozenset[int], fixed: int) -> Plan:
    budget = scene.budget
    ranked = _rank(scene, protected)
    margin = max(2, int(budget * LIMITS.margin_share))
    enough = max(LIMITS.enough_tokens, int(LIMITS.enough_share * budget))
    slack = budget - fixed - margin
    best: tuple[Plan, int] | None = None
    smallest: tuple[Plan, int] | None = None
    for _ in range(LIMITS.passes):
        chosen = _take(ranked, max(slack, 0.0))
        plan = _plan(scene, ranked, chosen, step.name)
        tokens, _ = scene.measure(plan)
        if tokens <= budget and (best is None or tokens > best[1]):
            best = (plan, tokens)
        if smallest is None or tokens < smallest[1]:
            smallest = (plan, tokens)
        over = tokens - budget
        # The estimates err by a share of what they count (gap marks between units shown
        # side by side, labels): the room left or lacking is scaled by that share.
        scale = 1.0
        if chosen.spent > 0 and tokens > fixed:
            scale = min(max(chosen.spent / (tokens - fixed), 0.5), 2.0)
        if over > 0:
            slack -= (over + margin) * max(scale, 1.0)
        elif -over >= enough and best is not None and best[0] is plan:
            slack += (-over - margin) * 0.9 * scale
        else:
            break
    if best is None:
        # Even the estimates' corrections overflow: show only what must be shown.
        plan = _plan(scene, ranked, _take(ranked, 0.0), step.name)
        tokens, _ = scene.measure(plan)
        if tokens > budget:
            raise BudgetTooSmallError(budget, tokens, step.name)
        best = (plan, tokens)
    plan, tokens = best
    if budget - tokens >= enough and bool((plan.decision == CLIPPED).any()):
        plan = _lengthen(scene, ranked, plan, tokens)
    return plan

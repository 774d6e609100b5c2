"""The fitting stage's driver: each protection step in turn; a take at the room the
estimates leave, confirmed by one render (a miss cut at the end, see :func:`_fit`), then
longer heads."""

from __future__ import annotations

from ..columns import Columns
from ..errors import BudgetTooSmallError
from ..plan import CLIPPED, DEDUPLICATED, OMITTED, PLACEHOLDER, Plan
from ..record import Record, render_note
from .lengthen import _lengthen
from .limits import LIMITS
from .plan import _plan
from .protect import Protection, _protected, protections, renamed
from .rank import _rank
from .take import _take, cut_at, rewound
from .types import Chosen, Ranked, Scene


def _minimum(scene: Scene, step: Protection, frame: int) -> int:
    """The smallest budget the last protection step fits: what must be shown, and the
    note saying what it could not list. At a larger budget a tool output may no longer
    be over half of it, and so be protected: the minimum is one that holds there too."""
    cols = scene.cols
    budget = scene.budget
    for _ in range(LIMITS.minimum_rounds):
        protected, _large, outlined = _protected(cols, step, budget, scene.options.policy)
        ranked = _rank(scene, protected, outlined)
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
    most = max(len(cols.units), 1)
    frame = _frame(scene, most, most if cols.u_clippable.view.any() else 0, most, 0)
    steps = protections(options)
    for k, step in enumerate(steps):
        protected, large, outlined = _protected(cols, step, budget, scene.options.policy)
        step = renamed(step, large, outlined)
        fixed = _fixed_cost(cols, protected, scene) + frame
        if fixed <= budget:
            try:
                return _fit(scene, step, protected, fixed, frame, outlined)
            except BudgetTooSmallError:  # the exact count of the bare view overflows
                pass
        if k == len(steps) - 1:
            raise BudgetTooSmallError(budget, _minimum(scene, steps[-1], frame), step.name)
    raise AssertionError("unreachable: the last protection step returns or raises")


def _frame(scene: Scene, omitted: int, clipped: int, deduplicated: int, dropped: int) -> int:
    """The tokens of the note's frame with these counts (at most: the counts are bounds),
    with the note's framing as a message."""
    options = scene.options
    note = render_note(scene.tag, omitted, clipped, deduplicated, Record((), (), ()), dropped=dropped,
                       recall=len(scene.cols) if options.recall else None, beyond=scene.beyond)
    return scene.count(note) + options.overhead({"role": options.note_role, "content": ""})


def _frame_of(scene: Scene, ranked: Ranked) -> int:
    """The note's frame as this view's will read, at most: the parts omitted at most
    those its options start from, the repeats those the ranking left out, a clipped
    clause if some unit can be clipped, and the line of values dropped if any could be."""
    most = max(len(scene.cols.units), 1)
    base = ranked.base
    return _frame(scene, max(int((base == OMITTED).sum()), 1), most if scene.cols.u_clippable.view.any() else 0,
                  int((base == DEDUPLICATED).sum()), most if ranked.item_of or ranked.beyond else 0)


def _fixed_cost(cols: Columns, protected: frozenset[int], scene: Scene) -> int:
    costs = cols.msg_cost.view
    fixed = sum(int(costs[i]) + scene.frame(i) for i in protected)
    # Calls whose results are protected are shown too, and so are the results of protected
    # calls: each result not protected as a placeholder (a message, framed as one).
    # (Found from the protected messages, not by a walk of every call of the history.)
    owner, results = cols.pairs.owner, cols.pairs.results
    for a in sorted({owner[r] for r in protected if r in owner} | {a for a in protected if a in results}):
        if a not in protected:
            fixed += int(costs[a]) + scene.frame(a)
        fixed += sum(scene.count(PLACEHOLDER) + scene.frame(r) for r in results[a] if r not in protected)
    return fixed


def _fit(scene: Scene, step: Protection, protected: frozenset[int], fixed: int, longest: int,
         outlined: frozenset[int] = frozenset()) -> Plan:
    """Take once, at the room the estimates leave; one render confirms the count. A view
    over its budget is cut: the take's lowest-ranked choices are dropped (its choices
    before a rank position kept) by what it is over. A view short of its budget by
    ``Limits.enough_share`` takes once more at the room it left (cut likewise if that
    overflows), kept if it holds more; room still left goes to longer heads. That second
    take goes on from where the first would first choose otherwise (:mod:`.trail`), not
    from the first option."""
    budget = scene.budget
    ranked = _rank(scene, protected, outlined)
    margin = max(2, int(budget * LIMITS.margin_share))
    enough = max(LIMITS.enough_tokens, int(LIMITS.enough_share * budget))
    # (``fixed`` holds the frame at its longest, ``longest``, for any view of the conversation:
    # this one's is known)
    bound = _frame_of(scene, ranked)
    fixed += bound - longest
    room = max(budget - fixed - margin, 0.0) / (1.0 - LIMITS.estimate_over)
    # (the first take keeps what a second take of more room, below, goes on from: at least
    # ``enough - margin`` more)
    chosen = _take(ranked, room, keep=max(enough - margin, 0))
    plan = _plan(scene, ranked, chosen, step.name)
    tokens, _ = scene.measure(plan)
    if tokens > budget:
        plan, tokens = _cut(scene, ranked, step.name, chosen, tokens, margin) or \
            _bare(scene, ranked, step.name)
    elif budget - tokens >= enough:
        # (the estimates count a share more than the render: the room left, scaled by it;
        # the frame is now known, the rest of what is fixed was exact)
        known = fixed - bound + _frame(scene, *plan.counts, len(plan.record.dropped))
        scale = min(max(chosen.spent / (tokens - known), 1.0), 2.0) if chosen.spent > 0 and tokens > known else 1.0
        more = room + (budget - tokens - margin) * scale
        fuller = _take(ranked, more, resume=chosen)  # (the same choices as a take from the start)
        got = _confirmed(scene, ranked, step.name, fuller)
        if got[1] > budget:
            got = _cut(scene, ranked, step.name, fuller, got[1], margin) or got
        if tokens < got[1] <= budget:
            plan, tokens = got
    if budget - tokens >= enough and bool((plan.decision == CLIPPED).any()):
        plan = _lengthen(scene, ranked, plan, tokens)
    return plan


def _confirmed(scene: Scene, ranked: Ranked, protection: str, chosen: Chosen) -> tuple[Plan, int]:
    """The plan of a take, and its exact count (a render)."""
    plan = _plan(scene, ranked, chosen, protection)
    return plan, scene.measure(plan)[0]


def _cut(scene: Scene, ranked: Ranked, protection: str, chosen: Chosen, tokens: int,
         margin: int) -> tuple[Plan, int] | None:
    """A view (the take ``chosen``) ``tokens - budget`` over its budget, cut: the take's
    choices from a rank position on dropped, the position found from the room the take
    spent before each (the take's journal replayed to there, :func:`.take.rewound`); each
    cut confirmed by a render.
    None: no cut fits."""
    budget = scene.budget
    for k in range(LIMITS.passes - 1):
        # (by the estimates, which count a little more than the render: the least cut first,
        # one twice as deep each time the render says it still overflows)
        stop = cut_at(chosen, chosen.spent - (tokens - budget + margin) * 2 ** k)
        if stop is None:
            return None
        chosen = rewound(ranked, chosen, stop)  # (the take of the same room, stopped there: not taken again)
        plan, tokens = _confirmed(scene, ranked, protection, chosen)
        if tokens <= budget:
            return plan, tokens
    return None


def _bare(scene: Scene, ranked: Ranked, protection: str) -> tuple[Plan, int]:
    """Only what must be shown (when even the cuts overflow)."""
    plan, tokens = _confirmed(scene, ranked, protection, _take(ranked, 0.0))
    if tokens > scene.budget:
        raise BudgetTooSmallError(scene.budget, tokens, protection)
    return plan, tokens

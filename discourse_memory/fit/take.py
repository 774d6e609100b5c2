"""The take: options in rank order while they fit the room."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from itertools import islice
from math import inf
from operator import itemgetter
from typing import TYPE_CHECKING, Any

import numpy as np

from ..plan import CLIPPED, DEDUPLICATED, KEPT, OMITTED
from .limits import LIMITS
from .gaps import Gaps
from .trail import Snapshot, Trail, copies, restart
from .types import _CALLS, _CLIP, _FULL, _ITEM, _LONG, _OPEN, _REST, Chosen, Ranked, _flat

if TYPE_CHECKING:
    from ..record import Item


LONE_DATES = False
"""Whether a session's date line may be listed alone, for its own values: "[7:06 pm on 9
January, 2023]" says nothing of what happened then. It is listed above the entries of its
session instead (see ``_take``)."""


def _take(r: Ranked, room: float, stop: int | None = None, *, resume: Chosen | None = None,
          keep: float | None = None) -> Chosen:
    """Options in rank order while they fit ``room`` (see the module docstring, step 4);
    ``stop``: the rank position at which it stops (the options from it on are not taken:
    the same choices as the take of ``room`` made before it, see :func:`cut_at`; a view's
    cut replays the whole take's journal to there instead, :func:`rewound`).

    ``keep``: the take keeps what a take of at least ``room + keep`` needs to go on from
    where it would first decide otherwise (``Chosen.trail``); ``resume``: such a take of
    less room, gone on from there (the same choices as a take from the start: see
    :mod:`.trail`; from the start when it cannot)."""
    back = None
    if resume is not None and resume.trail is not None and stop is None:
        back = restart(resume.trail, resume.steps, room, r.reserve)
    trail = Trail(room) if keep is not None and stop is None and room >= r.reserve else None
    if back is not None:
        snap = back.snap
        decision = snap.decision.copy()
        calls_present = set(snap.calls_present)
        journal = Journal(resume.journal.ops[:snap.ops], resume.journal.marks[:snap.marks])  # type: ignore[union-attr]
    else:
        decision = r.base.copy()
        calls_present = set(r.calls_forced)
        journal = Journal()
    # (what the choices are made of is written down as it changes, for ``rewound``)
    ops, marks = journal.ops, journal.marks
    # (each change of the room left, in order: a take of more room goes on from a snapshot
    # with the same changes summed from its own room, see :mod:`.trail`)
    deltas: list[float] = [] if trail is None else trail.deltas
    step_deltas: list[int] = [] if trail is None else trail.steps
    short = inf  # the least by which the room refused an option (see :mod:`.trail`)

    def decide(at: Any, value: Any) -> None:
        decision[at] = value
        ops.append((at, value))

    def call_shown(call: int) -> None:
        calls_present.add(call)
        ops.append((call,))
    shown_lits: bytearray
    msg_shown: bytearray
    taken: dict[int, float]
    by_literal: dict[int, int]
    entries: dict[int, int]
    keys: dict[tuple[int, int, str], int]
    rows: dict[int, int]
    in_rows: set[int]
    headers: set[str]
    dated: dict[str, int]
    opened: set[int]
    heads: dict[int, int]
    long_steps: dict[int, int]
    if back is not None:
        (shown_lits, msg_shown, texts_shown, taken, by_literal, entries, keys, rows, in_rows, headers, dated, opened,
         heads, long_steps) = copies(back.snap)
    else:
        # (read an item at a time, a few thousand times a view: a byte per literal, not numpy's scalars)
        shown_lits = bytearray(r.shown_lits.astype(np.bool_).tobytes())
        msg_shown = bytearray(len(r.msg_overhead))  # per message: shown (some part of it, or its framing)
        for m in r.protected | r.calls_forced:
            msg_shown[m] = 1
        taken = {}  # record item -> the room it took
        by_literal = {}  # literal -> the (non-header) item listing it
        entries = {}  # message -> how many of its items are listed
        keys = {}  # (message, record group or -1, key) -> values listed under it
        rows = {}  # a record's group -> how many of its values are listed under its head
        in_rows = set()  # the items counted there
        headers = set()  # session date lines printed
        dated = {}  # session date line -> the entries listed under it
        opened = set()
        heads = {}  # clipped unit -> the end of its long head
        long_steps = {}  # clipped unit -> the long-head steps taken
    lit_ptr, lit_idx, head_ptr, head_idx = r.lit_lists
    item_of = r.item_of
    # (read a unit or a message at a time, thousands of times a pass: views whose reads are
    # Python numbers, not numpy's scalars; the decisions' view is written through)
    dv = memoryview(decision)
    u_msg, owner_of_msg, date_unit, list_head, msg_start = map(
        _flat, (r.u_msg, r.owner_of_msg, r.date_unit, r.list_head, r.msg_start))
    in_short, opening = memoryview(r.in_short), memoryview(r.opening)
    overhead, question_unit, question_cost, queue, item_costs, kinds, targets, costs, floor, blocks = r.lists
    left = room if back is None else back.left
    used = 0.0 if back is None else back.snap.used  # tokens the record's items and entry labels take
    # queue: record items, best first; queue[next_item] is the best not tried
    next_item = 0 if back is None else back.snap.next_item
    reserve = min(r.reserve, room)
    value_cost, note_cap = r.value_cost, r.note_cap
    # Gap marks and speaker labels, as the renderer writes them (see :class:`.gaps.Gaps`).
    texts = Gaps(r, decision)
    if back is not None:
        texts.shown = texts_shown
    unit_mark = r.mark_estimate
    item_msgs, item_dated = r.item_lists

    def show_literal(lit: int) -> float:
        """Mark a literal shown; returns the room freed by the record item it makes redundant."""
        shown_lits[lit] = True
        k = by_literal.pop(lit, None)
        if k is None:
            return 0.0
        item = item_of[k]
        covers = item.covers
        if len(covers) > 1:
            for c in covers:  # (a loop, not a generator: a code line's values, a few hundred a pass)
                if by_literal.get(c) == k:
                    return 0.0  # the item's line still lists a value the view does not show
        nonlocal used
        freed = taken.pop(k)
        ops.append(~k)
        m = item.message
        if item.key is not None:
            scope = item.group if item.row is not None else -1
            keys[m, scope, item.key] -= 1
            if not keys[m, scope, item.key]:
                del keys[m, scope, item.key]
        if k in in_rows:
            in_rows.discard(k)
            rows[item.group] -= 1
            if not rows[item.group]:
                del rows[item.group]
                freed += r.row_cost.get(item.group, 0.0)
        entries[m] -= 1
        if not entries[m]:
            del entries[m]
            freed += r.entry_cost[m]
            header = r.header_of[m]
            if header is not None and header in dated:
                dated[header] -= 1
                if not dated[header]:  # the session's last entry left: its date line goes too
                    del dated[header]
                    headers.discard(header)
                    freed += r.header_cost[header]
        used -= freed
        return freed

    # (a unit stating many values, a tool output's, is marked at once: numpy's calls cost
    # less than a read of each of its values from a few dozen on)
    shown_at = np.frombuffer(shown_lits, dtype=np.bool_)  # (the same bytes)
    lit_at, head_at = np.asarray(lit_idx), np.asarray(head_idx)

    def show(units: Any, head: bool) -> float:
        """Mark the literals of these units (their heads) shown; returns the room freed."""
        ptr, idx, at = (head_ptr, head_idx, head_at) if head else (lit_ptr, lit_idx, lit_at)
        freed = 0.0
        for u in (units.tolist() if isinstance(units, np.ndarray) else units):
            start, end = ptr[u], ptr[u + 1]
            if end - start > 24:
                lits = at[start:end]
                lits = lits[~shown_at[lits]]
                if by_literal:  # (in order, as below: a value stated twice is no longer listed)
                    for lit in lits.tolist():
                        if lit in by_literal:
                            freed += show_literal(lit)
                shown_at[lits] = True
                continue
            for lit in idx[start:end]:
                if not shown_lits[lit]:  # (a value stated twice frees nothing twice)
                    if lit in by_literal:
                        freed += show_literal(lit)
                    else:  # (most values: no item lists them, nothing is freed)
                        shown_lits[lit] = True
        return freed

    results = r.cols.pairs.results

    def framed(call: int, but: int) -> float:
        """The framing of the results a call's showing shows (each at least a placeholder),
        but message ``but`` (whose own is counted with it)."""
        return sum(overhead[m] for m in results.get(call, ()) if m != but and not msg_shown[m])

    def answers(call: int) -> None:
        for m in results.get(call, ()):
            msg_shown[m] = True

    n_queue = len(queue)

    def fill_reserve() -> None:
        """The record's first claim: its best items, while it holds less than the reserve."""
        nonlocal next_item, short
        while next_item < n_queue:
            k = queue[next_item]
            cost = item_costs[k]
            if used + cost > reserve:
                return  # the best item left waits for room
            if cost > left:
                if cost - left < short:
                    short = cost - left
                return
            try_item(k, cost)  # (near the note's cap, most of the queue is passed over)
            next_item += 1

    entry_cost, header_of, row_cost, header_cost, header_items = \
        r.entry_cost, r.header_of, r.row_cost, r.header_cost, r.header_items
    values_line = r.values_line
    least_line = min(values_line, 0.0)

    def try_item(k: int, cost: float) -> None:
        """Take item ``k`` if it fits. First a bound on what taking it adds (its cost, less
        what its key's earlier value saves, plus its entry's label if its message has no
        entry yet), worked out without its key, row and session: a long history's take tries
        thousands a pass near the note's cap, most refused by it. (A bound: what is added on
        top is never negative, so the sums below are never below these.)"""
        nonlocal left, used, short
        if k in taken:
            return
        m = item_msgs[k]
        saved = value_cost.get(k)
        least = 0.0 if saved is None or saved >= cost else saved - cost
        if item_dated[k]:
            if not LONE_DATES:
                return  # (a date line is listed above an entry of its session, not alone)
        elif m not in entries:
            least += entry_cost[m]
        if not taken:  # (the line opening the entries: a count less a count, taken as it is if negative)
            least += least_line
        if not (cost + least <= left and used + cost + least <= note_cap):
            if cost + least > left and cost + least - left < short:
                short = cost + least - left
            return
        item = item_of[k]
        dated_line = item.header
        fresh = item.covers
        if len(fresh) == 1:  # (most items: one value, read without a generator)
            if shown_lits[fresh[0]] or fresh[0] in by_literal:
                return
        elif dated_line:
            if any(shown_lits[c] or c in by_literal for c in fresh):
                return
        else:  # a code line's values: worth listing while one of them is neither shown nor listed
            fresh = []
            for c in item.covers:  # (a loop: a comprehension is a call of its own, a few hundred a pass)
                if not shown_lits[c] and c not in by_literal:
                    fresh.append(c)
            if not fresh:
                return
        header = item.text if dated_line else header_of[m]
        key, row, group = item.key, item.row, item.group
        extra = 0.0
        scope = group if row is not None else -1
        if key is not None and (m, scope, key) in keys:
            extra = value_cost.get(k, cost) - cost  # ", value" after its key's first value
        if row is not None and group not in rows and item.text != row:
            extra += row_cost.get(group, 0.0)  # (a record's first field alone is listed as any value)
        new_entry = m not in entries
        if not dated_line and new_entry:
            extra += entry_cost[m]
        if not taken:
            extra += values_line
        session = None
        if header is not None and header not in headers and not dated_line:
            session = header_items.get(header)
            extra += header_cost[header]
        if cost + extra > left or used + cost + extra > note_cap:
            if cost + extra > left and cost + extra - left < short:
                short = cost + extra - left
            return
        d = -(cost + extra)  # (``left -= cost + extra``, kept as the change it is)
        left += d
        deltas.append(d)
        used += cost + extra
        if header is not None:
            headers.add(header)
        if dated_line:
            taken[k] = cost
            ops.append(k)
            return
        taken[k] = cost + (extra if extra <= 0.0 else 0.0)  # (min(extra, 0.0))
        ops.append(k)
        for c in fresh:
            by_literal[c] = k
        if new_entry and header is not None:
            dated[header] = dated.get(header, 0) + 1
        entries[m] = entries.get(m, 0) + 1
        if key is not None:
            keys[m, scope, key] = keys.get((m, scope, key), 0) + 1
        if row is not None and (group in rows or item.text != row):
            rows[group] = rows.get(group, 0) + 1
            in_rows.add(k)
        if session is not None and session not in taken:
            taken[session] = 0.0  # the date line printed above this entry
            ops.append(session)

    steps: list[tuple[int, float]]  # (a rank position, the room spent before it), where it changed
    if back is None:
        for msg in sorted(r.protected):  # the protected messages' sessions are dated first
            date = int(r.date_unit[msg])
            if date < 0 or decision[date] != OMITTED:
                continue
            session = int(u_msg[date])
            cost = r.date_cost[date] + (0.0 if msg_shown[session] else overhead[session])
            if cost <= left:
                msg_shown[session] = True
                texts.shown[session] = 1
                decide(date, KEPT)
                d = show([date], False) - cost
                if d:  # (a change of nothing is none: see :mod:`.trail`)
                    left += d
                    deltas.append(d)
            elif cost - left < short:
                short = cost - left
        fill_reserve()
        options = enumerate(islice(zip(kinds, targets, costs), stop))
        steps = []
        last = left
    else:
        options = enumerate(islice(zip(kinds, targets, costs), back.snap.pos, stop), back.snap.pos)
        steps, last, short = back.steps, back.last, back.snap.short
    # (a snapshot the first time the room left is below this: see :mod:`.trail`)
    level = -inf if trail is None else room / LIMITS.trail_ratio ** 2
    if trail is not None:
        trail.first = len(deltas)
    for pos, (kind, target, cost) in options:
        if left < level:
            if short > keep:  # type: ignore[operator]  (a snapshot a take of ``room + keep`` may go on from)
                trail.snaps.append(Snapshot(  # type: ignore[union-attr]
                    pos, len(deltas), step_deltas[-1] if step_deltas else trail.first,  # type: ignore[union-attr]
                    short, used, next_item, len(ops), len(marks), len(steps), decision.copy(), set(calls_present),
                    bytes(shown_lits), bytes(msg_shown), bytes(texts.shown), dict(taken), dict(by_literal),
                    dict(entries), dict(keys), dict(rows), set(in_rows), set(headers), dict(dated), set(opened),
                    dict(heads), dict(long_steps)))
                level = left / LIMITS.trail_ratio
            else:  # (no take of more room by ``keep`` decides the same as this one from here on)
                level = -inf
        if left != last:
            steps.append((pos, room - left))
            marks.append(len(ops))
            step_deltas.append(len(deltas))
            last = left
        if used < reserve and next_item < n_queue and used + item_costs[queue[next_item]] <= reserve:
            fill_reserve()  # items it held were shown by units: the room goes to the next items
        if left < floor[pos]:
            if floor[pos] - left < short:
                short = floor[pos] - left
            break
        if cost > left:
            # Nothing changes until an option fits the room: the options before it are passed
            # over at once (the checks above, made at each, would read the same state and do
            # nothing; a long history's take passed over thousands of calls each pass).
            fits, least = _next_fitting(costs, blocks, pos + 1, left)
            if min(cost, least) - left < short:
                short = min(cost, least) - left
            if fits - pos - 1:
                next(islice(options, fits - pos - 2, fits - pos - 1), None)
            continue
        if kind == _ITEM:
            if target not in taken:  # (the reserve's items are taken before their turn in the ranking)
                try_item(target, cost)  # (once the record is near its cap, most items are passed over)
            continue
        if kind == _CALLS:
            if target in calls_present:
                continue
            extra = (0.0 if msg_shown[target] else overhead[target]) + framed(target, -1)
            if cost + extra > left:
                if cost + extra - left < short:
                    short = cost + extra - left
                continue
            call_shown(target)
            msg_shown[target] = True
            answers(target)
            decide(r.call_units[target], KEPT)
            d = show(r.call_units[target], False) - cost - extra
            if d:  # (a change of nothing is none: see :mod:`.trail`)
                left += d
                deltas.append(d)
            continue
        if kind == _LONG:
            unit, step = divmod(target, LIMITS.long_steps)
            if dv[unit] != CLIPPED or long_steps.get(unit, 0) != step:
                continue
            end, lits = r.long_head(unit, step)
            heads[unit] = end
            ops.append((None, unit, end))
            long_steps[unit] = step + 1
            left += -cost  # (``left -= cost``)
            deltas.append(-cost)
            for lit in lits:  # its literals, as show() marks them
                if not shown_lits[lit]:
                    d = show_literal(lit)
                    if d:  # (a change of nothing is none: see :mod:`.trail`)
                        left += d
                        deltas.append(d)
            continue
        if kind == _REST and dv[target] != CLIPPED:
            continue  # its clip is not shown: the rest alone means nothing
        if kind in (_CLIP, _FULL) and dv[target] != OMITTED:
            continue
        if kind == _OPEN and target in opened:
            continue
        msg = target if kind == _OPEN else u_msg[target]
        owner = owner_of_msg[msg]
        need_call = owner >= 0 and owner not in calls_present
        extra = 0.0
        if need_call:
            call = r.call_cost.get(owner)
            if call is None:
                continue
            extra += call + (0.0 if msg_shown[owner] else overhead[owner]) + framed(owner, msg)
        date = date_unit[msg]
        need_date = date >= 0 and dv[date] == OMITTED and not (
            date == target if kind != _OPEN else u_msg[date] == msg and in_short[date] and opening[date] == KEPT)
        if need_date:  # a message is shown with when it was said: its session's date line
            session = u_msg[date]
            extra += r.date_cost[date] + (0.0 if msg_shown[session] or session == msg else overhead[session])
        # A list item is shown under its heads ("1. **Flight HAT136**" above "- Price: $152",
        # and the heading above that), and so is one a message's opening shows.
        if kind == _OPEN:
            # (a short message's few units, read one by one: numpy's calls cost more than they do)
            us = [u for u in range(msg_start[target], msg_start[target + 1]) if in_short[u]]
            need_heads = _heads_to_show(list_head, dv, [u for u in us if opening[u] != OMITTED], lit_ptr)
            # A unit of it already shown (the question a reply was shown with) is paid for.
            paid = [u for u in us if dv[u] != OMITTED]
            if paid:
                cost -= float(np.where(r.opening[paid] == KEPT, r.head_tokens[paid], r.cols.u_clip.view[paid]).sum()) \
                    + unit_mark * len(paid)
            cost = (cost - unit_mark * (len(us) - len(paid))) * texts.seam(msg) + texts.opening(target, us)
        elif kind in (_CLIP, _FULL) and list_head[target] >= 0:
            need_heads = _heads_to_show(list_head, dv, [target], lit_ptr)
        else:
            need_heads = []
        if need_heads:
            extra += sum(float(r.head_tokens[h]) for h in need_heads)
        # The ranking's cost holds a flat mark a unit; what it adds is the gap marks its
        # neighbours leave (none between units shown side by side) and the speaker label.
        # Units shown side by side share tokens at their seams (the message's whole text
        # counts fewer than its units one by one): the ranking's costs are scaled by that.
        if kind == _REST:
            cost = cost * texts.seam(msg) + texts.rest(target)
        elif kind != _OPEN:
            cost = (cost - unit_mark) * texts.seam(msg) + texts.unit(target, kind == _CLIP)
        # A reply is shown with the question it answers (at least that question's head).
        asked = question_unit[msg] if kind != _REST else -1
        need_question = asked >= 0 and dv[asked] == OMITTED
        if need_question:
            asker = u_msg[asked]  # the message just before, or the one naming the talk's topic
            extra += (question_cost[msg] - unit_mark) * texts.seam(asker) + texts.unit(asked, opening[asked] == CLIPPED) \
                + (0.0 if msg_shown[asker] else overhead[asker] - texts.label[asker])
        if not msg_shown[msg]:
            extra += overhead[msg] - texts.label[msg]
        if cost + extra > left:
            if cost + extra - left < short:
                short = cost + extra - left
            continue
        freed = 0.0
        if need_question:
            msg_shown[asker] = True
            texts.shown[asker] = 1
            decide(asked, opening[asked])
            freed += show([asked], opening[asked] == CLIPPED)
        if need_heads:
            decide(need_heads, KEPT)
            freed += show(need_heads, False)
        if need_call:
            call_shown(owner)
            msg_shown[owner] = True
            answers(owner)
            decide(r.call_units[owner], KEPT)
            freed += show(r.call_units[owner], False)
        msg_shown[msg] = True
        texts.shown[msg] = 1
        if kind == _OPEN:
            opened.add(target)
            decide(us, [opening[u] for u in us])
            freed += show([u for u in us if opening[u] == KEPT], False) + show([u for u in us if opening[u] == CLIPPED], True)
        elif kind == _CLIP:
            dv[target] = CLIPPED  # (a unit's decision, written through its view)
            ops.append((target, CLIPPED))
            freed += show([target], True)
        else:
            dv[target] = KEPT
            ops.append((target, KEPT))
            freed += show([target], False)
        if need_date:  # (after an opening's own decisions: they may leave its date line out)
            msg_shown[u_msg[date]] = True
            texts.shown[u_msg[date]] = 1
            decide(date, KEPT)
            freed += show([date], False)
        d = freed - cost - extra
        if d:  # (a change of nothing is none: see :mod:`.trail`)
            left += d
            deltas.append(d)
    return Chosen(decision, calls_present, _listed(r, taken), heads, room - left, steps, journal, used, trail)


def _listed(r: Ranked, taken: Iterable[int]) -> list[Item]:
    """The record items a take listed, from the ones it took (in their order)."""
    listed = [r.item_of[k] for k in sorted(taken)]
    if not LONE_DATES and r.header_items:  # a date line whose entries all left the record leaves too
        dated = {r.header_of[it.message] for it in listed if not it.header}
        listed = [it for it in listed if not it.header or it.text in dated]
    return listed


@dataclass
class Journal:
    """How a take made its choices, in order (``ops``): each decision written, ``(units,
    value)``; each call shown, ``(call,)``; each record item taken, ``k``, or given back,
    ``~k``; each longer head, ``(None, unit, end)``; and, at each of its steps
    (``Chosen.steps``), how many it had made (``marks``). The take stopped at a step is
    these replayed up to that step's mark (:func:`rewound`)."""

    ops: list[Any] = field(default_factory=list)
    marks: list[int] = field(default_factory=list)


def rewound(r: Ranked, chosen: Chosen, stop: int) -> Chosen:
    """The take ``chosen`` stopped at rank position ``stop``, one of its steps (as
    ``_take(r, room, stop)`` makes it, without taking again: its journal replayed to there)."""
    journal = chosen.journal
    at = bisect_left(chosen.steps, stop, key=itemgetter(0))
    if journal is None or at == len(chosen.steps) or chosen.steps[at][0] != stop:
        raise ValueError(f"rank position {stop} is not a step of this take")
    decision = r.base.copy()
    calls_present = set(r.calls_forced)
    taken: dict[int, None] = {}
    heads: dict[int, int] = {}
    for op in islice(journal.ops, journal.marks[at]):
        if type(op) is not tuple:  # an item: taken (k) or given back (~k)
            if op >= 0:
                taken[op] = None
            else:
                del taken[~op]
        elif len(op) == 2:
            decision[op[0]] = op[1]
        elif len(op) == 1:
            calls_present.add(op[0])
        else:
            heads[op[1]] = op[2]
    return Chosen(decision, calls_present, _listed(r, taken), heads, chosen.steps[at][1], chosen.steps[:at],
                  replace(journal, marks=journal.marks[:at]))


def cut_at(chosen: Chosen, spend: float) -> int | None:
    """The rank position to stop a take at (``_take``'s ``stop``) so that it spends at most
    ``spend``: its lowest-ranked choices are dropped, the others kept as they were. None:
    no position does (even the choices made before the first option spend more)."""
    for pos, spent in reversed(chosen.steps):
        if spent <= spend:
            return pos
    return None


def _next_fitting(costs: memoryview, blocks: memoryview, at: int, room: float) -> tuple[int, float]:
    """The first position from ``at`` on whose option costs at most ``room`` (the number of
    options if none does), passing a block of sixteen whose least cost is above it at once;
    and the least cost of the options passed (infinite if none)."""
    n = len(costs)
    least = inf
    while at < n:
        if not at % 16:
            block = blocks[at // 16]
            if block > room:
                if block < least:
                    least = block
                at += 16
                continue
        cost = costs[at]
        if cost <= room:
            return at, least
        if cost < least:
            least = cost
        at += 1
    return n, least


def _heads_to_show(list_head: memoryview, decision: memoryview, units: list[int], lit_ptr: memoryview) -> list[int]:
    """The heads ``units`` need shown above them: each one's list item or label, and the
    ones above that, up to ``Limits.max_heads`` each, that the view does not show yet. A head shown
    where it last occurs is shown here again if it names something ("1. **Reservation ID:
    JG7FMM**", repeated in a later summary); a label that names nothing ("- **Flights:**"
    under each reservation) is passed: the head above it says whose flights these are."""
    need: list[int] = []
    for u in units:
        head, taken = list_head[u], 0
        while head >= 0 and decision[head] in (OMITTED, DEDUPLICATED) and taken < LIMITS.max_heads:
            if head not in units and (decision[head] == OMITTED or lit_ptr[head + 1] > lit_ptr[head]):
                if head not in need:
                    need.append(head)
                taken += 1
            head = list_head[head]
    return need

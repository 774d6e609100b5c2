"""The take: options in rank order while they fit the room."""

from __future__ import annotations

from itertools import islice
from typing import Any

import numpy as np

from ..plan import CLIPPED, DEDUPLICATED, KEPT, OMITTED
from .limits import LIMITS
from .types import _CALLS, _CLIP, _FULL, _ITEM, _LONG, _OPEN, _REST, Chosen, Ranked


LONE_DATES = False
"""Whether a session's date line may be listed alone, for its own values: "[7:06 pm on 9
January, 2023]" says nothing of what happened then. It is listed above the entries of its
session instead (see ``_take``)."""


def _take(r: Ranked, room: float) -> Chosen:
    """Options in rank order while they fit ``room`` (see the module docstring, step 4)."""
    decision = r.base.copy()
    calls_present = set(r.calls_forced)
    # (read an item at a time, a few thousand times a view: a byte per literal, not numpy's scalars)
    shown_lits = bytearray(r.shown_lits.astype(np.bool_).tobytes())
    msg_shown = np.zeros(len(r.msg_overhead), dtype=bool)
    msg_shown[list(r.protected | r.calls_forced)] = True
    taken: dict[int, float] = {}  # record item -> the room it took
    by_literal: dict[int, int] = {}  # literal -> the (non-header) item listing it
    entries: dict[int, int] = {}  # message -> how many of its items are listed
    keys: dict[tuple[int, int, str], int] = {}  # (message, record group or -1, key) -> values listed under it
    rows: dict[int, int] = {}  # a record's group -> how many of its values are listed under its head
    in_rows: set[int] = set()  # the items counted there
    headers: set[str] = set()  # session date lines printed
    opened: set[int] = set()
    heads: dict[int, int] = {}  # clipped unit -> the end of its long head
    long_steps: dict[int, int] = {}  # clipped unit -> the long-head steps taken
    lit_ptr, lit_idx, head_ptr, head_idx = r.lit_lists
    item_of = r.item_of
    u_msg = r.u_msg
    overhead, question_unit, question_cost, queue, item_costs, kinds, targets, costs, floor, blocks = r.lists
    left = room
    used = 0.0  # tokens the record's items and entry labels take
    next_item = 0  # queue: record items, best first; queue[next_item] is the best not tried
    reserve = min(r.reserve, room)
    value_cost, note_cap = r.value_cost, r.note_cap
    item_msgs, item_dated = r.item_lists

    def show_literal(lit: int) -> float:
        """Mark a literal shown; returns the room freed by the record item it makes redundant."""
        shown_lits[lit] = True
        k = by_literal.pop(lit, None)
        if k is None:
            return 0.0
        item = item_of[k]
        if len(item.covers) > 1 and any(by_literal.get(c) == k for c in item.covers):
            return 0.0  # the item's line still lists a value the view does not show
        nonlocal used
        freed = taken.pop(k)
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
        used -= freed
        return freed

    def show(units: Any, head: bool) -> float:
        """Mark the literals of these units (their heads) shown; returns the room freed."""
        ptr, idx = (head_ptr, head_idx) if head else (lit_ptr, lit_idx)
        freed = 0.0
        for u in (units.tolist() if isinstance(units, np.ndarray) else units):
            for lit in idx[ptr[u]:ptr[u + 1]]:
                if not shown_lits[lit]:  # (a value stated twice frees nothing twice)
                    freed += show_literal(lit)
        return freed

    def fill_reserve() -> None:
        """The record's first claim: its best items, while it holds less than the reserve."""
        nonlocal next_item
        while next_item < len(queue):
            k = queue[next_item]
            cost = item_costs[k]
            if used + cost > reserve or cost > left:
                return  # the best item left waits for room
            if may_take(k, cost):  # (near the note's cap, most of the queue is passed so)
                take_item(k, cost)
            next_item += 1

    def may_take(k: int, cost: float) -> bool:
        """Whether item ``k`` may fit: False where take_item would refuse it by a bound on what
        taking it adds (its cost, less what its key's earlier value saves, plus its entry's
        label if its message has no entry yet), worked out without its key, row and session;
        a long history's take tried thousands a pass near the note's cap. (A bound: what
        take_item adds on top is never negative, so its sums are never below these.)"""
        if k in taken:
            return False
        saved = value_cost.get(k)
        least = 0.0 if saved is None or saved >= cost else saved - cost
        if item_dated[k]:
            if not LONE_DATES:
                return False  # (a date line is listed above an entry of its session, not alone)
        elif item_msgs[k] not in entries:
            least += r.entry_cost[item_msgs[k]]
        if not taken:  # (the line opening the entries: a count less a count, taken as it is if negative)
            least += min(r.values_line, 0.0)
        return cost + least <= left and used + cost + least <= note_cap

    def take_item(k: int, cost: float) -> bool:
        nonlocal left, used
        item = item_of[k]
        if k in taken or (item.header and not LONE_DATES):
            return False  # (a date line is listed above an entry of its session, not alone)
        fresh = item.covers
        if len(fresh) == 1:  # (most items: one value, read without a generator)
            if shown_lits[fresh[0]] or fresh[0] in by_literal:
                return False
        elif item.header:
            if any(shown_lits[c] or c in by_literal for c in fresh):
                return False
        else:  # a code line's values: worth listing while one of them is neither shown nor listed
            fresh = tuple(c for c in fresh if not shown_lits[c] and c not in by_literal)
            if not fresh:
                return False
        m = item.message
        header = item.text if item.header else r.header_of[m]
        extra = 0.0
        scope = item.group if item.row is not None else -1
        if item.key is not None and (m, scope, item.key) in keys:
            extra = r.value_cost.get(k, cost) - cost  # ", value" after its key's first value
        if item.row is not None and item.group not in rows and item.text != item.row:
            extra += r.row_cost.get(item.group, 0.0)  # (a record's first field alone is listed as any value)
        if not item.header and m not in entries:
            extra += r.entry_cost[m]
        if not taken:
            extra += r.values_line
        session = None
        if header is not None and header not in headers and not item.header:
            session = r.header_items.get(header)
            extra += r.header_cost[header]
        if cost + extra > left or used + cost + extra > r.note_cap:
            return False
        left -= cost + extra
        used += cost + extra
        headers.update([header] if header is not None else [])
        if item.header:
            taken[k] = cost
            return True
        taken[k] = cost + min(extra, 0.0)
        by_literal.update((c, k) for c in fresh)
        entries[m] = entries.get(m, 0) + 1
        if item.key is not None:
            keys[m, scope, item.key] = keys.get((m, scope, item.key), 0) + 1
        if item.row is not None and (item.group in rows or item.text != item.row):
            rows[item.group] = rows.get(item.group, 0) + 1
            in_rows.add(k)
        if session is not None and session not in taken:
            taken[session] = 0.0  # the date line printed above this entry
        return True

    for msg in sorted(r.protected):  # the protected messages' sessions are dated first
        date = int(r.date_unit[msg])
        if date < 0 or decision[date] != OMITTED:
            continue
        session = int(u_msg[date])
        cost = r.date_cost[date] + (0.0 if msg_shown[session] else overhead[session])
        if cost <= left:
            msg_shown[session] = True
            decision[date] = KEPT
            left += show([date], False) - cost
    fill_reserve()
    options = enumerate(zip(kinds, targets, costs))
    for pos, (kind, target, cost) in options:
        if used < reserve and next_item < len(queue) and used + item_costs[queue[next_item]] <= reserve:
            fill_reserve()  # items it held were shown by units: the room goes to the next items
        if left < floor[pos]:
            break
        if cost > left:
            # Nothing changes until an option fits the room: the options before it are passed
            # over at once (the checks above, made at each, would read the same state and do
            # nothing; a long history's take passed over thousands of calls each pass).
            skip = _next_fitting(costs, blocks, pos + 1, left) - pos - 1
            if skip:
                next(islice(options, skip - 1, skip), None)
            continue
        if kind == _ITEM:
            # (once the record is near its cap, most items are passed over for it: may_take)
            if may_take(target, cost):
                take_item(target, cost)
            continue
        if kind == _CALLS:
            if target in calls_present:
                continue
            extra = 0.0 if msg_shown[target] else overhead[target]
            if cost + extra > left:
                continue
            calls_present.add(target)
            msg_shown[target] = True
            decision[r.call_units[target]] = KEPT
            left += show(r.call_units[target], False) - cost - extra
            continue
        if kind == _LONG:
            unit, step = divmod(target, LIMITS.long_steps)
            if decision[unit] != CLIPPED or long_steps.get(unit, 0) != step:
                continue
            end, lits = r.long_head(unit, step)
            heads[unit] = end
            long_steps[unit] = step + 1
            left -= cost
            for lit in lits:  # its literals, as show() marks them
                if not shown_lits[lit]:
                    left += show_literal(lit)
            continue
        if kind == _REST and decision[target] != CLIPPED:
            continue  # its clip is not shown: the rest alone means nothing
        if kind in (_CLIP, _FULL) and decision[target] != OMITTED:
            continue
        if kind == _OPEN and target in opened:
            continue
        msg = target if kind == _OPEN else int(u_msg[target])
        owner = int(r.owner_of_msg[msg])
        need_call = owner >= 0 and owner not in calls_present
        extra = 0.0
        if need_call:
            call = r.call_cost.get(owner)
            if call is None:
                continue
            extra += call + (0.0 if msg_shown[owner] else overhead[owner])
        date = int(r.date_unit[msg])
        need_date = date >= 0 and decision[date] == OMITTED and not (
            date == target if kind != _OPEN else u_msg[date] == msg and r.in_short[date] and r.opening[date] == KEPT)
        if need_date:  # a message is shown with when it was said: its session's date line
            session = int(u_msg[date])
            extra += r.date_cost[date] + (0.0 if msg_shown[session] or session == msg else overhead[session])
        # A list item is shown under its heads ("1. **Flight HAT136**" above "- Price: $152",
        # and the heading above that), and so is one a message's opening shows.
        if kind == _OPEN:
            first = int(r.msg_start[target])
            us = np.flatnonzero(r.in_short[first:int(r.msg_start[target + 1])]) + first
            need_heads = _heads_to_show(r, decision, us[r.opening[us] != OMITTED].tolist(), lit_ptr)
        elif kind in (_CLIP, _FULL) and r.list_head[target] >= 0:
            need_heads = _heads_to_show(r, decision, [target], lit_ptr)
        else:
            need_heads = []
        if need_heads:
            extra += sum(float(r.head_tokens[h]) for h in need_heads)
        # A reply is shown with the question it answers (at least that question's head).
        asked = question_unit[msg] if kind != _REST else -1
        need_question = asked >= 0 and decision[asked] == OMITTED
        if need_question:
            asker = int(u_msg[asked])  # the message just before, or the one naming the talk's topic
            extra += question_cost[msg] + (0.0 if msg_shown[asker] else overhead[asker])
        if not msg_shown[msg]:
            extra += overhead[msg]
        if cost + extra > left:
            continue
        freed = 0.0
        if need_question:
            msg_shown[asker] = True
            decision[asked] = r.opening[asked]
            freed += show([asked], bool(r.opening[asked] == CLIPPED))
        if need_heads:
            decision[need_heads] = KEPT
            freed += show(need_heads, False)
        if need_call:
            calls_present.add(owner)
            msg_shown[owner] = True
            decision[r.call_units[owner]] = KEPT
            freed += show(r.call_units[owner], False)
        msg_shown[msg] = True
        if kind == _OPEN:
            opened.add(target)
            decision[us] = r.opening[us]
            freed += show(us[r.opening[us] == KEPT], False) + show(us[r.opening[us] == CLIPPED], True)
        elif kind == _CLIP:
            decision[target] = CLIPPED
            freed += show([target], True)
        else:
            decision[target] = KEPT
            freed += show([target], False)
        if need_date:  # (after an opening's own decisions: they may leave its date line out)
            msg_shown[u_msg[date]] = True
            decision[date] = KEPT
            freed += show([date], False)
        left += freed - cost - extra
    listed = [r.item_of[k] for k in sorted(taken)]
    if not LONE_DATES and r.header_items:  # a date line whose entries all left the record leaves too
        dated = {r.header_of[it.message] for it in listed if not it.header}
        listed = [it for it in listed if not it.header or it.text in dated]
    return Chosen(decision, calls_present, listed, heads, room - left)


def _next_fitting(costs: list[float], blocks: list[float], at: int, room: float) -> int:
    """The first position from ``at`` on whose option costs at most ``room`` (the number of
    options if none does), passing a block of sixteen whose least cost is above it at once."""
    n = len(costs)
    while at < n:
        if not at % 16 and blocks[at // 16] > room:
            at += 16
            continue
        if costs[at] <= room:
            return at
        at += 1
    return n


def _heads_to_show(r: Ranked, decision: np.ndarray, units: list[int], lit_ptr: memoryview) -> list[int]:
    """The heads ``units`` need shown above them: each one's list item or label, and the
    ones above that, up to ``Limits.max_heads`` each, that the view does not show yet. A head shown
    where it last occurs is shown here again if it names something ("1. **Reservation ID:
    JG7FMM**", repeated in a later summary); a label that names nothing ("- **Flights:**"
    under each reservation) is passed: the head above it says whose flights these are."""
    need: list[int] = []
    for u in units:
        head, taken = int(r.list_head[u]), 0
        while head >= 0 and decision[head] in (OMITTED, DEDUPLICATED) and taken < LIMITS.max_heads:
            if head not in units and (decision[head] == OMITTED or lit_ptr[head + 1] > lit_ptr[head]):
                if head not in need:
                    need.append(head)
                taken += 1
            head = int(r.list_head[head])
    return need

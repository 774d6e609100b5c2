"""Ranking: every option of a view (calls, a short message's opening, a clip, the rest of
a clip, a unit whole, a record item, a longer head) by value per token."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ..columns import Columns
from ..literals import PATTERN_KINDS
from ..outline import head_text, list_heads
from ..plan import CLIPPED, DEDUPLICATED, KEPT, OMITTED, PLACEHOLDER
from ..record import VALUES_LINE, comment_units, date_headers, is_date_header, not_values, system_messages, \
    system_only_literals, title_case
from ..replies import question_units
from ..units import Unit, before_values, head_literal_texts
from .candidates import _items
from .gains import _focus_gains, _kind_values, _note_cap, _rank_within, _record_share, _unit_kind_weights, \
    messages_with_units
from .names import names_result
from .limits import LIMITS
from .sets import member
from .sources import row_units
from .signals import _outputs, failed_result, listing_messages, outcome_lines
from .types import _CALL, _CALLS, _CLIP, _FULL, _HEADING, _ITEM, _LINE_KIND, _LISTED, _LONG, _OPEN, \
    _REST, Ranked, Scene


@dataclass
class _Headings:
    """What the ranking reads of units and messages already appended (the conversation's
    memo, see ``Columns.memo``: a unit's text never changes)."""

    titles: list[bool] = field(default_factory=list)
    """Per unit: a heading written as a title (:func:`_stating_headings`)."""
    date_units: list[int] = field(default_factory=list)
    """Per message: the unit of its session's date line, or -1 (:func:`_date_units`)."""
    owners: list[int] = field(default_factory=list)
    """Per message: the assistant message whose call it answers, or -1 (:func:`_owners`)."""


def _rank(scene: Scene, protected: frozenset[int], outlined: frozenset[int] = frozenset()) -> Ranked:
    cols, options = scene.cols, scene.options
    pol = options.policy
    n_msgs = len(cols)
    units = cols.units
    n_units = len(units)
    u_msg = cols.u_msg.view
    kind = cols.u_kind.view
    is_call = kind == _CALL
    tokens = cols.u_tokens.view
    results, orphans, unanswered = cols.tool_groups()
    result_owner = cols.pairs.owner

    prot_msg = np.zeros(n_msgs, dtype=bool)
    prot_msg[list(protected)] = True
    calls_forced = {result_owner[r] for r in protected if r in result_owner}
    calls_forced |= {a for a in protected if a in results}
    prot_u = prot_msg[u_msg]
    decision = np.zeros(n_units, dtype=np.int8)
    decision[prot_u] = KEPT
    forced_msg = np.zeros(n_msgs, dtype=bool)
    forced_msg[list(calls_forced)] = True
    decision[is_call & forced_msg[u_msg]] = KEPT

    winner = cols.key_newest.view[cols.u_key.view]
    # A repeat, in a newer message or later in its own, leaves only its newest copy.
    dedup = (~prot_u) & (~is_call) & (winner != np.arange(n_units)) & (tokens >= options.dedup_min_tokens)
    if dedup.any():
        # The same text read in another message may hold other values (a message's language
        # and a paragraph decide a piece's names): a copy whose newest copy lacks one of its
        # values is no repeat of it, or that value would be neither shown nor listed.
        repeats = _lacking(cols, np.flatnonzero(dedup), winner)
        dedup[repeats] = False
    decision[dedup] = DEDUPLICATED

    # What a unit says: its values, and its content words weighted by rarity.
    system_only = system_only_literals(cols)
    in_system = system_messages(cols)[u_msg]
    not_said = not_values(cols, np.zeros_like(system_only))
    noise = not_said | system_only
    # A value only the system prompt states is no entry of the record (the caller wrote the
    # prompt and has it), but where the prompt itself is cut to fit, it is what its sentence
    # says: "Each extra baggage is 50 dollars." (An example's value in another message
    # is still worth nothing: ``s/old_string/new_string/g``.)
    if system_only.any():
        not_said |= system_only & ~(cols.literal_counts(in_system) > 0)
    kind_value = _kind_values(pol, cols.lit_kind_names)
    value = np.where(not_said, 0.0, kind_value[cols.lit_kind.view] if len(kind_value) else 0.0)
    # (A call's words are for the focus to find it by: what it is worth is its values.)
    words = np.where(is_call, 0.0, cols.word_weights(pol.idf_power))
    info = cols.per_unit_sum(value, kept=True) + words
    head_info = cols.per_unit_sum(value, head=True, kept=True) + cols.u_head_share.view * words
    # (read at units only: computed at the messages with one, not over the messages past a
    # memory's horizon, which have none; units are in message order)
    index = messages_with_units(cols)
    age = (n_msgs - 1 - index).astype(np.float64)
    recency = np.ones(n_msgs)
    recency[index] = 1.0 + pol.recency * index / max(n_msgs - 1, 1) + pol.recent * np.exp(-age / pol.recent_span)
    first_user = next((m.index for m in cols.messages if m.role == "user"), None)
    if first_user is not None:
        recency[first_user] *= pol.task
    outputs = _outputs(cols)
    weight = recency[u_msg] * _unit_kind_weights(pol)[kind] * np.where(outputs[u_msg], pol.output_weight, 1.0)
    # A command's verdict: the last line of its output ("12 passed in 0.15s", the error it
    # stopped at) says how it went, where the header above it ("IS_CRON: undefined") says little.
    verdicts = outcome_lines(cols, outputs, info) if pol.outcome != 1.0 and outputs.any() else None
    if verdicts is not None:
        weight[verdicts] *= pol.outcome
    # The lines of a listing: the agent can list them again, and a name picked here and
    # there from a file tree ("setup.cfg … tox.ini … logger.py") tells nothing.
    weight[listing_messages(cols, outputs)[u_msg] & _LINE_KIND[kind]] *= pol.listing_view
    # What a template asks of its author, in HTML comments: no reader of the text sees it.
    weight[comment_units(cols)] *= pol.boilerplate
    if first_user is not None:  # the task's lead: where it says what is asked
        first, end = int(cols.msg_start.view[first_user]), int(cols.msg_start.view[first_user + 1])
        before = np.cumsum(tokens[first:end]) - tokens[first:end]
        if len(before) and before[-1] > 3 * pol.task_lead_tokens:  # (a short task is all lead)
            lead = before < pol.task_lead_tokens
            weight[first:end][lead] *= pol.task_lead
            weight[first:end][~lead] /= pol.task  # its body: instructions, worth what any text is
    # A system prompt's date is the conversation's "now" ("The current time is 2024-05-15
    # 15:00:00 EST.", "Today's date is 2025-08-19."): what a cancellation window, an age or
    # "tomorrow" is reckoned from, and said once.
    if pol.now != 1.0 and in_system.any():
        # (per kind, and a slot past them for a kind not seen, code -1: one lookup a literal)
        when = np.zeros(len(cols.lit_kind_names) + 1, dtype=bool)
        when[[cols.kind_code(k) for k in ("date", "datetime")]] = True
        when = when[cols.lit_kind.view]
        prompt = np.flatnonzero(in_system)
        weight[prompt[_states(cols, prompt, when)]] *= pol.now
    # A heading alone says little (its section says it): it opens like boilerplate.
    opening = pol.opening * np.where((info > 0) & (kind != _HEADING), 1.0, pol.boilerplate)
    full_gain = weight * (opening + info)
    clip_gain = weight * (opening + np.minimum(head_info, info))
    if outlined:  # a long system prompt's outline: each unit's opening before the conversation's text
        in_outline = np.isin(u_msg, list(outlined))
        more = np.where(in_outline, clip_gain * (pol.system_opening - 1.0), 0.0)
        clip_gain = clip_gain + more
        full_gain = full_gain + more
    rel = scene.relevance
    focus = pol.focus * (pol.question if scene.asks else pol.remark if scene.remark else 1.0)
    if rel is not None and len(rel) == n_units and rel.any():
        focus_factor, context = _focus_gains(cols, rel, focus, scene.asks, pol)
        full_gain = full_gain * (1.0 + focus_factor + context)
        clip_gain = clip_gain * (1.0 + focus_factor * np.maximum(cols.u_head_share.view, 0.5) + context)
    else:
        rel = None
    # Diminishing returns in one message: its k-th best unit (for this turn) is worth
    # 1 / (1 + k / K): fifty names out of a thousand-line listing do not tell fifty times
    # more than one.
    ratio = full_gain / np.maximum(tokens, 1.0)
    damp = 1.0 / (1.0 + _rank_within(u_msg, ratio) / np.where(_LISTED[kind], pol.per_message, pol.per_message_prose))
    full_gain *= damp
    clip_gain *= damp

    # Options: bring back an assistant's calls; a short message's opening; a unit's
    # clip, the rest after a clip, or the unit whole.
    blocked = np.zeros(n_msgs, dtype=bool)
    blocked[list(orphans)] = True
    for a in unanswered:
        if a not in calls_forced:
            blocked[results.get(a, [])] = True
    candidate = (decision == OMITTED) & ~is_call & ~blocked[u_msg] & ~prot_u

    # (read from the conversation's per-message arrays, not by a walk of every call and
    # result of the history on every view: 18,000 of them at 200,000 messages)
    owner_of_msg = _owners(cols)
    calls = _answered(cols, owner_of_msg)
    n_results = calls.counts
    picked = calls.callers[~forced_msg[calls.callers] & ~prot_msg[calls.callers]]
    closed = [a for a in unanswered | orphans if a < n_msgs]
    if closed:
        picked = picked[~np.isin(picked, closed)]
    open_call = np.zeros(n_msgs, dtype=bool)
    open_call[picked] = True
    call_msgs = picked.tolist()
    call_rows = u_msg[is_call]
    per_msg_cost = np.bincount(call_rows, weights=tokens[is_call], minlength=n_msgs)
    # A call made again later with the same arguments states nothing its newest copy does
    # not: shown, it costs its tokens and a placeholder for values the view already has (a
    # long session reads the same four files hundreds of times). Only the newest copy is
    # worth its values.
    newest_copy = winner[is_call] == np.flatnonzero(is_call)
    call_gain = np.bincount(call_rows, weights=np.where(newest_copy, full_gain[is_call], 0.0), minlength=n_msgs)
    if rel is not None and call_msgs:  # a call is worth what its results share with the focus
        msg_rel = np.zeros(n_msgs)
        np.maximum.at(msg_rel, u_msg, rel)  # once per view, not a scan of every unit per call
        result_msgs = calls.results
        result_msgs = result_msgs[open_call[owner_of_msg[result_msgs]]]
        call_rel = np.zeros(n_msgs)
        np.maximum.at(call_rel, owner_of_msg[result_msgs], msg_rel[result_msgs])
        call_gain[picked] *= 1.0 + focus * call_rel[picked]
    # The agent's last actions are its working state: the next one often repeats, retries
    # or continues them (same ids, same arguments).
    for j, a in enumerate(call_msgs[::-1][:8]):
        call_gain[a] *= 1.0 + pol.last_actions * np.exp(-j / 2.0)
        failed = [r for r in results[a] if failed_result(cols, r)]
        if failed:  # the call, and what its result says went wrong
            boost = 1.0 + pol.retry * np.exp(-j / 4.0)
            call_gain[a] *= boost
            # (its units, read by their messages' spans: not a scan of every unit)
            spans = cols.msg_start.view
            in_failed = np.concatenate([np.arange(spans[r], spans[r + 1]) for r in sorted(set(failed))])
            full_gain[in_failed] *= boost
            clip_gain[in_failed] *= boost
    placeholder = scene.count(PLACEHOLDER)
    picked_cost = per_msg_cost[picked] + placeholder * n_results[picked]
    call_cost = dict(zip(call_msgs, picked_cost.tolist()))
    call_ratio = np.full(n_msgs, np.inf)
    call_ratio[picked] = call_gain[picked] / np.maximum(picked_cost, 0.5)

    full_cost = tokens + pol.mark_tokens
    clip_cost_u = cols.u_clip.view + pol.mark_tokens
    rest_gain, rest_cost = full_gain - clip_gain, full_cost - clip_cost_u
    clip_ratio = clip_gain / np.maximum(clip_cost_u, 0.5)
    split = candidate & cols.u_clippable.view & (rest_gain / np.maximum(rest_cost, 0.5) < clip_ratio)
    whole = candidate & ~split

    # Short messages open whole: every unit's opening (a clip, or the unit itself if
    # short) comes back at once, so a shown message never loses a sentence outright.
    starts = cols.msg_start.view
    # (read at the units: not arrays of every message of a long history)
    in_short = candidate & (starts[u_msg + 1] - starts[u_msg] <= pol.short_units) \
        & (cols.msg_cost.view[u_msg] <= pol.short_tokens)
    open_cost_u = np.where(split, clip_cost_u, full_cost)
    open_gain_u = np.where(split, clip_gain, full_gain)
    short_msgs = u_msg[in_short]  # (in message order: each message's first is where its run starts)
    open_msgs = short_msgs[np.flatnonzero(np.r_[True, short_msgs[1:] != short_msgs[:-1]])] if len(short_msgs) \
        else short_msgs
    open_cost = np.bincount(u_msg[in_short], weights=open_cost_u[in_short], minlength=n_msgs)
    open_gain = np.bincount(u_msg[in_short], weights=open_gain_u[in_short], minlength=n_msgs)
    open_ratio = np.full(n_msgs, np.inf)
    open_ratio[open_msgs] = open_gain[open_msgs] / np.maximum(open_cost[open_msgs], 0.5)

    # A result's text never comes before its call.
    owner_u = owner_of_msg[u_msg]
    cap_ratio = np.where(owner_u >= 0, call_ratio[np.maximum(owner_u, 0)], np.inf)
    open_owner = owner_of_msg[open_msgs]
    open_cap = np.where(open_owner >= 0, call_ratio[np.maximum(open_owner, 0)], np.inf)
    # In short messages, the rest of a clipped unit never comes before the message opens.
    cap_ratio = np.where(in_short, np.minimum(cap_ratio, open_ratio[u_msg]), cap_ratio)
    # A heading alone says nothing ("## Important Boundaries\n…\n## Recommended Workflow"):
    # it comes with what it heads (a list item or field under it, see outline), or with the
    # opening of its short message, never as an option of its own.
    alone = ~in_short & ((kind != _HEADING) | _stating_headings(cols, noise))
    idx_clip = np.flatnonzero(split & alone)
    idx_rest = np.flatnonzero(split & (alone | in_short))
    idx_whole = np.flatnonzero(whole & alone)
    room = max(scene.budget - sum(int(cols.msg_cost.view[i]) for i in protected), 0)
    long_tokens = pol.long_share * room
    # A long head comes in steps of Policy.long_share of the room, each after the one before.
    idx_long1 = np.flatnonzero(split & (rest_cost > long_tokens) & (long_tokens > 2 * clip_cost_u))
    steps = LIMITS.long_steps
    idx_long = np.concatenate([idx_long1 * steps + j for j in range(steps)])
    step_cost = np.concatenate([long_tokens - clip_cost_u[idx_long1]] + [np.full(len(idx_long1), long_tokens)]
                               * (steps - 1))
    long_units = idx_long // steps
    long_cost = step_cost
    long_gain = rest_gain[long_units] * long_cost / np.maximum(rest_cost[long_units], 1.0)

    # Record items: each value not shown by what is kept anyway, with its key.
    base_shown = cols.literal_counts(decision == KEPT) > 0
    header_of = date_headers(cols)
    listable = _items(scene, decision, base_shown, noise, rel, recency, header_of, units, verdicts)
    items, item_gain, item_cost, entry_cost, key_named, row_cost = (
        listable.items, listable.gain, listable.cost, listable.entry_cost, listable.key_named, listable.row_cost)

    # A reply is shown with its question (see _take).
    question_unit = question_units(cols)
    asked = _asked(cols, question_unit)
    question_cost = np.zeros(n_msgs)
    question_cost[asked] = open_cost_u[question_unit[asked]]
    kinds = np.concatenate([np.full(len(picked), _CALLS), np.full(len(open_msgs), _OPEN),
                            np.full(len(idx_clip), _CLIP), np.full(len(idx_rest), _REST),
                            np.full(len(idx_whole), _FULL), np.full(len(items), _ITEM),
                            np.full(len(idx_long), _LONG)])
    item_ids = np.arange(len(items), dtype=np.int64)
    targets = np.concatenate([picked, open_msgs, idx_clip, idx_rest, idx_whole,
                              item_ids, idx_long])
    ratios = np.concatenate([
        call_ratio[picked],
        np.minimum(open_ratio[open_msgs], open_cap),
        np.minimum(clip_ratio[idx_clip], cap_ratio[idx_clip]),
        np.minimum(rest_gain[idx_rest] / np.maximum(rest_cost[idx_rest], 0.5), cap_ratio[idx_rest]),
        np.minimum(full_gain[idx_whole] / np.maximum(full_cost[idx_whole], 0.5), cap_ratio[idx_whole]),
        item_gain / np.maximum(item_cost, 0.5),
        np.minimum(long_gain / np.maximum(long_cost, 0.5), cap_ratio[long_units]) * (1 - 1e-6 * (idx_long % steps)),
    ])
    costs = np.concatenate([picked_cost, open_cost[open_msgs],
                            clip_cost_u[idx_clip], rest_cost[idx_rest], full_cost[idx_whole], item_cost, long_cost])
    tier = (kinds != _CALLS).astype(np.int64) + (kinds == _OPEN) + 2 * (kinds == _REST)
    # (by ratio, then tier, kind and target as one code: a lexsort of two keys, not four;
    # the same order, ties in place)
    span = int(targets.max()) + 1 if len(targets) else 1
    order = np.lexsort(((tier * (_LONG + 1) + kinds) * span + targets, -ratios))
    item_rows = np.flatnonzero(kinds == _ITEM)
    # The values of a key the question names come first in the record, one per result it
    # asks across ("the highest p99": each result's p99), and the record's first claim
    # grows to hold them (KEY_SHARE).
    item_order = item_rows[np.lexsort((-ratios[item_rows], ~key_named))] - (item_rows[0] if len(item_rows) else 0)
    reserve = _record_share(scene, outputs) * room
    if key_named.any():
        named = np.flatnonzero(key_named)
        wanted = float(item_cost[named].sum()) + sum(entry_cost[items[k].message]
                                                     for k in {items[k].message: k for k in named.tolist()}.values())
        # (and what names each result, where the record lists it beside the named values)
        wanted += sum(row_cost.get(g, 0.0) for g in {items[k].group for k in named.tolist()}
                      if names_result(len(units), g))
        reserve = max(reserve, min(wanted, pol.key_share * room))
    note_cap = _note_cap(scene) * room
    reserve = min(reserve, note_cap)

    date_unit = _date_units(cols, units)
    overhead = _overheads(scene)
    header_items = {items[k].text: k for k in listable.headers.tolist()}  # (a session's date line -> its item)
    return Ranked(
        base=decision, calls_forced=frozenset(calls_forced), protected=protected, winner=winner,
        opening=np.where(split, CLIPPED, KEPT).astype(np.int8), in_short=in_short, kinds=kinds, targets=targets,
        costs=costs, order=order, call_cost=call_cost, owner_of_msg=owner_of_msg, owner_u=owner_u,
        msg_overhead=overhead, item_of=items, item_covers=listable.covered, value_cost=listable.value_cost, entry_cost=entry_cost,
        header_of=header_of, header_cost=listable.header_cost, header_items=header_items,
        values_line=scene.count(VALUES_LINE) - scene.count("]"), shown_lits=base_shown, u_msg=u_msg,
        lits=(cols.lit_ptr.view, cols.lit_idx.view, cols.head_ptr.view, cols.head_idx.view),
        call_units=_CallUnits(is_call, starts), msg_start=starts, long_head=_long_head(scene, units, long_tokens),
        item_order=item_order, reserve=reserve, note_cap=note_cap, beyond=listable.beyond, row_cost=row_cost,
        date_unit=date_unit, date_cost=_DateCosts(cols.u_tokens.view, pol.mark_tokens), list_head=list_heads(cols),
        head_tokens=cols.u_tokens.view,
        question_unit=question_unit, question_cost=question_cost, cols=cols,
        mark_cost=float(scene.count(" " + PLACEHOLDER)), mark_estimate=float(pol.mark_tokens))


def found_titles(cols: Columns) -> list[bool]:
    """Per unit, whether it is a heading written as a title, as found so far (finding no more;
    a segment of them is shared between workers: :mod:`..shared_columns`)."""
    return cols.memo(_Headings).titles


def seed_titles(cols: Columns, titles: list[bool]) -> None:
    """Start the headings' title flags with their values for the first units (read from a
    shared cache), if they have not started."""
    memo = cols.memo(_Headings)
    if not memo.titles:
        memo.titles = titles


def _stating_headings(cols: Columns, noise: np.ndarray) -> np.ndarray:
    """Per unit, a heading that states a value of its own: by its pattern ("### Reservation
    4WQ150"), or a name in a heading that is not a title ("### Flight from New York to
    Seattle"; "## Important Boundaries" is one)."""
    heading = cols.u_kind.view == _HEADING
    if not heading.any():
        return heading
    memo = cols.memo(_Headings).titles
    units = cols.units
    for u in range(len(memo), len(heading)):  # a unit's text never changes: found once
        text = head_text(units[u]) if heading[u] else None
        memo.append(text is not None and title_case(text))
    title = cols.grown("_titles", memo, bool)[:len(heading)]  # (the new ones converted, not the whole list)
    patterned = np.array([k in PATTERN_KINDS for k in cols.lit_kind_names], dtype=bool)
    by_pattern = patterned[cols.lit_kind.view] & ~noise if len(patterned) else np.zeros(len(noise), dtype=bool)
    # (read at the headings' literals only, not summed over every unit's)
    heads = np.flatnonzero(heading)
    out = np.zeros(len(heading), dtype=bool)
    out[heads] = _states(cols, heads, by_pattern) | _states(cols, heads, ~noise & ~by_pattern) & ~title[heads]
    return out


def _states(cols: Columns, units: np.ndarray, lits: np.ndarray) -> np.ndarray:
    """Per unit of ``units``, whether it states a literal of the mask ``lits``."""
    ptr = cols.lit_ptr.view
    lo = ptr[units]
    n = ptr[units + 1] - lo
    rows = np.repeat(lo - (np.cumsum(n) - n), n) + np.arange(int(n.sum()))
    hit = lits[cols.lit_idx.view[rows]]
    return np.bincount(np.repeat(np.arange(len(units)), n)[hit], minlength=len(units)) > 0


def _long_head(scene: Scene, units: Sequence[Unit], tokens: float) -> Callable[[int, int], tuple[int, list[int]]]:
    lit_ids = scene.cols.lit_ids

    def head(k: int, step: int) -> tuple[int, list[int]]:
        unit = units[k]
        end = scene.head(unit.text, max(int(tokens * (step + 1)) - 4, 1))  # 4: the mark, seams
        end = before_values(unit.literals, end, unit.text)  # (no half values: see units.before_values)
        return end, [lit_ids[t] for t in head_literal_texts(unit, end)]

    return head


def _date_units(cols: Columns, units: Sequence[Unit]) -> np.ndarray:
    """Per message, the unit of its session's date line (``[1:56 pm on 8 May, 2023]``, the
    first unit of the message that opens the session), or -1 (grown with the conversation)."""
    memo = cols.memo(_Headings).date_units
    sessions = cols.msg_session.view
    starts = cols.msg_start.view
    for m in range(len(memo), len(cols)):
        s = int(sessions[m])
        if s < 0 or int(starts[s]) >= int(starts[s + 1]):
            memo.append(-1)
        elif s < m:
            memo.append(memo[s])
        else:
            first = int(starts[s])
            memo.append(first if is_date_header(units[first]) else -1)
    return cols.grown("_date_units", memo, np.int64)[:len(cols)]


def _owners(cols: Columns) -> np.ndarray:
    """Per message, the assistant message whose call it answers, or -1 (``ToolPairs.owner``,
    which pairs a result once, when it is appended: grown with the conversation)."""
    memo = cols.memo(_Headings).owners
    owner = cols.pairs.owner
    memo.extend(owner.get(m, -1) for m in range(len(memo), len(cols)))
    return cols.grown("_owners", memo, np.int64)[:len(cols)]


@dataclass
class _Answered:
    """The calls answered so far (the conversation's memo, see ``Columns.memo``: a result
    is paired with its call once, when it is appended)."""

    seen: int = 0
    """How many messages these cover."""
    counts: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Per message, how many results answer its calls (in its first ``seen`` places)."""
    callers: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """The messages with a result, ascending."""
    results: list[int] = field(default_factory=list)
    """The messages that answer a call, ascending."""


@dataclass(frozen=True)
class _Calls:
    counts: np.ndarray
    callers: np.ndarray
    results: np.ndarray


def _answered(cols: Columns, owner_of_msg: np.ndarray) -> _Calls:
    """Per message, how many results answer it; the messages with a result; the messages
    that are one (read at the messages appended since: arrays of every message of a long
    history were most of this on every view)."""
    memo = cols.memo(_Answered)
    n = len(owner_of_msg)
    if memo.seen < n:
        if len(memo.counts) < n:  # (grown by doubling)
            memo.counts = np.concatenate([memo.counts, np.zeros(max(n, 2 * len(memo.counts)) - len(memo.counts),
                                                                dtype=np.int64)])
        new = owner_of_msg[memo.seen:n]
        found = np.flatnonzero(new >= 0)
        if len(found):
            np.add.at(memo.counts, new[found], 1)
            memo.results.extend((found + memo.seen).tolist())
            memo.callers = np.flatnonzero(memo.counts[:n] > 0)
        memo.seen = n
    return _Calls(memo.counts[:n], memo.callers, cols.grown("_results", memo.results, np.int64)[:len(memo.results)])


@dataclass
class _Overheads:
    """Per message, the tokens its first shown piece pays (the conversation's memo, see
    ``Columns.memo``: a message's label, reference and framing never change)."""

    key: tuple[object, ...] = ()
    """What these were counted with: recall's counter, the framing rule."""
    costs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    n: int = 0
    """How many messages ``costs`` covers (grown by doubling past it)."""


def _overheads(scene: Scene) -> np.ndarray:
    """Per message, its label's tokens, its reference's with recall (``…#12``) and its
    framing's (``scene.frames``): extended by the new messages only (three arrays of every
    message of a long history were added up on every view; the same floats, added in the
    same order). A caller's own overhead (an int or a function) is counted afresh."""
    cols, options = scene.cols, scene.options
    if scene.frames is None and options.message_overhead:
        overhead = cols.msg_label_cost.view.copy()
        if options.recall:  # the reference a message's first mark carries (``…#12``)
            overhead += _ref_costs(cols, scene.count)
        overhead += np.array([options.overhead(m.raw) for m in cols.messages], dtype=np.float64)
        return overhead
    memo = cols.memo(_Overheads)
    key = (options.recall, scene.count if options.recall else None, scene.frames is not None,
           options.message_overhead if scene.frames is not None else None)
    n = len(cols)
    if len(memo.key) != len(key) or any(a is not b and a != b for a, b in zip(memo.key, key)) or memo.n > n:
        memo.key, memo.costs, memo.n = key, np.zeros(0), 0
    if memo.n < n:
        if len(memo.costs) < n:
            memo.costs = np.concatenate([memo.costs[:memo.n], np.zeros(max(n, 2 * len(memo.costs)) - memo.n)])
        new = cols.msg_label_cost.view[memo.n:n].copy()
        if options.recall:
            new += _ref_costs(cols, scene.count)[memo.n:n]
        if scene.frames is not None:
            new += scene.frames[memo.n:n]
        memo.costs[memo.n:n] = new
        memo.n = n
    out = memo.costs[:n]
    out.flags.writeable = False  # (shared from view to view: read, never written)
    return out


@dataclass
class _RefCosts:
    """Per message, the tokens of its reference (``#12``) by one counter (the conversation's
    memo, see ``Columns.memo``: a message's place never changes)."""

    count: Callable[[str], int] | None = None
    """The counter these were counted by (another counter counts them anew)."""
    costs: np.ndarray = field(default_factory=lambda: np.zeros(0))
    n: int = 0
    """How many messages ``costs`` covers (grown by doubling past it)."""


def _ref_costs(cols: Columns, count: Callable[[str], int]) -> np.ndarray:
    """Per message ``i``, ``count(f"#{i}")``, the reference a message's first mark carries
    when the model can recall (counted once per message: 200,000 counts on every view of a
    long history were most of its ranking)."""
    memo = cols.memo(_RefCosts)
    if memo.count != count:  # (a bound method equals another of the same counter)
        memo.count, memo.costs, memo.n = count, np.zeros(0), 0
    n = len(cols)
    if memo.n < n:
        if len(memo.costs) < n:
            memo.costs = np.concatenate([memo.costs[:memo.n], np.zeros(max(n, 2 * len(memo.costs)) - memo.n)])
        memo.costs[memo.n:n] = [count(f"#{i}") for i in range(memo.n, n)]
        memo.n = n
    return memo.costs[:n]


@dataclass
class _Asked:
    """The messages a question's unit is known for (the conversation's memo)."""

    seen: int = 0
    asked: list[int] = field(default_factory=list)


def _asked(cols: Columns, question_unit: np.ndarray) -> np.ndarray:
    """The messages that answer a question (``question_unit >= 0``), ascending: extended by
    the messages appended since (a message's question never changes)."""
    memo = cols.memo(_Asked)
    if memo.seen < len(question_unit):
        memo.asked.extend((np.flatnonzero(question_unit[memo.seen:] >= 0) + memo.seen).tolist())
        memo.seen = len(question_unit)
    return cols.grown("_asked", memo.asked, np.int64)[:len(memo.asked)]


class _DateCosts(dict):
    """A session's date line (its unit) -> the tokens of showing it, found when the take
    first asks (a long history has thousands; a view shows a few)."""

    def __init__(self, tokens: np.ndarray, mark: float) -> None:
        super().__init__()
        self._tokens, self._mark = tokens, mark

    def __missing__(self, unit: int) -> float:
        cost = self[unit] = float(self._tokens[unit] + self._mark)
        return cost


class _CallUnits(dict):
    """Assistant message -> its tool-call units, found when the take first asks (it shows a
    few of the thousands of calls a long agent history has)."""

    def __init__(self, is_call: np.ndarray, starts: np.ndarray) -> None:
        super().__init__()
        self._is_call, self._starts = is_call, starts

    def __missing__(self, m: int) -> list[int]:
        first = int(self._starts[m])
        units = self[m] = (np.flatnonzero(self._is_call[first:int(self._starts[m + 1])]) + first).tolist()
        return units


@dataclass
class _Repeats:
    """Per unit, whether its newest copy (``winner``) lacks one of its values, for the newest
    copy it was read against (the conversation's memo, see ``Columns.memo``: a unit's values
    never change, so the answer changes only when a newer copy appears)."""

    against: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """The newest copy each unit was read against (-1: not read)."""
    lacking: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))


def _lacking(cols: Columns, units: np.ndarray, winner: np.ndarray) -> np.ndarray:
    """Those of ``units`` (copies of a text with a newer copy, ``winner``) whose newest copy
    lacks one of their values: read again only for units whose newest copy changed since."""
    memo = cols.memo(_Repeats)
    n_units = len(winner)
    if len(memo.against) < n_units:  # (grown by doubling)
        more = max(n_units, 2 * len(memo.against)) - len(memo.against)
        memo.against = np.concatenate([memo.against, np.full(more, -1, dtype=np.int64)])
        memo.lacking = np.concatenate([memo.lacking, np.zeros(more, dtype=bool)])
    stale = units[memo.against[units] != winner[units]]
    if len(stale):
        lit_idx = cols.lit_idx.view
        owner = row_units(cols)
        n_lits = max(len(cols.lit_text), 1)
        winning = np.zeros(n_units, dtype=bool)
        winning[winner[stale]] = True
        held = np.flatnonzero(winning[owner])  # (only the rows of units that won a repeat)
        has = owner[held].astype(np.int64) * n_lits + lit_idx[held]
        reading = np.zeros(n_units, dtype=bool)
        reading[stale] = True
        rows = np.flatnonzero(reading[owner])
        lacks = ~member(winner[owner[rows]].astype(np.int64) * n_lits + lit_idx[rows], has)
        memo.lacking[stale] = False
        memo.lacking[owner[rows[lacks]]] = True
        memo.against[stale] = winner[stale]
    return units[memo.lacking[units]]

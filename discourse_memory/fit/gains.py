"""What the ranking weighs: per unit kind and value kind, the focus and its context, the
record's share of the room, and diminishing returns within a group."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
import math

import numpy as np

from ..columns import UNIT_KINDS, Columns
from ..policy import Policy
from ..replies import asks
from .types import Scene


TYPED_KINDS = frozenset({"identifier", "email", "url", "path", "amount", "datetime", "date", "version", "phone"})
"""The kinds of value worth ``Policy.typed_value``; a number is worth ``Policy.number_value``
and every other kind (time, percent, quoted, name, quantity, a model's entities)
``Policy.plain_value``."""


@dataclass
class _Gains:
    """Per message, what the focus's context reads of it (the conversation's memo, see
    ``Columns.memo``: grown with the conversation, never changed)."""

    role_hashes: list[int] = field(default_factory=list)
    """A code of its role (:func:`_role_codes`)."""
    questions: list[bool] = field(default_factory=list)
    """Whether its text asks a question (:func:`_questions`)."""


@dataclass
class _WithUnits:
    """The messages with units, in order (the conversation's memo, see ``Columns.memo``)."""

    messages: list[int] = field(default_factory=list)
    units: int = 0
    """How many units ``messages`` covers."""


def messages_with_units(cols: Columns) -> np.ndarray:
    """The messages that have units, ascending (units are in message order; the messages
    past a memory's horizon have none): extended by the units appended since."""
    memo = cols.memo(_WithUnits)
    u_msg = cols.u_msg.view
    if memo.units < len(u_msg):
        new = u_msg[memo.units:]
        before = memo.messages[-1] if memo.messages else -1
        memo.messages.extend(new[np.flatnonzero(np.r_[new[0] != before, new[1:] != new[:-1]])].tolist())
        memo.units = len(u_msg)
    return cols.grown("_with_units", memo.messages, np.int64)[:len(memo.messages)]


def _unit_kind_weights(pol: Policy) -> np.ndarray:
    """Per unit kind (``UNIT_KINDS``), what a unit of it weighs in the view."""
    weights = {"tool_call": pol.call_weight, "field": pol.field_weight, "table_row": pol.row_weight}
    return np.array([weights.get(k, 1.0) for k in UNIT_KINDS])


def _kind_values(pol: Policy, kind_names: Sequence[str]) -> np.ndarray:
    """Per kind of value (``kind_names``), what a listed value of it is worth."""
    return np.array([pol.typed_value if k in TYPED_KINDS else pol.number_value if k == "number" else pol.plain_value
                     for k in kind_names])


def _rank_within(group: np.ndarray, score: np.ndarray, more_than: float = 1) -> np.ndarray:
    """Per element, its place by ``score`` among the elements of its ``group`` (0: the
    highest; ties in order): the k of a diminishing return ``1 / (1 + k / K)``. Only the
    groups of more than ``more_than`` elements are ranked; every other element is 0 (a
    caller that reads only places past ``more_than - 1`` need not sort the smaller groups:
    ``max(k - K, 0)`` is 0 for every place of a group of at most K elements)."""
    n = len(group)
    rank = np.zeros(n)
    if not n:
        return rank
    # An element alone in its group is first in it: only the groups of two or more are
    # sorted (most messages of a long chat have one unit; a sort of every unit was most of
    # this). A subset keeps the elements' order, so ties fall as they did.
    if n > 1 and not np.any(group[1:] < group[:-1]):
        # (groups in order, a message's units: the runs' lengths say which, not a count
        # per group number up to the last message of a long history)
        start = np.empty(n, dtype=bool)
        start[0] = True
        np.not_equal(group[1:], group[:-1], out=start[1:])
        lengths = np.diff(np.r_[np.flatnonzero(start), n])
        idx = np.flatnonzero(np.repeat(lengths > more_than, lengths))
    else:
        idx = np.flatnonzero(np.bincount(group)[group] > more_than)
    if not len(idx):
        return rank
    group, score = group[idx], score[idx]
    if np.any(group[1:] < group[:-1]) or np.isnan(score).any():
        order = np.lexsort((-score, group))
        starts = np.flatnonzero(np.r_[True, group[order][1:] != group[order][:-1]])
        rank[idx[order]] = np.arange(len(group)) - np.repeat(starts, np.diff(np.r_[starts, len(group)]))
        return rank
    rank[idx] = _rank_in_runs(group, -score)
    return rank


def _rank_in_runs(group: np.ndarray, key: np.ndarray) -> np.ndarray:
    """Per element, its place by ``key`` (lowest first, ties in order; no NaN) in its run of
    equal ``group`` values (``group`` non-decreasing, runs of two or more). The units of a
    message are such a run, of a few to a few dozen: the runs of each width up to a power of
    two are sorted at once as the rows of a matrix (padded with ``inf`` after their
    elements, so a stable sort leaves the padding last), a sort of many short rows, not one
    of ~30,000 keys (the same places as a ``lexsort`` by group then key)."""
    n = len(group)
    starts = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
    if n > 16 * len(starts):
        # Long runs, more than 16 on average (a tool output of hundreds of lines): padded
        # rows cost more than they save. Two stable sorts of the elements (by key, then by group: ties in order).
        by_key = np.argsort(key, kind="stable")
        order = by_key[np.argsort(_small(group)[by_key], kind="stable")]
        places = np.empty(n)
        places[order] = np.arange(n) - np.repeat(starts, np.diff(np.r_[starts, n]))
        return places
    lengths = np.diff(np.r_[starts, n])
    width = np.frexp((lengths - 1).astype(np.float64))[1].astype(np.int8)  # (bits of length - 1: 2**width >= length)
    col = np.arange(n) - np.repeat(starts, lengths)
    elem_width = np.repeat(width, lengths)
    by_width = np.argsort(elem_width, kind="stable")  # (elements of each width, in order)
    counts = np.bincount(elem_width, minlength=int(width.max()) + 1)
    run_counts = np.bincount(width, minlength=len(counts))
    places = np.empty(n)
    at = 0
    for b in np.flatnonzero(counts).tolist():
        el = by_width[at:at + counts[b]]
        at += counts[b]
        runs = int(run_counts[b])
        row = np.repeat(np.arange(runs), lengths[width == b])
        w = 1 << b
        mat = np.full((runs, w), np.inf)
        mat[row, col[el]] = key[el]
        order = np.argsort(mat, axis=1, kind="stable")
        inverse = np.empty_like(order)
        np.put_along_axis(inverse, order, np.broadcast_to(np.arange(w), order.shape), axis=1)
        places[el] = inverse[row, col[el]]
    return places


def _small(group: np.ndarray) -> np.ndarray:
    """``group`` (non-decreasing) as 16-bit integers where they fit, for a stable sort: numpy
    sorts those by radix, two to three times faster than 64-bit ones, in the same order."""
    return group.astype(np.uint16) if len(group) and 0 <= group[0] and group[-1] < 1 << 16 else group


def _places_high_first(rel: np.ndarray) -> np.ndarray:
    """Per element, its place by ``rel``, highest first, ties in order (as a stable
    ``argsort`` of ``-rel``); a 0 after every positive value, whatever its place."""
    rank = np.zeros(len(rel))
    # A unit without a match (0) stays 0 whatever its place, and every match comes
    # before it: only the matches are sorted (a few hundred of the ~36,000 units in a
    # long history's horizon). Any other value (negative, NaN) takes the full sort.
    matched = np.flatnonzero(rel > 0)
    if len(matched) + int(np.count_nonzero(rel == 0)) == len(rel):
        # Positive floats order as their bits do, read as integers: a stable sort of those
        # is the same order, ties in place (a sort of 30,000 matches was most of the focus's
        # gains at 200,000 messages; integers sort in two thirds of the time).
        picked = rel[matched]
        by_rel = np.argsort(-picked.view(np.int64) if picked.dtype == np.float64 else -picked, kind="stable")
        rank[matched[by_rel]] = np.arange(len(matched))
    else:
        rank[np.argsort(-rel, kind="stable")] = np.arange(len(rel))
    return rank


def _note_cap(scene: Scene) -> float:
    """The most of the room the record may take (a share): Policy.note_cap while the budget holds
    at most Policy.note_cap_held of the history, growing (in log scale of what it holds) to the
    whole room at Policy.record_fraction."""
    pol = scene.options.policy
    history = float(scene.cols.history_tokens())
    held = scene.budget / history if history > 0 else 1.0
    if held >= pol.record_fraction:
        return 1.0
    if held <= pol.note_cap_held:
        return pol.note_cap
    ramp = math.log(held / pol.note_cap_held) / math.log(pol.record_fraction / pol.note_cap_held)
    return pol.note_cap + (1.0 - pol.note_cap) * ramp


def _record_share(scene: Scene, outputs: np.ndarray) -> float:
    """The record's first claim on the room (a share of it). In an agent's history, less as
    the budget holds more of the history: more of the values stand in the text itself, a
    tool can be asked again, and a note a quarter of the view crowds out the text it stands
    in for. A chat's values can be asked for nowhere else: its claim stays."""
    pol = scene.options.policy
    if not outputs.any():
        return pol.record_share
    history = float(scene.cols.history_tokens())
    held = scene.budget / history if history > 0 else 1.0
    return max(pol.agent_record_share,
               pol.record_share * min(1.0, pol.record_fraction / max(held, 1e-9)) ** pol.record_decay)


def _focus_gains(cols: Columns, rel: np.ndarray, focus: float, asks: bool, pol: Policy,
                 ) -> tuple[np.ndarray, np.ndarray]:
    """Per unit, how many times its own value what it shares with the focus adds, and
    what being context to a match adds: the rest of its message, the messages before
    and after it, its date line. ``focus`` is the focus's weight, ``asks`` whether it is
    a question (see ``Policy.question`` and ``Policy.answer``)."""
    n_msgs = len(cols)
    starts = cols.msg_start.view
    u_msg = cols.u_msg.view
    if pol.focus_matches > 0:
        # Diminishing returns over the matches, best first: a view needs the few units
        # that answer, not forty that repeat a word of the newest turn ("make a difference").
        rel = rel / (1.0 + _places_high_first(rel) / pol.focus_matches)
    focus_gain = focus * rel
    msg_rel = np.zeros(n_msgs)
    np.maximum.at(msg_rel, u_msg, rel)
    context = pol.context_turn * focus * msg_rel[u_msg]
    # The question a match answers (the message before it, from another role) and the
    # answer a match got (the message after it): most of the share to the unit next to
    # the match (the end of the question, the start of the answer), the rest to all.
    # Only a message with units takes a share, and every match is in one: read at those
    # messages alone (8,400 of 200,000 in a long history's horizon), with their neighbours.
    shown = messages_with_units(cols)
    roles = _role_codes(cols)
    nxt, prv = np.minimum(shown + 1, n_msgs - 1), np.maximum(shown - 1, 0)
    before = np.where((shown + 1 < n_msgs) & (roles[shown] != roles[nxt]), msg_rel[nxt], 0.0)
    has_prev = shown > 0
    after = np.where(has_prev & (roles[prv] != roles[shown]), msg_rel[prv], 0.0)
    if asks:
        after *= np.where(has_prev & _questions(cols)[prv], pol.answer, 1.0)
    share = pol.context_neighbour * focus * np.maximum(before, after)
    per_msg = np.zeros(n_msgs)
    per_msg[shown] = share
    context += 0.3 * per_msg[u_msg]
    target = np.where(before >= after, starts[shown + 1] - 1, starts[shown])
    hit = np.flatnonzero(share > 0)
    np.add.at(context, target[hit], 0.7 * share[hit])
    # A session's date line dates every match in it.
    session = cols.msg_session.view
    dated = shown[session[shown] >= 0]
    if len(dated):
        best = np.zeros(n_msgs)
        opener = session[dated]
        np.maximum.at(best, opener, msg_rel[dated])
        # (the sessions' openers, ascending, read at the dated messages: not a pass over
        # every message of a long history; a message's session is at or before it)
        if len(opener) > 1 and np.any(opener[1:] < opener[:-1]):
            opener = np.unique(opener)
        else:
            opener = opener[np.r_[True, opener[1:] != opener[:-1]]]
        heads = opener[best[opener] > 0]
        np.add.at(context, starts[heads], pol.context_date * focus * best[heads])
    return focus_gain, context


def _role_codes(cols: Columns) -> np.ndarray:
    """Per message, a code of its role (equal codes: the same role). Extended by the new
    messages only: rebuilt, it was an array of every message of a long history a turn."""
    known = cols.memo(_Gains).role_hashes
    known.extend(hash(m.role) for m in cols.messages[len(known):])
    return cols.grown("role_hashes", known, np.int64)[:len(cols)]


def _questions(cols: Columns) -> np.ndarray:
    """Per message, whether its text asks a question (grown with the conversation)."""
    memo = cols.memo(_Gains).questions
    for m in cols.messages[len(memo):]:
        memo.append(any(asks(tf.text) for tf in m.texts))
    return cols.grown("_questions", memo, bool)[:len(cols)]

"""Protection: the messages a view keeps verbatim (system messages, the newest turn), and
the steps it degrades in when they do not fit; a system prompt that would crowd the
conversation out is outlined instead (:func:`_outlines`)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..columns import Columns
from ..options import Options
from ..policy import Policy
from ..record import system_messages
from .signals import is_tool_output


LARGE_OUTPUT = " (a tool output over half the budget compacted)"
"""How the report's protection says so."""
OUTLINED = " (a long system prompt outlined)"
"""How the report's protection says a system prompt was outlined (see :func:`_outlines`)."""


@dataclass(frozen=True)
class Protection:
    name: str
    system: bool
    turn: str  # "turn", "chain", "message" or "none"


def protections(options: Options) -> list[Protection]:
    """The protections to try in turn (see :class:`~discourse_memory.Options`)."""
    first = Protection(_name(options.keep_system, "turn" if options.keep_last_turn else "none"),
                        options.keep_system, "turn" if options.keep_last_turn else "none")
    steps = [first]
    if options.strict:
        return steps
    if options.keep_last_turn:
        if options.keep_system:
            steps.append(Protection(_name(True, "chain"), True, "chain"))
        steps.append(Protection(_name(False, "message"), False, "message"))
    elif options.keep_system:
        steps.append(Protection(_name(False, "none"), False, "none"))
    if options.relax and steps[-1].turn != "none":
        steps.append(Protection(_name(False, "none"), False, "none"))
    return steps


def _name(system: bool, turn: str) -> str:
    parts = (["system"] if system else []) + (
        {"turn": ["newest turn"], "chain": ["newest message and its tool-call chain"],
         "message": ["newest message"], "none": []}[turn])
    return " + ".join(parts) or "nothing"


def _protected(cols: Columns, p: Protection, budget: int, pol: Policy) -> tuple[frozenset[int], bool, frozenset[int]]:
    """The messages a protection step keeps verbatim, whether a tool output it would
    have kept was too large (see ``Policy.result_share``), and the system messages it
    outlines instead of keeping (see :func:`_outlines`)."""
    msgs = cols.messages
    keep: set[int] = set()
    system = np.flatnonzero(system_messages(cols)) if p.system else np.zeros(0, dtype=np.int64)
    if msgs and p.turn != "none":
        last = msgs[-1].index
        if p.turn == "turn":
            last_user = next((m.index for m in reversed(msgs) if m.role == "user"), None)
            keep.update(range(last_user if last_user is not None else last, len(msgs)))
        elif p.turn == "chain":
            keep.update(cols.pairs.chain_of(last))
        else:
            keep.add(last)
    outlined = frozenset(system.tolist()) if _outlines(cols, system, keep, budget, pol) else frozenset()
    if not outlined:
        keep.update(system.tolist())
    # A tool's output is the model's to read, not the user's words: one too large for
    # its share of the budget is compacted like the rest (its focus keeps what matters).
    costs = cols.msg_cost.view
    large = {i for i in keep if costs[i] > max(pol.result_share * budget, pol.result_min_tokens) and is_tool_output(cols, i)}
    return frozenset(keep - large), bool(large), outlined


def _outlines(cols: Columns, system: np.ndarray, turn: set[int], budget: int, pol: Policy) -> bool:
    """Whether the system prompt is outlined rather than kept whole: it would take over
    ``Policy.system_share`` of the budget while the room it leaves holds less than that
    share of the rest of the history. Kept whole, a long prompt (an agent's policy) would
    leave the conversation a few messages; outlined, each of its units shows its opening
    first (``Policy.system_opening``) and the rest of it competes like any text (and can
    be recalled). Only where it would fit whole beside the newest turn: where it does not,
    protection steps down as before."""
    if not len(system):
        return False
    costs = cols.msg_cost.view
    prompt = int(costs[system].sum())
    rest = cols.history_tokens() - prompt
    beside = sum(int(costs[i]) for i in turn) - sum(int(costs[i]) for i in system.tolist() if i in turn)
    return (prompt > pol.system_share * budget and budget - prompt < pol.system_share * rest
            and prompt + beside <= budget)


def renamed(step: Protection, large: bool, outlined: frozenset[int]) -> Protection:
    """The step as the report names it: what it compacted of what it was to keep."""
    if outlined:
        step = Protection(_name(False, step.turn) + OUTLINED, False, step.turn)
    if large:
        step = Protection(step.name + LARGE_OUTPUT, step.system, step.turn)
    return step

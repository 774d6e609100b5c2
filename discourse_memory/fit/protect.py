"""Protection: the messages a view keeps verbatim (system messages, the newest turn), and
the steps it degrades in when they do not fit."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..columns import Columns
from ..options import Options
from ..policy import Policy
from ..record import system_messages
from .signals import is_tool_output


LARGE_MIN_TOKENS = 64
"""A tool output this short is never compacted for its size: at a budget of a few dozen
tokens, compacted, a 20-token observation showed nothing of itself (a view of the note
alone); kept, it raises the minimum budget by what it needs."""
LARGE_OUTPUT = " (a tool output over half the budget compacted)"
"""How the report's protection says so."""


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


def _protected(cols: Columns, p: Protection, budget: int, pol: Policy) -> tuple[frozenset[int], bool]:
    """The messages a protection step keeps verbatim, and whether a tool output it would
    have kept was too large (see ``Policy.result_share``)."""
    msgs = cols.messages
    keep: set[int] = set()
    if p.system:
        keep.update(np.flatnonzero(system_messages(cols)).tolist())
    if msgs and p.turn != "none":
        last = msgs[-1].index
        if p.turn == "turn":
            last_user = next((m.index for m in reversed(msgs) if m.role == "user"), None)
            keep.update(range(last_user if last_user is not None else last, len(msgs)))
        elif p.turn == "chain":
            keep.update(cols.pairs.chain_of(last))
        else:
            keep.add(last)
    # A tool's output is the model's to read, not the user's words: one too large for
    # its share of the budget is compacted like the rest (its focus keeps what matters).
    costs = cols.msg_cost.view
    large = {i for i in keep if costs[i] > max(pol.result_share * budget, LARGE_MIN_TOKENS) and is_tool_output(cols, i)}
    return frozenset(keep - large), bool(large)

"""``Limits``: the bounds of the fitting stage's work and the thresholds of a few of its
rules, not weights (the weights, which trade one kind of text against another, are the
:class:`~discourse_memory.Policy`'s): how much of a text it reads to tell what it is, how
many record candidates it makes, how many heads, passes and steps it takes."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LIMITS", "Limits"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """The fit's bounds of work (see the module docstring). Keyword-only and frozen."""

    verdict_chars: int = 2_000
    """A line is read as a verdict by its last this many characters (a minified line is long)."""
    outcome_lines: int = 3
    """A tool output of fewer lines than this is all verdict: no line of it is weighed as one."""
    listing_sample: int = 60
    """How many units of a tool's output are read to tell a listing (:func:`.signals.listing_messages`)."""
    occurrences: int = 4
    """How many of a value's newest occurrences the record looks at for one with a key or a
    context word (:func:`.sources._sources`)."""
    candidates_min: int = 256
    """Record candidates made items: the best ``budget`` of them, at least this many (an item
    costs two tokens at the least, so this is twice the most a record can list)."""
    max_heads: int = 3
    """A shown list item brings at most this many heads above it (see :mod:`..outline`)."""
    passes: int = 5
    """The most renders a view's cut takes to fit its exact count (``fitting._cut``)."""
    minimum_rounds: int = 8
    """The most budgets tried when finding the smallest one the last protection step fits
    (each larger budget may protect one more large output: :func:`.fitting._minimum`)."""
    seam_least: float = 0.8
    """The least a message's seams scale its units' costs by in the take (``gaps.Seams``:
    a unit shown alone shares no seam, so the message's own ratio is trusted this far)."""
    estimate_over: float = 0.02
    """The share of the room the take's estimates count over the render (the seams between
    pieces they price apart: ``benchmarks/bench_fit_estimates.py``, median 0.97-0.99): the
    first take's room is grown by it, so that it lands at the budget (a miss is cut)."""
    margin_share: float = 0.005
    """Room held back from the estimates: this share of the budget (2 tokens at least)."""
    enough_tokens: int = 6
    """Room worth another pass or longer heads: at least this many tokens ..."""
    enough_share: float = 0.02
    """... and this share of the budget."""
    lengthen_max_units: int = 8
    """The most clipped units given longer heads once a view fits (:func:`.lengthen._lengthen`)."""
    plan_items: int = 50_000
    """The most items plans made of other items a conversation keeps (see ``plan._Made``)."""
    trail_ratio: float = 4.0
    """A first take keeps a snapshot of its state for a second take of more room to go on
    from (:mod:`.trail`) the first time its room left is below its room over this squared
    (the choices a second take makes otherwise come when the room is nearly spent), and
    again each time it falls below the last snapshot's over this."""
    long_steps: int = 4
    """The most steps of a longer head for a unit too long to show whole (each
    ``Policy.long_share`` of the room, ranked like any option, taken after the one before)."""
    result_chars: int = 20_000
    """A tool result is read for the field that names it (:mod:`.names`) when it is one JSON
    object of at most this many characters."""
    result_name_chars: int = 60
    """... and a member names it when its value is at most this long (an id, a name)."""


LIMITS = Limits()
"""The limits every fit works within."""

"""``Policy``: the weights of the fit in one frozen object, carried by
:class:`~discourse_memory.Options` (``Options(policy=Policy(said=3.0))``).

Each field says in one line what it trades; how each value was found is in
``docs/changes.md``, and how the fit uses each in ``docs/how-it-works.md`` ("The policy's
weights"). The defaults are the package's tuned policy: a deployment may change a weight
for its data without editing the package. A weight changes views, never the analysis, so
a :class:`~discourse_memory.Compactor`'s caches are shared across policies.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any

from .errors import InvalidOptionError

__all__ = ["DEFAULT_POLICY", "Policy"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Policy:
    """The weights, shares and caps of the fit (see :mod:`.fit`). Keyword-only and frozen."""

    # -- what a unit of text is worth in the view --------------------------------------
    opening: float = 1.0
    """A unit's opening (its first tokens) against the rest of it: openings first, or whole units."""
    boilerplate: float = 0.2
    """Share of ``opening`` for a unit stating nothing (markup, a lone mark): filler against any content."""
    recency: float = 0.6
    """Linear gain from the oldest to the newest message: recent text against old text."""
    recent: float = 1.0
    """Extra weight of the newest few messages: what was just said against the rest."""
    recent_span: float = 6.0
    """Over how many messages ``recent`` fades: a sharp against a gradual step to the newest."""
    idf_power: float = 2.0
    """Power of a word's rarity in a unit's worth: rare words against frequent ones."""
    last_actions: float = 2.0
    """Extra weight of an agent's newest calls: its last steps against its earlier ones."""
    retry: float = 2.0
    """Extra weight of a recent call whose result reports an error: the step it retries against others."""
    outcome: float = 3.0
    """A tool output's verdict line ("12 passed", an error message) against its other lines."""
    output_weight: float = 0.8
    """A tool's output against words the user or the assistant wrote."""
    listing_view: float = 0.0
    """A line of a listing (``ls -R``) in the view: file names against text."""
    task: float = 1.5
    """The first user message (the task) against later messages."""
    task_lead: float = 3.0
    """The lead of a long task (its first ``task_lead_tokens``) against its instructions."""
    task_lead_tokens: int = 200
    """How many tokens of a long task count as its lead."""
    now: float = 2.0
    """A system prompt's dated sentence (the conversation's "now") against the prompt's other sentences."""
    call_weight: float = 3.0
    """An agent's tool call (its name and arguments) against a sentence."""
    field_weight: float = 1.2
    """A ``key: value`` field against a sentence."""
    row_weight: float = 1.1
    """A table row against a sentence."""
    per_message: float = 12.0
    """Damping of lines, items, rows and fields within one message: one long message against many."""
    per_message_prose: float = 40.0
    """Damping of sentences within one message: one long message against many."""
    short_units: int = 12
    """A message of at most this many units (and ``short_tokens``) opens whole: all of a short message against room."""
    short_tokens: int = 400
    """A message of at most this many tokens (and ``short_units``) opens whole."""
    mark_tokens: float = 1.5
    """Estimated tokens of a shown fragment's gap mark: fragments here and there against fewer, longer pieces."""
    long_share: float = 0.2
    """A longer head's step for a unit too long to show whole, a share of the room: one huge unit against the rest."""
    # -- the focus -----------------------------------------------------------------------
    bm25_k1: float = 1.2
    """BM25's term saturation in a unit's relevance: repeats of a focus term against more terms."""
    bm25_b: float = 0.75
    """BM25's length normalisation (0 to 1): short units that match against long ones."""
    context_weight: float = 0.6
    """Weight of the terms of the message the newest turn answers, against 1 for the turn itself."""
    answer_kind: float = 1.0
    """Relevance share added to units stating the kind of value a question asks for ("how long": a duration)."""
    min_strength: float = 2.0
    """Least idf a focus's terms carry in all to rank by it: a vague turn's focus against none."""
    focus: float = 8.0
    """Gain of a unit stating every focus term: what the next turn asks against what units state."""
    question: float = 1.5
    """Times ``focus`` when the focus asks a question: matches against the question-blind ranking."""
    remark: float = 0.1
    """Times ``focus`` when the newest chat message asks nothing: its look-alikes against the rest."""
    answer: float = 3.0
    """Times ``context_neighbour`` for the turn after a matching question: its answer against other neighbours."""
    focus_matches: float = 16.0
    """Damping of the k-th best focus match (0: none): many look-alike matches against a few."""
    context_turn: float = 0.3
    """Share of a match's gain given to the rest of its message."""
    context_neighbour: float = 0.5
    """Share of a match's gain given to the messages before and after it."""
    context_date: float = 1.0
    """Share of a match's gain given to the date line of its session."""
    focus_record: float = 2.0
    """Extra worth of a record item of a value the focus names."""
    key_share: float = 0.9
    """Most of the room the record's first claim grows to for the keys a question names."""
    # -- the record ------------------------------------------------------------------------
    typed_value: float = 1.5
    """A listed id, email, URL, path, amount, date, version or phone number against a name or a time."""
    plain_value: float = 1.0
    """A listed name, time, percent, quantity, quoted text (any kind but the typed ones and numbers)."""
    number_value: float = 0.3
    """A listed bare number against a name (a number a capitalised noun names is worth a typed value)."""
    record_value: float = 1.0
    """A value listed in the record against the same value shown in its text."""
    said: float = 2.5
    """A value stated in words against one only a tool's output holds."""
    pending: float = 5.0
    """An id of a list the agent is working through, not yet passed to a call, against other values."""
    listing: float = 0.3
    """A value a tool's output only lists (a line of ``ls -R``) against other values."""
    listing_per_message: float = 4.0
    """Damping of the listed values of one tool output past the first few."""
    read_line: float = 0.3
    """A value on an unkeyed line of code the agent printed against other values (a file can be read again)."""
    defines: float = 3.0
    """A printed line that defines something (``def``, ``class``) against the file's other lines."""
    harness: float = 0.05
    """A value in a harness's instructions inside a user message against other values."""
    record_per_unit: float = 8.0
    """Damping of one unit's values past the first few: many units' values against one unit's."""
    record_per_message: float = 48.0
    """Damping of one message's values past this many: many messages' values against one message's."""
    record_share: float = 0.25
    """The record's first claim on the room (a share): listed values against text."""
    agent_record_share: float = 0.15
    """The least the first claim shrinks to in an agent's history as the budget holds more of it."""
    record_fraction: float = 0.1
    """Share of the history held above which the first claim shrinks (agents) and the note is uncapped."""
    record_decay: float = 0.5
    """How fast the agent's first claim shrinks past ``record_fraction``."""
    note_cap: float = 0.2
    """Most of the room the note may take when the budget holds a small share of a long history."""
    note_cap_held: float = 0.02
    """Share of the history held at or below which ``note_cap`` applies in full."""
    # -- protection ------------------------------------------------------------------------
    result_share: float = 0.5
    """A protected tool output larger than this share of the budget is compacted like the rest."""
    result_min_tokens: int = 64
    """A protected tool output of at most this many tokens is never compacted for its size (see ``result_share``)."""
    system_share: float = 0.5
    """A system prompt over this share of the budget, leaving less than this share of the rest, is outlined, not kept whole."""
    system_opening: float = 20.0
    """Times an outlined system prompt's unit openings are worth: each of its rules in outline against the conversation."""

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            whole = f.type == "int"
            if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
                raise InvalidOptionError(
                    f"policy.{f.name} must be {'a whole number' if whole else 'a number'}, got {value!r:.100}")
            if not math.isfinite(value) or value < 0:
                raise InvalidOptionError(f"policy.{f.name} must be finite and >= 0, got {value!r:.100}")
            if f.name in _DIVISORS and value == 0:
                raise InvalidOptionError(f"policy.{f.name} must be > 0, got {value!r:.100}")
        if self.bm25_b > 1:
            raise InvalidOptionError(f"policy.bm25_b must be at most 1, got {self.bm25_b!r}")
        if self.note_cap_held >= self.record_fraction:
            raise InvalidOptionError(f"policy.note_cap_held ({self.note_cap_held}) must be below "
                                     f"policy.record_fraction ({self.record_fraction})")

    def changed(self) -> dict[str, Any]:
        """The fields that differ from the default policy (what a saved state holds)."""
        default = _DEFAULTS
        return {k: v for k, v in asdict(self).items() if v != default[k]}

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))


_DIVISORS = frozenset({"number_value", "recent_span", "task", "per_message", "per_message_prose", "listing_per_message",
                       "record_per_unit", "record_per_message", "record_fraction", "note_cap_held"})
"""Fields the fit divides by (or takes the log of): zero is refused, not a crash mid-view."""
_DEFAULTS = {f.name: f.default for f in fields(Policy)}
DEFAULT_POLICY = Policy()
"""The policy of ``Options()`` (every view unless one is given)."""

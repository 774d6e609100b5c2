"""Text that is a prompt's, not the conversation's: system messages, a prompt's examples
(``<example>`` blocks, sections under a heading naming examples), a harness's blocks in a
user message, HTML comments of a template; and the literals stated only there.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from .. import traces
from ..columns import Columns
from ..messages import SYSTEM_ROLES

# A prompt's examples (``<example>``, ``<examples>``, ``<format_example>``,
# ``<example_response>``) show a form with placeholders (``your_command_here``,
# ``filename.py``): their values are not the conversation's. (A harness's
# ``<instructions>`` are not examples: the command that submits an agent's work stands
# there, and the agent's last step needs it.)
_EXAMPLE = re.compile(r"<((?:\w+[-_])?examples?(?:[-_]\w+)?)(?:\s[^<>]*)?>.*?</\1\s*>", re.S | re.I)
_HEADING_LINE = re.compile(r"(#{1,6})[ \t]+(.*)")
_FENCE_LINE = re.compile(r"[ \t]{0,3}(```|~~~)")
_EXAMPLE_TITLE = re.compile(r"(?<![\w@./-])examples?(?![\w@/-]|\.\w)", re.I)  # not of user@example.com


def _markdown_examples(text: str) -> list[tuple[int, int]]:
    """The sections of a markdown text under a heading that names examples (``## Useful
    Command Examples``), each up to the next heading of its level or above; a ``#`` line
    inside a code block is a comment, not a heading."""
    spans: list[tuple[int, int]] = []
    open_at: tuple[int, int] | None = None  # (level, start) of the example section being read
    fence = None
    at = 0
    for line in text.splitlines(keepends=True):
        f = _FENCE_LINE.match(line)
        if f:
            fence = None if fence == f.group(1) else fence or f.group(1)
        elif fence is None and line.startswith("#"):
            h = _HEADING_LINE.match(line)
            if h:
                level = len(h.group(1))
                if open_at is not None and level <= open_at[0]:
                    spans.append((open_at[1], at))
                    open_at = None
                if open_at is None and _EXAMPLE_TITLE.search(h.group(2)):
                    open_at = (level, at)
        at += len(line)
    if open_at is not None:
        spans.append((open_at[1], at))
    return spans


def _example_spans(text: str) -> list[tuple[int, int]]:
    """A message text's example sections: tagged (``_EXAMPLE``) and under a heading."""
    spans = [x.span() for x in _EXAMPLE.finditer(text)] if "</" in text else []
    if "#" in text:
        spans += _markdown_examples(text)
    return spans


@dataclass(slots=True)
class Inside:
    """Units found inside some kind of region, of the messages read so far."""

    units: list[int] = field(default_factory=list)
    messages: int = 0


@dataclass(slots=True)
class ExamplesMemo:
    """What this module found of the messages already read (columns only grow)."""

    examples: Inside = field(default_factory=Inside)
    """Units reaching into an example section."""
    outside: Counter[int] = field(default_factory=Counter)
    """For those units, how often each literal stands outside every section."""
    outside_at: list[tuple[int, int]] = field(default_factory=list)
    """Each of those counts' occurrences, in order: (unit, literal) (a segment of them is
    shared between workers: :mod:`..shared_columns`)."""
    harness: Inside = field(default_factory=Inside)
    comments: Inside = field(default_factory=Inside)
    system: list[bool] = field(default_factory=list)
    """Per message: a system or developer message."""
    talk: tuple[np.ndarray, np.ndarray] | None = None
    """:func:`talk_counts` and the :func:`prompt_units` it was read with."""


def example_units(cols: Columns) -> tuple[np.ndarray, Counter[int]]:
    """Per unit, whether it reaches into an example section of its message (see
    ``_EXAMPLE``); and for those units, how often each literal stands outside every
    section (a sentence may run past a section's end). Found once per message (columns
    only grow)."""
    memo = cols.memo(ExamplesMemo)
    found, outside = memo.examples.units, memo.outside
    starts = cols.msg_start.view
    for m in cols.messages[memo.examples.messages:]:
        regions = {tf.field: _example_spans(tf.text) for tf in m.texts if "</" in tf.text or "#" in tf.text}
        if not any(regions.values()):
            continue
        for u in range(int(starts[m.index]), int(starts[m.index + 1])):
            unit = cols.units[u]
            spans = [(a, b) for a, b in regions.get(unit.field, ()) if a < unit.end and unit.start < b]
            if not spans:
                continue
            found.append(u)
            for x in unit.literals:
                at = unit.start + x.start
                if not any(a <= at < b for a, b in spans):
                    lit = cols.lit_ids[x.text]
                    outside[lit] += 1
                    memo.outside_at.append((u, lit))
    memo.examples.messages = len(cols.messages)
    mask = np.zeros(len(cols.u_msg.view), dtype=bool)
    mask[found] = True
    return mask, outside


@dataclass(frozen=True, slots=True)
class FoundScans:
    """What :func:`example_units`, :func:`harness_units` and :func:`comment_units` found of a
    conversation's first ``seen`` messages: the units of each, in order, and each literal
    occurrence outside an example section of a unit reaching into one, (unit, literal)."""

    seen: int
    examples: list[int]
    outside: list[tuple[int, int]]
    harness: list[int]
    comments: list[int]


def found_scans(cols: Columns) -> FoundScans:
    """The three scans as found so far (finding no more), over the messages all three read."""
    memo = cols.memo(ExamplesMemo)
    return FoundScans(min(memo.examples.messages, memo.harness.messages, memo.comments.messages),
                      memo.examples.units, memo.outside_at, memo.harness.units, memo.comments.units)


def seed_scans(cols: Columns, found: FoundScans) -> None:
    """Start the three scans with ``found`` (read from a shared cache: each unit and literal
    within the columns, the units in order), if none has started."""
    memo = cols.memo(ExamplesMemo)
    if memo.examples.messages or memo.harness.messages or memo.comments.messages or memo.outside_at:
        return
    memo.examples.units.extend(found.examples)
    memo.harness.units.extend(found.harness)
    memo.comments.units.extend(found.comments)
    memo.outside_at.extend(found.outside)
    memo.outside.update(lit for _, lit in found.outside)
    memo.examples.messages = memo.harness.messages = memo.comments.messages = found.seen


# A harness's own text inside a user message: the instructions a harness wraps around a
# task, the reminders and environment it adds to a turn (the tags of the registered trace
# readers: traces.harness_block). The user did not say it, and it is the same in every run
# ("command1 && command2", "MY_ENV_VAR=MY_VALUE"); the agent still reads it (the command that
# submits its work stands there), so the view ranks it as any text, and only the record
# passes it by.


def harness_units(cols: Columns) -> np.ndarray:
    """Per unit, whether it stands inside a harness's block of a user message or a tool's
    result (Claude Code appends a ``<system-reminder>`` to a file it read; see
    :func:`.traces.harness_block`).
    Found once per message (columns only grow)."""
    return _units_inside(cols, cols.memo(ExamplesMemo).harness, traces.harness_block(), "</", ("user", "tool"))


# An HTML comment: what an issue or PR template asks of its author ("<!-- A short summary
# of the issue, if appropriate -->"), hidden from every reader of the rendered text.
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)


def comment_units(cols: Columns) -> np.ndarray:
    """Per unit, whether it stands inside an HTML comment of its message (a unit that only
    opens or closes one, ``<!--``, too). Found once per message (columns only grow)."""
    return _units_inside(cols, cols.memo(ExamplesMemo).comments, _COMMENT, "<!--")


def _units_inside(cols: Columns, state: Inside, regions_of: re.Pattern[str], marker: str,
                  roles: tuple[str, ...] | None = None) -> np.ndarray:
    """Per unit, whether it stands wholly inside a match of ``regions_of`` in its text field
    (a text without ``marker`` has none; with ``roles``, only those roles' messages are read).
    Found once per message, kept in ``state`` (columns only grow)."""
    found = state.units
    starts = cols.msg_start.view
    for m in cols.messages[state.messages:]:
        if roles is not None and m.role not in roles:
            continue
        regions = {tf.field: [x.span() for x in regions_of.finditer(tf.text)] for tf in m.texts if marker in tf.text}
        if not any(regions.values()):
            continue
        for u in range(int(starts[m.index]), int(starts[m.index + 1])):
            unit = cols.units[u]
            if any(a <= unit.start and unit.end <= b for a, b in regions.get(unit.field, ())):
                found.append(u)
    state.messages = len(cols.messages)
    mask = np.zeros(len(cols.u_msg.view), dtype=bool)
    mask[found] = True
    return mask


def system_messages(cols: Columns) -> np.ndarray:
    """Per message: a system or developer message. Read once per message."""
    system = cols.memo(ExamplesMemo).system
    system.extend(m.role in SYSTEM_ROLES for m in cols.messages[len(system):])
    return cols.grown("system_messages", system, bool)[:len(cols)]


def prompt_units(cols: Columns) -> np.ndarray:
    """Per unit: part of a prompt, a system message's or an example of another message's
    (:func:`example_units`)."""
    return system_messages(cols)[cols.u_msg.view] | example_units(cols)[0]


def talk_counts(cols: Columns) -> np.ndarray:
    """Per literal, how many units outside every prompt (:func:`prompt_units`) state it.
    Read once per size of the columns (a view asks twice), and then extended by the units
    appended since (columns only grow, and an old unit's place in a prompt is found with its
    message, once); read afresh should an old unit's place change (a recount of every row
    was most of this on a long history)."""
    n_units, n = len(cols.u_msg.view), len(cols.lit_text)
    memo = cols.memo(ExamplesMemo)
    talk = memo.talk
    if talk is not None and len(talk[0]) == n_units and len(talk[1]) == n:
        return talk[1]
    prompt = prompt_units(cols)
    done = -1 if talk is None else len(talk[0])
    if talk is not None and done <= n_units and len(talk[1]) <= n and np.array_equal(talk[0], prompt[:done]):
        # (counts are whole numbers: the old ones plus the new units' are the same floats
        # as one count of every unit)
        counts = np.zeros(n)
        counts[:len(talk[1])] = talk[1]
        counts += cols.literal_counts(np.concatenate([np.zeros(done, dtype=bool), ~prompt[done:]]))
    else:
        counts = cols.literal_counts(~prompt)
    memo.talk = (prompt, counts)
    return counts


def system_only_literals(cols: Columns) -> np.ndarray:
    """Per literal: stated only in system/developer messages and in the examples of other
    messages (:func:`example_units`)."""
    if not prompt_units(cols).any():
        return np.zeros(len(cols.lit_text), dtype=bool)
    counts = talk_counts(cols)
    outside = example_units(cols)[1]
    if outside:
        counts = counts.copy()
        counts[list(outside)] += list(outside.values())
    return ~(counts > 0)

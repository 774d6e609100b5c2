"""Trace readers: what the core knows of one agent harness or tool's output, as data.

An agent's history holds text a harness wrote, not the user or the agent: the
instructions a harness wraps around a task, the reminders it appends to a turn, the line
numbers its file reader prints, a test runner's progress lines. A :class:`TraceReader`
names those for one harness or tool; the core's rules read the entries of every
registered reader, in every conversation (a history does not say which harness wrote
it, and one history may hold several tools' output). Built in (:mod:`.builtin`):
``pytest``, ``mini-swe-agent``, ``claude-code``, ``codex``.

A harness without a reader still gets the generic rules: a line of markup tags alone is
no verdict, a word in capitals joined by underscores is a sentinel worth keeping, a
number before ``:``, ``|``, a tab or two spaces numbers a listing's line, a line of
English verdict words (``passed``, ``failed``, ``Error``) is a command's outcome.

Register a reader of your own with :func:`register` (see ``docs/traces.md``)::

    from discourse_memory.traces import TraceReader, register
    register(TraceReader(name="my-harness", harness_tags=("task[-_]context",)))
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from ..registry import Registry

__all__ = ["TraceReader", "available", "generation", "harness_block", "line_number", "progress_line", "reader",
           "readers", "register"]


@dataclass(frozen=True, kw_only=True)
class TraceReader:
    """What the core knows of one harness or tool. Every entry is optional."""

    name: str
    """The harness's or tool's name (``"claude-code"``)."""
    harness_tags: tuple[str, ...] = ()
    """Patterns of the names of tags whose block is the harness's own text inside a user
    message or a tool's result (instructions, reminders, environment): the record passes
    it by (the user did not say it; it is the same in every run)."""
    line_number_marks: str = ""
    """Characters the harness's file reader prints between a line's number and its text."""
    progress_lines: tuple[str, ...] = ()
    """Patterns of a whole line of progress (no value of its own: its percent is no value)."""

    def __post_init__(self) -> None:
        if not self.name or self.name != self.name.strip():
            raise ValueError(f"a trace reader needs a name such as 'claude-code', not {self.name!r}")
        for pattern in (*self.harness_tags, *self.progress_lines):
            re.compile(pattern)  # (a bad pattern fails here, with the reader, not in a view)


def _built_in() -> tuple[TraceReader, ...]:
    from .builtin import READERS

    return READERS


_REGISTRY: Registry[TraceReader] = Registry(lambda r: r.name, _built_in)


def register(new: TraceReader) -> None:
    """Add ``new`` to the registry, or replace the reader of its name (a built-in one too);
    read from the next message read on."""
    if not isinstance(new, TraceReader):
        raise TypeError(f"register() takes a TraceReader, not {type(new).__name__}")
    _REGISTRY.register(new)


def reader(name: str) -> TraceReader:
    """The registered reader ``name``; a ``KeyError`` lists the available names."""
    got = _REGISTRY.get(name)
    if got is None:
        raise KeyError(f"no trace reader {name!r}; available: {', '.join(sorted(_REGISTRY.names()))}")
    return got


def readers() -> tuple[TraceReader, ...]:
    """Every registered reader: the built-in ones, then the user's, in order."""
    return _REGISTRY.entries()


def available() -> tuple[str, ...]:
    """The names of the registered readers."""
    return tuple(_REGISTRY.names())


def generation() -> int:
    """A number that changes whenever a reader is registered."""
    return _REGISTRY.generation()


_NEVER = re.compile(r"(?!)")


def harness_block() -> re.Pattern[str]:
    """A harness's tagged block, opening tag to closing one (group 1: the tag's name), of
    the registered readers' tags; a pattern that never matches when none has any."""
    return _harness_block(generation())


@functools.lru_cache(maxsize=2)
def _harness_block(_generation: int) -> re.Pattern[str]:
    tags = [t for r in readers() for t in r.harness_tags]
    if not tags:
        return _NEVER
    return re.compile(r"<(" + "|".join(tags) + r")(?:\s[^<>]*)?>.*?</\1\s*>", re.S | re.I)


def line_number() -> re.Pattern[str]:
    """A listing's line number opening a line (group 1: the number): before ``:``, ``|``, a
    tab, ``-``, a registered reader's marks, or two spaces."""
    return _line_number(generation())


@functools.lru_cache(maxsize=2)
def _line_number(_generation: int) -> re.Pattern[str]:
    marks = "".join(dict.fromkeys(c for r in readers() for c in r.line_number_marks))
    return re.compile(r"[ \t]*(\d{1,7})(?:[ \t]*[:|\t" + re.escape(marks) + r"-]|[ \t]{2})")


def progress_line() -> re.Pattern[str]:
    """A whole line of a registered tool's progress (``fullmatch`` a stripped line)."""
    return _progress_line(generation())


@functools.lru_cache(maxsize=2)
def _progress_line(_generation: int) -> re.Pattern[str]:
    lines = [p for r in readers() for p in r.progress_lines]
    return re.compile("|".join(f"(?:{p})" for p in lines)) if lines else _NEVER

"""How far the record's rules read: bounds of their scans, not weights.

Each bound keeps a rule's work independent of how long a text is (a unit can be one 5 MB
line stating many values), or a cache's size. None trades one view against another on
the texts the rules are written for, so none is a :class:`~discourse_memory.Policy`
field; a deployment has no reason to change them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LIMITS", "Limits"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """The record's scan bounds, in characters unless said otherwise."""

    encoded_scan: int = 200
    """How far around a value its line is read for base64 (a diff's lines are 76 characters)."""
    line_scan: int = 400
    """How far from a value of code or output its line's start and end are looked for."""
    quote_scan: int = 1000
    """How far back a value's line is read to pair the quotes its context may start inside."""
    bracket_reach: int = 40
    """How far after a value a bracket its context opened may close for the context to reach
    it, and how far before it a quote may open for the context to start there."""
    inline_key_chars: int = 60
    """How far before a value a label inside its line (``…, Departure: 07:00 PM EST``) is looked for."""
    json_path_chars: int = 2000
    """How far into a unit the key of a JSON value's container is looked for."""
    head_fields: int = 6
    """How many of an array's object's first fields are read for the one that names it (a count)."""
    one_element_chars: int = 20_000
    """A whole document up to this long is read as JSON to see whether it is a list of one object."""
    entry_lines: int = 50_000
    """Entry lines a note's ``lines_cache`` holds before it starts over (a count)."""


LIMITS = Limits()
"""The bounds every rule of the record reads."""

"""The record's limits: how far its rules read, and the shapes of what they find.

Two kinds of bound, neither a weight of the view:

- scan bounds keep a rule's work independent of how long a text is (a unit can be one
  5 MB line stating many values), or bound a cache;
- shapes say what a rule finds: how long an item, a head or a label may be, what counts
  as encoded data or a word in capitals for emphasis. The fit reads a value's item once
  per row and keeps it for every later view, whatever its policy (as it keeps every
  finding of the analysis), so these are not :class:`~discourse_memory.Policy` fields: a
  policy changes which items a view lists, never what an item says.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LIMITS", "Limits"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """The record's bounds, in characters unless said otherwise."""

    # -- scan bounds ---------------------------------------------------------------------
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
    # -- shapes ----------------------------------------------------------------------------
    item_chars: int = 80
    """An item longer than this is cut (…); a sentence's head grows no longer."""
    short_item_chars: int = 64
    """A list item stating several values and no label is listed whole up to this long."""
    row_head_chars: int = 60
    """A line's text before its first inline label heads the row of its labels' values up
    to this long ("Flight HAT136: JFK to ATL" of "- **Flight HAT136:** JFK to ATL, Departure: …")."""
    quoted_words: int = 8
    """A quoted string longer than this many words is cut (…) in the record (a count)."""
    line_chars: int = 40
    """A code or output line longer than this is shown as this many characters around the value."""
    label_chars: int = 40
    """A command, a name or a JSON key in an entry's label or key: at most this many characters
    (a command keeps its head and its tail, where a file name stands:
    ``sed -n 280,330p …/models/deletion.py``)."""
    head_words: int = 5
    """A value among its sentence's first this many words is listed with the sentence's head
    ("Melanie: We went camping last Saturday", not "Melanie: last Saturday", the date of
    nothing) (a count)."""
    thin_words: int = 3
    """A sentence's value whose context holds no lower-case content word is listed with the
    nearest one among this many words either side, within its clause ('"Brave" by Sara
    Bareilles has a lot', not '"Brave" by Sara Bareilles'). Four read better on LoCoMo at 10%
    (held values with context 91.0 against 89.7) but cost its even half 1.1 points of the
    values kept outside the note (a count)."""
    clause_words: int = 3
    """A sentence's head grows through the end of its clause when that is at most this many
    words on (a count)."""
    named_digits: int = 5
    """A number a capitalised noun names (``Certificate 4856383``) is an id from this many digits
    ("Python 3", "Line 1185", "Cyberpunk 2077" are no ids) (a count)."""
    encoded_changes: float = 0.4
    """A run of base64 (``Hi3yYJ0wTsyEheIszx6e/jarM3c…``: a binary file in a ``git diff``, a
    key or a certificate) changes between upper case, lower case, digits and ``+/`` at this
    share of its characters at least; names and identifiers do far less
    (``ModelChoiceIteratorValue`` 0.17, ``EUCKR_TABLE_SIZE`` none, hexadecimal ids have no
    upper case)."""
    encoded_line_chars: int = 40
    """A line of base64 at least this long, with half the case changes of ``encoded_changes``,
    is encoded data (its pieces, split at ``+`` and ``/``, may read like words:
    ``p7JSeKdghDRUNGTETUua``)."""
    lower_uses: int = 3
    """How often a word must be written in lower case for its capitals (``ID`` where tool
    output writes ``"id"``) to be emphasis or a label, not an identifier (a count)."""


LIMITS = Limits()
"""The bounds every rule of the record reads."""

"""The record: what a view left out, as entries with their keys.

The note the model reads lists, for each message that lost values, who said it (the
speaker or role; for tool output, the tool and its call) and the values with their
keys: the field's key (``Total: $21.99``), the JSON key (``user_id: mia_li_3668``), the
table's column header, for prose the nearest content word of the sentence that
stated it (``last Saturday``), for a line of code or output the line itself (``1969
fk_name = None``: a sentence's rules cut ``self.verbose_name = self.model._meta.x`` at
its dot into ``self.verbose_name = self``). Dialogue keeps its session dates as group
lines. Not values, so never listed: capitalised words only ever seen opening a sentence
(``Really``, ``Check``), the words of a Title Case heading, values that only stand in
the system prompt or a prompt's examples, text caught between two string literals of
code, and numbers without a key.

The record's text comes from user and tool messages, so it is presented as quoted data:
every item is a short span (quoted strings are capped), line breaks of every kind are
neutralised, and the note says where each entry came from (see docs/record.md).

Pure functions of a conversation's columns: :mod:`.fit` chooses which items to list,
:func:`render_note` writes them. The parts, each a module of its own:

- :mod:`.entries`: the plain data (:class:`Item`, :class:`Entry`, :class:`Record`);
- :mod:`.text`: one line per value, quoted strings cut, common words;
- which values count: :mod:`.noise` (emphasis, encoded data, code glue) and
  :mod:`.examples` (system prompts, examples, harness blocks, comments);
- :mod:`.labels`: who a message is from, session date lines;
- keys: :mod:`.keys` (fields, labels, rows), :mod:`.json_keys` (JSON paths and rows),
  :mod:`.lines` (a line of code or output, its number and file);
- a prose value's words: :mod:`.context` (the nearest content word), :mod:`.clauses`
  (the head of its sentence);
- :mod:`.items`: a value as an item with its key; :mod:`.note`: the note's text.
- :mod:`.limits`: how far the rules read (``LIMITS``, a frozen :class:`~.limits.Limits`).

The names below are loaded from their modules when first asked for, so importing one
module of the package (``record.entries``) imports none of the others.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .entries import Entry, Item, Record, built_item, built_items, widened
    from .examples import comment_units, example_units, harness_units, prompt_units, system_messages, \
        system_only_literals, talk_counts
    from .items import NAMED_NUMBER, UnitItems, first_statements, item_for, short_item_span
    from .json_keys import as_read, json_field, row_key
    from .keys import inline_key, line_head, line_row, list_row, title_case
    from .labels import asked_about, command_label, date_headers, is_date_header, message_label, output_command, \
        result_call
    from .lines import LINE_KINDS, code_line, line_text, source_path
    from .noise import lowercase_words, not_values
    from .note import LONE_SESSIONS, RECALL_HINT, VALUES_LINE, render_note
    from .text import sanitize

_OWNERS = {
    "entries": "Entry Item Record built_item built_items widened",
    "examples": "comment_units example_units harness_units prompt_units system_messages system_only_literals talk_counts",
    "items": "NAMED_NUMBER UnitItems first_statements item_for short_item_span",
    "json_keys": "as_read json_field row_key",
    "keys": "inline_key line_head line_row list_row title_case",
    "labels": "asked_about command_label date_headers is_date_header message_label output_command result_call",
    "lines": "LINE_KINDS code_line line_text source_path",
    "noise": "lowercase_words not_values",
    "note": "LONE_SESSIONS RECALL_HINT VALUES_LINE render_note",
    "text": "sanitize",
}
_OWNER = {name: module for module, names in _OWNERS.items() for name in names.split()}

__all__ = sorted(_OWNER)


def __getattr__(name: str) -> Any:
    module = _OWNER.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # (asked once: the next lookup finds it)
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_OWNER))

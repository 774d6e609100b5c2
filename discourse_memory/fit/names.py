"""What names a tool result: the field a question over many results needs beside each
result's asked-for value (issue 50, item 2).

"Which ticket had the highest p99?" across 74 ``get_service_status`` results is answered
by each result's ``p99_latency_ms`` *with* what tells the results apart. The record lists
the asked-for values first (``Policy.key_share``); this module finds, for a result whose
asked-for value is listed, the field to list it under (``{ticket: OPS-4000, p99_latency_ms:
955}``). By a general rule, not by the words "ticket" or "service": a field of the result
whose value no other result of the same tool states (an id, a name: a per-result value),
a string the call's arguments do not already name (the entry's label shows them), and not
one of the result's values the record lists anyway. Of those, one the focus names comes
first; else one whose key says it names something (``…_id``, ``name``, ``number``); else
none (the call's label is what names the result).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from ..columns import Columns
from ..json_units import json_object
from ..record import result_call, sanitize
from ..record.json_keys import _NAMING_KEY
from .limits import LIMITS

__all__ = ["name_group", "names_result", "result_name"]


@dataclass(slots=True)
class _NamesMemo:
    """What this module read of the conversation's tool results (columns only grow)."""

    read: int = 0
    """Messages read so far."""
    fields: dict[int, dict[str, str]] = field(default_factory=dict)
    """A tool result that is one JSON object -> its scalar members as shown (``key -> value``)."""
    tool: dict[int, str] = field(default_factory=dict)
    """Such a result -> the name of the tool that gave it."""
    stated: dict[str, Counter] = field(default_factory=dict)
    """A tool's name -> how many of its results state each ``(key, value)``."""
    results: Counter = field(default_factory=Counter)
    """A tool's name -> how many such results it gave."""


def name_group(n_units: int, m: int) -> int:
    """The group of the items listed under what names tool result ``m`` (``Item.group``):
    past every unit's number, so that it is no list's head."""
    return n_units + m


def names_result(n_units: int, group: int) -> bool:
    """Whether ``group`` is one of :func:`name_group`'s."""
    return group >= n_units


def _members(text: str) -> dict[str, str] | None:
    """The scalar members of a JSON object document (strings, and numbers under a naming
    key), as the record shows them; None when ``text`` is none or too long to read."""
    text = text.strip()
    if not text.startswith("{") or len(text) > LIMITS.result_chars:
        return None
    doc = json_object(text)
    if doc is None:
        return None
    out = {}
    for key, value in doc.items():
        if not isinstance(key, str) or not key:
            continue
        if isinstance(value, str) and 0 < len(value) <= LIMITS.result_name_chars and "\n" not in value:
            out[key] = value
        elif isinstance(value, int) and not isinstance(value, bool) and _NAMING_KEY.search(key):
            out[key] = str(value)
    return out


def _read(cols: Columns) -> _NamesMemo:
    memo = cols.memo(_NamesMemo)
    for m in range(memo.read, len(cols)):
        msg = cols.messages[m]
        if msg.role != "tool":
            continue
        call = result_call(cols, msg)
        members = _members(next((tf.text for tf in msg.texts), "")) if call is not None else None
        if not members:
            continue
        memo.fields[m] = members
        memo.tool[m] = call.name  # type: ignore[union-attr]
        memo.stated.setdefault(call.name, Counter()).update(members.items())  # type: ignore[union-attr]
        memo.results[call.name] += 1  # type: ignore[union-attr]
    memo.read = len(cols)
    return memo


def result_name(cols: Columns, m: int, listed_keys: set[str], named: Callable[[str], bool]) -> str | None:
    """``key: value`` of the field that names tool result ``m`` among the results of its
    tool (see the module docstring), or None. ``listed_keys``: the keys of the result's
    values the record may list anyway; ``named``: whether the focus names a key."""
    memo = _read(cols)
    members = memo.fields.get(m)
    if members is None:
        return None
    stated = memo.stated[memo.tool[m]]
    call = result_call(cols, cols.messages[m])
    arguments = call.arguments if call is not None else ""
    unique = [(k, v) for k, v in members.items()
              if stated[k, v] == 1 and k not in listed_keys and f'"{v}"' not in arguments and v not in arguments]
    if memo.results[memo.tool[m]] < 2:
        return None  # one result: nothing to tell apart
    best = next((kv for kv in unique if named(kv[0])), None) or next(
        (kv for kv in unique if _NAMING_KEY.search(kv[0])), None)
    if best is None:
        return None
    key, value = best
    return sanitize(f"{key}: {value}")

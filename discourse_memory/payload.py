"""Bounds on the shape of a message's JSON payload: how deep it nests, how many values it holds.

Copying, validating and serialising a message all recurse through it; a message nested
thousands of levels deep (a tampered state, a generated tool output) would reach Python's
recursion limit inside one of them and raise ``RecursionError`` from wherever that was.
:func:`payload_problem` walks the payload iteratively first, so such a message is refused
by name, with the path of the value that went too deep.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .limits import LIMITS

__all__ = ["payload_problem"]


_SCALARS = (str, int, float, bool, type(None))
_SCALAR_TYPES = frozenset(_SCALARS)


def payload_problem(value: Any, *, max_depth: int = LIMITS.payload_depth, max_values: int | None = None,
                    json_only: bool = False) -> str | None:
    """What is wrong with ``value``'s shape, or None: nested more than ``max_depth``
    containers deep, more than ``max_values`` values, or (``json_only``) a value JSON
    cannot hold (a key that is not a string, a value that is not a JSON type). The
    answer names the path of the offending value, e.g. ``['tool_calls'][0]['function']``."""
    if type(value) is dict and (max_values is None or len(value) < max_values) and max_depth > 0 \
            and all([type(v) in _SCALAR_TYPES for v in value.values()]) \
            and (not json_only or all([type(k) is str for k in value])):
        # (a message of str keys and scalar values, most of a history: the walk below finds nothing
        # in it, one value at a time; a restored memory's first view walked every message)
        return None
    stack: list[tuple[Any, int, tuple[Any, ...]]] = [(value, 0, ())]
    seen = 0
    while stack:
        item, depth, path = stack.pop()
        seen += 1
        if max_values is not None and seen > max_values:
            return f"holds more than {max_values:,} values"
        if type(item) in _SCALAR_TYPES:  # (most values: no ABC check of a Mapping for them)
            continue
        if isinstance(item, Mapping):
            children: Any = item.items()
        elif isinstance(item, (list, tuple)):
            children = enumerate(item)
        elif not json_only or isinstance(item, _SCALARS):
            continue
        else:
            return f"{_where(path)} is a {type(item).__name__}, which JSON cannot hold"
        if depth >= max_depth:
            return f"nests more than {max_depth} containers deep (at {_where(path)})"
        for key, child in children:
            if json_only and isinstance(item, Mapping) and not isinstance(key, str):
                return f"{_where(path)} has a key {key!r} that is not a string"
            stack.append((child, depth + 1, path + (key,) if len(path) < 8 else path))
    return None


def _where(path: tuple[Any, ...]) -> str:
    # (paths are kept to their first eight steps: a path 5,000 deep is no help to read)
    return "".join(f"[{step!r}]" for step in path) or "the message"

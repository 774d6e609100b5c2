"""Async forms of the blocking calls: each runs the sync call in a worker thread.

Compaction is CPU work (parsing, scoring, tokenising) of tens of milliseconds warm and
about a second cold (spaCy's import and pipeline load): run on an event loop's thread it
would hold every other task of the loop for that long. ``asyncio.to_thread`` runs it in
the loop's default executor and copies the caller's context variables into the worker,
so context-bound state (a framework's run config, a tracing span) is seen as in the sync
call. The result is the sync call's: same object type, same messages.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from .compaction import compact

__all__ = ["acompact", "in_thread"]

P = ParamSpec("P")
R = TypeVar("R")


def in_thread(fn: Callable[P, R]) -> Callable[P, Awaitable[R]]:
    """``fn`` as a coroutine function that runs it in a worker thread (``asyncio.to_thread``)."""

    @functools.wraps(fn)
    async def run(*args: P.args, **kwargs: P.kwargs) -> R:
        return await asyncio.to_thread(fn, *args, **kwargs)

    return run


acompact = in_thread(compact)
acompact.__name__ = acompact.__qualname__ = "acompact"
acompact.__doc__ = """:func:`compact` in a worker thread, for async code: ``await acompact(messages,
budget, ...)`` takes the same arguments and returns the same :class:`Compaction` (or raises
the same errors) without holding the event loop while it works."""

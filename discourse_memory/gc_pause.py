"""Pause Python's cyclic garbage collector while a view is made, and while one large
batch is analysed.

Analysing a long history cold (thousands of new messages at once) allocates a few
hundred thousand small objects that all stay alive: units, literals, their tuples.
None of them form reference cycles, yet each time the survivors grow by a quarter
CPython runs a full collection over the whole heap; on a 10,000-message history that
was a fifth of the time. mypy pauses the collector around its bulk parsing for the
same reason. A view of a long history is the same on a smaller scale: tens of thousands
of objects, none in a cycle (``tests/test_gc_pause.py`` checks), most freed when the view
is made. With the collector running, young collections walked them (3.7 ms of a 100 ms
turn at 10,000 messages) and the ones alive at the time were counted as survivors, which
set off a full collection of the whole analysis about one turn in ten (120 ms).

The pause is scoped and reference counted: the collector is re-enabled when the
last pause ends, and only if it was enabled when the first one began (a program
that turned it off keeps it off; one that turns it off from another thread while a
pause is running finds it on again when the pause ends). Nothing is freed later than it would have been
except objects in reference cycles, which wait until the pause ends. Setting
:data:`ENABLED` to False turns every pause off (to measure what it saves).

When the pause ends, what was made meanwhile is handed to the oldest generation at once
(``gc.freeze()`` then ``gc.unfreeze()``, which moves every tracked object there without
walking any): left young, the batch's objects would all be walked by the next young
collections, 0.1-0.3 s after a cold 10,000-message history, only to be found alive.
Objects made meanwhile by other threads move too: a reference cycle among them is
freed by the next full collection rather than a young one.
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Iterator
from contextlib import contextmanager

from .limits import LIMITS

__all__ = ["ENABLED", "gc_paused", "is_bulk"]

ENABLED = True
"""Whether :func:`gc_paused` pauses the collector at all."""


def is_bulk(texts: list[str]) -> bool:
    """Whether analysing ``texts`` at once is worth pausing the collector for."""
    return len(texts) >= LIMITS.bulk_texts or sum(map(len, texts)) >= LIMITS.bulk_chars


_lock = threading.Lock()
_depth = 0
_reenable = False


@contextmanager
def gc_paused(active: bool = True) -> Iterator[None]:
    """Run the block with the cyclic collector paused (when ``active``)."""
    global _depth, _reenable
    if not active or not ENABLED:
        yield
        return
    with _lock:
        if _depth == 0:
            _reenable = gc.isenabled()
            if _reenable:
                gc.disable()
        _depth += 1
    try:
        yield
    finally:
        with _lock:
            _depth -= 1
            if _depth == 0 and _reenable:
                # What the batch made is long-lived (cached analysis): hand it to the
                # oldest generation at once rather than have young collections walk it.
                gc.freeze()
                gc.unfreeze()
                gc.enable()

"""A long-lived memory's horizon: the newest messages a view is made of.

A view of 32,000 tokens shows well under a tenth of a history of a million tokens, and
what it leaves out of the oldest hundreds of thousands it cannot list either: ranking
them costs every turn (3 s at 200,000 messages) and the first view in a process must
analyse them all (111 s). A :class:`~discourse_memory.DiscourseMemory` therefore makes
each view of the messages within its horizon, ``max(LIMITS.horizon_budgets * budget,
LIMITS.horizon_min_tokens)`` tokens back from the newest (estimated at ``LIMITS.chars_per_token``
characters a token: a Chinese text, denser, keeps more), from a user's or an assistant's
message (no tool result loses its call), with its head: the leading system messages and the first
user message (an agent's task, a chat's opening). The messages between are left out as a
whole, and the note says so (``messages #2-#4999 beyond the horizon``); they stay in the
history: recalling one by reference returns it verbatim, and a query that matches nothing
within the horizon searches their text (``DiscourseMemory.recall``).

Histories of at most ``LIMITS.horizon_grown * LIMITS.horizon_min_tokens`` (500,000 tokens; every conversation of
``../shared/data``) have no horizon: their views are what they were. The window moves in
steps, once per horizon of new text, so most views extend the last one's analysis and a
step pays one analysis of the window. A window that fits the budget is still a view, with
its note: the messages beyond the horizon are in no view of it. A memory holding messages of another format
(Anthropic, Responses, framework dicts: converted on every view) has no horizon, nor does
:func:`~discourse_memory.compact` (each call is given the whole history).
"""

from __future__ import annotations

import bisect
from typing import Any, Sequence

from .messages import SYSTEM_ROLES
from .limits import LIMITS

__all__ = ["Horizon", "STUB"]


STUB: dict[str, Any] = {"role": "user", "content": ""}
"""What a message beyond the horizon is in a view's input: nothing to analyse or show, at
its own index (every reference and label keeps its number). One object, never edited."""


def _chars(m: Any) -> int:
    if not isinstance(m, dict):
        return 0
    content = m.get("content")
    n = len(content) if isinstance(content, str) else len(str(content)) if content is not None else 0
    calls = m.get("tool_calls")
    return n + (len(str(calls)) if calls else 0)


class Horizon:
    """Where the window of a growing history starts (0: no horizon). Not thread-safe: the
    memory calls it under its lock."""

    def __init__(self) -> None:
        self._ends = [0]  # characters up to each message
        self._lead = 0  # the leading system messages, and the task: the first user message after them
        self._leading = True
        self.start = 0

    def add(self, messages: Sequence[Any]) -> None:
        """Count appended messages."""
        for m in messages:
            self._ends.append(self._ends[-1] + _chars(m))
            if self._leading:
                role = m.get("role") if isinstance(m, dict) else None
                if role == "user":  # the task an agent was given, the chat's opening: kept
                    self._lead += 1
                    self._leading = False
                elif role in SYSTEM_ROLES:
                    self._lead += 1
                else:
                    self._leading = False

    def clear(self) -> None:
        self.__init__()  # type: ignore[misc]

    def window(self, budget: int, messages: Sequence[Any]) -> int:
        """The first message of the window for a view of ``budget`` tokens (0: the whole
        history). A function of the history and the budget alone (a memory restored from
        its state makes the same views): the window starts at a cut on a grid of the
        horizon's size, so it holds ``LIMITS.horizon_target`` to ``LIMITS.horizon_grown`` times the horizon and moves once
        per horizon of new text, then at the next user or assistant message."""
        horizon = max(LIMITS.horizon_budgets * budget, LIMITS.horizon_min_tokens) * LIMITS.chars_per_token
        ends = self._ends
        total = ends[-1]
        if total <= LIMITS.horizon_grown * horizon:
            self.start = 0
            return 0
        cut = int((total - LIMITS.horizon_target * horizon) // horizon) * horizon
        at = max(bisect.bisect_right(ends, cut) - 1, self._lead)
        # (from a turn of the talk: a tool's output never opens the window without its call,
        # and an agent's long run of calls has no user turn to wait for)
        while at < len(messages) and not (isinstance(messages[at], dict)
                                          and messages[at].get("role") in ("user", "assistant")):
            at += 1
        self.start = at if self._lead < at < len(messages) else 0
        return self.start

    def stubbed(self, messages: list[Any]) -> list[Any]:
        """``messages`` with every message between the head (the leading system messages and
        the first user message) and the window's start replaced by :data:`STUB`."""
        if not self.start:
            return messages
        return messages[:self._lead] + [STUB] * (self.start - self._lead) + messages[self.start:]

    @property
    def beyond(self) -> tuple[int, int] | None:
        """The messages beyond the horizon: the first and the end (None: none)."""
        return (self._lead, self.start) if self.start else None

"""Tool calls paired with their results, kept up to date as messages are appended.

A result (``role: "tool"``) answers the latest earlier assistant call with its
``tool_call_id``. Providers reject a result without its call and a call without all
its results, so the policy shows or hides each assistant's calls together with all
their results.
"""

from __future__ import annotations

from .messages import Message

__all__ = ["ToolPairs"]


class ToolPairs:
    """Which messages hold calls, which answer them, and what is left unpaired."""

    def __init__(self) -> None:
        self.results: dict[int, list[int]] = {}
        """Assistant message -> the messages holding its results, in order."""
        self.orphans: set[int] = set()
        """Results whose call is not in the conversation."""
        self.unanswered: set[int] = set()
        """Assistant messages with a call that has no result (yet)."""
        self.owner: dict[int, int] = {}
        """Result message -> the assistant message holding its call."""
        self._call_owner: dict[str, int] = {}
        self._pending: dict[int, set[str]] = {}

    def add(self, m: Message) -> None:
        if m.tool_calls:
            # A call without an id can never be answered: it keeps its message unanswered.
            self._pending[m.index] = {c.id or f"\x00missing-{k}" for k, c in enumerate(m.tool_calls)}
            self.unanswered.add(m.index)
            for call in m.tool_calls:
                if call.id:
                    self._call_owner[call.id] = m.index
        if m.role == "tool":
            a = self._call_owner.get(m.tool_call_id) if m.tool_call_id else None
            if a is None:
                self.orphans.add(m.index)
                return
            self.results.setdefault(a, []).append(m.index)
            self.owner[m.index] = a
            pending = self._pending.get(a, set())
            pending.discard(m.tool_call_id or "")
            if not pending:
                self.unanswered.discard(a)

    def well_formed(self, msgs: list[Message]) -> bool:
        """Whether a provider would take these messages as they are: no orphan result, and
        no unanswered call before the newest user message (a call still waiting for its
        result in the newest turn is well formed: the agent is about to run it)."""
        last_user = max((m.index for m in msgs if m.role == "user"), default=len(msgs) - 1)
        return not self.orphans and all(a >= last_user for a in self.unanswered)

    def chain_of(self, index: int) -> list[int]:
        """The messages that must be shown with message ``index`` for its calls and
        results to stay paired: itself, and its assistant call and all that call's
        results (if it is one of them, or holds calls)."""
        owner = self.owner.get(index, index)
        if owner in self.results or owner in self.unanswered:
            return sorted({owner, index, *self.results.get(owner, ())})
        return [index]

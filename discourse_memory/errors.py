"""Exceptions raised by discourse-memory.

Every error the library raises on purpose derives from ``DiscourseMemoryError``;
each also derives from the built-in that says what kind of mistake it is::

    DiscourseMemoryError
    ├── InvalidMessageError (ValueError)   a message is malformed (bad role, content, tool call)
    ├── InvalidOptionError (ValueError, TypeError)  an option or argument has the wrong type or value
    ├── BudgetTooSmallError (ValueError)   what must be kept verbatim does not fit the budget
    ├── EncodingUnavailableError (LookupError)  a tiktoken encoding cannot be loaded offline
    └── StateError (ValueError)            a saved memory state is corrupt or from a newer version
"""

from __future__ import annotations

__all__ = [
    "BudgetTooSmallError",
    "DiscourseMemoryError",
    "EncodingUnavailableError",
    "InvalidMessageError",
    "InvalidOptionError",
    "StateError",
]


class DiscourseMemoryError(Exception):
    """Root of every error raised on purpose by discourse-memory."""


class InvalidMessageError(DiscourseMemoryError, ValueError):
    """A message does not have the OpenAI chat shape the library accepts."""


class InvalidOptionError(DiscourseMemoryError, ValueError, TypeError):
    """An option or argument (budget, note role, focus, ...) has the wrong type or value;
    the message names it and what it accepts."""


class BudgetTooSmallError(DiscourseMemoryError, ValueError):
    """The protected messages (system, newest turn) alone exceed the budget."""

    def __init__(self, budget: int, minimum: int, protected: str = "system + newest turn") -> None:
        self.budget = budget
        self.minimum = minimum
        self.protected = protected
        if protected == "nothing":
            what = "the record note's frame alone needs"
            fix = f"Raise the budget to >= {minimum}."
        else:
            what = f"the messages kept verbatim ({protected}) and the record note's frame need"
            fix = (f"Raise the budget to >= {minimum}, or pass relax=True (or keep_last_turn=False / "
                   f"keep_system=False) to let those be compacted too.")
        super().__init__(f"budget={budget} tokens is too small: {what} at least {minimum} tokens. {fix}")


class EncodingUnavailableError(DiscourseMemoryError, LookupError):
    """A tiktoken encoding is not available without a network download."""


class StateError(DiscourseMemoryError, ValueError):
    """A saved ``DiscourseMemory`` state cannot be loaded."""

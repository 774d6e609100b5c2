"""discourse-memory: keep long LLM conversations inside the context window, and say
exactly what was left out.

    >>> from discourse_memory import compact
    >>> view = compact(messages, budget=4000)
    >>> view.messages, view.report
"""

from .compaction import Compaction, Compactor, compact
from .errors import (
    BudgetTooSmallError,
    DiscourseMemoryError,
    EncodingUnavailableError,
    InvalidMessageError,
    StateError,
)
from .literals import Literal
from .memory import DiscourseMemory
from .policy import Settings
from .report import Report, UnitReport
from .tokens import TokenCounter, get_token_counter
from .units import Unit

__all__ = [
    "BudgetTooSmallError",
    "Compaction",
    "Compactor",
    "DiscourseMemory",
    "DiscourseMemoryError",
    "EncodingUnavailableError",
    "InvalidMessageError",
    "Literal",
    "Report",
    "Settings",
    "StateError",
    "TokenCounter",
    "Unit",
    "UnitReport",
    "compact",
    "get_token_counter",
]

__version__ = "0.1.0"

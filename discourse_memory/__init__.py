"""discourse-memory: keep long LLM conversations inside the context window, and say
exactly what was left out.

    >>> from discourse_memory import compact
    >>> compaction = compact(messages, budget=4000)   # a Compaction (docs/api.md)
    >>> compaction.messages, compaction.note, compaction.report
    >>> compaction = await acompact(messages, budget=4000)  # async code: the work runs in a thread
"""

from .aio import acompact
from .analysis_cache import AnalysisCache, RedisAnalysisCache
from .compaction import Compaction, Compactor, compact, count_messages
from .errors import (
    BudgetTooSmallError,
    DiscourseMemoryError,
    EncodingUnavailableError,
    InvalidMessageError,
    InvalidOptionError,
    StateError,
)
from .memory import DiscourseMemory
from .nlp import warm_up
from .options import NEWEST_TURN, Options
from .policy import Policy
from .recall import Recalled
from .report import RecordEntry, Report, UnitReport
from .tokens import TokenCounter, get_token_counter

__all__ = [
    "AnalysisCache",
    "BudgetTooSmallError",
    "Compaction",
    "Compactor",
    "DiscourseMemory",
    "DiscourseMemoryError",
    "EncodingUnavailableError",
    "InvalidMessageError",
    "InvalidOptionError",
    "NEWEST_TURN",
    "Options",
    "Policy",
    "Recalled",
    "RecordEntry",
    "RedisAnalysisCache",
    "Report",
    "StateError",
    "TokenCounter",
    "UnitReport",
    "acompact",
    "compact",
    "count_messages",
    "get_token_counter",
    "warm_up",
]

__version__ = "0.1.0"

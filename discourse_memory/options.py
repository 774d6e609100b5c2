"""``Options``: how a compaction counts, protects and records; one frozen object shared by
:func:`~discourse_memory.compact`, :class:`~discourse_memory.DiscourseMemory`,
:class:`~discourse_memory.Compactor` and the framework adapters.

Checked once, here: every other module takes an ``Options`` as given.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, fields, replace
from typing import Any, Union

from .errors import InvalidOptionError
from .framing import FRAMING_RULES, framing_of
from .policy import DEFAULT_POLICY, Policy

__all__ = ["NEWEST_TURN", "NOTE_ROLES", "Options", "FocusLike", "pipeline_name_problem"]

NOTE_ROLES = ("system", "user", "developer")

# A pipeline name is a spaCy language code after "blank:" (spaCy imports ``spacy.lang.<code>``)
# or a model package's name (spaCy imports that package): never a path or a dotted module.
_BLANK_NAME = re.compile(r"blank:[a-z]{2,3}")
_PACKAGE_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,99}")


def pipeline_name_problem(name: object) -> str | None:
    """Why ``name`` cannot name a spaCy pipeline, or None: ``None``, ``"blank:<language
    code>"`` (``"blank:en"``) or a model package's name (``"en_core_web_sm"``). Whether
    the package is installed is checked when it is loaded (see :mod:`.nlp`)."""
    if name is None:
        return None
    if not isinstance(name, str):
        return f"must be a spaCy pipeline name or None, got {name!r}"
    if _BLANK_NAME.fullmatch(name) or (not name.startswith("blank:") and _PACKAGE_NAME.fullmatch(name)):
        return None
    return (f"must be 'blank:' and a language code ('blank:en') or an installed model package's "
            f"name ('en_core_web_sm'), got {name[:100]!r}")


class _NewestTurn:
    """The default focus: what the newest turn asks (see :mod:`.focus`)."""

    _instance: "_NewestTurn | None" = None

    def __new__(cls) -> "_NewestTurn":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NEWEST_TURN"

    def __reduce__(self) -> str:
        return "NEWEST_TURN"


NEWEST_TURN = _NewestTurn()
"""``focus=NEWEST_TURN`` (the default): the view serves the newest turn: for a chat, the
newest user message; for an agent step, the newest assistant message, its tool calls
and their results. ``focus=None`` switches focus off; a string focuses on that text."""

FocusLike = Union[str, None, _NewestTurn]


@dataclass(frozen=True, slots=True, kw_only=True)
class Options:
    """How to compact. Keyword-only and frozen: make a variant with ``options.replace(...)``.

    Analysis (fixed per :class:`~discourse_memory.Compactor`): ``token_counter``,
    ``pipeline``, ``clip_tokens``. Everything else may differ from view to view.
    """

    token_counter: Any = None
    """A tiktoken encoding name (default ``"cl100k_base"``, offline), a
    ``callable(str) -> int``, or a :class:`~discourse_memory.TokenCounter`."""
    pipeline: str | None = None
    """spaCy pipeline: ``None`` / ``"blank:en"`` (default, no download) or an installed
    model package such as ``"en_core_web_sm"`` (adds its statistical entities)."""
    clip_tokens: int = 12
    """Tokens a clipped unit keeps at least (twice that for code and table rows)."""
    keep_system: bool = True
    """Keep system/developer messages verbatim (while the budget allows: see ``strict``). A
    prompt over ``Policy.system_share`` of the budget that would leave the conversation
    little room is outlined instead: each of its units' openings first, the rest competing
    like any text (the report's ``protection`` says so)."""
    keep_last_turn: bool = True
    """Keep the newest turn (the last user message and everything after it) verbatim."""
    strict: bool = False
    """Raise :class:`~discourse_memory.BudgetTooSmallError` when what ``keep_system`` and
    ``keep_last_turn`` protect does not fit. By default protection degrades instead, in
    documented steps (the report's ``protection`` says which held): system + newest
    turn, then system + the newest message and its open tool-call chain, then the
    newest message alone."""
    relax: bool = False
    """When even the newest message alone does not fit, compact it too instead of raising."""
    note_role: str = "system"
    """Role of the record note: ``"system"``, ``"user"`` or ``"developer"``."""
    message_overhead: str | int | Callable[[Mapping[str, Any]], int] = "auto"
    """What a request adds to its messages' text, so the budget bounds the request:
    ``"auto"`` (default: the provider rule of the messages' format, Anthropic's for
    Anthropic Messages and OpenAI's for the rest), ``"openai"`` (the OpenAI cookbook's
    count: 3 tokens a message plus its role, name (+1) and ids, 3 to prime the reply),
    ``"anthropic"`` (a generous estimate: Anthropic publishes no rule), ``"none"``
    (text only); or an int or a function of the message dict (tokens per message, no
    reply priming), for other APIs. Counted with ``token_counter``; the record note
    counts as a message (``docs/formats.md``, "Request framing")."""
    dedup_min_tokens: int = 4
    """Shorter units are never dropped as repeats."""
    recall: bool = False
    """The model has a recall tool (``Compaction.recall``, the adapters' ``recall`` tools):
    the note says how to use it, and the first ``…`` of a message that lost text names
    the message (``…#12``), so the model can ask for it back."""
    policy: Policy = DEFAULT_POLICY
    """The weights of the fit and the focus (a :class:`~discourse_memory.Policy`; None is
    taken as the default one). Changes views, not the analysis: not part of ``analysis_key``."""

    def __post_init__(self) -> None:
        for name in ("keep_system", "keep_last_turn", "strict", "relax", "recall"):
            value = getattr(self, name)
            if not isinstance(value, bool):
                raise InvalidOptionError(f"{name} must be True or False, got {value!r}")
        if self.note_role not in NOTE_ROLES:
            raise InvalidOptionError(
                f"note_role must be one of {', '.join(map(repr, NOTE_ROLES))}; got {self.note_role!r}")
        for name in ("clip_tokens", "dedup_min_tokens"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise InvalidOptionError(f"{name} must be a positive whole number of tokens, got {value!r}")
        overhead = self.message_overhead
        if isinstance(overhead, str):
            if overhead not in FRAMING_RULES:
                raise InvalidOptionError(
                    f"message_overhead must be one of {', '.join(map(repr, FRAMING_RULES))}, a number of tokens "
                    f">= 0 or a function of a message; got {overhead!r}")
        elif not callable(overhead) and (isinstance(overhead, bool) or not isinstance(overhead, int) or overhead < 0):
            raise InvalidOptionError(
                f"message_overhead must be one of {', '.join(map(repr, FRAMING_RULES))}, a number of tokens "
                f">= 0 or a function of a message; got {overhead!r}")
        problem = pipeline_name_problem(self.pipeline)
        if problem is not None:
            raise InvalidOptionError(f"pipeline {problem}")
        if self.policy is None:
            object.__setattr__(self, "policy", DEFAULT_POLICY)
        elif not isinstance(self.policy, Policy):
            raise InvalidOptionError(
                f"policy must be a discourse_memory.Policy or None, got {type(self.policy).__name__}")

    def replace(self, **changes: Any) -> "Options":
        """A copy with ``changes`` (checked like the constructor's arguments)."""
        unknown = set(changes) - set(self.field_names())
        if unknown:
            raise InvalidOptionError(
                f"unknown option(s) {', '.join(sorted(unknown))}; options are {', '.join(self.field_names())}")
        return replace(self, **changes)

    @classmethod
    def field_names(cls) -> tuple[str, ...]:
        return tuple(f.name for f in fields(cls))

    @property
    def analysis_key(self) -> tuple[Any, ...]:
        """What a :class:`~discourse_memory.Compactor`'s caches depend on."""
        counter = self.token_counter
        return (counter if counter is None or isinstance(counter, str) else id(counter), self.pipeline,
                self.clip_tokens)

    def overhead(self, message: Mapping[str, Any]) -> int:
        """Chat-format tokens of one OpenAI-chat message dict under ``message_overhead``
        (a named rule is counted with ``token_counter``; the reply priming is not a
        message's: see :func:`~discourse_memory.framing.framing_of`)."""
        overhead = self.message_overhead
        if isinstance(overhead, str):
            from .tokens import get_token_counter

            overhead = framing_of(overhead, "openai", get_token_counter(self.token_counter).count).per_message
        return int(overhead(message)) if callable(overhead) else overhead

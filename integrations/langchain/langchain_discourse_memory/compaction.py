"""`compact_messages`: a drop-in for `langchain_core.messages.trim_messages`.

Where `trim_messages` cuts whole messages from one end, `compact_messages` asks
the discourse-memory core to deduplicate, clip and omit source-span units and
adds a record note listing the literals (numbers, ids, dates, names, paths) of
what was left out. Everything in this module is translation: the compaction
policy lives in the core.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal, overload

from langchain_core.messages import BaseMessage, MessageLikeRepresentation, ToolMessage, convert_to_messages
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableLambda

from discourse_memory import BudgetTooSmallError, Compaction, Compactor, Options
from langchain_discourse_memory._convert import from_core_messages, orphan_tool_messages, to_core_dicts
from langchain_discourse_memory._counting import Counting, LangChainTokenCounter, resolve_token_counter

__all__ = ["CompactedView", "compact_messages", "compact_view"]

logger = logging.getLogger(__name__)

NoteRole = Literal["system", "user"]

_MAX_ATTEMPTS = 8
"""How many times the core is asked again with a smaller budget when the user's
counter (which may add per-message overhead) finds the result over `max_tokens`."""


@dataclass(frozen=True)
class CompactedView:
    """The outcome of one compaction.

    Attributes:
        messages: the LangChain messages to send to the model.
        compaction: the core's result (with its `report`), or `None` when the
            input already fit and was returned unchanged.
        tokens: the size of `messages` by the user's own counter.
    """

    messages: list[BaseMessage]
    compaction: Compaction | None
    tokens: int


def _validate(max_tokens: int, note_role: str) -> None:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
        msg = f"max_tokens must be an int, got {type(max_tokens).__name__}."
        raise TypeError(msg)
    if max_tokens < 0:
        msg = f"max_tokens must be >= 0, got {max_tokens}."
        raise ValueError(msg)
    if note_role not in ("system", "user"):
        msg = f"note_role must be 'system' or 'user', got {note_role!r}."
        raise ValueError(msg)


def compact_view(
    messages: Sequence[BaseMessage],
    *,
    max_tokens: int,
    counting: Counting,
    keep_system: bool = True,
    keep_last_turn: bool = True,
    note_role: NoteRole = "system",
    relax: bool = False,
    compactor: Compactor | None = None,
) -> CompactedView:
    """Compact LangChain messages so that `counting.messages(result) <= max_tokens`.

    With `relax=True`, when the protected messages do not fit, the core protects
    less instead of raising: the newest message alone, then not the system
    messages either, then nothing (`compaction.report.protection` says which).
    `compactor` is the core `Compactor` to use (default: `counting.compactor`);
    give each conversation its own so the core can reuse its analysis.

    The core compacts under a budget measured with `counting.text`. When the
    user's counter is not the core's own accounting, the result is measured with
    it and, if over `max_tokens`, compacted again with the core budget lowered by
    the excess, at most `_MAX_ATTEMPTS` times.

    Raises:
        BudgetTooSmallError: when the protected messages do not fit, or when no
            core budget brings the user's count under `max_tokens` (then
            `.minimum` is the smallest user count reached). The latter happens
            with counters that add a per-message overhead the core cannot see
            (such as `"approximate"`, 3 tokens and the role per message): a
            history of many tiny messages can fit the core's count while the
            user's count is over `max_tokens`, and below the core's count there
            is no room for the record note.
    """
    _validate(max_tokens, note_role)
    originals = list(messages)
    if not counting.exact:
        tokens = counting.messages(originals)
        if tokens <= max_tokens and not orphan_tool_messages(originals):
            return CompactedView(originals, None, tokens)
    sent = to_core_dicts(originals)
    settings = Options(keep_system=keep_system, keep_last_turn=keep_last_turn, note_role=note_role, relax=relax,
                       strict=not relax)
    core = compactor if compactor is not None else counting.compactor
    budget = max_tokens
    best: int | None = None
    for attempt in range(_MAX_ATTEMPTS):
        try:
            result = core.compact(sent, budget, settings)
        except BudgetTooSmallError:
            if attempt == 0:
                raise
            break  # a lowered budget no longer holds the protected messages
        out = from_core_messages(originals, sent, result.messages, result.sources, note_role=note_role)
        tokens = result.tokens_after if counting.exact else counting.messages(out)
        if tokens <= max_tokens:
            return CompactedView(out, result, tokens)
        best = tokens if best is None else min(best, tokens)
        # The user's counter adds what the core does not see (per-message
        # overhead, roles, names): ask again with the core budget lowered by the excess.
        budget = min(budget, result.tokens_after) - (tokens - max_tokens)
        if budget < 0:
            break
    raise BudgetTooSmallError(max_tokens, best if best is not None else max_tokens + 1)


def _message_type_matches(message: BaseMessage, types: Any) -> bool:
    if types is None:
        return True
    items = [types] if isinstance(types, (str, type)) else list(types)
    return any(
        (isinstance(t, str) and message.type == t) or (isinstance(t, type) and isinstance(message, t)) for t in items
    )


def _drop_tool_results_of(messages: list[BaseMessage], removed: Iterable[BaseMessage]) -> list[BaseMessage]:
    ids = {c.get("id") for m in removed for c in getattr(m, "tool_calls", ()) or ()}
    ids |= {c.get("id") for m in removed for c in getattr(m, "invalid_tool_calls", ()) or ()}
    ids.discard(None)
    if not ids:
        return messages
    return [m for m in messages if not (isinstance(m, ToolMessage) and m.tool_call_id in ids)]


def _apply_start_end(messages: list[BaseMessage], start_on: Any, end_on: Any) -> list[BaseMessage]:
    """Honour `trim_messages`' `start_on` / `end_on` without leaving orphan tool results."""
    out = list(messages)
    if end_on is not None:
        while out and not _message_type_matches(out[-1], end_on):
            removed = out.pop()
            out = _drop_tool_results_of(out, [removed])
    if start_on is not None:
        head = 0
        while head < len(out) and out[head].type == "system":
            head += 1
        removed: list[BaseMessage] = []
        while head < len(out) and not _message_type_matches(out[head], start_on):
            removed.append(out.pop(head))
        out = _drop_tool_results_of(out, removed)
    return out


def _compact_messages(
    messages: Iterable[MessageLikeRepresentation] | PromptValue,
    *,
    max_tokens: int,
    token_counter: LangChainTokenCounter = None,
    include_system: bool = False,
    keep_last_turn: bool = True,
    note_role: NoteRole = "system",
    strategy: Literal["last"] = "last",
    allow_partial: bool = False,
    start_on: Any = None,
    end_on: Any = None,
    text_splitter: Any = None,
    relax: bool = False,
    _counting: Counting | None = None,
    _compactor: Compactor | None = None,
) -> list[BaseMessage]:
    del allow_partial, text_splitter  # accepted for trim_messages compatibility; see docstring
    if strategy != "last":
        msg = (
            f"compact_messages supports strategy='last' only (got {strategy!r}): it keeps "
            "the newest turn and compacts older messages."
        )
        raise ValueError(msg)
    lc_messages = convert_to_messages(messages)
    counting = _counting if _counting is not None else resolve_token_counter(token_counter)
    view = compact_view(
        lc_messages,
        compactor=_compactor,
        max_tokens=max_tokens,
        counting=counting,
        keep_system=include_system,
        keep_last_turn=keep_last_turn,
        note_role=note_role,
        relax=relax,
    )
    return _apply_start_end(view.messages, start_on, end_on)


@overload
def compact_messages(
    messages: Iterable[MessageLikeRepresentation] | PromptValue,
    *,
    max_tokens: int,
    token_counter: LangChainTokenCounter = None,
    include_system: bool = False,
    keep_last_turn: bool = True,
    note_role: NoteRole = "system",
    strategy: Literal["last"] = "last",
    allow_partial: bool = False,
    start_on: Any = None,
    end_on: Any = None,
    text_splitter: Any = None,
    relax: bool = False,
) -> list[BaseMessage]: ...


@overload
def compact_messages(
    messages: None = None,
    *,
    max_tokens: int,
    token_counter: LangChainTokenCounter = None,
    include_system: bool = False,
    keep_last_turn: bool = True,
    note_role: NoteRole = "system",
    strategy: Literal["last"] = "last",
    allow_partial: bool = False,
    start_on: Any = None,
    end_on: Any = None,
    text_splitter: Any = None,
    relax: bool = False,
) -> Runnable[Sequence[MessageLikeRepresentation], list[BaseMessage]]: ...


def compact_messages(
    messages: Iterable[MessageLikeRepresentation] | PromptValue | None = None,
    **kwargs: Any,
) -> list[BaseMessage] | Runnable[Sequence[MessageLikeRepresentation], list[BaseMessage]]:
    """Compact chat history to fit `max_tokens`; a drop-in for `trim_messages`.

    Called with messages, returns the compacted list. Called without them,
    returns a `Runnable` (as `trim_messages` does), so in a chain
    `trim_messages(max_tokens=..., ...)` becomes `compact_messages(max_tokens=..., ...)`.

    Args:
        messages: messages, message-likes, or a `PromptValue`.
        max_tokens: the budget, measured with `token_counter`.
        token_counter: `None` (default: the core's offline tiktoken
            `cl100k_base`), `"approximate"`, a tiktoken encoding name, a
            `BaseLanguageModel`, or a function of a list of messages or of one
            `BaseMessage`. A counter that counts messages (`len`) is refused.
        include_system: keep system messages verbatim (as in `trim_messages`,
            default `False`: then they may be compacted too).
        keep_last_turn: keep the last human message and everything after it
            verbatim (default `True`).
        note_role: role of the record note: `"system"` (a `SystemMessage`,
            default) or `"user"` (a `HumanMessage`). The note carries
            `additional_kwargs={"lc_source": "discourse_memory"}`.
        strategy: only `"last"` (the default of `trim_messages`); `"first"` raises.
        allow_partial: accepted and ignored: compaction always clips inside
            messages as needed.
        start_on: after compaction, drop leading non-system messages until one
            of these types (as in `trim_messages`); tool results of a dropped
            tool-calling `AIMessage` are dropped with it.
        end_on: drop trailing messages until one of these types.
        text_splitter: accepted and ignored (the core splits text itself).
        relax: when what must stay verbatim does not fit, protect less instead
            of raising (the newest message alone, then not the system messages,
            then nothing). Default `False`: a budget too small for what the
            caller asked to keep verbatim is an error.

    Returns:
        The compacted messages: each one is the original message object, or a
        `model_copy` of it with shorter `content` (ids, names, metadata kept),
        plus at most one record note. If the input fits, it is returned as is.
        No `ToolMessage` is ever left without the `AIMessage` that called it.

    Raises:
        BudgetTooSmallError: (a `ValueError`) when what must stay verbatim does
            not fit `max_tokens`.
        ValueError / TypeError: for a bad argument.
    """
    if messages is not None:
        return _compact_messages(messages, **kwargs)
    if "max_tokens" not in kwargs:
        msg = "compact_messages() missing required keyword argument: 'max_tokens'"
        raise TypeError(msg)
    # Validate eagerly so a misconfigured chain fails when it is built.
    _validate(kwargs["max_tokens"], kwargs.get("note_role", "system"))
    counting = resolve_token_counter(kwargs.get("token_counter"))
    return RunnableLambda(
        partial(_compact_messages, _counting=counting, _compactor=counting.new_compactor(), **kwargs),
        name="compact_messages",
    )

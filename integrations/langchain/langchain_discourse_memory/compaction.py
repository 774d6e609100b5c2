"""`compact_messages`, a drop-in for `trim_messages`, and `compact_view`. Translation only: the
core decides; this module converts messages, hands the core the user's counter as a text counter
plus a per-message overhead (`_counting`), and maps the result back."""

from __future__ import annotations

import logging
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from langchain_core.messages import BaseMessage, HumanMessage, MessageLikeRepresentation, ToolMessage
from langchain_core.messages import convert_to_messages
from langchain_core.prompt_values import PromptValue
from langchain_core.runnables import Runnable, RunnableLambda

import discourse_memory
from discourse_memory import (
    NEWEST_TURN,
    BudgetTooSmallError,
    Compaction,
    Compactor,
    Options,
    Policy,
    Recalled,
    warm_up,
)
from langchain_discourse_memory._convert import from_core, orphan_tool_messages
from langchain_discourse_memory._counting import LangChainTokenCounter, resolve_token_counter

__all__ = ["CompactedView", "compact_messages", "compact_view", "count_tokens"]

NoteRole = Literal["system", "user", "developer"]
MessageTypes = Any  # str | type[BaseMessage] | Sequence[str | type[BaseMessage]], as in trim_messages


@dataclass(frozen=True)
class CompactedView:
    """`messages` to send, the core's `compaction` (a `Compaction`: `report`, `note`, `to_html()`), and
    their `tokens` by the user's counter."""

    messages: list[BaseMessage]
    compaction: Compaction
    tokens: int


def _check_max_tokens(max_tokens: Any) -> None:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
        raise TypeError(f"max_tokens must be an int, got {type(max_tokens).__name__}.")
    if max_tokens < 0:
        raise ValueError(f"max_tokens must be >= 0, got {max_tokens}.")


class _Session:
    """A resolved counter, the core options, the `Compactor` of one conversation (`None`: one-off calls
    use `discourse_memory.compact`) and `shown`: its last view and the messages it was made from."""

    def __init__(self, token_counter: LangChainTokenCounter = None, *, own: bool = True, cache: Any = None,
                 **settings: Any) -> None:
        self.counting = counting = resolve_token_counter(token_counter)
        self.cache = cache  # (a discourse_memory.AnalysisCache shared by workers, or None)
        # (the core's own count is of the request sent to an OpenAI-shaped chat API: its framing too)
        self.options = Options(token_counter=counting.text,
                               message_overhead="openai" if counting.exact else counting.overhead,
                               **settings)
        self.compactor = Compactor(options=self.options, cache=cache) if own else None
        if own:  # a long-lived conversation: its first view need not wait for spaCy
            warm_up(self.options.pipeline)
        self.shown: tuple[list[BaseMessage], Compaction] | None = None

    @property
    def last_compaction(self) -> Compaction | None:
        return None if self.shown is None else self.shown[1]

    def new(self) -> _Session:
        """A session for another conversation, with the same counter and options."""
        other = object.__new__(_Session)
        other.__dict__.update(self.__dict__, compactor=Compactor(options=self.options, cache=self.cache), shown=None)
        return other

    def _compact(self, sent: list[dict[str, Any]], budget: int, options: Options, focus: Any) -> Compaction:
        if self.compactor is None:
            return discourse_memory.compact(sent, budget, options=options, focus=focus)
        return self.compactor.compact(sent, budget, options, focus=focus)

    def view(self, messages: Sequence[BaseMessage], max_tokens: int, focus: Any = NEWEST_TURN) -> CompactedView:
        out = self._fit(messages := list(messages), max_tokens, focus)
        self.shown = (messages, out.compaction)
        return out

    def view_or_all(self, messages: Sequence[BaseMessage], max_tokens: int, logger: logging.Logger,
                    owner: str) -> list[BaseMessage]:
        """The view's messages; all of `messages` (logged) when not even the note's frame fits."""
        try:
            return self.view(messages, max_tokens).messages
        except BudgetTooSmallError as exc:
            logger.warning("%s: %s; returning the full history (%d messages).", owner, exc, len(messages))
            return list(messages)

    def recall(self, messages: Sequence[BaseMessage] | None, reference: str, max_tokens: int) -> Recalled:
        """`reference` against the last view if `messages` (default: its own) extend its messages (a query
        searches what it left out; at most half its budget back), else against `messages` as a whole."""
        shown, last = self.shown or ([], None)
        if last is not None and (messages is None or list(messages[: len(shown)]) == shown):
            return last.recall(reference, min(max_tokens, max(1, last.budget // 2)))
        compactor = self.compactor or Compactor(options=self.options, cache=self.cache)
        return compactor.recall(self.counting.dicts(messages or []), reference, max_tokens)

    def _fit(self, originals: list[BaseMessage], max_tokens: int, focus: Any) -> CompactedView:
        """`originals` compacted to `max_tokens` by the user's counter: one core call if it is additive;
        else, if over, once more with the excess spread over the messages' overheads (README)."""
        _check_max_tokens(max_tokens)
        counting, options = self.counting, self.options
        sent = counting.dicts(originals)
        budget = max(0, max_tokens - counting.per_list)
        if not counting.exact:
            tokens = counting.messages(originals)
            if tokens <= max_tokens and not orphan_tool_messages(originals):
                whole = discourse_memory.count_messages(sent, counting.core, options)
                return CompactedView(originals, self._compact(sent, max(budget, whole), options, focus), tokens)
        result = self._compact(sent, budget, options, focus)
        out = from_core(originals, sent, result, options.note_role)
        if counting.exact:
            return CompactedView(out, result, result.tokens_after)
        tokens = counting.messages(out)
        if tokens > max_tokens:
            extra = math.ceil((tokens - counting.per_list - result.tokens_after) / len(out))
            options = options.replace(message_overhead=lambda m: counting.overhead(m) + extra)
            result = self._compact(sent, budget, options, focus)
            out = from_core(originals, sent, result, options.note_role)
            tokens = counting.messages(out)
            if tokens > max_tokens:
                raise BudgetTooSmallError(max_tokens, tokens, f"{result.report.protection}, by {counting.name}")
        return CompactedView(out, result, tokens)


def compact_view(messages: Sequence[BaseMessage], *, max_tokens: int, token_counter: LangChainTokenCounter = None,
                 keep_system: bool = True, keep_last_turn: bool = True, note_role: NoteRole = "system",
                 strict: bool = False, relax: bool = False, focus: str | None | Any = NEWEST_TURN,
                 policy: Policy | None = None) -> CompactedView:
    """LangChain messages compacted to `max_tokens` (by `token_counter`, as in `compact_messages`),
    with the core's `Compaction`: `compact_view(msgs, max_tokens=4000).compaction.to_html()`.
    `policy`: the core's weights (a `discourse_memory.Policy`; None: the default)."""
    session = _Session(token_counter, own=False, keep_system=keep_system, keep_last_turn=keep_last_turn,
                       note_role=note_role, strict=strict, relax=relax, policy=policy)
    return session.view(list(messages), max_tokens, focus)


def count_tokens(messages: Sequence[BaseMessage], token_counter: LangChainTokenCounter = None) -> int:
    """Tokens of `messages` as `max_tokens` counts them (`None`: the core's accounting, cl100k_base)."""
    return resolve_token_counter(token_counter).messages(list(messages))


def _matches(message: BaseMessage, types: MessageTypes) -> bool:
    items = [types] if isinstance(types, (str, type)) else list(types)
    return any(message.type == t if isinstance(t, str) else isinstance(message, t) for t in items)


def _apply(session: _Session, messages: Iterable[MessageLikeRepresentation] | PromptValue, *, max_tokens: int,
           start_on: MessageTypes, end_on: MessageTypes, focus: Any) -> list[BaseMessage]:
    msgs = convert_to_messages(messages)
    while end_on is not None and msgs and not _matches(msgs[-1], end_on):  # before compacting, as trim_messages
        msgs.pop()
    out = session.view(msgs, max_tokens, focus).messages
    if start_on is None:
        return out
    head = next((i for i, m in enumerate(out) if m.type != "system"), len(out))
    dropped: set[str] = set()
    while head < len(out) and not _matches(out[head], start_on):
        gone = out.pop(head)
        dropped.update(c["id"] for c in getattr(gone, "tool_calls", ()) if c.get("id"))
    return [m for m in out if not (isinstance(m, ToolMessage) and m.tool_call_id in dropped)]


def compact_messages(
    messages: Iterable[MessageLikeRepresentation] | PromptValue | None = None,
    *,
    max_tokens: int,
    token_counter: LangChainTokenCounter = None,
    strategy: Literal["last"] = "last",
    allow_partial: bool = False,
    end_on: MessageTypes = None,
    start_on: MessageTypes = None,
    include_system: bool = False,
    text_splitter: Any = None,
    # beyond trim_messages:
    keep_last_turn: bool = True, note_role: NoteRole | None = None, strict: bool = False, relax: bool = False,
    focus: str | None | Any = NEWEST_TURN, policy: Policy | None = None,
) -> list[BaseMessage] | Runnable[Sequence[MessageLikeRepresentation], list[BaseMessage]]:
    """Compact chat history to `max_tokens`: a drop-in for `trim_messages`, same parameters, then ours
    (all in the README). With `messages`, the compacted list; without, a `Runnable`. Returned:
    original messages, `model_copy`s with shorter `content` and at most one record note; no
    `ToolMessage` without its call. `BudgetTooSmallError` if not even the newest message fits."""
    del allow_partial, text_splitter
    if strategy != "last":
        raise ValueError(f"compact_messages supports strategy='last' only (got {strategy!r}): it keeps the "
                         "newest turn.")
    human_first = start_on is not None and _matches(HumanMessage(""), start_on)
    if note_role is None:
        note_role = "user" if human_first else "system"
    elif human_first and note_role != "user":
        raise ValueError(f"start_on={start_on!r} with note_role={note_role!r} would drop the view's leading messages: "
                         "leave note_role unset (the record note then opens the view as a HumanMessage).")
    _check_max_tokens(max_tokens)
    session = _Session(token_counter, own=messages is None, keep_system=include_system,
                       keep_last_turn=keep_last_turn, note_role=note_role, strict=strict, relax=relax, policy=policy)
    run = partial(_apply, session, max_tokens=max_tokens, start_on=start_on, end_on=end_on, focus=focus)
    return RunnableLambda(run, name="compact_messages") if messages is None else run(messages)

"""`compact_messages`, a drop-in for `trim_messages`, and `compact_view`. Translation only: the
core decides; this module converts messages, hands the core the user's counter as a text counter
plus a per-message overhead (`_counting`), and maps the result back."""

from __future__ import annotations

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
from discourse_memory import NEWEST_TURN, BudgetTooSmallError, Compaction, Compactor, Options, Recalled
from langchain_discourse_memory._convert import from_core, orphan_tool_messages
from langchain_discourse_memory._counting import LangChainTokenCounter, resolve_token_counter

__all__ = ["CompactedView", "compact_messages", "compact_view", "count_tokens"]

NoteRole = Literal["system", "user", "developer"]
MessageTypes = Any  # str | type[BaseMessage] | Sequence[str | type[BaseMessage]], as in trim_messages


@dataclass(frozen=True)
class CompactedView:
    """One compaction: `messages` to send, the core's `compaction` (its `report`, `note`,
    `to_html()`), and `tokens`, the size of `messages` by the user's counter."""

    messages: list[BaseMessage]
    compaction: Compaction
    tokens: int


def _check_max_tokens(max_tokens: Any) -> None:
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int):
        msg = f"max_tokens must be an int, got {type(max_tokens).__name__}."
        raise TypeError(msg)
    if max_tokens < 0:
        msg = f"max_tokens must be >= 0, got {max_tokens}."
        raise ValueError(msg)


class _Session:
    """A resolved counter, the core options (checked once, by `Options`) and the core
    `Compactor` of one conversation (`None`: one-off calls go through `discourse_memory.compact`),
    and `shown`: the messages of its last view and that view, for `recall`."""

    def __init__(self, token_counter: LangChainTokenCounter = None, *, own: bool = True, **settings: Any) -> None:
        self.counting = counting = resolve_token_counter(token_counter)
        self.options = Options(token_counter=counting.text, message_overhead=0 if counting.exact else counting.overhead,
                               **settings)
        self.compactor = Compactor(options=self.options) if own else None
        self.shown: tuple[list[BaseMessage], Compaction] | None = None

    def new(self) -> _Session:
        """A session for another conversation, with the same counter and options."""
        other = object.__new__(_Session)
        other.__dict__.update(self.__dict__, compactor=Compactor(options=self.options), shown=None)
        return other

    def _compact(self, sent: list[dict[str, Any]], budget: int, options: Options, focus: Any) -> Compaction:
        if self.compactor is None:
            return discourse_memory.compact(sent, budget, options=options, focus=focus)
        return self.compactor.compact(sent, budget, options, focus=focus)

    def view(self, messages: Sequence[BaseMessage], max_tokens: int, focus: Any = NEWEST_TURN) -> CompactedView:
        out = self._fit(messages := list(messages), max_tokens, focus)
        self.shown = (messages, out.compaction)
        return out

    def recall(self, messages: Sequence[BaseMessage] | None, reference: str, max_tokens: int) -> Recalled:
        """`reference` resolved against the last view if `messages` (default: its own) extend what it
        was made from (a query searches what it left out; at most half its budget back), else
        against `messages` as a whole."""
        shown, last = self.shown or ([], None)
        if last is not None and (messages is None or list(messages[: len(shown)]) == shown):
            return last.recall(reference, min(max_tokens, max(1, last.budget // 2)))
        compactor = self.compactor or Compactor(options=self.options)
        return compactor.recall(self.counting.dicts(messages or []), reference, max_tokens)

    def _fit(self, originals: list[BaseMessage], max_tokens: int, focus: Any) -> CompactedView:
        """`messages` compacted to at most `max_tokens` by the user's counter: one core call
        when it is additive. Otherwise (a model counter encoding "role: text" as one string,
        where a token can straddle both) the result is counted once; if over, the excess spread
        over the messages is added to each one's overhead for one more core call, and if still
        over, `BudgetTooSmallError` (its `minimum`: the user's count)."""
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
                 strict: bool = False, relax: bool = False, focus: str | None | Any = NEWEST_TURN) -> CompactedView:
    """Compact LangChain messages to `max_tokens` (by `token_counter`, as in `compact_messages`)
    and return them with the core's `Compaction`: `compact_view(msgs, max_tokens=4000).compaction.to_html()`.

    Protection degrades as the core's does (the report's `protection` says what held);
    `strict=True` raises `BudgetTooSmallError` instead, `relax=True` compacts even the newest
    message. `focus`: `NEWEST_TURN` (default), a text, or `None`.
    """
    session = _Session(token_counter, own=False, keep_system=keep_system, keep_last_turn=keep_last_turn,
                       note_role=note_role, strict=strict, relax=relax)
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
    focus: str | None | Any = NEWEST_TURN,
) -> list[BaseMessage] | Runnable[Sequence[MessageLikeRepresentation], list[BaseMessage]]:
    """Compact chat history to `max_tokens`: a drop-in for `trim_messages`, same parameters.

    With `messages`, returns the compacted list; without, a `Runnable` (arguments checked at
    once), so `prompt | trim_messages(max_tokens=...) | model` becomes
    `prompt | compact_messages(max_tokens=...) | model`. Returned: original messages,
    `model_copy`s with shorter `content` (ids, names, metadata kept) and at most one record
    note (`additional_kwargs["lc_source"] == "discourse_memory"`); no `ToolMessage` without its call.

    Args:
        max_tokens: the budget, counted with `token_counter`: `None` (default: the core's
            offline `cl100k_base`), an encoding name, `"approximate"`, a `BaseLanguageModel`,
            or a function of a list of messages or of one `BaseMessage`.
        strategy: `"last"` only. `allow_partial`, `text_splitter`: accepted, no effect (the
            core always works inside messages, on its own units).
        end_on: drop trailing messages until one of these types, before compacting.
        start_on: the first non-system message is of these types. With `"human"` among them the
            record note opens the view as a `HumanMessage`; otherwise, or when nothing was
            compacted, leading messages are dropped as `trim_messages` does (with their results).
        include_system: keep system messages verbatim (default `False`, as `trim_messages`:
            then they may be compacted; the note never precedes them).
        keep_last_turn: keep the last human message and what follows verbatim.
        note_role: `"system"`, `"user"` or `"developer"` (default: `"user"` with `start_on="human"`).
        strict: raise `BudgetTooSmallError` when the protected messages do not fit, instead of
            protecting less; `relax`: compact even the newest message when it does not fit.
        focus: `NEWEST_TURN` (default), a text (e.g. the question about to be asked), or `None`.

    Raises:
        BudgetTooSmallError: (a `ValueError`, with `.minimum`) not even the newest message fits.
    """
    del allow_partial, text_splitter
    if strategy != "last":
        msg = f"compact_messages supports strategy='last' only (got {strategy!r}): it keeps the newest turn."
        raise ValueError(msg)
    human_first = start_on is not None and _matches(HumanMessage(""), start_on)
    if note_role is None:
        note_role = "user" if human_first else "system"
    elif human_first and note_role != "user":
        msg = (f"start_on={start_on!r} with note_role={note_role!r} would drop the view's leading messages: "
               "leave note_role unset (the record note then opens the view as a HumanMessage).")
        raise ValueError(msg)
    _check_max_tokens(max_tokens)
    session = _Session(token_counter, own=messages is None, keep_system=include_system,
                       keep_last_turn=keep_last_turn, note_role=note_role, strict=strict, relax=relax)
    run = partial(_apply, session, max_tokens=max_tokens, start_on=start_on, end_on=end_on, focus=focus)
    return RunnableLambda(run, name="compact_messages") if messages is None else run(messages)

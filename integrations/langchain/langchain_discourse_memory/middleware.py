"""`DiscourseCompactionMiddleware`: compact the model's view in `create_agent`.

Unlike `SummarizationMiddleware`, which calls an LLM in `before_model` and
rewrites the agent state (`RemoveMessage(REMOVE_ALL_MESSAGES)` + summary), this
middleware works in `wrap_model_call` / `awrap_model_call`: it hands the model a
compacted copy of the request's messages and leaves the state alone, so the
checkpointed history keeps every message.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, Union

from langchain.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.config import get_config

from discourse_memory import BudgetTooSmallError, Compactor
from langchain_discourse_memory._counting import LangChainTokenCounter, resolve_token_counter
from langchain_discourse_memory.compaction import CompactedView, NoteRole, compact_view

__all__ = ["ContextSize", "DiscourseCompactionMiddleware", "TriggerClause"]

logger = logging.getLogger(__name__)

ContextSize = Union[
    tuple[Literal["tokens"], int],
    tuple[Literal["messages"], int],
    tuple[Literal["fraction"], float],
]
"""`("tokens", n)`, `("messages", n)` or `("fraction", f)`, as in `SummarizationMiddleware`."""

TriggerClause = Mapping[str, Union[int, float]]
"""`{"tokens": n, "messages": m, "fraction": f}`: every given threshold must be met (AND)."""

_METRICS = ("tokens", "messages", "fraction")
_MAX_THREAD_COMPACTORS = 64
"""Core compactors kept per LangGraph thread (least recently used dropped first)."""


def _check_size(kind: Any, value: Any, what: str) -> None:
    if kind not in _METRICS:
        msg = f"Unsupported {what} metric {kind!r}; use one of {_METRICS}."
        raise ValueError(msg)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        msg = f"{what} value for {kind!r} must be a number, got {value!r}."
        raise ValueError(msg)
    if kind == "fraction":
        if not 0 < value <= 1:
            msg = f"{what} fraction must be in (0, 1], got {value}."
            raise ValueError(msg)
    elif not isinstance(value, int) or value <= 0:
        msg = f"{what} {kind} must be a positive int, got {value!r}."
        raise ValueError(msg)


def _normalize_trigger(trigger: Any) -> list[dict[str, float]]:
    if trigger is None:
        return []
    items = trigger if isinstance(trigger, list) else [trigger]
    clauses: list[dict[str, float]] = []
    for item in items:
        if isinstance(item, tuple) and len(item) == 2:
            _check_size(item[0], item[1], "trigger")
            clauses.append({item[0]: item[1]})
        elif isinstance(item, Mapping) and item:
            for kind, value in item.items():
                _check_size(kind, value, "trigger")
            clauses.append(dict(item))
        else:
            msg = (
                "trigger must be a ('tokens'|'messages'|'fraction', value) tuple, a non-empty "
                f"dict of those, or a list of either; got {item!r}."
            )
            raise ValueError(msg)
    return clauses


def _max_input_tokens(model: Any) -> int | None:
    profile = getattr(model, "profile", None)
    if isinstance(profile, Mapping) and isinstance(profile.get("max_input_tokens"), int):
        return int(profile["max_input_tokens"])
    return None


class DiscourseCompactionMiddleware(AgentMiddleware):
    """A no-LLM alternative to `SummarizationMiddleware` for `create_agent`.

    On each model call, when `trigger` is met, the request's messages (the
    conversation; the agent's `system_prompt` is passed on unchanged and, as in
    `SummarizationMiddleware`, not counted) are compacted by the discourse-memory
    core to the `keep` budget: older turns are deduplicated, clipped or omitted,
    and a record note lists the literals (ids, numbers, dates, names, paths) of
    what was left out. Tool calls stay paired with their results: no `ToolMessage` is sent
    without the `AIMessage` that made the call.

    Only the request changes. The agent state, and so the checkpointed history,
    keeps every message unchanged.

    The middleware never makes the agent loop fail: if the protected messages
    (system messages in the conversation, the newest turn) do not fit `keep`, the
    core protects less (`relax=True`: the newest message alone, then not the
    system messages either, then nothing); if even that does not fit (the budget
    is below the record note's fixed frame), or compaction fails for any other reason, the request goes to the model
    unchanged and a warning is logged on the `langchain_discourse_memory.middleware`
    logger. Likewise when `("fraction", f)` is used with a model that has no
    `profile["max_input_tokens"]`, or when the system prompt alone exceeds `keep`
    with `count_system_prompt=True`.

    Example:
        ```python
        from langchain.agents import create_agent
        from langchain_discourse_memory import DiscourseCompactionMiddleware

        agent = create_agent(
            "openai:gpt-4o",
            tools=[...],
            middleware=[DiscourseCompactionMiddleware(trigger=("tokens", 8000), keep=("tokens", 4000))],
        )
        ```

    Args:
        keep: the budget of the compacted view: `("tokens", n)` or
            `("fraction", f)` of the model's `profile["max_input_tokens"]`.
            (`("messages", n)` is refused: the core budgets tokens.)
        trigger: when to compact, as in `SummarizationMiddleware`: a
            `ContextSize` tuple, a `TriggerClause` dict (all thresholds must be
            met), or a list of either (any must be met). Thresholds are measured
            on the request's messages (and the system prompt with
            `count_system_prompt=True`). `None` (default) compacts whenever the
            messages are over `keep`.
        token_counter: as in `compact_messages` (default: the core's offline
            tiktoken `cl100k_base`). Tool schemas are not counted.
        keep_system: keep system messages verbatim (default `True`).
        keep_last_turn: keep the last human message and everything after it
            verbatim (default `True`).
        note_role: role of the record note, `"system"` (default; it is the first
            of the request's messages, right after the system prompt, so
            providers that merge leading system messages accept it) or `"user"`.
        count_system_prompt: count the agent's system prompt against `keep` and
            `trigger` too, so that system prompt + messages fit `keep` (default
            `False`, as `SummarizationMiddleware` counts the state's messages only).
    """

    def __init__(
        self,
        *,
        keep: ContextSize,
        trigger: ContextSize | TriggerClause | list[ContextSize | TriggerClause] | None = None,
        token_counter: LangChainTokenCounter = None,
        keep_system: bool = True,
        keep_last_turn: bool = True,
        note_role: NoteRole = "system",
        count_system_prompt: bool = False,
    ) -> None:
        super().__init__()
        if not (isinstance(keep, tuple) and len(keep) == 2):
            msg = f"keep must be a ('tokens', n) or ('fraction', f) tuple, got {keep!r}."
            raise ValueError(msg)
        _check_size(keep[0], keep[1], "keep")
        if keep[0] == "messages":
            msg = (
                "keep=('messages', n) is not supported: the compacted view is sized in tokens. "
                "Use keep=('tokens', n) or keep=('fraction', f)."
            )
            raise ValueError(msg)
        if note_role not in ("system", "user"):
            msg = f"note_role must be 'system' or 'user', got {note_role!r}."
            raise ValueError(msg)
        self.keep = keep
        self.trigger = trigger
        self._trigger_clauses = _normalize_trigger(trigger)
        self.keep_system = keep_system
        self.keep_last_turn = keep_last_turn
        self.note_role: NoteRole = note_role
        self.count_system_prompt = count_system_prompt
        self._counting = resolve_token_counter(token_counter)
        self._compactors: OrderedDict[Any, Compactor] = OrderedDict()
        self._compactors_lock = threading.Lock()
        self.last_view: CompactedView | None = None
        """The last compaction sent to a model (any thread), for inspection:
        `Path("view.html").write_text(middleware.last_view.compaction.to_html())`."""

    # -- policy plumbing -----------------------------------------------------

    def _budget(self, model: Any) -> int | None:
        kind, value = self.keep
        if kind == "tokens":
            return int(value)
        limit = _max_input_tokens(model)
        return None if limit is None else max(1, int(limit * value))

    def _triggered(self, model: Any, messages: Sequence[BaseMessage], system_tokens: int) -> bool:
        if not self._trigger_clauses:
            return True
        tokens: int | None = None
        for clause in self._trigger_clauses:
            met = True
            for kind, value in clause.items():
                if kind == "messages":
                    met = len(messages) >= value
                else:
                    if kind == "fraction":
                        limit = _max_input_tokens(model)
                        if limit is None:
                            met = False
                            break
                        threshold = max(1, int(limit * value))
                    else:
                        threshold = int(value)
                    if tokens is None:
                        tokens = self._counting.messages(messages) + system_tokens
                    met = tokens >= threshold
                if not met:
                    break
            if met:
                return True
        return False

    def _compactor_for_thread(self) -> Compactor:
        """The core compactor of the current LangGraph thread (one per conversation,
        so the core reuses the analysis of the messages it saw on the last call)."""
        try:
            thread = get_config().get("configurable", {}).get("thread_id")
        except RuntimeError:  # called outside a runnable context
            thread = None
        with self._compactors_lock:
            compactor = self._compactors.get(thread)
            if compactor is None:
                compactor = self._compactors[thread] = self._counting.new_compactor()
                while len(self._compactors) > _MAX_THREAD_COMPACTORS:
                    self._compactors.popitem(last=False)
            else:
                self._compactors.move_to_end(thread)
            return compactor

    def _compact(self, messages: list[BaseMessage], budget: int) -> CompactedView | None:
        try:
            return compact_view(
                messages,
                max_tokens=budget,
                counting=self._counting,
                keep_system=self.keep_system,
                keep_last_turn=self.keep_last_turn,
                note_role=self.note_role,
                relax=True,
                compactor=self._compactor_for_thread(),
            )
        except BudgetTooSmallError as error:
            logger.warning("DiscourseCompactionMiddleware: %s; sending the request unchanged.", error)
            return None

    def compact_request(self, request: ModelRequest) -> ModelRequest:
        """Return the request the model should get: compacted, or `request` itself.

        Only `request.messages` is compacted; `request.system_message` is passed
        on unchanged (and counted against the budget only with
        `count_system_prompt=True`). Never raises: on any failure it logs a
        warning and returns `request`.
        """
        try:
            budget = self._budget(request.model)
            if budget is None:
                logger.warning(
                    "DiscourseCompactionMiddleware: keep=%r needs the model's profile['max_input_tokens'], "
                    "which %s does not have; sending the request unchanged.",
                    self.keep,
                    type(request.model).__name__,
                )
                return request
            messages = list(request.messages)
            system_tokens = 0
            if self.count_system_prompt and request.system_message is not None:
                system_tokens = self._counting.messages([request.system_message])
            if not self._triggered(request.model, messages, system_tokens):
                return request
            if budget - system_tokens < 0:
                logger.warning(
                    "DiscourseCompactionMiddleware: the system prompt alone (%d tokens) exceeds keep=%r; "
                    "sending the request unchanged.",
                    system_tokens,
                    self.keep,
                )
                return request
            view = self._compact(messages, budget - system_tokens)
            if view is not None and view.compaction is not None:
                self.last_view = view
            if view is None or (
                len(view.messages) == len(messages)
                and all(a is b for a, b in zip(view.messages, messages, strict=True))
            ):
                return request
            return request.override(messages=view.messages)
        except Exception:  # compaction must not break the agent loop
            logger.warning(
                "DiscourseCompactionMiddleware: compaction failed; sending the request unchanged.",
                exc_info=True,
            )
            return request

    # -- AgentMiddleware hooks -----------------------------------------------

    def wrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], ModelResponse],
    ) -> ModelResponse | AIMessage:
        """Call the model with the compacted request; the state is not modified."""
        return handler(self.compact_request(request))

    async def awrap_model_call(
        self,
        request: ModelRequest,
        handler: Callable[[ModelRequest], Awaitable[ModelResponse]],
    ) -> ModelResponse | AIMessage:
        """Async `wrap_model_call`."""
        return await handler(self.compact_request(request))

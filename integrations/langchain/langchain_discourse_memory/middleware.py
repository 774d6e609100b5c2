"""`DiscourseCompactionMiddleware`: compact the model's view in `create_agent`, in `wrap_model_call`
(`request.override(messages=...)`: the checkpointed state keeps every message), unlike
`SummarizationMiddleware`, which rewrites the state with an LLM summary."""

from __future__ import annotations

import asyncio
import logging
import threading
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any, Literal, Union

from langchain.agents.middleware.types import AgentMiddleware, ModelRequest, ModelResponse
from langchain.tools import ToolRuntime
from langchain_core.messages import AIMessage, BaseMessage
from langgraph.config import get_config

from discourse_memory import AnalysisCache, Compaction, Policy, Recalled, warm_up
from langchain_discourse_memory._counting import LangChainTokenCounter
from langchain_discourse_memory.compaction import CompactedView, NoteRole, _Session
from langchain_discourse_memory.recall import RecallArgs, RecallTool

__all__ = ["ContextSize", "DiscourseCompactionMiddleware", "TriggerClause"]

logger = logging.getLogger(__name__)

# As in `SummarizationMiddleware`: `("tokens", n)`, `("messages", n)` or `("fraction", f)`; a clause
# `{"tokens": n, "messages": m, "fraction": f}` is met when every given threshold is (AND).
ContextSize = Union[tuple[Literal["tokens"], int], tuple[Literal["messages"], int], tuple[Literal["fraction"], float]]
TriggerClause = Mapping[str, Union[int, float]]

_METRICS = ("tokens", "messages", "fraction")
_MAX_THREADS = 64
"""Core compactors kept, one per LangGraph thread (least recently used dropped first)."""


def _check_size(kind: Any, value: Any, what: str) -> None:
    if kind not in _METRICS:
        raise ValueError(f"Unsupported {what} metric {kind!r}; use one of {_METRICS}.")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"{what} value for {kind!r} must be a number, got {value!r}.")
    if kind == "fraction" and not 0 < value <= 1:
        raise ValueError(f"{what} fraction must be in (0, 1], got {value}.")
    if kind != "fraction" and (not isinstance(value, int) or value <= 0):
        raise ValueError(f"{what} {kind} must be a positive int, got {value!r}.")


def _normalize_trigger(trigger: Any) -> list[dict[str, float]]:
    clauses: list[dict[str, float]] = []
    for item in [] if trigger is None else trigger if isinstance(trigger, list) else [trigger]:
        if isinstance(item, tuple) and len(item) == 2:
            item = {item[0]: item[1]}
        if not isinstance(item, Mapping) or not item:
            raise ValueError("trigger must be a ('tokens'|'messages'|'fraction', value) tuple, a non-empty dict of "
                             f"those, or a list of either; got {item!r}.")
        for kind, value in item.items():
            _check_size(kind, value, "trigger")
        clauses.append(dict(item))
    return clauses


def _max_input_tokens(model: Any) -> int | None:
    profile = getattr(model, "profile", None)
    limit = profile.get("max_input_tokens") if isinstance(profile, Mapping) else None
    return limit if isinstance(limit, int) else None


class _AgentRecallArgs(RecallArgs, arbitrary_types_allowed=True):
    runtime: ToolRuntime  # injected by the agent's ToolNode (not shown to the model): state and config


class DiscourseCompactionMiddleware(AgentMiddleware):
    """A no-LLM alternative to `SummarizationMiddleware` for `create_agent`: when `trigger` is met,
    the request's messages are compacted by the core to `keep` (the state is untouched). It never
    fails the loop: when compaction cannot help, the request goes on unchanged with a warning.

    Args:
        keep: `("tokens", n)` or `("fraction", f)` of `profile["max_input_tokens"]`.
        trigger: as in `SummarizationMiddleware`: a `ContextSize`, a `TriggerClause` (AND) or a
            list of either (OR); `None` (default): whenever the messages exceed `keep`.
        token_counter, keep_system, keep_last_turn, note_role: as in `compact_messages`.
        recall: the note names references and a `recall` tool (`tools`) gets each back: resolved in
            the calling thread's session, against the view it last showed (or the thread's state).
        policy: the core's weights (a `discourse_memory.Policy`; None: the default).
        cache: analyses shared by the workers that serve the agent's threads (a
            `discourse_memory.RedisAnalysisCache`): a worker that never saw a thread makes its first
            compaction of it warm (docs/workers.md).
    """

    def __init__(self, *, keep: ContextSize,
                 trigger: ContextSize | TriggerClause | list[ContextSize | TriggerClause] | None = None,
                 token_counter: LangChainTokenCounter = None, keep_system: bool = True, keep_last_turn: bool = True,
                 note_role: NoteRole = "system", count_system_prompt: bool = False, recall: bool = False,
                 policy: Policy | None = None, cache: AnalysisCache | None = None) -> None:
        super().__init__()
        if not (isinstance(keep, tuple) and len(keep) == 2):
            raise ValueError(f"keep must be a ('tokens', n) or ('fraction', f) tuple, got {keep!r}.")
        _check_size(keep[0], keep[1], "keep")
        if keep[0] == "messages":
            raise ValueError("keep=('messages', n) is not supported: the view is sized in tokens. "
                             "Use ('tokens', n) or ('fraction', f).")
        self.keep = keep
        self.trigger = trigger
        self._clauses = _normalize_trigger(trigger)
        self.count_system_prompt = count_system_prompt
        self._session = _Session(token_counter, own=False, keep_system=keep_system, keep_last_turn=keep_last_turn,
                                 note_role=note_role, relax=True, recall=recall, policy=policy, cache=cache)
        warm_up()  # an agent's first compaction need not wait for spaCy
        self.tools = [RecallTool(self, args_schema=_AgentRecallArgs)] if recall else []
        self._threads: OrderedDict[Any, _Session] = OrderedDict()
        self._lock = threading.Lock()
        self.last_view: CompactedView | None = None  # the last compaction sent to a model (any thread)

    def _budget(self, model: Any) -> int | None:
        kind, value = self.keep
        limit = _max_input_tokens(model)
        return int(value) if kind == "tokens" else None if limit is None else max(1, int(limit * value))

    def _triggered(self, model: Any, messages: Sequence[BaseMessage], system_tokens: int) -> bool:
        limit, tokens = _max_input_tokens(model), None

        def met(kind: str, value: float) -> bool:
            nonlocal tokens
            if kind == "messages" or (kind == "fraction" and limit is None):
                return kind == "messages" and len(messages) >= value
            if tokens is None:  # counted once, only when a clause needs it
                tokens = self._session.counting.messages(messages) + system_tokens
            return tokens >= (max(1, int(limit * value)) if kind == "fraction" else value)  # type: ignore[operator]

        return not self._clauses or any(all(met(k, v) for k, v in c.items()) for c in self._clauses)

    def _thread_session(self, config: Mapping[str, Any] | None = None) -> _Session:
        """The session of the current LangGraph thread: one core Compactor per conversation."""
        try:
            thread = (config or get_config()).get("configurable", {}).get("thread_id")
        except RuntimeError:  # outside a runnable context
            thread = None
        with self._lock:
            session = self._threads.get(thread)
            if session is None:
                session = self._threads[thread] = self._session.new()
                while len(self._threads) > _MAX_THREADS:
                    self._threads.popitem(last=False)
            self._threads.move_to_end(thread)
            return session

    @property
    def last_compaction(self) -> Compaction | None:
        """The core's `Compaction` behind the last compacted request (`last_view.compaction`; None before)."""
        view = self.last_view
        return None if view is None else view.compaction

    def recalled(self, reference: str, max_tokens: int = 1000, *, runtime: ToolRuntime | None = None) -> Recalled:
        """The `recall` tool's answer in the calling thread (`runtime`: the tool's): against the view it
        last got if its state extends that view's messages, else against the state's messages."""
        session = self._thread_session(runtime.config if runtime is not None else None)
        return session.recall(runtime.state["messages"] if runtime is not None else None, reference, max_tokens)

    def compact_request(self, request: ModelRequest) -> ModelRequest:
        """The request the model should get: compacted, or `request` itself. Never raises."""
        try:
            budget = self._budget(request.model)
            if budget is None:
                logger.warning("DiscourseCompactionMiddleware: keep=%r needs the model's profile['max_input_tokens'], "
                               "which %s does not have; sending the request unchanged.", self.keep,
                               type(request.model).__name__)
                return request
            messages = list(request.messages)
            system_tokens = 0
            if self.count_system_prompt and request.system_message is not None:
                system_tokens = self._session.counting.messages([request.system_message])
            if not self._triggered(request.model, messages, system_tokens):
                return request
            if budget < system_tokens:
                logger.warning("DiscourseCompactionMiddleware: the system prompt alone (%d tokens) exceeds keep=%r; "
                               "sending the request unchanged.", system_tokens, self.keep)
                return request
            view = self._thread_session().view(messages, budget - system_tokens)
        except Exception as exc:  # compaction must not break the agent loop
            logger.warning("DiscourseCompactionMiddleware: %s; sending the request unchanged.", exc,
                           exc_info=not isinstance(exc, ValueError))
            return request
        if len(view.messages) == len(messages) and all(a is b for a, b in zip(view.messages, messages)):
            return request
        self.last_view = view
        return request.override(messages=view.messages)

    def wrap_model_call(self, request: ModelRequest,
                        handler: Callable[[ModelRequest], ModelResponse]) -> ModelResponse | AIMessage:
        """Call the model with the compacted request; the state is not modified."""
        return handler(self.compact_request(request))

    async def awrap_model_call(self, request: ModelRequest, handler: Callable[[ModelRequest], Awaitable[ModelResponse]]
                               ) -> ModelResponse | AIMessage:
        """Async `wrap_model_call`: the compaction runs in a worker thread (`asyncio.to_thread`, which
        carries the run's config into it), so the event loop's other tasks go on meanwhile."""
        return await handler(await asyncio.to_thread(self.compact_request, request))

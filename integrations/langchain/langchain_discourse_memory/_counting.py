"""Token counters: LangChain's kinds, handed to the core as a text counter plus a per-message
overhead probed from the user's counter C (text: ``C([HumanMessage(s)]) - C([HumanMessage("")])``;
per list: ``C([])``; per message: C of it without its text, less what the core counts), so that
one core call fits C's own count (README, "Token counters with per-message overhead")."""

from __future__ import annotations

import inspect
import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, Union

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage
from langchain_core.messages.utils import count_tokens_approximately

from discourse_memory import TokenCounter, count_messages, get_token_counter
from langchain_discourse_memory._convert import is_text_block, to_core_dict, without_calls

__all__ = ["OVERHEAD", "Counting", "LangChainTokenCounter", "resolve_token_counter"]

LangChainTokenCounter = Union[
    Callable[[list[BaseMessage]], int], Callable[[BaseMessage], int], Any, Literal["approximate"], str, None
]  # Any: a BaseLanguageModel

OVERHEAD = "lc_overhead"
"""Key of a core dict holding its message's overhead: ``[with its tool calls, without]``."""

_PROBE_TEXT = "The quick brown fox jumps over the lazy dog. " * 8


@dataclass(frozen=True)
class Counting:
    """A resolved counter: `text` for the core (an encoding name or the probed text counter),
    `messages` the user's count of a list; `exact`: that is the core's accounting."""

    text: Any
    messages: Callable[[Sequence[BaseMessage]], int]
    exact: bool
    name: str
    per_list: int = 0
    notes: Mapping[str, int] = field(default_factory=dict)
    core: TokenCounter | None = None

    def dicts(self, messages: Sequence[BaseMessage]) -> list[dict[str, Any]]:
        """The core dicts of `messages`, each with its measured overhead unless exact."""
        out = [to_core_dict(m) for m in messages]
        if not self.exact:
            for m, d in zip(messages, out):
                d[OVERHEAD] = self._overhead_of(m, d)
        return out

    def overhead(self, message: Mapping[str, Any]) -> int:
        """The core's `message_overhead`: what `messages` adds to one dict's text."""
        measured = message.get(OVERHEAD)
        if measured is None:  # the record note
            return self.notes.get(message.get("role", "system"), 0)
        return measured[0] if message.get("tool_calls") else measured[1]

    def _overhead_of(self, message: BaseMessage, d: Mapping[str, Any]) -> list[int]:
        content = message.content
        shell = message.model_copy(
            update={"content": [b for b in content if not is_text_block(b)] if isinstance(content, list) else ""})
        count = self.core.count  # type: ignore[union-attr]
        calls = sum(count(c["function"]["name"]) + count(c["function"]["arguments"]) for c in d.get("tool_calls", ()))
        with_calls = max(0, self.messages([shell]) - self.per_list - calls)
        if not d.get("tool_calls"):
            return [with_calls, with_calls]
        return [with_calls, max(0, self.messages([without_calls(shell, shell.content)]) - self.per_list)]


def _is_per_message(fn: Callable[..., Any]) -> bool:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    return bool(params) and params[0].annotation in (BaseMessage, "BaseMessage")


def _approximate(text: str) -> int:
    return math.ceil(len(text) / 4.0)


_approximate.cache_key = "langchain-approximate:ceil(len/4)"  # type: ignore[attr-defined]  # (shared analyses)


def resolve_token_counter(token_counter: LangChainTokenCounter = None) -> Counting:
    """Resolve and probe `token_counter`. Raises `ValueError` for a counter of messages, not
    tokens (`len`), `TypeError` for no counter, `LookupError` for an encoding not loadable offline."""
    if token_counter is None or (isinstance(token_counter, str) and token_counter != "approximate"):
        name = token_counter or "cl100k_base"
        core = get_token_counter(name)
        return Counting(name, lambda msgs: count_messages([to_core_dict(m) for m in msgs], core), True, name, core=core)
    user: Any = token_counter
    if user == "approximate":
        fn: Callable[[Sequence[BaseMessage]], int] = count_tokens_approximately
        name, text = "approximate", _approximate
    elif hasattr(user, "get_num_tokens_from_messages"):
        name = type(user).__name__
        fn = lambda msgs: int(user.get_num_tokens_from_messages(list(msgs)))  # noqa: E731
    elif callable(user):
        name = getattr(user, "__name__", type(user).__name__)
        per_message = _is_per_message(user)
        fn = lambda msgs: sum(int(user(m)) for m in msgs) if per_message else int(user(list(msgs)))  # noqa: E731
    else:
        raise TypeError("token_counter must be None, 'approximate', a tiktoken encoding name, a BaseLanguageModel, "
                        f"or a function of messages; got {type(token_counter).__name__}.")
    if user != "approximate":
        empty = fn([HumanMessage("")])
        text = lambda s: max(0, fn([HumanMessage(s)]) - empty)  # noqa: E731

    if text(_PROBE_TEXT) == 0:
        raise ValueError(f"token_counter {name!r} gives the same count for a long text as for an empty one, so "
                         "it counts messages, not tokens (for example `len`). Use trim_messages to keep a number of "
                         "messages.")
    try:
        per_list = max(0, fn([]))
    except Exception:  # a counter that cannot count an empty list adds nothing per list
        per_list = 0
    notes = {role: max(0, fn([cls("")]) - per_list)
             for role, cls in (("system", SystemMessage), ("developer", SystemMessage), ("user", HumanMessage))}
    core = get_token_counter(text)  # shared by the core's Compactor and the probes: one count cache
    return Counting(core, fn, False, name, per_list, notes, core)

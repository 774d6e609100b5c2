"""Token counters: LangChain's kinds, handed to the core as a text counter plus a
per-message overhead, so that one core call fits the user's own count.

`token_counter` is what `trim_messages` takes (a model's `get_num_tokens_from_messages`,
a function of a list of messages or of one `BaseMessage`, `"approximate"`), or `None` /
a tiktoken encoding name (the core's own accounting, exact: no overhead). A LangChain
counter C counts whole messages: their text and what the chat format adds (role,
separators, name, tool-call id, tool calls, non-text blocks). It is probed:

* text: ``t(s) = C([HumanMessage(s)]) - C([HumanMessage("")])`` (for `"approximate"` that
  is ``ceil(len(s) / 4)``, used directly);
* per list: ``C([])`` (e.g. OpenAI counters prime the reply with 3 tokens), taken off the budget;
* per message m: ``C([shell(m)]) - C([])`` minus what the core counts of the shell (its
  tool-call names and arguments), where the shell is m without its text (string content
  emptied, text blocks removed; role, name, tool-call id, calls and other blocks kept);
  measured when m is converted, with and without its calls, and carried in its dict
  under `OVERHEAD`. The record note's overhead is that of an empty message of its role.

The core then fits ``sum t(texts) + overheads <= max_tokens - C([])``: C's own count when
C is additive, an upper bound for `"approximate"` (it rounds up once per message, the
sum of per-part roundings is at least that). See `compaction._Session.view` for counters
that are not additive.
"""

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
]
"""Every form of `token_counter` the adapter accepts (`Any`: a `BaseLanguageModel`)."""

OVERHEAD = "lc_overhead"
"""Key of a core dict holding its message's overhead: ``[with its tool calls, without]``."""

_PROBE_TEXT = "The quick brown fox jumps over the lazy dog. " * 8


@dataclass(frozen=True)
class Counting:
    """A resolved counter: `text` for the core, `messages` the user's own count of a list."""

    text: Any
    """The core's `token_counter`: an encoding name, or the probed text counter."""
    messages: Callable[[Sequence[BaseMessage]], int]
    exact: bool
    """`messages` is the core's own accounting: nothing to probe or check."""
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


def resolve_token_counter(token_counter: LangChainTokenCounter = None) -> Counting:
    """Resolve and probe `token_counter` (see the module docstring).

    Raises:
        ValueError: a counter that counts messages, not tokens (such as `len`).
        TypeError: neither a model, a function nor a string.
        LookupError: an encoding name the core cannot load offline.
    """
    if token_counter is None or (isinstance(token_counter, str) and token_counter != "approximate"):
        name = token_counter or "cl100k_base"
        core = get_token_counter(name)
        return Counting(name, lambda msgs: count_messages([to_core_dict(m) for m in msgs], core), True, name, core=core)
    if token_counter == "approximate":
        fn: Callable[[Sequence[BaseMessage]], int] = count_tokens_approximately
        name, text = "approximate", lambda s: math.ceil(len(s) / 4.0)
    elif hasattr(token_counter, "get_num_tokens_from_messages"):
        model = token_counter
        name = type(model).__name__

        def fn(msgs: Sequence[BaseMessage]) -> int:
            return int(model.get_num_tokens_from_messages(list(msgs)))

    elif callable(token_counter):
        user = token_counter
        name = getattr(user, "__name__", type(user).__name__)
        if _is_per_message(user):

            def fn(msgs: Sequence[BaseMessage]) -> int:
                return sum(int(user(m)) for m in msgs)

        else:

            def fn(msgs: Sequence[BaseMessage]) -> int:
                return int(user(list(msgs)))

    else:
        msg = ("token_counter must be None, 'approximate', a tiktoken encoding name, a BaseLanguageModel, "
               f"or a function of messages; got {type(token_counter).__name__}.")
        raise TypeError(msg)
    if token_counter != "approximate":
        empty = fn([HumanMessage("")])

        def text(s: str) -> int:
            return max(0, fn([HumanMessage(s)]) - empty)

    if text(_PROBE_TEXT) == 0:
        msg = (f"token_counter {name!r} gives the same count for a long text as for an empty one, so it "
               "counts messages, not tokens (for example `len`). Use trim_messages to keep a number of messages.")
        raise ValueError(msg)
    try:
        per_list = max(0, fn([]))
    except Exception:  # a counter that cannot count an empty list adds nothing per list
        per_list = 0
    notes = {role: max(0, fn([cls("")]) - per_list)
             for role, cls in (("system", SystemMessage), ("developer", SystemMessage), ("user", HumanMessage))}
    core = get_token_counter(text)  # shared by the core's Compactor and the probes: one count cache
    return Counting(core, fn, False, name, per_list, notes, core)

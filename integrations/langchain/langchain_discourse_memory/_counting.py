"""Token counters: LangChain's kinds, made usable by the core.

LangChain code passes `token_counter` as one of (see `trim_messages`):

* a `BaseLanguageModel` (its `get_num_tokens_from_messages` is used),
* a function of a list of messages, or of one `BaseMessage` (detected, as in
  `trim_messages`, by the first parameter being annotated `BaseMessage`),
* the string `"approximate"` (`count_tokens_approximately`).

This adapter also accepts `None` (the default: the core's offline tiktoken
`cl100k_base`, with no per-message overhead) and any other tiktoken encoding
name that the core can load offline.

The core counts texts, not messages. `resolve_token_counter` therefore returns
both a per-text counter for the core and the user's own per-list counter, which
the compaction step uses to check the final messages (a LangChain counter may add
per-message overhead that the core does not see).
"""

from __future__ import annotations

import inspect
import math
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union

from langchain_core.messages import BaseMessage, HumanMessage
from langchain_core.messages.utils import count_tokens_approximately

from discourse_memory import Compactor, get_token_counter
from langchain_discourse_memory._convert import to_core_dicts

__all__ = ["Counting", "LangChainTokenCounter", "resolve_token_counter"]

LangChainTokenCounter = Union[
    Callable[[list[BaseMessage]], int],
    Callable[[BaseMessage], int],
    Any,  # a BaseLanguageModel (kept as Any so langchain-core's generics stay out of it)
    Literal["approximate"],
    str,
    None,
]
"""Every form of `token_counter` the adapter accepts."""

_PROBE_TEXT = "The quick brown fox jumps over the lazy dog. " * 8


@dataclass(frozen=True)
class Counting:
    """A resolved token counter.

    Attributes:
        text: the per-text counter handed to the core (a core `TokenCounter`,
            which memoizes counts).
        messages: the user's counter over a list of LangChain messages; the
            adapter's final check uses it.
        exact: `True` when `messages` is exactly the core's own accounting
            (sum of content, tool-call name and arguments counts), so the core's
            result needs no second check.
        name: a short description for error messages.
        compactor: a core `Compactor` built on `text`, shared by the callers
            that have no session of their own (`compact_messages(messages, ...)`).
            Objects that serve one conversation (a history, a memory, a runnable,
            the middleware per thread) take their own from `new_compactor()`: the
            core reuses the analysis of the conversation a compactor saw last.
    """

    text: Any
    messages: Callable[[Sequence[BaseMessage]], int]
    exact: bool
    name: str
    compactor: Compactor

    def new_compactor(self) -> Compactor:
        """A fresh core `Compactor` on the same per-text counter (and its count cache)."""
        return Compactor(self.text)


def _counting(text: Any, messages: Callable[[Sequence[BaseMessage]], int], *, exact: bool, name: str) -> Counting:
    core = get_token_counter(text)
    return Counting(text=core, messages=messages, exact=exact, name=name, compactor=Compactor(core))


_SHARED: dict[str, Counting] = {}
_SHARED_LOCK = threading.Lock()


def _core_accounting(counter: Any) -> Callable[[Sequence[BaseMessage]], int]:
    """The core's own accounting of LangChain messages, with `counter.count`."""
    count = counter.count

    def count_messages(messages: Sequence[BaseMessage]) -> int:
        total = 0
        for d in to_core_dicts(messages):
            total += count(d["content"])
            for call in d.get("tool_calls", ()):
                total += count(call["function"]["name"]) + count(call["function"]["arguments"])
        return total

    return count_messages


def _approximate_text(text: str) -> int:
    return math.ceil(len(text) / 4.0)


def _is_per_message(fn: Callable[..., Any]) -> bool:
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return False
    return bool(params) and params[0].annotation in (BaseMessage, "BaseMessage")


def _text_from_list_counter(list_counter: Callable[[list[BaseMessage]], int], name: str) -> Callable[[str], int]:
    """Per-text counts from a per-list counter: count of one message minus an empty one."""
    base = list_counter([HumanMessage(content="")])

    def count_text(text: str) -> int:
        return max(0, int(list_counter([HumanMessage(content=text)])) - base)

    if count_text(_PROBE_TEXT) == 0:
        msg = (
            f"token_counter {name!r} gives the same count for a long text as for an empty "
            "one, so it counts messages, not tokens (for example `len`). Compaction needs "
            "a token counter; use trim_messages to keep a number of messages."
        )
        raise ValueError(msg)
    return count_text


def resolve_token_counter(token_counter: LangChainTokenCounter = None) -> Counting:
    """Turn any accepted `token_counter` into a `Counting`.

    Raises:
        ValueError: for a counter that counts messages rather than tokens (such
            as `len`), or an unknown encoding name.
        TypeError: for an object that is neither a model, a function nor a string.
    """
    if token_counter is None or isinstance(token_counter, str):
        key = token_counter or "cl100k_base"
        with _SHARED_LOCK:
            shared = _SHARED.get(key)
            if shared is None:
                if key == "approximate":
                    shared = _counting(_approximate_text, count_tokens_approximately, exact=False, name=key)
                else:
                    core = get_token_counter(key)
                    shared = _counting(core, _core_accounting(core), exact=True, name=key)
                _SHARED[key] = shared
        return shared
    if hasattr(token_counter, "get_num_tokens_from_messages"):
        model = token_counter
        model_name = type(model).__name__

        def count_messages(messages: Sequence[BaseMessage]) -> int:
            return int(model.get_num_tokens_from_messages(list(messages)))

        return _counting(
            _text_from_list_counter(count_messages, model_name), count_messages, exact=False, name=model_name
        )
    if callable(token_counter):
        fn = token_counter
        fn_name = getattr(fn, "__name__", type(fn).__name__)
        if _is_per_message(fn):

            def list_counter(messages: Sequence[BaseMessage]) -> int:
                return sum(int(fn(m)) for m in messages)

        else:

            def list_counter(messages: Sequence[BaseMessage]) -> int:
                return int(fn(list(messages)))

        return _counting(_text_from_list_counter(list_counter, fn_name), list_counter, exact=False, name=fn_name)
    msg = (
        "token_counter must be None, 'approximate', a tiktoken encoding name, a "
        "BaseLanguageModel, or a function of messages; got "
        f"{type(token_counter).__name__}."
    )
    raise TypeError(msg)

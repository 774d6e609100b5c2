"""What a buffer and a block of this package keep between views: a core ``Compactor`` for
their ``tokenizer_fn``, the last ``Compaction`` and the messages it was made from."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from llama_index.core.utils import get_tokenizer

import discourse_memory
from discourse_memory import Compaction, Compactor, Options, Recalled, warm_up

__all__ = ["check_policy_and_cache", "token_counter_for"]


def token_counter_for(tokenizer_fn: Callable[[str], Any]) -> Any:
    """The core counter for a ``tokenizer_fn``: the core's own for LlamaIndex's default
    (``partial(Encoding.encode, ...)``), else ``len(tokenizer_fn(text))``."""
    if isinstance(tokenizer_fn, functools.partial):
        encoding = getattr(tokenizer_fn.func, "__self__", None)
        name = getattr(encoding, "name", None)
        if isinstance(name, str) and hasattr(encoding, "encode_ordinary"):
            try:
                return discourse_memory.get_token_counter(name)
            except LookupError:  # not loadable offline: count with the callable
                pass
    return discourse_memory.get_token_counter(lambda text: len(tokenizer_fn(text)))


def check_policy_and_cache(policy: Any, cache: Any) -> None:
    """A ``policy`` must be a core ``Policy`` (or None), a ``cache`` an ``AnalysisCache`` (or None):
    ``ValueError`` (pydantic's validation error) otherwise, when the memory is made."""
    if policy is not None and not isinstance(policy, discourse_memory.Policy):
        raise ValueError(f"policy must be a discourse_memory.Policy or None, got {type(policy).__name__}")
    if cache is not None and not isinstance(cache, discourse_memory.AnalysisCache):
        raise ValueError("cache must be a discourse_memory.AnalysisCache (get_many and set_many) or None, "
                         f"got {type(cache).__name__}")


class _Cache:
    """A core ``Compactor`` (for one ``tokenizer_fn``), the last ``Compaction`` and the messages it
    was made from (``sent``); copies and pickles start empty (a compactor holds locks)."""

    def __init__(self) -> None:
        warm_up()  # made with its memory (buffer or block): the first view need not wait for spaCy
        self.tokenizer_fn: Any = None
        self.compactor: Compactor | None = None
        self.last: Compaction | None = None
        self.sent: list[dict[str, Any]] = []

    def recall(self, compactor: Compactor, sent: list[dict[str, Any]], reference: str, max_tokens: int) -> Recalled:
        """Against the last view if ``sent`` extends its messages (a query: what it left out), else all."""
        last = self.last
        if last is not None and sent[: len(self.sent)] == self.sent:
            return last.recall(reference, max_tokens)
        return compactor.recall(sent, reference, max_tokens)

    def compactor_for(self, tokenizer_fn: Callable[[str], Any] | None, cache: Any = None) -> Compactor:
        """The compactor for ``tokenizer_fn`` reading ``cache`` (a shared ``AnalysisCache``, or None)."""
        if self.compactor is None or self.tokenizer_fn is not tokenizer_fn or self.compactor.cache is not cache:
            counter = token_counter_for(tokenizer_fn or get_tokenizer())
            self.compactor = Compactor(options=Options(token_counter=counter), cache=cache)
            self.tokenizer_fn = tokenizer_fn
        return self.compactor

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:  # deepcopy too
        self.__init__()  # type: ignore[misc]

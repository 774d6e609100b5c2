"""What a buffer and a block of this package keep between views: a core ``Compactor`` for
their ``tokenizer_fn``, the last ``Compaction`` and the messages it was made from."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from llama_index.core.utils import get_tokenizer

import discourse_memory
from discourse_memory import Compaction, Compactor, Options, Recalled, warm_up

__all__ = ["token_counter_for"]


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

    def compactor_for(self, tokenizer_fn: Callable[[str], Any] | None) -> Compactor:
        if self.compactor is None or self.tokenizer_fn is not tokenizer_fn:
            counter = token_counter_for(tokenizer_fn or get_tokenizer())
            self.compactor, self.tokenizer_fn = Compactor(options=Options(token_counter=counter)), tokenizer_fn
        return self.compactor

    def __getstate__(self) -> dict[str, Any]:
        return {}

    def __setstate__(self, state: dict[str, Any]) -> None:  # deepcopy too
        self.__init__()  # type: ignore[misc]

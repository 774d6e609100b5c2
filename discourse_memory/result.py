"""The result of a compaction, a :class:`Compaction`: what the model is sent, what was
left out, and how to get it back. Plain data with the calls that read it (the report is
built on first access, the page by :mod:`.inspect`); :mod:`.compaction` makes them and
:mod:`.formats` answers in other formats with the subclass ``FormatCompaction``."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Callable, Sequence

from .recall import Recalled, check_max_tokens
from .report import Report

__all__ = ["Compaction", "json_copy"]


@dataclass(frozen=True)
class Compaction:
    """The result of a compaction, "a Compaction": what the model sees, and what was left out.

    :func:`compact`, :meth:`Compactor.compact` and :meth:`DiscourseMemory.view` return one
    (a :class:`~discourse_memory.formats.FormatCompaction`, a subclass, for input in another
    format); the LangChain adapter hands it out as ``CompactedView.compaction`` and as its
    objects' ``last_compaction``, the LlamaIndex adapter as ``last_compaction``. Its fields
    are listed in ``docs/api.md``."""

    messages: list[dict[str, Any]]
    """The compacted messages to send, in the input's format: the messages kept (whole or
    with text clipped or left out) in their order, and the record note after the leading
    system messages. A message that fits is a shallow copy of the input's."""
    sources: tuple[int | None, ...]
    """For each output message, the index of its input message (None: the record note)."""
    tokens_before: int
    """Tokens of the input messages, counted as ``budget`` counts (see :func:`count_messages`)."""
    tokens_after: int
    """Tokens of ``messages``, counted the same way: at most ``budget``."""
    budget: int
    """The budget the compaction was asked for."""
    note: str | None
    """The record note exactly as the model receives it (None if nothing was compacted)."""
    _build_report: Callable[[], Report] = field(repr=False, compare=False)
    _inputs: Sequence[Any] = field(repr=False, compare=False, default=())
    _recall: Callable[[str, int], Recalled] | None = field(repr=False, compare=False, default=None)
    references: tuple[str, ...] = ()
    """The references this view hands out for recall (``#12``: message 12 in full): the
    messages its record lists values of and those that lost text, in order."""

    def recall(self, ref: str, max_tokens: int = 1000) -> Recalled:
        """What this view left out, verbatim: ``ref`` is a reference (``#12``, ``#12-#15``,
        ``<tag>#12``) or words to search the left-out units for (see :mod:`.recall`);
        the text fits ``max_tokens``."""
        check_max_tokens(max_tokens)
        if self._recall is None:
            return Recalled("nothing was left out of this view: there is nothing to recall.", (), False)
        return self._recall(ref, max_tokens)

    @property
    def inputs(self) -> list[Any]:
        """Copies of the messages this compaction was made from (editing them changes
        nothing else)."""
        return [json_copy(m) for m in self._inputs]

    @cached_property
    def report(self) -> Report:
        """Per-unit decisions, the record and what was dropped (built on first access)."""
        return self._build_report()

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON-ready data: ``messages``, ``sources`` (a list), ``report``
        (:meth:`Report.to_dict`: every unit's decision, the record, the note and the counts),
        ``tokens_before``, ``tokens_after`` and ``budget``. Building it builds the report."""
        return {
            "messages": self.messages,
            "sources": list(self.sources),
            "report": self.report.to_dict(),
            "tokens_before": self.tokens_before,
            "tokens_after": self.tokens_after,
            "budget": self.budget,
        }

    def to_html(self, original: Sequence[Any] | None = None) -> str:
        """A self-contained HTML page showing this compaction (see :mod:`.inspect`).

        ``original`` defaults to the messages the compaction was made from."""
        from .inspect import render_html

        return render_html(self, original if original is not None else self._inputs)


def json_copy(value: Any) -> Any:
    """A copy of JSON-like data: dicts and lists copied all the way down (faster than
    ``copy.deepcopy``); other values shared."""
    # (a scalar is not passed down a call: a view of a long history copies thousands of
    # messages of a few strings each)
    if isinstance(value, dict):
        return {k: json_copy(v) if isinstance(v, (dict, list)) else v for k, v in value.items()}
    if isinstance(value, list):
        return [json_copy(v) if isinstance(v, (dict, list)) else v for v in value]
    return value


def _snapshot(value: Any) -> Any:
    """What a part or an argument holds, two levels down: an edit in place shows."""
    if isinstance(value, dict):
        return tuple((k, tuple(v.items()) if isinstance(v, dict) else tuple(v) if isinstance(v, list) else v)
                     for k, v in value.items())
    if isinstance(value, list):
        return tuple(_snapshot(v) for v in value)
    return value

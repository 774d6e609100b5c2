"""Replay: a session message by message, as an agent would see it.

The messages are appended one by one. Before each model call (each assistant
message; or after every message with ``at="message"``) the raw history so far is
measured: when it exceeds the context limit, that is a *compaction point*, and each
method produces its view of the history within the target (a number of tokens, or,
with ``reduction``, that share of the history cut: ``reduction=0.7`` views it in 30% of
its tokens). For each point the replay records tokens before and after, the literal
recall and the sentence openings kept of the view against the raw history so far
(grader literals and openings, :mod:`.metrics`), and the time taken.

``discourse-memory`` runs through :class:`discourse_memory.DiscourseMemory`
(append, then ``view(target)``), as an agent integration would use it;
``head-tail`` cuts the transcript so far to the target.
"""

from __future__ import annotations

import json
import statistics
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass

from . import baselines
from .datasets import Conversation
from .grader import extract_literals, sentence_openings
from .metrics import TextIndex, message_text, share_found, view_text

__all__ = ["Point", "ReplayConfig", "replay", "summarize_points", "markdown", "REPLAY_METHODS"]

REPLAY_METHODS = ("discourse-memory", "head-tail")


@dataclass
class ReplayConfig:
    context_limit: int = 65536
    target: int = 16384  # tokens of a view at a compaction point
    methods: tuple[str, ...] = REPLAY_METHODS
    at: str = "model-call"  # or "message"
    encoding: str = "cl100k_base"
    reduction: float | None = None  # when set, the target at a point is (1 - reduction) x its tokens

    def target_at(self, tokens_before: int) -> int:
        """The view's size at a point whose history has ``tokens_before`` tokens."""
        if self.reduction is None:
            return self.target
        return int((1 - self.reduction) * tokens_before)


@dataclass
class Point:
    conversation: str
    method: str
    index: int  # number of messages in the history at this point
    tokens_before: int
    tokens_after: int
    seconds: float
    literal_recall: float | None
    violation: bool
    literal_recall_context: float | None = None  # the record note left out
    note_tokens: int = 0
    error: str | None = None
    sentence_survival: float | None = None  # distinct sentence openings of the history so far in the view
    target: int = 0  # the view's size asked at this point

    @property
    def reduction(self) -> float:
        return 1 - self.tokens_after / self.tokens_before if self.tokens_before else 0.0


class _DMView:
    """discourse-memory through its stateful API."""

    def __init__(self, counter) -> None:
        from discourse_memory import DiscourseMemory

        self.memory = DiscourseMemory(token_counter=counter)

    def append(self, message: dict) -> None:
        self.memory.append(message)

    def view(self, history: Sequence[dict], target: int, counter) -> list[dict]:
        return baselines.noted_view(self.memory.view(target))


class _StatelessView:
    def __init__(self, run) -> None:
        self.run = run

    def append(self, message: dict) -> None:
        pass

    def view(self, history: Sequence[dict], target: int, counter) -> list[dict]:
        return self.run(list(history), target, counter)


def _make(name: str, counter):
    if name == "discourse-memory":
        return _DMView(counter)
    return _StatelessView(baselines.METHODS[name].run)


def replay(conv: Conversation, config: ReplayConfig) -> list[Point]:
    """Compaction points of one conversation, for each method."""
    counter = baselines.get_counter(config.encoding)
    views = {name: _make(name, counter) for name in config.methods}
    literals: dict[str, None] = {}  # distinct literals of the history so far, in order
    openings: dict[str, None] = {}  # distinct sentence openings of the history so far
    history: list[dict] = []
    tokens = baselines.reply_tokens(counter)  # (the history as a request)
    points: list[Point] = []

    def record() -> None:
        wanted = list(literals)
        target = config.target_at(tokens)
        for name, memory in views.items():
            start = time.perf_counter()
            error = None
            try:
                view = memory.view(history, target, counter)
            except Exception as exc:  # scored as an empty view, counted as a failure
                view, error = [], f"{type(exc).__name__}: {exc}"
            seconds = time.perf_counter() - start
            after = baselines.view_tokens(counter, view)
            note = getattr(view, "note", None)
            context = [m for m in view if m is not note]
            index = TextIndex(view_text(view))
            points.append(
                Point(
                    conversation=conv.id,
                    method=name,
                    index=len(history),
                    tokens_before=tokens,
                    tokens_after=after,
                    seconds=seconds,
                    literal_recall=share_found(wanted, index),
                    sentence_survival=share_found(list(openings), index),
                    literal_recall_context=share_found(wanted, TextIndex(view_text(context))),
                    note_tokens=baselines.message_tokens(counter, note) if note is not None else 0,
                    violation=after > target,
                    error=error,
                    target=target,
                )
            )

    for message in conv.messages:
        if tokens > config.context_limit and (
            config.at == "message" or message.get("role") == "assistant"
        ):
            record()
        history.append(message)
        for memory in views.values():
            memory.append(message)
        tokens += baselines.message_tokens(counter, message)
        text = message_text(message)
        for literal in extract_literals(text):
            literals[literal] = None
        for opening in sentence_openings(text):
            openings[opening] = None
    if config.at == "message" and tokens > config.context_limit:
        record()  # the state after the last message
    return points


def _percentile(values: Sequence[float], q: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    k = (len(ordered) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def summarize_points(points: Sequence[Point], conversations: int) -> list[dict]:
    out = []
    for method in dict.fromkeys(p.method for p in points):
        group = [p for p in points if p.method == method]
        reductions = [p.reduction for p in group]
        recalls = [p.literal_recall for p in group if p.literal_recall is not None]
        survivals = [p.sentence_survival for p in group if p.sentence_survival is not None]
        seconds = [p.seconds for p in group]
        out.append(
            {
                "method": method,
                "conversations": conversations,
                "conversations_with_points": len({p.conversation for p in group}),
                "compaction_points": len(group),
                "reduction_mean": statistics.fmean(reductions),
                "reduction_p10": _percentile(reductions, 0.10),
                "reduction_p50": _percentile(reductions, 0.50),
                "reduction_p90": _percentile(reductions, 0.90),
                "literal_recall_mean": statistics.fmean(recalls) if recalls else None,
                "literal_recall_min": min(recalls) if recalls else None,
                "literal_recall_context_mean": statistics.fmean(
                    p.literal_recall_context for p in group if p.literal_recall_context is not None
                ) if recalls else None,
                "sentence_survival_mean": statistics.fmean(survivals) if survivals else None,
                "sentence_survival_min": min(survivals) if survivals else None,
                "note_share_mean": statistics.fmean(
                    p.note_tokens / p.tokens_after if p.tokens_after else 0.0 for p in group
                ),
                "tokens_before_mean": statistics.fmean(p.tokens_before for p in group),
                "tokens_after_mean": statistics.fmean(p.tokens_after for p in group),
                "seconds_mean": statistics.fmean(seconds),
                "seconds_p50": _percentile(seconds, 0.5),
                "seconds_max": max(seconds),
                "violations": sum(p.violation for p in group),
                "failures": sum(p.error is not None for p in group),
            }
        )
    return out


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def markdown(summary: Sequence[dict], config: ReplayConfig) -> str:
    size = (f"{config.target} tokens" if config.reduction is None
            else f"{100 * (1 - config.reduction):g}% of the history's tokens ({100 * config.reduction:g}% reduction)")
    lines = [
        f"Replay: context limit {config.context_limit} tokens, views of at most "
        f"{size}, compaction points at each "
        f"{'model call (assistant message)' if config.at == 'model-call' else 'message'}.",
        "",
        "| method | conversations (with points) | compaction points | mean reduction % | "
        "p10 / p50 / p90 reduction % | mean literal recall % | min literal recall % | "
        "mean literal recall outside the note % | mean sentence openings kept % | min sentence openings kept % | "
        "note share % | "
        "mean tokens before -> after | s per point (mean / p50 / max) | over target | failed |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    if not summary:
        lines.append("| (no compaction points: no history exceeded the limit) |" + " |" * 14)
    for s in summary:
        recall = _pct(s["literal_recall_mean"])
        low = _pct(s["literal_recall_min"])
        lines.append(
            f"| {s['method']} | {s['conversations']} ({s['conversations_with_points']}) | "
            f"{s['compaction_points']} | {100 * s['reduction_mean']:.1f} | "
            f"{100 * s['reduction_p10']:.1f} / {100 * s['reduction_p50']:.1f} / {100 * s['reduction_p90']:.1f} | "
            f"{recall} | {low} | {_pct(s['literal_recall_context_mean'])} | {_pct(s['sentence_survival_mean'])} | "
            f"{_pct(s['sentence_survival_min'])} | {_pct(s['note_share_mean'])} | "
            f"{s['tokens_before_mean']:.0f} -> {s['tokens_after_mean']:.0f} | "
            f"{s['seconds_mean']:.3f} / {s['seconds_p50']:.3f} / {s['seconds_max']:.3f} | "
            f"{s['violations']} | {s['failures']} |"
        )
    return "\n".join(lines) + "\n"


def to_json(points: Sequence[Point], summary: Sequence[dict], config: ReplayConfig) -> str:
    return json.dumps(
        {
            "config": asdict(config),
            "summary": list(summary),
            "points": [dict(asdict(p), reduction=p.reduction) for p in points],
        },
        indent=1,
    )

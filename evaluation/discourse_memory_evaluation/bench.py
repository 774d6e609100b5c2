"""The bench: every method, at every budget, on every conversation of some data files.

For each conversation and budget fraction ``f`` the budget is ``floor(f x its total
tokens)``; each method returns its view, which is timed and scored
(:mod:`.metrics`). Scores are averaged over conversations (a conversation with no
item of a kind, e.g. no QA, does not count in that mean). A method that raises
(e.g. ``BudgetTooSmallError``) scores an empty view and is counted in ``failures``.

Besides the scores of :mod:`.metrics`, ``literal_recall_context`` is the literal
recall of the view without its record note (for methods that mark one): what the
model gets as context rather than as a list of values.
"""

from __future__ import annotations

import json
import re
import statistics
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass, field
from itertools import islice
from pathlib import Path

from . import baselines
from .datasets import Conversation, load
from .grader import distinct, extract_literals, normalize_space, sentence_openings
from .metrics import (
    TextIndex,
    answer_containment,
    evidence_retention,
    gold_arg_recall,
    gold_values,
    message_text,
    orphan_tool_messages,
    share_found,
    view_text,
)

__all__ = ["BenchConfig", "Row", "run_bench", "summarize", "markdown", "check_bars"]

METRICS = (
    "literal_recall",
    "literal_recall_context",
    "sentence_survival",
    "evidence_retention",
    "answer_containment",
    "gold_arg_recall",
)
METRIC_LABELS = {
    "literal_recall": "literal recall",
    "literal_recall_context": "literal recall outside the note",
    "sentence_survival": "sentence openings kept",
    "evidence_retention": "evidence turns kept",
    "answer_containment": "QA answers contained",
    "gold_arg_recall": "gold-argument recall",
}
QA_CATEGORIES = (1, 2, 3, 4)
_EVIDENCE_SPLIT = re.compile(r"[;,\s]+")


@dataclass
class BenchConfig:
    budgets: tuple[float, ...] = (0.1, 0.25, 0.5)
    methods: tuple[str, ...] = baselines.DEFAULT_METHODS
    encoding: str = "cl100k_base"
    limit: int | None = None  # first N conversations of each file
    min_tokens: int = 0
    max_tokens: int | None = None  # skip conversations above this many tokens
    llamaindex_max_tokens: int | None = 200_000  # ChatMemoryBuffer.get is O(n^2)
    jobs: int = 1
    examples: int = 5  # lost items of each kind kept per row in the JSON


@dataclass
class Row:
    dataset: str
    conversation: str
    method: str
    fraction: float
    budget: int
    tokens_in: int
    tokens_out: int
    seconds: float
    violation: bool
    orphan_tools: int
    note_tokens: int = 0  # tokens of the record note in the view
    error: str | None = None
    scores: dict[str, float | None] = field(default_factory=dict)
    lost: dict[str, list[str]] = field(default_factory=dict)  # examples of what the view lost


@dataclass
class _Targets:
    """What a view is scored against, computed once per conversation."""

    literals: list[str]
    openings: list[str]
    evidence: dict[str, str]
    answers: list[str]
    gold: list[str]


def targets(conv: Conversation) -> _Targets:
    literals: list[str] = []
    openings: list[str] = []
    for message in conv.messages:
        text = message_text(message)
        literals.extend(extract_literals(text))
        openings.extend(sentence_openings(text))
    evidence: dict[str, str] = {}
    answers: list[str] = []
    for qa in conv.qa:
        for raw in qa.evidence:
            for dia_id in _EVIDENCE_SPLIT.split(raw):
                if dia_id in conv.turns:
                    evidence[dia_id] = conv.turns[dia_id]
        if qa.category in QA_CATEGORIES and qa.answer and qa.answer.strip():
            answers.append(qa.answer)
    gold = gold_values(conv.gold_actions)
    if gold:  # only what the history states can be remembered
        history = TextIndex(view_text(conv.messages))
        gold = [value for value in gold if value in history]
    return _Targets(distinct(literals), distinct(openings), evidence, answers, gold)


def score(view: Sequence[dict], t: _Targets, examples: int = 0) -> tuple[dict[str, float | None], dict[str, list[str]]]:
    """The scores of a view, and up to ``examples`` items of each kind it lost."""
    index = TextIndex(view_text(view))
    note = getattr(view, "note", None)
    context = TextIndex(view_text(m for m in view if m is not note)) if note is not None else index
    scores = {
        "literal_recall": share_found(t.literals, index),
        "literal_recall_context": share_found(t.literals, context),
        "sentence_survival": share_found(t.openings, index),
        "evidence_retention": evidence_retention(t.evidence, index),
        "answer_containment": answer_containment(t.answers, index),
        "gold_arg_recall": gold_arg_recall(t.gold, index),
    }
    lost: dict[str, list[str]] = {}
    if examples:
        lowered = index.text.lower()
        candidates = {
            "literals": (x for x in t.literals if x not in index),
            "sentence_openings": (x for x in t.openings if x not in index),
            "evidence_turns": (
                f"{dia_id}: {text}"
                for dia_id, text in t.evidence.items()
                if evidence_retention({dia_id: text}, index) == 0
            ),
            "answers": (a for a in t.answers if normalize_space(a).lower() not in lowered),
            "gold_args": (x for x in t.gold if x not in index),
        }
        for kind, items in candidates.items():
            found = list(islice(items, examples))
            if found:
                lost[kind] = found
    return scores, lost


def run_conversation(conv: Conversation, config: BenchConfig, method_names: Sequence[str]) -> list[Row]:
    """All methods x budgets on one conversation."""
    counter = baselines.get_counter(config.encoding)
    total = baselines.view_tokens(counter, conv.messages)
    t = targets(conv)
    rows = []
    for name in method_names:
        method = baselines.METHODS[name]
        for fraction in config.budgets:
            budget = int(fraction * total)
            start = time.perf_counter()
            error = None
            try:
                view = method.run(conv.messages, budget, counter)
            except Exception as exc:  # scored as an empty view, counted as a failure
                view, error = [], f"{type(exc).__name__}: {exc}"
            seconds = time.perf_counter() - start
            out = baselines.view_tokens(counter, view)
            note = getattr(view, "note", None)
            note_tokens = baselines.message_tokens(counter, note) if note is not None else 0
            scores, lost = score(view, t, config.examples)
            rows.append(
                Row(
                    dataset=conv.dataset,
                    conversation=conv.id,
                    method=name,
                    fraction=fraction,
                    budget=budget,
                    tokens_in=total,
                    tokens_out=out,
                    seconds=seconds,
                    violation=out > budget,
                    note_tokens=note_tokens,
                    orphan_tools=orphan_tool_messages(view),
                    error=error,
                    scores=scores,
                    lost=lost,
                )
            )
    return rows


def _select(convs: list[Conversation], config: BenchConfig, counter) -> list[tuple[Conversation, int]]:
    """The conversations that pass the token filters and the limit, with their tokens."""
    out = []
    for conv in convs:
        n = baselines.view_tokens(counter, conv.messages)
        if n < config.min_tokens or (config.max_tokens is not None and n > config.max_tokens):
            continue
        out.append((conv, n))
        if config.limit is not None and len(out) >= config.limit:
            break
    return out


def _work(args):
    conv, config, names = args
    return run_conversation(conv, config, names)


def run_bench(
    paths: Iterable[str | Path], config: BenchConfig, *, progress: bool = True, log=print
) -> tuple[list[Row], list[str]]:
    """Run the bench; returns the rows and the skip messages (also logged)."""
    methods, skipped = baselines.resolve_methods(config.methods)
    for message in skipped:
        log(message)
    counter = baselines.get_counter(config.encoding)
    jobs: list[tuple[Conversation, BenchConfig, list[str]]] = []
    for path in paths:
        for conv, n in _select(load(path), config, counter):
            names = [m.name for m in methods]
            cap = config.llamaindex_max_tokens
            if "llamaindex-buffer" in names and cap is not None and n > cap:
                names.remove("llamaindex-buffer")
                message = (
                    f"llamaindex-buffer skipped on {conv.dataset}/{conv.id}: {n} tokens > "
                    f"--llamaindex-max-tokens {cap} "
                    "(ChatMemoryBuffer.get re-tokenises the window after every drop: O(n^2))"
                )
                skipped.append(message)
                log(message)
            jobs.append((conv, config, names))
    rows: list[Row] = []
    bar = _progress(len(jobs), progress)
    if config.jobs > 1 and len(jobs) > 1:
        with ProcessPoolExecutor(max_workers=config.jobs) as pool:
            for result in pool.map(_work, jobs):
                rows.extend(result)
                bar.update(1)
    else:
        for job in jobs:
            rows.extend(_work(job))
            bar.update(1)
    bar.close()
    return rows, skipped


class _NoBar:
    def update(self, n: int) -> None:
        pass

    def close(self) -> None:
        pass


def _progress(total: int, enabled: bool):
    if not enabled:
        return _NoBar()
    try:
        from tqdm import tqdm
    except ImportError:
        return _NoBar()
    return tqdm(total=total, unit="conv", desc="bench")


# -- summary ------------------------------------------------------------------------


def _mean(values: list[float | None]) -> float | None:
    present = [v for v in values if v is not None]
    return sum(present) / len(present) if present else None


def summarize(rows: Sequence[Row]) -> list[dict]:
    """One record per (dataset, method, budget fraction), in first-seen order."""
    groups: dict[tuple[str, str, float], list[Row]] = {}
    for row in rows:
        groups.setdefault((row.dataset, row.method, row.fraction), []).append(row)
    out = []
    for (dataset, method, fraction), group in groups.items():
        record = {
            "dataset": dataset,
            "method": method,
            "budget": fraction,
            "conversations": len(group),
            "tokens_in_mean": statistics.fmean(r.tokens_in for r in group),
            "tokens_out_mean": statistics.fmean(r.tokens_out for r in group),
            "budget_used_mean": _mean([r.tokens_out / r.budget if r.budget and r.error is None else None for r in group]),
            "note_share_mean": _mean([r.note_tokens / r.tokens_out if r.tokens_out else None for r in group]),
            "budget_violations": sum(r.violation for r in group),
            "failures": sum(r.error is not None for r in group),
            "orphan_tool_messages": sum(r.orphan_tools for r in group),
            "median_seconds": statistics.median(r.seconds for r in group),
        }
        for metric in METRICS:
            record[metric] = _mean([r.scores.get(metric) for r in group])
        out.append(record)
    return out


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}"


def markdown(summary: Sequence[dict]) -> str:
    """One table per dataset; scores in percent. ``n``: conversations scored;
    ``budget used``: mean of tokens out / budget over the views that did not fail;
    ``note share``: mean share of the view's tokens taken by the record note."""
    parts = []
    datasets = list(dict.fromkeys(r["dataset"] for r in summary))
    for dataset in datasets:
        records = [r for r in summary if r["dataset"] == dataset]
        metrics = [m for m in METRICS if any(r[m] is not None for r in records)]
        n = max(r["conversations"] for r in records)
        parts.append(f"### {dataset} ({n} conversations)\n")
        header = ["budget", "method", "n"] + [METRIC_LABELS[m] + " %" for m in metrics] + [
            "tokens in",
            "tokens out",
            "budget used %",
            "note share %",
            "over budget",
            "failed",
            "orphan tool msgs",
            "median ms",
        ]
        parts.append("| " + " | ".join(header) + " |")
        parts.append("|" + "---|" * len(header))
        for record in sorted(records, key=lambda r: r["budget"]):
            cells = [f"{record['budget']:g}", record["method"], str(record["conversations"])]
            cells += [_pct(record[m]) for m in metrics]
            cells += [
                f"{record['tokens_in_mean']:.0f}",
                f"{record['tokens_out_mean']:.0f}",
                _pct(record["budget_used_mean"]),
                _pct(record["note_share_mean"]),
                str(record["budget_violations"]),
                str(record["failures"]),
                str(record["orphan_tool_messages"]),
                f"{1000 * record['median_seconds']:.1f}",
            ]
            parts.append("| " + " | ".join(cells) + " |")
        parts.append("")
    return "\n".join(parts)


# -- the bars ------------------------------------------------------------------

OURS = "discourse-memory"
OURS_NOSYS = "discourse-memory-nosys"
NOT_BASELINES = ("full-history",)  # the ceiling, over budget by design
BAR_BUDGETS = (0.25, 0.5)
BARS = (
    ("literal_recall", 0.20),
    ("answer_containment", 0.10),
    ("gold_arg_recall", 0.10),
    ("evidence_retention", 0.0),
    ("sentence_survival", 0.0),
)


def _drops_system(method: str) -> bool:
    known = baselines.METHODS.get(method)
    return bool(known and known.drops_system)


def check_bars(summary: Sequence[dict]) -> list[str]:
    """Where this project stands against the best baseline, per dataset and bar
    budget. One line per check, starting ``PASS`` or ``FAIL``.

    Like is compared with like: baselines that keep the system prompt (head+tail,
    ``trim-last-system``) face ``discourse-memory`` (which keeps it verbatim);
    baselines that may drop it to make room (``trim-last``, ``llamaindex-buffer``)
    face ``discourse-memory-nosys`` (which may compact it) when that was run, and
    ``discourse-memory`` otherwise. A lead is asked for only up to the ceiling (the
    ``full-history`` score when it was run, else 100%): a view that keeps every gold
    argument cannot be further ahead."""
    lines = []
    keyed = {(r["dataset"], r["method"], r["budget"]): r for r in summary}
    for dataset in dict.fromkeys(r["dataset"] for r in summary):
        for fraction in BAR_BUDGETS:
            ours = keyed.get((dataset, OURS, fraction))
            if ours is None:
                continue
            nosys = keyed.get((dataset, OURS_NOSYS, fraction))
            baseline_rows = [
                r
                for (d, m, f), r in keyed.items()
                if d == dataset and f == fraction and not m.startswith(OURS) and m not in NOT_BASELINES
            ]
            pairs = [(ours, [r for r in baseline_rows if nosys is None or not _drops_system(r["method"])], "")]
            if nosys is not None:
                pairs.append((nosys, [r for r in baseline_rows if _drops_system(r["method"])],
                              " (keep_system=False, as these baselines may drop the system prompt)"))
            ceiling = keyed.get((dataset, "full-history", fraction), {})
            where = f"{dataset} @ {fraction:g}"
            for mine_row, others, label in pairs:
                lines.append(
                    f"{'PASS' if mine_row['budget_violations'] == 0 and mine_row['failures'] == 0 else 'FAIL'} "
                    f"{where}: {mine_row['method']} budget violations {mine_row['budget_violations']}, "
                    f"failures {mine_row['failures']} (bar: 0)"
                )
                for metric, margin in BARS:
                    mine = mine_row[metric]
                    theirs = [(r[metric], r["method"]) for r in others if r[metric] is not None]
                    if mine is None or not theirs:
                        continue
                    best, best_method = max(theirs)
                    top = ceiling.get(metric)
                    top = 1.0 if top is None else top
                    ok = mine >= min(best + margin, top) - 1e-12
                    bar = f"+{100 * margin:.0f} points" if margin else "not below"
                    if margin and best + margin > top:
                        bar += f", or the ceiling {100 * top:.1f}"
                    lines.append(
                        f"{'PASS' if ok else 'FAIL'} {where}: {METRIC_LABELS[metric]} "
                        f"{100 * mine:.1f} vs best baseline {best_method} {100 * best:.1f}{label} (bar: {bar})"
                    )
    return lines


def to_json(rows: Sequence[Row], summary: Sequence[dict], config: BenchConfig, skipped: Sequence[str]) -> str:
    return json.dumps(
        {
            "config": asdict(config),
            "skipped": list(skipped),
            "summary": list(summary),
            "bars": check_bars(summary),
            "rows": [asdict(r) for r in rows],
        },
        indent=1,
    )

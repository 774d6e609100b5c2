"""PNG plot of the bench: score against budget, one line per method."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = ["plot_summary", "task_score"]

NOT_PLOTTED = ("full-history",)  # 100% on most scores by definition; a dashed ceiling on task scores
PLOTTED = (("literal_recall", "literal recall"), ("sentence_survival", "sentence openings kept"))
TASK_SCORES = {  # data kind -> (mode, metric, label): what the newest turn needs
    "qa-dialogue": ("qa", "qa_answer", "per-question answer contained"),
    "tool-calls": ("next-step", "next_step_support", "next-step support"),
    "shell-agent": ("next-step", "next_step_support", "next-step support"),
    "gold-values": ("blind", "gold_arg_recall", "gold values kept"),
}


def task_score(kind: str) -> tuple[str, str, str] | None:
    """(mode, metric, label) of the task score plotted for a data kind, if any."""
    return TASK_SCORES.get(kind)


def plot_summary(summary: Sequence[dict], path: str | Path) -> Path:
    """Write a grid of score vs budget, one line per method, to ``path``; returns the
    path. Columns: datasets. Rows: literal recall and sentence-opening survival
    (question-blind views), then the dataset's task score where it has one
    (:data:`TASK_SCORES`: per-question answers on LoCoMo, next-step support on agent
    runs, gold values on CrossWOZ), with the full history's score dashed (the ceiling:
    37% of LoCoMo answers are in the history verbatim)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = list(dict.fromkeys(r["dataset"] for r in summary))
    kinds = {r["dataset"]: r.get("kind", "") for r in summary}
    methods = [m for m in dict.fromkeys(r["method"] for r in summary) if m not in NOT_PLOTTED]
    panels = [[(None, "blind", metric, label) for metric, label in PLOTTED] for _ in datasets]
    for col, dataset in enumerate(datasets):
        task = task_score(kinds[dataset])
        if task and any(r["dataset"] == dataset and r.get("mode", "blind") == task[0] for r in summary):
            mode, metric, label = task
            panels[col].append((None, mode, metric, label))
    rows = max((len(p) for p in panels), default=len(PLOTTED))
    fig, axes = plt.subplots(
        rows, max(1, len(datasets)), figsize=(4.2 * max(1, len(datasets)), 3.4 * rows), squeeze=False, sharey=True,
    )
    colours = {m: f"C{i % 10}" for i, m in enumerate(methods)}
    for col, dataset in enumerate(datasets):
        for row in range(rows):
            ax = axes[row][col]
            if row >= len(panels[col]):
                ax.set_axis_off()
                continue
            _, mode, metric, label = panels[col][row]
            for method in methods:
                points = sorted(
                    (r["budget"], r[metric])
                    for r in summary
                    if r["dataset"] == dataset and r["method"] == method and r.get("mode", "blind") == mode
                    and r.get(metric) is not None
                )
                if points:
                    xs, ys = zip(*points)
                    ax.plot(xs, [100 * y for y in ys], marker="o", label=method, color=colours[method])
            if panels[col][row][0] is None:  # a task score: its ceiling, when the full history was run
                ceiling = sorted(
                    (r["budget"], r[metric])
                    for r in summary
                    if r["dataset"] == dataset and r["method"] == "full-history" and r.get("mode", "blind") == mode
                    and r.get(metric) is not None
                )
                if ceiling:
                    xs, ys = zip(*ceiling)
                    ax.plot(xs, [100 * y for y in ys], linestyle="--", color="0.5", label="full history (ceiling)")
            ax.set_xticks(sorted({r["budget"] for r in summary}))
            ax.set_title(f"{dataset}: {label}", fontsize=9)
            ax.set_xlabel("budget (share of the history's tokens)")
            ax.set_ylim(0, 100)
            ax.grid(alpha=0.3)
            if col == 0:
                ax.set_ylabel("%")
    handles, labels = [], []
    for row in axes:
        for ax in row:
            for handle, label in zip(*ax.get_legend_handles_labels()):
                if label not in labels:
                    handles.append(handle)
                    labels.append(label)
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=min(len(labels), 5), fontsize=8)
    fig.tight_layout(rect=(0, 0.03 + 0.02 * ((len(labels) - 1) // 5 + 1), 1, 1))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

"""PNG plot of the bench: score against budget, one line per method."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

__all__ = ["plot_summary"]

NOT_PLOTTED = ("full-history",)  # 100% on every plotted score by definition
PLOTTED = (("literal_recall", "literal recall"), ("sentence_survival", "sentence openings kept"))


def plot_summary(summary: Sequence[dict], path: str | Path) -> Path:
    """Write a grid (rows: literal recall, sentence-opening survival; columns:
    datasets) of score vs budget per method to ``path``; returns the path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    datasets = list(dict.fromkeys(r["dataset"] for r in summary))
    methods = [m for m in dict.fromkeys(r["method"] for r in summary) if m not in NOT_PLOTTED]
    fig, axes = plt.subplots(
        len(PLOTTED), max(1, len(datasets)), figsize=(4.2 * max(1, len(datasets)), 3.4 * len(PLOTTED)),
        squeeze=False, sharey=True,
    )
    for col, dataset in enumerate(datasets):
        for row, (metric, label) in enumerate(PLOTTED):
            ax = axes[row][col]
            for method in methods:
                points = sorted(
                    (r["budget"], r[metric])
                    for r in summary
                    if r["dataset"] == dataset and r["method"] == method and r[metric] is not None
                )
                if points:
                    xs, ys = zip(*points)
                    ax.plot(xs, [100 * y for y in ys], marker="o", label=method)
            ax.set_xticks(sorted({r["budget"] for r in summary}))
            ax.set_title(f"{dataset}: {label}", fontsize=9)
            ax.set_xlabel("budget (share of the conversation's tokens)")
            ax.set_ylim(0, 100)
            ax.grid(alpha=0.3)
            if col == 0:
                ax.set_ylabel("%")
    handles, labels = axes[0][0].get_legend_handles_labels()
    if handles:
        fig.legend(handles, labels, loc="lower center", ncol=len(labels), fontsize=8)
    fig.tight_layout(rect=(0, 0.06, 1, 1))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path

"""``discourse-memory-eval bench``, ``replay`` and ``compare``.

Wire into a parent CLI with :func:`add_bench_parser` / :func:`add_replay_parser` /
:func:`add_compare_parser` (each sets ``func`` on its sub-parser: call
``args.func(args)``), or call :func:`main_bench` / :func:`main_replay` /
:func:`main_compare` with an argv list. Each returns an exit code: 0 on success, 2 on
bad input; ``compare`` returns 1 when it flags a change.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

__all__ = [
    "add_bench_parser", "add_compare_parser", "add_replay_parser", "main", "main_bench", "main_compare", "main_replay",
]


def _fractions(text: str) -> tuple[float, ...]:
    try:
        values = tuple(float(v) for v in text.split(",") if v.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"budgets must be comma-separated numbers, got {text!r}") from None
    if not values or any(not 0 < v <= 1 for v in values):
        raise argparse.ArgumentTypeError(f"budgets must be fractions in (0, 1], got {text!r}")
    return values


def _names(text: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in text.split(",") if v.strip())


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {text!r}")
    return value


def _count_or_all(text: str) -> int | None:
    return None if text.strip().lower() == "all" else _positive_int(text)


def _target(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--target must be tokens or a fraction of the limit, got {text!r}") from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"--target must be positive, got {text!r}")
    return value


def _reduction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--reduction must be a fraction, got {text!r}") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"--reduction must be between 0 and 1 (0.7: cut by 70%), got {text!r}")
    return value


# -- bench ---------------------------------------------------------------------------


def _bench_arguments(parser: argparse.ArgumentParser) -> None:
    from .baselines import DEFAULT_METHODS, METHODS

    parser.add_argument("data", nargs="+", type=Path, help="LoCoMo JSON or JSONL of chat runs (several allowed)")
    parser.add_argument(
        "--budgets", type=_fractions, default=(0.1, 0.25, 0.5),
        help="budgets as fractions of each conversation's tokens (default 0.1,0.25,0.5)",
    )
    parser.add_argument(
        "--methods", type=_names, default=DEFAULT_METHODS,
        help=f"comma-separated, from: {', '.join(METHODS)} (default: {','.join(DEFAULT_METHODS)}; "
        "unavailable ones are skipped with the reason)",
    )
    parser.add_argument("--limit", type=_positive_int, help="first N conversations of each file (after the token filters)")
    parser.add_argument("--min-tokens", type=int, default=0, help="skip conversations under this many tokens")
    parser.add_argument("--max-tokens", type=_positive_int, help="skip conversations over this many tokens")
    parser.add_argument(
        "--llamaindex-max-tokens", type=_positive_int, default=200_000,
        help="skip llamaindex-buffer on conversations over this many tokens: its get() is O(n^2) (default 200000)",
    )
    parser.add_argument("--encoding", default="cl100k_base", help="token counter for every method (default cl100k_base)")
    parser.add_argument("--jobs", type=_positive_int, default=1, help="worker processes (default 1)")
    parser.add_argument(
        "--examples", type=int, default=5,
        help="per conversation, method and budget, keep up to N lost items of each kind in bench.json (default 5)",
    )
    parser.add_argument(
        "--modes", type=_names, default=("blind", "qa", "next-step", "ask"),
        help="comma-separated, from: blind (question-blind views of whole conversations), qa (LoCoMo: each "
        "question appended as the newest user turn), next-step (agent runs: the history before sampled actions), "
        "ask (agent runs: a question about a value an earlier tool output named, appended after the run) "
        "(default: all four; a mode runs only on the data it applies to)",
    )
    parser.add_argument(
        "--mode-methods", type=_names, default=None,
        help="methods for the focused modes (default: those of --methods but llamaindex-buffer, "
        "whose get() takes about a second per LoCoMo view and whose view is a suffix like trim-last's)",
    )
    parser.add_argument(
        "--questions", type=_count_or_all, default=30,
        help="qa mode: questions per conversation, spread evenly over its category 1-4 questions, or 'all' (default 30)",
    )
    parser.add_argument(
        "--steps", type=_count_or_all, default=8,
        help="next-step mode: actions per run, spread evenly over the run, or 'all' (default 8)",
    )
    parser.add_argument(
        "--asks", type=_count_or_all, default=4,
        help="ask mode: questions per run, spread evenly over the values it can ask for, or 'all' (default 4)",
    )
    parser.add_argument(
        "--halves", action="store_true",
        help="also give every table, measure and bar on each half of each file: the even (0, 2, 4, ...) and the "
        "odd (1, 3, 5, ...) conversations in file order, after --min-tokens/--max-tokens/--limit",
    )
    parser.add_argument(
        "--out", type=Path, default=Path("bench-results"), help="directory for bench.md, bench.json, bench.csv, bench.png"
    )
    parser.add_argument("--no-plot", action="store_true", help="do not write the PNG")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=_run_bench)


def _run_bench(args: argparse.Namespace) -> int:
    from . import bench
    from .datasets import DataFormatError

    config = bench.BenchConfig(
        budgets=args.budgets, methods=args.methods, encoding=args.encoding, limit=args.limit,
        min_tokens=args.min_tokens, max_tokens=args.max_tokens,
        llamaindex_max_tokens=args.llamaindex_max_tokens, jobs=args.jobs, examples=args.examples,
        modes=args.modes, questions=args.questions, steps=args.steps, asks=args.asks, mode_methods=args.mode_methods,
        halves=args.halves,
    )
    log = lambda message: print(message, file=sys.stderr)  # noqa: E731
    try:
        rows, skipped = bench.run_bench(args.data, config, progress=not args.quiet, log=log)
    except (FileNotFoundError, DataFormatError, ValueError) as exc:
        print(f"discourse-memory-eval bench: error: {exc}", file=sys.stderr)
        return 2
    if not rows:
        print("discourse-memory-eval bench: no conversation selected (check --limit/--min-tokens/--max-tokens)", file=sys.stderr)
        return 2
    summary = bench.summarize(rows, halves=config.halves)
    table = bench.markdown(summary)
    bars = bench.check_bars(summary)
    args.out.mkdir(parents=True, exist_ok=True)
    report = table + ("\nBars (discourse-memory vs the best baseline):\n\n" + "\n".join(f"- {b}" for b in bars) + "\n" if bars else "")
    if skipped:
        report += "\nSkipped:\n\n" + "\n".join(f"- {s}" for s in skipped) + "\n"
    (args.out / "bench.md").write_text(report, encoding="utf-8")
    (args.out / "bench.json").write_text(bench.to_json(rows, summary, config, skipped), encoding="utf-8")
    (args.out / "bench.csv").write_text(bench.to_csv(summary), encoding="utf-8")
    print(report)
    if not args.no_plot:
        from .plot import plot_summary

        whole = [r for r in summary if r.get("half") is None]  # the plot is of whole files
        print(f"plot: {plot_summary(whole, args.out / 'bench.png')}")
    print(f"tables: {args.out / 'bench.md'}; per-conversation rows: {args.out / 'bench.json'}; "
          f"summary: {args.out / 'bench.csv'}")
    return 0


def add_bench_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "bench", help="score memories (this one and baselines) at several budgets",
        description="Score discourse-memory and baseline memories on LoCoMo JSON or chat-run JSONL.",
    )
    _bench_arguments(parser)
    return parser


# -- replay ----------------------------------------------------------------------------


def _replay_arguments(parser: argparse.ArgumentParser) -> None:
    from .baselines import METHODS
    from .replay import REPLAY_METHODS

    parser.add_argument("file", type=Path, help="LoCoMo JSON or JSONL of chat runs")
    parser.add_argument("--context-limit", type=_positive_int, default=65536, help="tokens (default 65536)")
    parser.add_argument(
        "--target", type=_target, default=0.25,
        help="size of the view at a compaction point: tokens, or a fraction (<= 1) of the limit "
        "(default 0.25: compact to a quarter of the window, leaving the rest for the next turns)",
    )
    parser.add_argument(
        "--reduction", type=_reduction,
        help="instead of --target: at each compaction point, a view of (1 - REDUCTION) x the history's tokens "
        "(0.7: the history cut by 70%%), the same share whatever the history's length",
    )
    parser.add_argument(
        "--methods", type=_names, default=REPLAY_METHODS,
        help=f"comma-separated, from: {', '.join(METHODS)} (default: {','.join(REPLAY_METHODS)})",
    )
    parser.add_argument(
        "--at", choices=("model-call", "message"), default="model-call",
        help="compaction points before each assistant message (default) or after every message",
    )
    parser.add_argument("--limit", type=_positive_int, help="first N conversations (after --min-tokens)")
    parser.add_argument("--min-tokens", type=int, default=0, help="only conversations over this many tokens")
    parser.add_argument("--encoding", default="cl100k_base")
    parser.add_argument("--json", type=Path, help="write per-point records and the summary here")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(func=_run_replay)


def _run_replay(args: argparse.Namespace) -> int:
    from . import baselines, replay
    from .bench import _progress
    from .datasets import DataFormatError, load

    target = int(args.target * args.context_limit) if args.target <= 1 else int(args.target)
    config = replay.ReplayConfig(
        context_limit=args.context_limit, target=target, methods=args.methods, at=args.at, encoding=args.encoding,
        reduction=args.reduction,
    )
    try:
        ready, skipped = baselines.resolve_methods(args.methods)
        convs = load(args.file)
    except (FileNotFoundError, DataFormatError, ValueError) as exc:
        print(f"discourse-memory-eval replay: error: {exc}", file=sys.stderr)
        return 2
    for message in skipped:
        print(message, file=sys.stderr)
    config.methods = tuple(m.name for m in ready)
    counter = baselines.get_counter(args.encoding)
    convs = [c for c in convs if baselines.view_tokens(counter, c.messages) > args.min_tokens]
    if args.limit:
        convs = convs[: args.limit]
    points = []
    bar = _progress(len(convs), not args.quiet)
    for conv in convs:
        points.extend(replay.replay(conv, config))
        bar.update(1)
    bar.close()
    summary = replay.summarize_points(points, len(convs))
    print(replay.markdown(summary, config))
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(replay.to_json(points, summary, config), encoding="utf-8")
        print(f"per-point records: {args.json}")
    return 0


def add_replay_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "replay", help="replay a session and measure each compaction point",
        description="Replay sessions message by message; at each compaction point (raw history over the "
        "context limit) record tokens before/after, literal recall and time.",
    )
    _replay_arguments(parser)
    return parser


# -- compare ---------------------------------------------------------------------------


def _compare_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", type=Path, help="a bench --out directory (or its bench.json): the run before the change")
    parser.add_argument("new", type=Path, help="the same for the run after the change")
    parser.add_argument(
        "--methods", type=_names, default=("discourse-memory", "discourse-memory-nosys"),
        help="comma-separated methods to compare, or 'all' (default: discourse-memory,discourse-memory-nosys)",
    )
    parser.add_argument("--all", dest="unchanged", action="store_true", help="list unchanged measures too")
    parser.set_defaults(func=_run_compare)


def _run_compare(args: argparse.Namespace) -> int:
    from . import compare

    try:
        old, new = compare.load_summary(args.old), compare.load_summary(args.new)
    except (FileNotFoundError, ValueError) as exc:
        print(f"discourse-memory-eval compare: error: {exc}", file=sys.stderr)
        return 2
    methods = None if args.methods == ("all",) else args.methods
    changes = compare.compare(old, new, methods)
    if not changes:
        print("discourse-memory-eval compare: the two runs share no (mode, dataset, method, budget) "
              "with a measure; check --methods and the runs' data", file=sys.stderr)
        return 2
    methods_of = (lambda r: True) if methods is None else (lambda r: r["method"] in methods)  # noqa: E731
    differ = compare.mismatches([r for r in old if methods_of(r)], [r for r in new if methods_of(r)])
    if differ:
        shown = differ[:10] + ([f"... and {len(differ) - 10} more"] if len(differ) > 10 else [])
        print("The runs scored different things (data, filters or samples), not only a different policy:\n"
              + "\n".join(f"- {d}" for d in shown) + "\n")
    print(compare.markdown(changes, unchanged=args.unchanged))
    return 1 if compare.verdict(changes) == "FLAGGED" else 0


def add_compare_parser(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser(
        "compare", help="compare two saved bench runs, measure by measure, on each half",
        description="Print each measure's change from OLD to NEW on the whole files and on each half; flag a "
        "change better on one half and worse on the other, or worse by more than a point on either. "
        "Exit 1 when something is flagged.",
    )
    _compare_arguments(parser)
    return parser


# -- entry points ---------------------------------------------------------------------------


def main_bench(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="discourse-memory-eval bench", description="Score memories at several budgets.")
    _bench_arguments(parser)
    args = parser.parse_args(argv)
    return args.func(args)


def main_replay(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="discourse-memory-eval replay", description="Replay sessions at a context limit.")
    _replay_arguments(parser)
    args = parser.parse_args(argv)
    return args.func(args)


def main_compare(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="discourse-memory-eval compare", description="Compare two saved bench runs.")
    _compare_arguments(parser)
    args = parser.parse_args(argv)
    return args.func(args)


def main(argv: list[str] | None = None) -> int:
    """``discourse-memory-eval {bench,replay,compare} ...`` (also ``python -m discourse_memory_evaluation``)."""
    parser = argparse.ArgumentParser(prog="discourse-memory-eval")
    subparsers = parser.add_subparsers(dest="command", required=True)
    add_bench_parser(subparsers)
    add_replay_parser(subparsers)
    add_compare_parser(subparsers)
    args = parser.parse_args(argv)
    return args.func(args)

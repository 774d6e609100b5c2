"""Recall's reach and cost: nothing a view leaves out is out of the model's reach.

    python benchmarks/bench_recall.py [DATA ...] [--share 0.1]
    python benchmarks/bench_recall.py [DATA ...] --follow [--max-tokens 1000]

For every conversation of each DATA file (default: the LoCoMo, tau-bench and SWE-bench
files under ``../shared/data``), the view at ``--share`` of its tokens with
``recall=True``; then the recall of every reference the view hands out. Prints per file:
views, the share of the history's literals (the core's own, as the report lists them)
found verbatim in the view or in a recall (the bar: 100%), the share of the note's
tokens the references take (``#12`` labels, which every entry has with or without
recall, and the clause explaining recall), the share the clause alone takes (what
``recall=True`` adds to the note), and the mean references a view offers.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = [ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json",
                ROOT.parent / "shared" / "data" / "agents" / "tau_airline_dev.jsonl",
                ROOT.parent / "shared" / "data" / "agents" / "swe_dev.jsonl"]
# A reference as the note writes it, and the clause telling the model how to recall.
_REF = re.compile(r"#\d+(?:-#\d+)?")
from discourse_memory.record.note import RECALL_HINT  # noqa: E402 - the clause the note adds

_CLAUSE = re.compile(re.escape(RECALL_HINT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="*", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--share", type=float, default=0.1)
    parser.add_argument("--follow", action="store_true", help="follow the references recalls name")
    parser.add_argument("--max-tokens", type=int, default=1000, help="a recall's max_tokens (with --follow)")
    args = parser.parse_args(argv)
    if args.follow:
        return follow(args.data, args.share, args.max_tokens)
    from discourse_memory import Compactor, Options
    from discourse_memory_evaluation.datasets import load
    from discourse_memory_evaluation.metrics import view_text

    compactor = Compactor(options=Options(recall=True))
    count = compactor.counter.count
    print(f"{'data':<28} {'views':>5} {'literals in reach %':>20} {'refs % of note':>15} {'clause % of note':>17} "
          f"{'refs/view':>10}")
    for path in args.data:
        if not path.exists():
            print(f"{path}: absent", file=sys.stderr)
            continue
        views = reach_n = total_n = refs = 0
        note_tokens = ref_tokens = clause_tokens = 0
        for conv in load(path):
            msgs = conv.messages
            view = compactor.compact(msgs, max(1, int(compactor.count_messages(msgs) * args.share)))
            views += 1
            parts = [view_text(view.messages)]
            for ref in view.references:
                parts.append(view.recall(ref, max_tokens=1_000_000).text)
            reach = "\n".join(parts)
            lits = {t for u in view.report.units
                    for t in u.literals_kept + u.literals_recorded + u.literals_dropped + u.literals_unlisted}
            total_n += len(lits)
            reach_n += sum(t in reach for t in lits)
            refs += len(view.references)
            if view.note:
                unclaused = _CLAUSE.sub("", view.note)
                note_tokens += count(view.note)
                ref_tokens += count(view.note) - count(_REF.sub("", unclaused))
                clause_tokens += count(view.note) - count(unclaused)
        share = 100.0 * ref_tokens / max(note_tokens, 1)
        print(f"{path.name:<28} {views:>5} {100.0 * reach_n / max(total_n, 1):>20.2f} {share:>15.1f} "
              f"{100.0 * clause_tokens / max(note_tokens, 1):>17.1f} {refs / max(views, 1):>10.1f}")
    return 0


# What a recall names for the model to ask next, in the lines it adds (before recall
# pages, when ``Recalled.more`` did not exist): ``(not shown to fit: #2-#5, #9)``.
_NAMED_LINE = re.compile(r"^(?:… )?\((?:not shown|more matches|cut to fit)[^\n]*$", re.M)
MAX_RECALLS = 5000
"""A view's recalls stop here (a guard; no view of the default data comes near it)."""


def named(got) -> list[str]:
    """The references a recall names for the model to follow."""
    more = getattr(got, "more", None)
    if more is not None:
        return list(more)
    return [r for line in _NAMED_LINE.findall(got.text) for r in _REF.findall(line)]


def reach_of(view, max_tokens: int, count) -> tuple[str, int, int]:
    """The view's text and every recall reachable from its references: (text, recalls, tokens)."""
    from discourse_memory_evaluation.metrics import view_text

    parts = [view_text(view.messages)]
    todo, seen = list(view.references), set(view.references)
    recalls = tokens = 0
    while todo and recalls < MAX_RECALLS:
        got = view.recall(todo.pop(0), max_tokens=max_tokens)
        recalls += 1
        tokens += count(got.text)
        parts.append(got.text)
        for ref in named(got):
            if ref not in seen:
                seen.add(ref)
                todo.append(ref)
    return "\n".join(parts), recalls, tokens


def follow(data: list[Path], share: float, max_tokens: int) -> int:
    from discourse_memory import Compactor, Options
    from discourse_memory_evaluation.datasets import load

    # relax, as the bench's views: a 10% budget of a short run can be below its newest message
    # once the request's framing counts, and every run should give a view.
    compactor = Compactor(options=Options(recall=True, relax=True))
    count = compactor.counter.count
    print(f"recall followed at max_tokens={max_tokens}, views at {share:.0%} of each conversation's tokens")
    print(f"{'data':<28} {'views':>5} {'mean %':>7} {'worst %':>8} {'even mean/worst':>16} {'odd mean/worst':>15} "
          f"{'recalls/view':>13} {'tokens/view':>12}")
    for path in data:
        if not path.exists():
            print(f"{path}: absent", file=sys.stderr)
            continue
        shares: list[float] = []
        recalls = tokens = 0
        for conv in load(path):
            msgs = conv.messages
            view = compactor.compact(msgs, max(1, int(compactor.count_messages(msgs) * share)))
            lits = {t for u in view.report.units
                    for t in u.literals_kept + u.literals_recorded + u.literals_dropped + u.literals_unlisted}
            reach, n, k = reach_of(view, max_tokens, count)
            recalls += n
            tokens += k
            shares.append(100.0 * sum(t in reach for t in lits) / len(lits) if lits else 100.0)

        def mw(xs: list[float]) -> str:
            return f"{sum(xs) / len(xs):.1f}/{min(xs):.1f}" if xs else "-"

        print(f"{path.name:<28} {len(shares):>5} {sum(shares) / max(len(shares), 1):>7.2f} "
              f"{min(shares, default=100.0):>8.2f} {mw(shares[0::2]):>16} {mw(shares[1::2]):>15} "
              f"{recalls / max(len(shares), 1):>13.1f} {tokens / max(len(shares), 1):>12.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

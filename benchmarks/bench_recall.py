"""Recall's reach and cost: nothing a view leaves out is out of the model's reach.

    python benchmarks/bench_recall.py [DATA ...] [--share 0.1]

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
from discourse_memory.record import RECALL_HINT  # noqa: E402 - the clause the note adds

_CLAUSE = re.compile(re.escape(RECALL_HINT))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", nargs="*", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--share", type=float, default=0.1)
    args = parser.parse_args(argv)
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


if __name__ == "__main__":
    raise SystemExit(main())

"""The ranking's own cost on a warm turn (``fit.rank._rank`` less the record's items,
``fit.candidates._items``), by process CPU time.

    python benchmarks/bench_rank_rest.py [--history ../shared/data/agents/swe_dev.jsonl] [--turns 60]

Against another version, alternate runs with its package first on the path, from a
directory that holds no other ``discourse_memory``:

    git archive main discourse_memory | tar -x -C /tmp/base
    cd /tmp && PYTHONPATH=/tmp/base python <repo>/benchmarks/bench_rank_rest.py --label base
    cd /tmp && PYTHONPATH=<repo> python <repo>/benchmarks/bench_rank_rest.py --label this

A ``DiscourseMemory`` holds the first runs of ``--history`` up to ``--tokens``; after five
warm turns, ``--turns`` turns of appending one ~500-token message and taking a view at 25%
of the history's tokens. Printed: the medians of the ranking, of its items and of the rest
(per turn: ranking less items), in milliseconds, and where the package was imported from.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("RAYON_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--history", default=str(HERE.parent.parent / "shared" / "data" / "agents" / "swe_dev.jsonl"))
    ap.add_argument("--tokens", type=int, default=65000)
    ap.add_argument("--turns", type=int, default=60)
    ap.add_argument("--label", default="")
    args = ap.parse_args()

    from bench_core_speed import new_message, real_history, warm_memory

    import discourse_memory
    import discourse_memory.fit.fitting as fitting
    import discourse_memory.fit.rank as rank

    ranks: list[float] = []
    items: list[float] = []
    real_rank, real_items = fitting._rank, rank._items

    def timed_items(*a: Any, **k: Any) -> Any:
        t = time.process_time()
        out = real_items(*a, **k)
        items.append(time.process_time() - t)
        return out

    def timed_rank(*a: Any, **k: Any) -> Any:
        t = time.process_time()
        out = real_rank(*a, **k)
        ranks.append(time.process_time() - t)
        return out

    rank._items, fitting._rank = timed_items, timed_rank
    msgs = real_history(args.history, args.tokens)
    mem, budget = warm_memory(msgs)
    ranks.clear()
    items.clear()
    for i in range(args.turns):
        mem.append(new_message(i))
        mem.view(budget)
    if len(ranks) != len(items):
        raise SystemExit(f"the ranking ran {len(ranks)} times and its items {len(items)}: not one each a view")
    rest = [r - i for r, i in zip(ranks, items)]
    ms = lambda xs: statistics.median(xs) * 1e3  # noqa: E731
    print(f"{args.label or Path(discourse_memory.__file__).parent.parent}: {len(msgs)} messages, budget {budget}, "
          f"{len(ranks)} views (CPU, median): ranking {ms(ranks):.2f} ms, items {ms(items):.2f} ms, "
          f"rest {ms(rest):.2f} ms")


if __name__ == "__main__":
    main()

"""The record's items of each turn (``fit.candidates._items``), another version's against this
one's, in one process on the same scenes.

    git archive main discourse_memory | tar -x -C /tmp/base
    python benchmarks/bench_items_ab.py --base /tmp/base [--history ../shared/data/agents/swe_dev.jsonl]
    python benchmarks/bench_items_ab.py --base /tmp/base --messages 200000 --budget 8000

As ``bench_rank_ab.py`` (whose set-up it uses: the other version as a package of another name,
both rankings run on each view in an order that flips every second turn, their options and
items checked equal), with each version's ``_items`` timed inside its ranking by process CPU
time. Printed: each version's median milliseconds, every turn's figure (on an agent history
a turn that moves two messages out of the kept newest ones reads their ~200 rows, and costs
several times one that does not: the median falls between the two kinds), and the median of
the paired ratios this / base.
"""

from __future__ import annotations

import argparse
import importlib
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("RAYON_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_rank_ab import _renamed_copy, drive, history_of, same_ranking  # noqa: E402


def _timed(times: list[float], f: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any) -> Any:
        t = time.process_time()
        try:
            return f(*args)
        finally:
            times.append(time.process_time() - t)
    return timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, type=Path, help="a directory holding the other discourse_memory")
    ap.add_argument("--messages", type=int, help="the built-in sample chained to this many messages")
    ap.add_argument("--history", default=str(HERE.parent.parent / "shared" / "data" / "agents" / "swe_dev.jsonl"))
    ap.add_argument("--budget", type=int, help="the view's budget (default: 8,000 with --messages, else 25%%)")
    ap.add_argument("--turns", type=int, default=20)
    args = ap.parse_args()

    from discourse_memory.nlp import get_pipeline

    tmp = Path(tempfile.mkdtemp(prefix="items_ab_"))
    _renamed_copy(args.base, tmp, "dm_base")
    sys.path.insert(0, str(tmp))
    base_mod = importlib.import_module("dm_base.fit.rank")
    mine_mod = importlib.import_module("discourse_memory.fit.rank")
    fitting = importlib.import_module("discourse_memory.fit.fitting")
    times: dict[str, list[float]] = {"base": [], "this": []}
    base_mod._items = _timed(times["base"], base_mod._items)
    mine_mod._items = _timed(times["this"], mine_mod._items)
    base_rank, mine = base_mod._rank, fitting._rank

    msgs, budget, where, new_message = history_of(args)
    get_pipeline()("Warm up.")
    turn = [0]

    def both(scene: Any, protected: frozenset[int], *rest: Any) -> Any:
        # (the order flips every second view, not every view: turns alternate kinds, and an
        # order flipped every view put one version first on every turn of one kind, where it
        # paid the token counts the other then read from the shared count cache)
        order = [base_rank, mine] if turn[0] // 2 % 2 == 0 else [mine, base_rank]
        turn[0] += 1
        out = {f: f(scene, protected, *rest) for f in order}
        a, b = out[base_rank], out[mine]
        same_ranking(a, b)
        return b

    fitting._rank = both
    drive(msgs, budget, args.turns, times, new_message)
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"history: {where}; budget {budget} tokens; {args.turns} turns of append + view; CPU time")
    for who in ("base", "this"):
        ts = times[who]
        print(f"{who:5s} items: median {statistics.median(ts) * 1000:.2f} ms; per turn "
              + " ".join(f"{t * 1000:.1f}" for t in ts))
    ratios = [t / b for t, b in zip(times["this"], times["base"])]
    print(f"paired ratio this / base: median {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()

"""A warm worker's turn through a shared store, in one process (issue 49).

    python benchmarks/bench_warm_store.py [--tokens 65000] [--turns 40] [--skip 5]

The history of ``bench_workers.py`` (the first runs of ``swe_dev.jsonl`` up to ``--tokens``
tokens, budget a quarter of it) in a ``DiscourseMemory`` whose cache is a dict (what a shared
store holds, without a server: the entries a warm worker writes, encoded and sealed as for
Redis), then ``--turns`` turns of appending a ~500-token message and taking a view, each timed
in the process's CPU time; the first ``--skip`` are not counted. Printed: the median, lower
quartile and least. ``bench_core_speed.py`` times turns without a store; ``bench_workers.py``
times them beside a Redis server, where the warm turns move more between rounds than a change
of the code does: run this with two versions alternately (``PYTHONPATH``) to compare the cost a
store adds to a warm turn.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, default=65000)
    ap.add_argument("--turns", type=int, default=40)
    ap.add_argument("--skip", type=int, default=5)
    args = ap.parse_args()
    from bench_core_speed import new_message, real_history
    from bench_first_view_stages import DATA, DictCache
    from discourse_memory import DiscourseMemory, get_token_counter

    msgs = real_history(str(DATA), args.tokens)
    count = get_token_counter().count
    budget = sum(count(m.get("content") or "") for m in msgs) // 4
    warm = DiscourseMemory(msgs, cache=DictCache())
    warm.view(budget)
    times = []
    for i in range(args.turns):
        warm.append(new_message(i))
        t = time.process_time()
        warm.view(budget)
        times.append((time.process_time() - t) * 1000)
    times = sorted(times[args.skip:])
    print(f"a warm turn through a store, ms CPU: median {statistics.median(times):.1f}, lower quartile "
          f"{times[len(times) // 4]:.1f}, least {times[0]:.1f} ({len(times)} turns)")


if __name__ == "__main__":
    main()

"""CPU time a turn of a few calls of making the record's items, on a long agent run.

    python benchmarks/bench_record_calls.py [--history ../shared/data/agents/swe_dev.jsonl]
                                            [--tokens 65000] [--turns 60]

A ``DiscourseMemory`` holds the first runs of ``--history`` up to ``--tokens`` (as
``bench_core_speed.py --history``); after five warm turns, ``--turns`` turns of appending one
~500-token message and taking a view at 25% of the history's tokens. Each of
``fit.rank._items`` (the record's candidates and items), ``fit.candidates._cover_lines``
(widening a line's item), ``Ranked.candidate_lits`` and ``record.examples.talk_counts`` is
wrapped in a timer of process CPU time. Printed: milliseconds a turn of each (the sum of
its calls over the turns, divided by them) and of the whole turn. Run it with
``PYTHONPATH=<a checkout>`` from outside a worktree to time another version, alternating.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("RAYON_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core_speed import new_message, real_history, warm_memory  # noqa: E402

import discourse_memory.fit.candidates as candidates  # noqa: E402
import discourse_memory.fit.rank as rank  # noqa: E402
import discourse_memory.fit.types as types  # noqa: E402
import discourse_memory.record.examples as examples  # noqa: E402

SPENT: dict[str, float] = {}


def timed(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        t = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            SPENT[name] = SPENT.get(name, 0.0) + time.process_time() - t
    return call


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--history", default=str(Path(__file__).resolve().parents[1] / "../shared/data/agents/swe_dev.jsonl"))
    ap.add_argument("--tokens", type=int, default=65000)
    ap.add_argument("--turns", type=int, default=60)
    a = ap.parse_args()
    prop = cached_property(timed("candidate_lits", types.Ranked.candidate_lits.func))
    prop.__set_name__(types.Ranked, "candidate_lits")
    types.Ranked.candidate_lits = prop  # type: ignore[assignment]
    examples.talk_counts = candidates.talk_counts = timed("talk_counts", examples.talk_counts)  # type: ignore[assignment]
    candidates._cover_lines = timed("_cover_lines", candidates._cover_lines)  # type: ignore[assignment]
    rank._items = timed("_items", rank._items)  # type: ignore[assignment]
    mem, budget = warm_memory(real_history(a.history, a.tokens))
    SPENT.clear()
    start = time.process_time()
    for i in range(a.turns):
        mem.append(new_message(i))
        mem.view(budget)
    turn = (time.process_time() - start) / a.turns
    print(f"package: {Path(examples.__file__).parents[1]}; ms a turn by process CPU time over {a.turns} turns")
    print("  ".join(f"{name} {spent / a.turns * 1000:.3f}" for name, spent in sorted(SPENT.items()))
          + f"  turn {turn * 1000:.2f}")


if __name__ == "__main__":
    main()

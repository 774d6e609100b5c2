"""The record's items of a turn (``fit.candidates._items``) split into its parts, for the
turns that read new rows and for those that read none.

    python benchmarks/bench_items_parts.py [--history ../shared/data/agents/swe_dev.jsonl] [--turns 30]
    cd /tmp && PYTHONPATH=/tmp/base python /path/to/benchmarks/bench_items_parts.py  # another version

A ``DiscourseMemory`` holds the first 65,536 tokens of ``--history`` (as ``bench_core_speed.py
--history``); after five warm turns, ``--turns`` turns of appending one ~500-token message and
taking a view at a quarter of the history's tokens. Each part is timed by a wrapper around
its function, by process CPU time. A turn "reads" when it builds the items of rows no view
had read (on an agent history, a turn that moves a tool's result out of the kept newest
messages reads its ~200 rows; turns of the two kinds alternate, so a median over all turns
falls between them). Printed per kind of turn: how many, and the median milliseconds of the
whole and of each part (``_sources``: which occurrence each value is listed from, with
``UnitItems.item``, the items it builds; ``_row_facts``: what a view reads of each item,
kept per row; ``_cover_lines``: one item per line of code listing its values; ``_item_costs``:
the token counts of the items made), with the rows read and the items counted a turn.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("RAYON_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

PARTS = ("_sources", "item", "_row_facts", "_cover_lines", "_item_costs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--history", default=str(HERE.parent.parent / "shared" / "data" / "agents" / "swe_dev.jsonl"))
    ap.add_argument("--turns", type=int, default=30)
    args = ap.parse_args()

    from bench_core_speed import new_message, real_history, warm_memory

    import discourse_memory.fit.candidates as candidates
    import discourse_memory.fit.rank as rank
    import discourse_memory.record.items as record_items
    from discourse_memory.nlp import get_pipeline

    spent = dict.fromkeys(PARTS + ("_items",), 0.0)
    calls = dict.fromkeys(PARTS, 0)

    def timed(name: str, f: Callable[..., Any]) -> Callable[..., Any]:
        def wrapper(*a: Any, **k: Any) -> Any:
            calls[name] = calls.get(name, 0) + 1
            t = time.process_time()
            try:
                return f(*a, **k)
            finally:
                spent[name] += time.process_time() - t
        return wrapper

    for name in PARTS[:1] + PARTS[2:]:
        setattr(candidates, name, timed(name, getattr(candidates, name)))
    record_items.UnitItems.item = timed("item", record_items.UnitItems.item)  # type: ignore[method-assign]
    rank._items = timed("_items", rank._items)

    get_pipeline()("Warm up the pipeline.")
    msgs = real_history(args.history, 65_536)
    mem, budget = warm_memory(msgs)
    turns: list[tuple[dict[str, float], dict[str, int]]] = []
    for i in range(args.turns):
        for k in spent:
            spent[k] = 0.0
        for k in calls:
            calls[k] = 0
        mem.append(new_message(i))
        mem.view(budget)
        turns.append((dict(spent), dict(calls)))
    print(f"history: {len(msgs)} messages of {args.history}; budget {budget} tokens; {args.turns} turns; "
          f"CPU ms a turn, median")
    for label, these in (("reading", [t for t in turns if t[1]["item"]]),
                         ("not reading", [t for t in turns if not t[1]["item"]])):
        if not these:
            continue
        parts = "  ".join(f"{k.strip('_')} {statistics.median(t[0][k] for t in these) * 1000:.2f}" for k in PARTS)
        print(f"{label:11s} turns {len(these):2d}: items {statistics.median(t[0]['_items'] for t in these) * 1000:.2f}"
              f"  ({parts});  rows read {statistics.median(t[1]['item'] for t in these):.0f},"
              f" items counted {statistics.median(t[1]['_item_costs'] for t in these):.0f}")
    print(f"all turns: items median {statistics.median(t[0]['_items'] for t in turns) * 1000:.2f} ms")


if __name__ == "__main__":
    main()

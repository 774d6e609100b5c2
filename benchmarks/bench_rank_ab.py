"""The ranking of each turn (``fit.rank._rank``), another version's against this one's, in one
process on the same scenes.

    git archive main discourse_memory | tar -x -C /tmp/base
    python benchmarks/bench_rank_ab.py --base /tmp/base [--messages 200000 --budget 8000] [--turns 16]
    python benchmarks/bench_rank_ab.py --base /tmp/base --history ../shared/data/agents/swe_dev.jsonl

The other version (``--base``: a directory holding a ``discourse_memory`` package) is copied
to a temporary directory as a package of another name (its absolute imports renamed), so its
whole fitting stage runs beside this one's, each with its own memos on the same
conversation's columns. A ``DiscourseMemory`` holds the history (the built-in sample chained
to ``--messages`` messages, or the first runs of ``--history`` up to 65,000 tokens, the view
at 25% of them); after three warm turns, ``--turns`` turns of appending one ~500-token
message and taking a view. Each view's ranking runs in both versions, in an order that
alternates turn by turn (what one reads first, a token count or a grown array, the other may
find done), timed by process CPU time (steadier than the wall clock on a loaded machine);
their options, costs and record items are checked equal. Printed: the median milliseconds of
each, and the median of the paired ratios this / base.
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
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


def _renamed_copy(base: Path, into: Path, name: str) -> None:
    """``base/discourse_memory`` as the package ``name`` in ``into``."""
    shutil.copytree(base / "discourse_memory", into / name)
    for path in (into / name).rglob("*.py"):
        text = path.read_text(encoding="utf-8")
        renamed = re.sub(r"\b(from|import) discourse_memory\b", rf"\1 {name}", text)
        if renamed != text:
            path.write_text(renamed, encoding="utf-8")


def _items_key(items: list[Any]) -> list[tuple[Any, ...]]:
    # (the two versions' Item classes differ: compared by their fields)
    return [(i.literal, i.unit, i.message, i.text, i.span, i.covers, i.header, i.key, i.value, i.row, i.group)
            for i in items]


def same_ranking(a: Any, b: Any) -> None:
    """Stop unless two versions' rankings of one view are the same."""
    if (a.order.tobytes() != b.order.tobytes() or a.costs.tobytes() != b.costs.tobytes()
            or _items_key(a.item_of) != _items_key(b.item_of)):
        raise SystemExit("the two versions ranked this view differently")


def history_of(args: argparse.Namespace) -> tuple[list[dict[str, Any]], int, str, Callable[[int], dict[str, Any]]]:
    """The history the arguments name, the view's budget, its description, and the messages
    its turns append."""
    from discourse_memory import get_token_counter

    if args.messages:
        from bench_turn_scaling import history as chained, new_message

        msgs, budget = chained(args.messages), args.budget or 8000
        where = f"the built-in sample chained to {len(msgs)} messages"
    else:
        from bench_core_speed import new_message, real_history

        msgs = real_history(args.history, 65000)
        count = get_token_counter().count
        budget = args.budget or sum(count(m.get("content") or "") for m in msgs) // 4
        where = f"{len(msgs)} messages of {args.history}"
    return msgs, budget, where, new_message


def drive(msgs: list[dict[str, Any]], budget: int, turns: int, times: dict[str, list[float]],
          new_message: Callable[[int], dict[str, Any]]) -> None:
    """A memory of ``msgs`` viewed, warmed by three turns (their times cleared), then
    ``turns`` turns of append + view."""
    from discourse_memory import DiscourseMemory

    mem = DiscourseMemory(msgs)
    mem.view(budget)
    for i in range(3):
        mem.append(new_message(i))
        mem.view(budget)
    for ts in times.values():
        ts.clear()
    for i in range(10, 10 + turns):
        mem.append(new_message(i))
        mem.view(budget)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, type=Path, help="a directory holding the other discourse_memory")
    ap.add_argument("--messages", type=int, help="the built-in sample chained to this many messages")
    ap.add_argument("--history", default=str(HERE.parent.parent / "shared" / "data" / "agents" / "swe_dev.jsonl"))
    ap.add_argument("--budget", type=int, help="the view's budget (default: 8,000 with --messages, else 25%%)")
    ap.add_argument("--turns", type=int, default=16)
    args = ap.parse_args()

    from discourse_memory.nlp import get_pipeline

    tmp = Path(tempfile.mkdtemp(prefix="rank_ab_"))
    _renamed_copy(args.base, tmp, "dm_base")
    sys.path.insert(0, str(tmp))
    base_rank = importlib.import_module("dm_base.fit.rank")._rank
    fitting = importlib.import_module("discourse_memory.fit.fitting")
    mine = fitting._rank

    msgs, budget, where, new_message = history_of(args)
    get_pipeline()("Warm up.")
    times: dict[str, list[float]] = {"base": [], "this": []}
    turn = [0]

    def both(scene: Any, protected: frozenset[int], *rest: Any) -> Any:  # (rest: a system prompt's outline)
        order = ["base", "this"] if turn[0] % 2 == 0 else ["this", "base"]
        turn[0] += 1
        out = {}
        for who in order:
            f = base_rank if who == "base" else mine
            t = time.process_time()
            out[who] = f(scene, protected, *rest)
            times[who].append(time.process_time() - t)
        a, b = out["base"], out["this"]
        same_ranking(a, b)
        return b

    fitting._rank = both
    drive(msgs, budget, args.turns, times, new_message)
    shutil.rmtree(tmp, ignore_errors=True)
    print(f"history: {where}; budget {budget} tokens; {args.turns} turns of append + view; CPU time")
    for who in ("base", "this"):
        print(f"{who:5s} rank: median {statistics.median(times[who]) * 1000:.2f} ms")
    ratios = [t / b for t, b in zip(times["this"], times["base"])]
    print(f"paired ratio this / base: median {statistics.median(ratios):.3f}")


if __name__ == "__main__":
    main()

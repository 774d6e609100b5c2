"""What the passes of a view cost after the take: plan, render, note and the measure.

    python benchmarks/bench_pass_cost.py [--history ../shared/data/agents/swe_dev.jsonl]
                                         [--tokens 65000] [--turns 30] [--rounds 3]

A ``DiscourseMemory`` holds the first runs of ``--history`` up to ``--tokens`` (as
``bench_core_speed.py --history``); after three warm turns, ``--turns`` turns of appending one
~500-token message and taking a view at 25% of the history's tokens, ``--rounds`` times (a
fresh memory and new messages each round). Timed by process CPU time (steadier than the wall clock on a shared
machine), each by a wrapper around the function a view calls: ``fit.plan._plan`` (the plan
and its record), ``render_messages`` (the view's messages), ``compaction._note`` (the note's
text) and the whole measuring closure a fit calls (``Scene.measure``: render, note, their
counts and framing). Printed: per round, milliseconds a turn of each and of the whole
turn, and the median over rounds; "plan + measure" is this task's figure (issue 47). Run it
with ``PYTHONPATH=<a checkout>`` from outside a worktree to time another version.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("RAYON_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def _timed(spent: dict[str, float], label: str, f: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        t = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            spent[label] = spent.get(label, 0.0) + time.process_time() - t
    return timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--history", default=str(HERE.parent.parent / "shared" / "data" / "agents" / "swe_dev.jsonl"))
    ap.add_argument("--tokens", type=int, default=65000)
    ap.add_argument("--turns", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args()

    import discourse_memory
    from discourse_memory import DiscourseMemory, compaction, get_token_counter
    from discourse_memory.fit import fitting, lengthen
    from discourse_memory.nlp import get_pipeline

    from bench_core_speed import new_message, real_history

    msgs = real_history(args.history, args.tokens)
    count = get_token_counter().count
    budget = sum(count(m.get("content") or "") for m in msgs) // 4
    get_pipeline()("Warm up.")
    spent: dict[str, float] = {}
    plan = _timed(spent, "plan", fitting._plan)
    fitting._plan = lengthen._plan = plan
    compaction.render_messages = _timed(spent, "render view", compaction.render_messages)
    compaction._note = _timed(spent, "render note", compaction._note)
    fit = compaction.fit

    def measured_fit(scene: Any) -> Any:
        return fit(dataclasses.replace(scene, measure=_timed(spent, "measure", scene.measure)))

    compaction.fit = measured_fit
    print(f"package: {Path(discourse_memory.__file__).parent}; history: {len(msgs)} messages of {args.history}; "
          f"budget {budget}; {args.turns} turns a round; ms a turn by process CPU time")
    labels = ["plan", "render view", "render note", "measure", "plan + measure", "turn"]
    print(f"{'round':>5s} " + " ".join(f"{lab:>14s}" for lab in labels))
    rows: list[list[float]] = []
    for r in range(args.rounds):
        mem = DiscourseMemory(msgs)
        mem.view(budget)
        # (new messages each round: the counter's cache, shared by the rounds, holds the last round's texts)
        for i in range(3):
            mem.append(new_message(1000 * r + i))
            mem.view(budget)
        spent.clear()
        turn = 0.0
        for i in range(10, 10 + args.turns):
            mem.append(new_message(1000 * r + i))
            t = time.process_time()
            mem.view(budget)
            turn += time.process_time() - t
        spent["plan + measure"] = spent.get("plan", 0.0) + spent.get("measure", 0.0)
        spent["turn"] = turn
        row = [spent.get(lab, 0.0) / args.turns * 1000 for lab in labels]
        rows.append(row)
        print(f"{r:5d} " + " ".join(f"{v:14.2f}" for v in row))
    print(f"{'med':>5s} " + " ".join(f"{statistics.median(col):14.2f}" for col in zip(*rows)))


if __name__ == "__main__":
    main()

"""What a focused view costs against an unfocused one, on real conversations.

    python benchmarks/bench_focus_cost.py [DATA ...] [--questions 5] [--budget 0.25]

DATA are files ``discourse-memory-eval bench`` reads (default: the LoCoMo, tau-bench,
SWE-bench and CrossWOZ files under ``../shared/data``). For each conversation the
history ends in a question (LoCoMo: ``--questions`` of its QA questions, each appended
as the newest user turn; the others: the conversation as it ends), and the view at
``--budget`` of its tokens is taken twice, with the newest turn as the focus (the
default) and with ``focus=None``, alternating which goes first, each the best of a few
runs (cold 2, warm 3):

- **cold**: a fresh ``Compactor`` per view, so the analysis is in the time (what a
  stateless call such as ``compact_messages`` pays on its first turn);
- **warm**: one ``Compactor`` that has analysed the history already, so the time is the
  policy and the rendering (what every later turn of a memory pays).

Prints total seconds of each and the ratio focused / unfocused per file and overall
(issue 15's bar: at most 2x). One process, one thread, spaCy loaded before timing.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("RAYON_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT.parent / "shared" / "data"
DEFAULT_DATA = [DATA / "locomo" / "locomo_dev.json", DATA / "agents" / "tau_airline_dev.jsonl",
                DATA / "agents" / "swe_dev.jsonl", DATA / "multilingual" / "crosswoz_dev.jsonl"]


def histories(path: Path, questions: int) -> list[list[dict[str, Any]]]:
    sys.path.insert(0, str(ROOT / "evaluation"))
    from discourse_memory_evaluation import datasets

    out = []
    for conv in datasets.load(str(path)):
        if conv.qa:
            step = max(1, len(conv.qa) // max(questions, 1))
            out.extend([*conv.messages, {"role": "user", "content": qa.question}]
                       for qa in conv.qa[::step][:questions])
        else:
            out.append(conv.messages)
    return out


def timed(fn: Any, repeat: int) -> float:
    """The best of ``repeat`` runs: the cost itself, not a pause of the shared machine."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def measure(runs: list[list[dict[str, Any]]], fraction: float) -> dict[str, float]:
    from discourse_memory import Compactor, count_messages

    tot = {"cold_focus": 0.0, "cold_none": 0.0, "warm_focus": 0.0, "warm_none": 0.0}
    for k, msgs in enumerate(runs):
        budget = max(int(count_messages(msgs) * fraction), 1)
        order = (("focus", True), ("none", False)) if k % 2 == 0 else (("none", False), ("focus", True))
        for name, focused in order:
            kw = {} if focused else {"focus": None}
            tot[f"cold_{name}"] += timed(lambda: Compactor().compact(msgs, budget, **kw), 2)
        warm = Compactor()
        warm.compact(msgs, budget, focus=None)
        for name, focused in order:
            kw = {} if focused else {"focus": None}
            tot[f"warm_{name}"] += timed(lambda: warm.compact(msgs, budget, **kw), 3)
    return tot


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="*", type=Path, default=DEFAULT_DATA)
    ap.add_argument("--questions", type=int, default=5)
    ap.add_argument("--budget", type=float, default=0.25)
    args = ap.parse_args()
    from discourse_memory import compact
    from discourse_memory.nlp import get_pipeline

    get_pipeline()("Warm up the pipeline.")
    compact([{"role": "user", "content": "Warm up, the pipeline loads once. " * 100},
             {"role": "assistant", "content": "Done."}], 300)
    print(f"{'data':28} {'views':>5} {'cold focused':>13} {'cold none':>10} {'ratio':>6} "
          f"{'warm focused':>13} {'warm none':>10} {'ratio':>6}")
    grand = {"cold_focus": 0.0, "cold_none": 0.0, "warm_focus": 0.0, "warm_none": 0.0}
    for path in args.data:
        if not path.exists():
            print(f"{path.name:28} missing, skipped")
            continue
        runs = histories(path, args.questions)
        measure(runs[:2], args.budget)  # this shape's first views load what they need
        tot = measure(runs, args.budget)
        for key in grand:
            grand[key] += tot[key]
        print(f"{path.name:28} {len(runs):5d} {tot['cold_focus']:12.2f}s {tot['cold_none']:9.2f}s "
              f"{tot['cold_focus'] / tot['cold_none']:5.2f}x {tot['warm_focus']:12.2f}s {tot['warm_none']:9.2f}s "
              f"{tot['warm_focus'] / tot['warm_none']:5.2f}x")
    if grand["cold_none"]:
        print(f"{'all':28} {'':5} {grand['cold_focus']:12.2f}s {grand['cold_none']:9.2f}s "
              f"{grand['cold_focus'] / grand['cold_none']:5.2f}x {grand['warm_focus']:12.2f}s "
              f"{grand['warm_none']:9.2f}s {grand['warm_focus'] / grand['warm_none']:5.2f}x")


if __name__ == "__main__":
    main()

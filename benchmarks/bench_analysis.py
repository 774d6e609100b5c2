"""CPU time of a turn's analysis of the newest message, and of its focus, on three kinds of message.

    python benchmarks/bench_analysis.py [--turns 30] [--repeat 3]

A ``DiscourseMemory`` holds a history and, turn by turn, appends one message and takes a
view at a quarter of the history's tokens. Timed, by this process's CPU time (steadier
than the wall clock on a shared machine), with a wrapper around each: the analysis of the
new message (``Compactor._columns``: segmenting, literals, token counts, the columns'
append) and the focus of the newest turn (``Compactor._relevance``). Three histories:

- ``synthetic``: the first 65,000 tokens of ``../shared/data/agents/swe_dev.jsonl`` (as
  ``bench_core_speed.py --history``), then the speed bar's own ~500-token messages
  (``bench_core_speed.new_message``: dense with numbers, versions, dates and ids);
- ``swe``: the same history, then the messages of later runs of that file, one by one
  (real agent output: commands, tool output, code);
- ``locomo``: the first 200 turns of the first LoCoMo conversation, then its later turns
  one by one ("Speaker: text").

Printed: per history, the median over ``--repeat`` runs of the mean milliseconds a turn of
each stage. Run it with ``PYTHONPATH`` set to another checkout's directory (from outside
this one) to time that version the same way.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("RAYON_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
DATA = HERE.parent.parent / "shared" / "data"


def _swe_runs() -> list[list[dict]]:
    with open(DATA / "agents" / "swe_dev.jsonl", encoding="utf-8") as f:
        return [json.loads(line)["messages"] for line in f]


def _locomo_turns() -> list[dict]:
    with open(DATA / "locomo" / "locomo_dev.json", encoding="utf-8") as f:
        conv = json.load(f)[0]["conversation"]
    out = []
    k = 1
    while f"session_{k}" in conv:
        for t in conv[f"session_{k}"]:
            out.append({"role": "user" if t["speaker"] == conv["speaker_a"] else "assistant",
                        "content": f"{t['speaker']}: {t['text']}"})
        k += 1
    return out


def histories(turns: int) -> dict[str, tuple[list[dict], list[dict]]]:
    """Per history, its messages and the messages appended one by one."""
    from bench_core_speed import new_message, real_history

    swe = real_history(str(DATA / "agents" / "swe_dev.jsonl"), 65000)
    runs = _swe_runs()
    # (the runs after those the history holds: messages it has never seen)
    held = sum(1 for _ in swe)
    flat = [m for run in runs for m in run]
    later = [m for m in flat[held:] if isinstance(m.get("content"), str) and m["content"].strip()]
    locomo = _locomo_turns()
    return {
        "synthetic": (swe, [new_message(i) for i in range(turns)]),
        "swe": (swe, later[:turns]),
        "locomo": (locomo[:200], locomo[200:200 + turns]),
    }


def _timed(stats: dict[str, float], label: str, f: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        t = time.process_time()
        try:
            return f(*args, **kwargs)
        finally:
            stats[label] = stats.get(label, 0.0) + time.process_time() - t
    return timed


def run(history: list[dict], appended: list[dict]) -> dict[str, float]:
    from discourse_memory import DiscourseMemory, compaction, get_token_counter

    count = get_token_counter().count
    budget = sum(count(m.get("content") or "") for m in history) // 4
    stats: dict[str, float] = {}
    mem = DiscourseMemory(history)
    mem.view(budget)
    for m in appended[:3]:  # (warm turns)
        mem.append(m)
        mem.view(budget)
    originals = compaction.Compactor._columns, compaction.Compactor._relevance
    compaction.Compactor._columns = _timed(stats, "analyse", originals[0])  # type: ignore[method-assign]
    compaction.Compactor._relevance = _timed(stats, "focus", originals[1])  # type: ignore[method-assign]
    try:
        for m in appended[3:]:
            mem.append(m)
            mem.view(budget)
    finally:
        compaction.Compactor._columns, compaction.Compactor._relevance = originals  # type: ignore[method-assign]
    n = max(len(appended) - 3, 1)
    return {k: v / n * 1000 for k, v in stats.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=30)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    from discourse_memory.nlp import get_pipeline

    get_pipeline()("Warm up.")
    import discourse_memory

    print(f"package: {Path(discourse_memory.__file__).parent}; {args.turns} turns, median of {args.repeat} runs "
          f"(CPU ms a turn)")
    for name, (history, appended) in histories(args.turns + 3).items():
        got = [run(history, appended) for _ in range(args.repeat)]
        a = statistics.median(g.get("analyse", 0.0) for g in got)
        f = statistics.median(g.get("focus", 0.0) for g in got)
        print(f"{name:10s} analyse {a:6.2f}  focus {f:6.2f}  both {a + f:6.2f}")


if __name__ == "__main__":
    main()

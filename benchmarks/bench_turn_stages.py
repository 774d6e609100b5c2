"""Where a turn's time goes, stage by stage, and the garbage collector's full collections.

    python benchmarks/bench_turn_stages.py [--history ../shared/data/agents/swe_dev.jsonl]
                                           [--tokens 65000] [--turns 20]
    python benchmarks/bench_turn_stages.py --messages 10000 [--turns 20] [--no-pause] [--budget 8000]

Stages: a ``DiscourseMemory`` holds the history (the first runs of ``--history`` up to
``--tokens``, or the built-in sample chained to ``--messages`` messages); after three warm
turns, ``--turns`` turns of appending one ~500-token message and taking a view at 25% of the
history's tokens (32,000 with ``--messages``), or at ``--budget``. Each stage is timed by a
wrapper around its function: milliseconds a turn, and calls a turn (the fitting stage's passes). The garbage
collector's pauses are timed by its callbacks: young collections, and each full
(generation 2) collection with its length. Views run with the collector paused (see
``discourse_memory/gc_pause.py``); ``--no-pause`` runs them with it running, to see what that
saves.
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("RAYON_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

STAGES = [  # (the modules that call it, owner attribute or None, function, label)
    ("compaction", "Compactor", "_columns", "analyse the new message (columns)"),
    ("compaction", "Compactor", "_relevance", "focus of the newest turn"),
    ("fit.fitting", None, "_rank", "rank every option, with the record's items"),
    ("fit.rank", None, "_items", "  of which: the record's items"),
    ("fit.fitting", None, "_take", "take options in rank order (each pass)"),
    ("fit.fitting fit.lengthen", None, "_plan", "plan and its record (each pass)"),
    ("compaction", None, "render_messages", "render the view (each pass)"),
    ("compaction", None, "_note", "render the note (each pass)"),
    ("fit.fitting", None, "_lengthen", "lengthen clipped heads"),
]


def _timed(stats: dict[str, list[float]], label: str, f: Callable[..., Any]) -> Callable[..., Any]:
    def timed(*args: Any, **kwargs: Any) -> Any:
        t = time.perf_counter()
        try:
            return f(*args, **kwargs)
        finally:
            stats.setdefault(label, []).append(time.perf_counter() - t)
    return timed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--history", default=str(HERE.parent.parent / "shared" / "data" / "agents" / "swe_dev.jsonl"))
    ap.add_argument("--tokens", type=int, default=65000)
    ap.add_argument("--messages", type=int, help="the built-in sample chained to this many messages instead")
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--budget", type=int, help="the view's budget (default: 25%% of the history's tokens, or 32,000 "
                                                "with --messages)")
    ap.add_argument("--no-pause", action="store_true",
                    help="run views with the garbage collector running (see discourse_memory/gc_pause.py)")
    args = ap.parse_args()

    import importlib

    from discourse_memory import DiscourseMemory, gc_pause, get_token_counter
    from discourse_memory.nlp import get_pipeline

    gc_pause.ENABLED = not args.no_pause

    if args.messages:
        from bench_turn_scaling import history as chained, new_message

        msgs, budget = chained(args.messages), args.budget or 32000
        where = f"the built-in sample chained to {len(msgs)} messages"
    else:
        from bench_core_speed import new_message, real_history

        msgs = real_history(args.history, args.tokens)
        count = get_token_counter().count
        budget = args.budget or sum(count(m.get("content") or "") for m in msgs) // 4
        where = f"{len(msgs)} messages of {args.history}"
    get_pipeline()("Warm up.")
    stats: dict[str, list[float]] = {}
    for modules, owner, name, label in STAGES:
        for module in modules.split():  # (a function is looked up in the module that calls it)
            mod = importlib.import_module(f"discourse_memory.{module}")
            holder = getattr(mod, owner) if owner else mod
            setattr(holder, name, _timed(stats, label, getattr(holder, name)))
    mem = DiscourseMemory(msgs)
    mem.view(budget)
    for i in range(3):
        mem.append(new_message(i))
        mem.view(budget)

    pauses: list[tuple[int, float]] = []
    started = [0.0]

    def watch(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            started[0] = time.perf_counter()
        else:
            pauses.append((info["generation"], time.perf_counter() - started[0]))

    times: list[float] = []
    full: list[float] = []  # the full collections' pauses
    young = 0.0  # and the others'
    gc.callbacks.append(watch)
    stats.clear()
    for i in range(10, 10 + args.turns):
        pauses.clear()
        mem.append(new_message(i))
        t = time.perf_counter()
        mem.view(budget)
        times.append(time.perf_counter() - t)
        full += [d for g, d in pauses if g == 2]
        young += sum(d for g, d in pauses if g < 2)
    gc.callbacks.remove(watch)
    n = args.turns
    print(f"history: {where}; budget {budget} tokens; {n} turns of append + view"
          f"{' (the collector running during views: --no-pause)' if args.no_pause else ''}")
    print(f"append + view: median {statistics.median(times) * 1000:.1f} ms, slowest {max(times) * 1000:.1f} ms")
    print(f"{'stage (collector pauses included where they fell)':50s} {'calls a turn':>12s} {'ms a turn':>10s}")
    for _, _, _, label in STAGES:
        got = stats.get(label, [])
        print(f"{label:50s} {len(got) / n:12.2f} {sum(got) / n * 1000:10.2f}")
    print(f"garbage collector: {young / n * 1000:.1f} ms a turn in young collections; {len(full)} full collections in "
          f"{n} turns ({', '.join(f'{d * 1000:.0f} ms' for d in full) or 'none'}); {len(gc.get_objects())} objects tracked")


if __name__ == "__main__":
    main()

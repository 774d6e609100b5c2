"""A stage of a turn, this version against another, in one process on the same inputs.

    git archive main discourse_memory | tar -x -C /tmp/base
    python benchmarks/bench_stage_ab.py --base /tmp/base [--messages 200000] [--budget 8000] [--turns 8]
    python benchmarks/bench_stage_ab.py --base /tmp/base --history ../shared/data/agents/swe_dev.jsonl

A ``DiscourseMemory`` holds the built-in sample chained to ``--messages`` messages (as
``bench_turn_stages.py --messages``); after three warm turns, ``--turns`` turns of appending
one ~500-token message and taking a view. ``--history``: a JSON-lines file of agent runs
instead, its first 65,536 tokens at a quarter of them (as ``bench_core_speed.py --history``). The calls each view makes to the focus's
``relevance``, the take's ``_take`` and ``render_messages`` are caught with their arguments;
each is then run three times with the other version's module (``--base``: a directory
holding a ``discourse_memory`` package, loaded beside this one under another name) and
three times with this one, alternating, timed by process CPU time (steadier than the
wall clock on a loaded machine). Their outputs are checked equal. Printed: per stage, the
median milliseconds of each and the median of the paired ratios this / base; then the
milliseconds a turn of each (the sum of its calls) and their ratio. Render calls
run without the render cache (every shown message rendered anew, in both).
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import os
import statistics
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any, Callable

os.environ.setdefault("RAYON_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

STAGES = [  # (label, module, function, the module whose name for it a view calls)
    ("focus.relevance", "focus", "relevance", "compaction"),
    ("fit.take._take (a pass)", "fit.take", "_take", "fit.fitting"),
    ("render_messages (a pass)", "render", "render_messages", "compaction"),
]


def _load(base: Path, module: str) -> ModuleType:
    """``discourse_memory.<module>`` of ``base``, as ``discourse_memory.<module>_base`` (its
    relative imports read this version's package: the module itself is the other's)."""
    name = f"discourse_memory.{module}_base"
    spec = importlib.util.spec_from_file_location(name, base / "discourse_memory" / (module.replace(".", "/") + ".py"))
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


def _same(a: Any, b: Any) -> bool:
    if hasattr(a, "tobytes"):
        return bool(a.tobytes() == b.tobytes())
    if hasattr(a, "decision"):  # the take's Chosen
        return a.decision.tobytes() == b.decision.tobytes() and a.items == b.items and a.heads == b.heads
    return bool(a == b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, type=Path, help="a directory holding the other discourse_memory")
    ap.add_argument("--messages", type=int, default=200000)
    ap.add_argument("--budget", type=int, default=8000)
    ap.add_argument("--turns", type=int, default=8)
    ap.add_argument("--history", help="a JSON-lines file of runs (65,536 tokens of it, budget a quarter)")
    args = ap.parse_args()

    import importlib

    from bench_turn_scaling import history as chained, new_message

    from discourse_memory import DiscourseMemory, get_token_counter
    from discourse_memory.nlp import get_pipeline

    get_pipeline()("Warm up.")
    caught: dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]] = {label: [] for label, *_ in STAGES}
    pairs: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {}
    for label, module, name, caller in STAGES:
        mine = getattr(importlib.import_module(f"discourse_memory.{module}"), name)
        pairs[label] = (getattr(_load(args.base, module), name), mine)

        def catch(*a: Any, _f: Callable[..., Any] = mine, _l: str = label, **k: Any) -> Any:
            caught[_l].append((a, k))
            return _f(*a, **k)
        setattr(importlib.import_module(f"discourse_memory.{caller}"), name, catch)

    if args.history:
        from bench_core_speed import new_message, real_history  # noqa: F811  (the same ~500-token turn)

        msgs = real_history(args.history, 65_536)
        counter = get_token_counter()
        args.budget = sum(counter.count(m.get("content") or "") for m in msgs) // 4
        args.messages = len(msgs)
    else:
        msgs = chained(args.messages)
    mem = DiscourseMemory(msgs)
    mem.view(args.budget)
    for i in range(3):
        mem.append(new_message(i))
        mem.view(args.budget)
    times: dict[str, tuple[list[float], list[float]]] = {label: ([], []) for label, *_ in STAGES}
    for i in range(10, 10 + args.turns):
        for calls in caught.values():
            calls.clear()
        mem.append(new_message(i))
        mem.view(args.budget)
        for label, calls in caught.items():
            base, mine = pairs[label]
            for a, k in calls:
                if "render" in label:
                    a, k = a[:4], {n: v for n, v in k.items() if n != "cache"}
                if "_take" in label:  # (the base's take without the keywords it may not know: a
                    # take keeping a trail, or going on from one, makes the same choices)
                    known = inspect.signature(base).parameters
                    base_k = {n: v for n, v in k.items() if n in known}
                else:
                    base_k = k
                for _ in range(3):
                    for got, f, fk in zip(times[label], (base, mine), (base_k, k)):
                        t = time.process_time()
                        f(*a, **fk)
                        got.append(time.process_time() - t)
                if not _same(base(*a, **base_k), mine(*a, **k)):
                    raise SystemExit(f"{label}: the two versions' outputs differ")
    print(f"{args.messages} messages, budget {args.budget}, {args.turns} turns; CPU ms, three runs of each call each")
    print(f"{'stage':28s} {'base':>8s} {'this':>8s} {'this/base':>10s} {'runs':>6s}")
    for label, (base_t, mine_t) in times.items():
        if not base_t:
            continue
        ratio = statistics.median(m / b for m, b in zip(mine_t, base_t) if b > 0)
        print(f"{label:28s} {statistics.median(base_t) * 1000:8.2f} {statistics.median(mine_t) * 1000:8.2f} "
              f"{ratio:10.3f} {len(mine_t):6d}")
    print("a turn (every call of a stage, one run each; a view's passes differ in cost: its second take")
    print("goes on from its first, see fit/trail.py):")
    for label, (base_t, mine_t) in times.items():
        if base_t:
            b, m = sum(base_t) / 3 / args.turns * 1000, sum(mine_t) / 3 / args.turns * 1000
            print(f"{label:28s} {b:8.2f} {m:8.2f} {m / b:10.3f}")


if __name__ == "__main__":
    main()

"""Rendering and planning, this version against another, on the same calls in one process.

    git archive main discourse_memory | tar -x -C /tmp/base
    python benchmarks/bench_render_ab.py --base /tmp/base [--turns 20] [--first 3]

The calls a view makes to ``render.render_field`` (one text field of a message), to
``record.note.note_lines`` (the note's lines, here without the lines kept between notes:
every entry's line written anew) and to ``fit.plan._plan`` (a take's plan and its record)
are caught with their arguments: those of ``--first`` first views of a memory restored
through a shared analysis cache (the history of ``bench_first_view_stages.py``: the first
runs of ``swe_dev.jsonl`` up to 65,000 tokens, a quarter of them as budget), and those of
``--turns`` warm turns of that memory (``bench_core_speed.new_message``). Each call is then
run three times with the other version's module (``--base``: a directory holding a
``discourse_memory`` package, loaded beside this one, see ``bench_stage_ab.py``) and three
times with this one, alternating, timed by process CPU time; their outputs are checked
equal. Printed per stage and per part (first views, warm turns): the milliseconds a view of
each version (the sum of the medians of its calls) and the median of the paired ratios
this / base.
"""

from __future__ import annotations

import argparse
import importlib
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

os.environ.setdefault("RAYON_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

STAGES = [  # (label, module, function, the modules whose name for it a view calls)
    ("render.render_field", "render", "render_field", ("render",)),
    ("record.note.note_lines", "record.note", "note_lines", ("compaction",)),
    ("fit.plan._plan", "fit.plan", "_plan", ("fit.fitting", "fit.lengthen")),
]


def _same(a: Any, b: Any) -> bool:
    if hasattr(a, "record"):  # a Plan (its record's entries are the two versions' own objects)
        return (a.decision.tobytes() == b.decision.tobytes() and a.heads == b.heads and a.record == b.record
                and a.calls_present == b.calls_present)
    return bool(a == b)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", required=True, type=Path, help="a directory holding the other discourse_memory")
    ap.add_argument("--turns", type=int, default=20)
    ap.add_argument("--first", type=int, default=3)
    args = ap.parse_args()

    from bench_core_speed import new_message, real_history
    from bench_first_view_stages import DATA, DictCache
    from bench_stage_ab import _load

    from discourse_memory import DiscourseMemory, get_token_counter
    from discourse_memory.nlp import get_pipeline

    get_pipeline()("Warm up.")
    caught: dict[str, list[tuple[tuple[Any, ...], dict[str, Any]]]] = {label: [] for label, *_ in STAGES}
    pairs: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {}
    for label, module, name, callers in STAGES:
        mine = getattr(importlib.import_module(f"discourse_memory.{module}"), name)
        pairs[label] = (getattr(_load(args.base, module), name), mine)

        def catch(*a: Any, _f: Callable[..., Any] = mine, _l: str = label, **k: Any) -> Any:
            caught[_l].append((a, k))
            return _f(*a, **k)
        for caller in callers:
            setattr(importlib.import_module(f"discourse_memory.{caller}"), name, catch)

    msgs = real_history(str(DATA), 65_000)
    budget = sum(get_token_counter().count(m.get("content") or "") for m in msgs) // 4
    cache = DictCache()
    warm = DiscourseMemory(msgs, cache=cache)
    warm.view(budget)
    for i in range(3):
        warm.append(new_message(i))
        warm.view(budget)
    state = warm.to_dict()
    # per (stage, part): the base's and this version's milliseconds summed over the views, the
    # paired ratios, and the calls (timed right after each view: a plan reads the columns as
    # they are, before the next message extends them)
    got: dict[tuple[str, str], list[Any]] = {}
    views = {"first view": 0, "warm turn": 0}

    def run(part: str, view: Callable[[], Any]) -> None:
        for calls in caught.values():
            calls.clear()
        view()
        views[part] += 1
        for label, calls in caught.items():
            base, mine = pairs[label]
            acc = got.setdefault((label, part), [0.0, 0.0, [], 0])
            for a, k in calls:
                if "note_lines" in label:
                    k = {**k, "lines_cache": None}
                ts: tuple[list[float], list[float]] = ([], [])
                for _ in range(3):
                    for spent, f in zip(ts, (base, mine)):
                        t = time.process_time()
                        f(*a, **k)
                        spent.append(time.process_time() - t)
                if not _same(base(*a, **k), mine(*a, **k)):
                    raise SystemExit(f"{label}: the two versions' outputs differ")
                b, m = statistics.median(ts[0]), statistics.median(ts[1])
                acc[0] += b
                acc[1] += m
                if b > 0:
                    acc[2].append(m / b)
                acc[3] += 1

    memory = None
    for _ in range(args.first):
        memory = DiscourseMemory.from_dict(state, cache=DictCache(dict(cache.data)))
        run("first view", lambda: memory.view(budget))  # type: ignore[union-attr]
    for i in range(args.turns):
        memory.append(new_message(10 + i))  # type: ignore[union-attr]
        run("warm turn", lambda: memory.view(budget))  # type: ignore[union-attr]

    print(f"{len(msgs)} messages, budget {budget}; CPU ms a view (the sum of its calls' medians of three runs)")
    print(f"{'stage':26s} {'part':11s} {'base':>8s} {'this':>8s} {'this/base':>10s} {'calls':>6s}")
    for (label, part), (b, m, ratios, n) in got.items():
        if n:
            v = views[part]
            print(f"{label:26s} {part:11s} {b / v * 1000:8.3f} {m / v * 1000:8.3f} "
                  f"{statistics.median(ratios) if ratios else float('nan'):10.3f} {n / v:6.1f}")


if __name__ == "__main__":
    main()

"""Where a fresh worker's first view goes, with the shared analysis cache (issue 49).

    python benchmarks/bench_first_view_stages.py [--tokens 65000] [--runs 3] [--bare] [--repeat N]

The history of ``bench_workers.py`` (the first runs of ``swe_dev.jsonl`` up to ``--tokens``
tokens, three turns on, budget a quarter of it), analysed by a warm memory into an
in-process dict cache (the entries a shared Redis would hold; no server needed; the counts of
rendered texts, ``shared_counts.py``, as its turn before the fresh worker's wrote them). Then, per
run, a new process that has loaded its pipeline and viewed another conversation restores
the history with ``DiscourseMemory.from_dict`` and takes its first view through the cache,
with the functions named wrapped in timers (``load``: reading the texts' analyses,
``analysis_cache.py``; ``take``: reading the conversation's column entries, ``shared_columns.py``,
of which ``decode_run`` opens and checks them; ``seed``: its row entries, ``fit/shared_rows.py``); it then
takes one warm turn. Printed per run: the first
view (wall clock and the process's CPU time), each stage's milliseconds (a stage's time
includes the stages it calls), and the warm turn. Views are checked equal to the warm memory's.
``--bare``: no timers (whose calls add to the stages they time), for comparing two versions
of the code: run it in turn with each, alternating, and compare the CPU times.
``--repeat N``: per run, the first views of N memories restored one after another in the
process (each with a compactor of its own, as a fresh worker has), each view's CPU time of
this thread (a warm-up thread's is not counted) with its two halves, the columns (reading the
analyses and column entries from the cache and building the rest, ``Compactor._columns``) and
the rest (``Compactor._compact``, the row entries' read included): the least and the lower quartile are printed, steadier under other
jobs' load than one view a process.
"""

from __future__ import annotations

import argparse
import functools
import importlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
DATA = HERE.parent.parent / "shared" / "data" / "agents" / "swe_dev.jsonl"

STAGES = [
    ("discourse_memory.analysis_cache", "SharedAnalyses.load"),  # (the analyses' entries read and checked)
    ("discourse_memory.analysis_codec", "decode"),  # (one entry: older versions' load)
    ("discourse_memory.shared_columns", "SharedColumns.take"),
    ("discourse_memory.shared_columns", "decode_run"),
    ("discourse_memory.columns", "Columns.extend"),
    ("discourse_memory.text_marks", "marks_of"),
    ("discourse_memory.fit.shared_rows", "SharedRows.seed"),
    ("discourse_memory.compaction", "fit"),
    ("discourse_memory.fit.candidates", "_row_facts"),
    ("discourse_memory.fit.candidates", "_sources"),
    ("discourse_memory.record.items", "UnitItems.item"),
    ("discourse_memory.fit.candidates", "_item_costs"),
]


class DictCache:
    """An analysis cache in a dict (what a shared store holds, without a server)."""

    def __init__(self, data: dict[str, bytes] | None = None) -> None:
        self.data = data if data is not None else {}

    def get_many(self, keys):
        return [self.data.get(k) for k in keys]

    def set_many(self, items):
        self.data.update(items)


def make(path: str, tokens: int) -> None:
    from bench_core_speed import new_message, real_history
    from discourse_memory import DiscourseMemory, get_token_counter

    msgs = real_history(str(DATA), tokens)
    count = get_token_counter().count
    budget = sum(count(m.get("content") or "") for m in msgs) // 4
    cache = DictCache()
    warm = DiscourseMemory(msgs, cache=cache)
    warm.view(budget)
    for i in range(3):
        warm.append(new_message(i))
        warm.view(budget)
    warm.append(new_message(99))
    state = warm.to_dict()
    counts = {k: v for k, v in cache.data.items() if ":k" in k}  # (shared_counts.py's entries, as the last turn left them)
    view = warm.view(budget)
    # (the fresh worker analyses the newest message itself, as in bench_workers.py, and finds the
    # rendered texts' counts of the warm worker's turn before, one message back, not of this view)
    cache.data.pop(warm._compactor.analyzer.shared.key(new_message(99)["content"]), None)
    for k in [k for k in cache.data if ":k" in k]:
        del cache.data[k]
    cache.data.update(counts)
    with open(path, "wb") as f:
        pickle.dump((state, budget, cache.data, view.messages, view.note), f)


def time_halves() -> dict[str, float]:
    """Wraps ``Compactor._columns`` and ``Compactor._compact`` (for this process) so that each
    call adds its milliseconds of this thread's CPU time to the dict returned, under
    "columns" and "rest": a first view's two halves."""
    from discourse_memory.compaction import Compactor

    spent: dict[str, float] = {}

    def timed(name, f):  # type: ignore[no-untyped-def]
        def g(*a, **k):  # type: ignore[no-untyped-def]
            t = time.thread_time()
            try:
                return f(*a, **k)
            finally:
                spent[name] = spent.get(name, 0.0) + (time.thread_time() - t) * 1000
        return g

    Compactor._columns = timed("columns", Compactor._columns)  # type: ignore[method-assign]
    Compactor._compact = timed("rest", Compactor._compact)  # type: ignore[method-assign]
    return spent


def _repeated(state, budget, data, messages, note, n: int) -> None:  # type: ignore[no-untyped-def]
    import gc

    from discourse_memory import DiscourseMemory

    spent = time_halves()
    got: dict[str, list[float]] = {"first view": [], "columns": [], "rest": []}
    for _ in range(n):
        spent.clear()
        t = time.thread_time()
        memory = DiscourseMemory.from_dict(state, cache=DictCache(dict(data)))
        view = memory.view(budget)
        spent["first view"] = (time.thread_time() - t) * 1000
        assert view.messages == messages and view.note == note, "views differ"
        for k, v in got.items():
            v.append(spent[k])
        del memory, view
        gc.collect()
    print(f"{n} first views, ms CPU (least, lower quartile): " + "; ".join(
        f"{k} {min(v):.1f}, {sorted(v)[len(v) // 4]:.1f}" for k, v in got.items()))


def fresh(path: str, bare: bool = False, repeat: int = 0) -> None:
    from bench_core_speed import new_message
    from discourse_memory import DiscourseMemory
    from discourse_memory.nlp import get_pipeline

    with open(path, "rb") as f:
        state, budget, data, messages, note = pickle.load(f)
    get_pipeline()
    other = [json.loads(line)["messages"] for line in DATA.open()][-1]
    DiscourseMemory(other, cache=DictCache()).view(4000)  # (a worker in service: its code paths, the store's too, are warm)
    spent: dict[str, float] = {}

    def timed(name, f):
        @functools.wraps(f)
        def g(*a, **k):
            t = time.perf_counter()
            try:
                return f(*a, **k)
            finally:
                spent[name] = spent.get(name, 0.0) + (time.perf_counter() - t) * 1000
        return g

    for mod, name in ([] if bare or repeat else STAGES):
        try:  # (a stage an older version of the code has not: not timed)
            owner = importlib.import_module(mod)
            *path, last = name.split(".")  # (a method: "Class.method")
            for part in path:
                owner = getattr(owner, part)
            setattr(owner, last, timed(last, getattr(owner, last)))
        except (ImportError, AttributeError):
            continue
    if repeat:
        _repeated(state, budget, data, messages, note, repeat)
        return
    t, c = time.perf_counter(), time.process_time()
    memory = DiscourseMemory.from_dict(state, cache=DictCache(data))
    view = memory.view(budget)
    first = (time.perf_counter() - t) * 1000
    cpu = (time.process_time() - c) * 1000  # (under other jobs' load, steadier than the wall clock)
    assert view.messages == messages and view.note == note, "views differ"
    stages = dict(spent)
    try:  # (the pieces read from the cache and those the view built: analysis_codec.DecodedPieces)
        from discourse_memory.analysis_codec import DecodedPieces

        decoded = [p for p in memory._compactor.analyzer._cache.values() if isinstance(p, DecodedPieces)]
        built = f"; pieces built {sum(x is not None for p in decoded for x in p._built)} of {sum(map(len, decoded))} read"
    except ImportError:  # (an older version of the code builds them all)
        built = ""
    memory.append(new_message(500))
    t = time.perf_counter()
    memory.view(budget)
    warm = (time.perf_counter() - t) * 1000
    print(f"first view {first:.0f} ms ({cpu:.0f} ms CPU); " + "".join(f"{k} {v:.0f}, " for k, v in stages.items())
          + f"then a warm turn {warm:.0f} ms ({first / warm:.1f}x){built}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, default=65000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--bare", action="store_true", help="no stage timers: the first view's times only")
    ap.add_argument("--repeat", type=int, default=0, help="first views of this many memories a process (see above)")
    ap.add_argument("--fresh", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.fresh:
        fresh(args.fresh, args.bare, args.repeat)
        return
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "state.pkl")
        make(path, args.tokens)
        for _ in range(args.runs):
            subprocess.run([sys.executable, __file__, "--fresh", path, *(["--bare"] if args.bare else []),
                            *(["--repeat", str(args.repeat)] if args.repeat else [])], check=True)


if __name__ == "__main__":
    main()

"""Why a fresh worker's first view costs more than a first view repeated in one process (issue 49).

    python benchmarks/bench_first_view_gap.py [--tokens 65000] [--repeat 6] [--runs 2]

The history and cache of ``bench_first_view_stages.py`` (the first runs of ``swe_dev.jsonl`` up
to ``--tokens`` tokens, three turns on, budget a quarter of it, the entries a warm memory wrote
into a dict; the newest message is not in it). Per run, a new process that has loaded its
pipeline and viewed another conversation (as ``bench_workers.py``'s fresh worker) takes the
first view of a memory restored with ``from_dict``, then ``--repeat`` more first views of new
memories restored from the same state, alternately as they come (every process-wide memo
warm) and with the token counter's memo put back as it was before the first view (the counts
the first view made, of texts no view of this process had counted, forgotten). Printed per
kind of view: the least and the median CPU time of this thread, split in the columns
(``Compactor._columns``: the analyses and column entries read, the rest built) and the rest
(``Compactor._compact``: the row entries seeded, the fitting stage, the rendering), the texts
the counter encoded with BPE (its memo's misses) and the process's minor page faults. Views
are checked equal to the warm memory's.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import pickle
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))


def fresh(path: str, repeat: int) -> None:
    from bench_first_view_stages import DATA, DictCache, time_halves
    from discourse_memory import DiscourseMemory, get_token_counter
    from discourse_memory.nlp import get_pipeline

    with open(path, "rb") as f:
        state, budget, data, messages, note = pickle.load(f)
    get_pipeline()
    other = [json.loads(line)["messages"] for line in DATA.open()][-1]
    DiscourseMemory(other, cache=DictCache()).view(4000)  # (a worker in service)
    spent = time_halves()
    counter = get_token_counter()
    counts = counter._cache._data  # type: ignore[attr-defined]
    lines = counter._line_sums  # type: ignore[attr-defined]
    encoded = [0]

    class Counted:  # (the encoding, its BPE calls counted)
        def __init__(self, enc):  # type: ignore[no-untyped-def]
            self.enc = enc

        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            return getattr(self.enc, name)

        def encode_ordinary(self, text):  # type: ignore[no-untyped-def]
            encoded[0] += 1
            return self.enc.encode_ordinary(text)

        def encode_to_numpy(self, text, **kw):  # type: ignore[no-untyped-def]
            encoded[0] += 1
            return self.enc.encode_to_numpy(text, **kw)

    counter._enc = Counted(counter._enc)  # type: ignore[attr-defined]
    before = (dict(counts), dict(lines))
    got: dict[str, list[tuple[float, float, float, int, int]]] = {}
    kinds = ["first"] + [("repeated", "counts forgotten")[i % 2] for i in range(repeat)]
    for kind in kinds:
        if kind == "counts forgotten":
            counts.clear()
            counts.update(before[0])
            lines.clear()
            lines.update(before[1])
        spent.clear()
        encoded[0] = 0
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        t = time.thread_time()
        memory = DiscourseMemory.from_dict(state, cache=DictCache(dict(data)))
        view = memory.view(budget)
        ms = (time.thread_time() - t) * 1000
        faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults
        assert view.messages == messages and view.note == note, "views differ"
        got.setdefault(kind, []).append((ms, spent["columns"], spent["rest"], encoded[0], faults))
        del memory, view
        gc.collect()
    for kind, rows in got.items():
        cols = list(zip(*rows))
        print(f"  {kind} ({len(rows)}): " + "; ".join(
            f"{name} {min(v):.1f} / {statistics.median(v):.1f} ms" for name, v in zip(("view", "columns", "rest"), cols))
            + f"; texts BPE-encoded {statistics.median(cols[3]):.0f}; minor faults {statistics.median(cols[4]):.0f}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, default=65000)
    ap.add_argument("--repeat", type=int, default=6)
    ap.add_argument("--runs", type=int, default=2)
    ap.add_argument("--fresh", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.fresh:
        fresh(args.fresh, args.repeat)
        return
    from bench_first_view_stages import make

    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "state.pkl")
        make(path, args.tokens)
        print("CPU ms of the view's thread (least / median), its columns and the rest:")
        for run in range(args.runs):
            print(f"process {run + 1}:")
            subprocess.run([sys.executable, __file__, "--fresh", path, "--repeat", str(args.repeat)], check=True)


if __name__ == "__main__":
    main()

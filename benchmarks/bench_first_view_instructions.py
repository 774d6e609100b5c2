"""A fresh worker's first view counted in instructions, not time (issue 49): steady under load.

    python benchmarks/bench_first_view_instructions.py [--part half|view] [--repeat 4] [--base DIR]

On the project's shared machine the CPU time of a first view swings by more than the changes
measured (another engineer's test suite doubles it); the instructions it executes do not. The
history, budget and entries of ``bench_first_view_stages.py`` (the first runs of
``swe_dev.jsonl`` up to 65,000 tokens, three turns on; here with the newest message's
analysis too, so that no pipeline is loaded), then a child process under ``valgrind
--tool=callgrind`` restores memories of it with ``from_dict`` and takes, per memory, ``--part``:
``half``, what comes before the fitting stage (``Compactor._columns``, the analyses and column
entries read and the rest built, and ``SharedRows.seed``, the row entries read), or ``view``, the
whole first view. Run with 0 and with ``--repeat`` memories after a first one (whose process-wide
memos then stay warm), the difference over ``--repeat`` is printed: the instructions (Ir) of one.
``--base DIR``: also for the package in DIR (a ``git archive`` of another commit), alternately;
each package makes its own entries (in a process of its own), since their keys may differ.
``--forget-counts``: each memory's view starts with the token counter's memos emptied (what a
fresh process has: the texts it renders and its note's pieces are counted anew, or read from
the counts shared by ``shared_counts.py``).
Needs ``valgrind``; a run takes a minute or two per count.
"""

from __future__ import annotations

import argparse
import os
import pickle
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

CHILD = """
import gc, pickle, sys
from discourse_memory import DiscourseMemory, memory
from discourse_memory.tokens import get_token_counter
memory.warm_up = lambda *a, **k: None  # (no pipeline import in a thread: its instructions are not the view's)
counter = get_token_counter()
counter._token_tables()  # (a process's once: not the view's)
state, budget, data = pickle.load(open(sys.argv[1], "rb"))
part, n, forget = sys.argv[2], int(sys.argv[3]), sys.argv[4] == "1"

class DictCache:
    def __init__(self, data):
        self.data = data
    def get_many(self, keys):
        return [self.data.get(k) for k in keys]
    def set_many(self, items):
        self.data.update(items)

def once():
    if forget:  # (the token counts a view made, forgotten: as a fresh process has none)
        counter._cache._data.clear()
        counter._line_sums.clear()
    m = DiscourseMemory.from_dict(state, cache=DictCache(dict(data)))
    if part == "view":
        return m.view(budget)
    c = m._compactor
    cols, _ = c._columns(m._inputs_from(0), True, 0, m._valid)
    c._rows.seed(cols, c._tags)

gc.disable()  # (as a view runs: gc_pause.py)
once()
for _ in range(n):
    once()
"""


def count(path: str, root: str, part: str, n: int, forget: bool = False) -> int:
    """The instructions of a child process that takes ``n`` + 1 first views' ``part``."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "cg.out"
        env = dict(os.environ, PYTHONPATH=root, PYTHONHASHSEED="0", OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1",
                   RAYON_NUM_THREADS="1")
        run = subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c",
                              CHILD, path, part, str(n), "1" if forget else "0"], env=env, cwd=tmp, capture_output=True, text=True)
        found = re.search(r"Collected : (\d+)", run.stderr)
        if run.returncode or found is None:
            sys.exit(f"the child failed:\n{run.stderr[-3000:]}")
        return int(found.group(1))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--part", choices=("half", "view"), default="half")
    ap.add_argument("--repeat", type=int, default=4)
    ap.add_argument("--base", help="another package's root (holding discourse_memory/), counted alternately")
    ap.add_argument("--prepare", help=argparse.SUPPRESS)
    ap.add_argument("--forget-counts", action="store_true",
                    help="each memory's view starts with the token counter's memos empty, as a fresh process's")
    args = ap.parse_args()
    if args.prepare:
        prepare(args.prepare)
        return
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not on the PATH (Debian: apt-get install valgrind)")
    roots = [str(HERE.parent)] + ([str(Path(args.base).resolve())] if args.base else [])
    with tempfile.TemporaryDirectory() as tmp:
        for i, root in enumerate(roots):
            # (each package's entries are its own: another's keys or formats may differ, and read
            # as none, which counts a first view that builds everything)
            path = str(Path(tmp) / f"full{i}.pkl")
            subprocess.run([sys.executable, __file__, "--prepare", path], check=True,
                           env=dict(os.environ, PYTHONPATH=root))
            one = (count(path, root, args.part, args.repeat, args.forget_counts)
                   - count(path, root, args.part, 0, args.forget_counts)) / args.repeat
            print(f"{root}: {args.part} of a first view {one / 1e6:.1f}M instructions (callgrind Ir; "
                  f"{args.repeat} repeats{'; token counts forgotten' if args.forget_counts else ''})")


def prepare(path: str) -> None:
    """The state, budget and entries a child reads, made by this process's package."""
    from bench_first_view_stages import DictCache, make
    from discourse_memory import DiscourseMemory

    made = path + ".made"
    make(made, 65000)
    with open(made, "rb") as f:
        state, budget, data, _, _ = pickle.load(f)
    cache = DictCache(dict(data))
    DiscourseMemory.from_dict(state, cache=cache).view(budget)  # (the newest message's analysis too)
    cache.data.update({k: v for k, v in data.items() if ":k" in k})  # (the counts of the turn before: make's)
    with open(path, "wb") as f:
        pickle.dump((state, budget, cache.data), f)


if __name__ == "__main__":
    main()

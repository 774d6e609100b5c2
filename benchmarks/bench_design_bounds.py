"""Upper bounds of candidate designs on the warm turn, by stubbing (the views are wrong).

    python benchmarks/bench_design_bounds.py [--history ../shared/data/agents/swe_dev.jsonl]
                                             [--rounds 2] [--turns 30] [--only base,d,...]

Each variant is a copy of ``discourse_memory/`` in a temporary directory with a few text
substitutions (each one checked to apply), run in its own process through
``bench_core_speed.py --clock cpu`` (append + view median, CPU, against one
``trim_messages`` call of the same run) and ``bench_turn_stages.py`` (milliseconds a turn per
stage, wall clock). Variants run one after the other, round after round, so that each
round's figures were taken in the same minutes. Prints per round and variant: the turn's CPU
median, trim_messages' and their ratio, the turn's wall median, the stages (ms a turn) and
the take's passes a turn; then the medians over rounds. On a shared machine read the ratio:
both of its sides were timed in the same process minutes apart.

The variants (what a design would save at most, not what it would cost in view quality):

- ``base``: the package as it is.
- ``d``: one take and one render a view (``fit.fitting._fit``: a take at the estimated room,
  its plan rendered once, no second take, no trail, no longer heads; a view over its budget
  is cut as it is now, each cut rendered).
- ``b``: record items made only for the 800 best candidates (by their gain before the
  source-dependent factors), of about 1,800: on the 65k-token history a view still lists
  about 180 items (200 without the cap; with 400 it listed 4: the best candidates by that
  gain are mostly values a unit shows anyway). A bound on making items only for the
  candidates the take can reach (~620 taken a pass).
- ``a``: one record option per unit: of the candidates newest in one unit only the best is
  made an item (the number of options a per-unit record would rank and take).
- ``c``: record items' costs from their characters (a quarter of them), not tiktoken (the
  estimates then miss the render by more: more views are cut, each cut rendered again).
- ``z``: no record items at all (the floor of any design of the record's options: every
  cost of making, ranking and taking items gone).
- combinations: ``d+a``, ``d+z`` (and any other, with ``--only``).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent

ONE_PASS = '''

def _fit(scene, step, protected, fixed, longest, outlined=frozenset()):  # (bench_design_bounds: one pass)
    budget = scene.budget
    ranked = _rank(scene, protected, outlined)
    margin = max(2, int(budget * LIMITS.margin_share))
    bound = _frame_of(scene, ranked)
    fixed += bound - longest
    room = max(budget - fixed - margin, 0.0) / (1.0 - LIMITS.estimate_over)
    chosen = _take(ranked, room)
    plan = _plan(scene, ranked, chosen, step.name)
    tokens, _ = scene.measure(plan)
    if tokens > budget:  # (a view over its budget is cut as it is now: renders again)
        plan, tokens = _cut(scene, ranked, step.name, chosen, tokens, margin) or _bare(scene, ranked, step.name)
    return plan
'''

PER_UNIT = '''    _o = np.argsort(-gain, kind="stable")  # (bench_design_bounds: one option per unit)
    _, _f = np.unique(newest[_o], return_index=True)
    _keep = np.sort(_o[_f])
    beyond = frozenset(np.delete(candidates, _keep).tolist())
    candidates, gain, first, ends = candidates[_keep], gain[_keep], first[_keep], ends[_keep]
'''

CAND = "fit/candidates.py"
STUBS = {  # name -> (file, old text or None to append, new text)
    "d": [("fit/fitting.py", None, ONE_PASS)],
    "b": [(CAND, "cap = max(LIMITS.candidates_min, scene.budget)", "cap = 800")],
    "a": [(CAND, "    if len(candidates) > cap:\n", PER_UNIT + "    if len(candidates) > cap:\n")],
    "c": [(CAND, "    count = scene.count\n", "    count = lambda s: (len(s) + 3) // 4\n")],
    "z": [(CAND, "    n_lits = len(cols.lit_text)\n    if n_lits == 0:\n",
           "    n_lits = len(cols.lit_text)\n    if True:  # (bench_design_bounds: no record)\n")],
}
VARIANTS = ["base", "d", "b", "a", "c", "z", "d+a", "d+z"]


def build(name: str, where: Path) -> Path:
    """A copy of the package with the stubs of variant ``name`` (``a+b``: both)."""
    out = where / name.replace("+", "_")
    shutil.copytree(ROOT / "discourse_memory", out / "discourse_memory",
                    ignore=shutil.ignore_patterns("__pycache__"))
    for part in ([] if name == "base" else name.split("+")):
        for file, old, new in STUBS[part]:
            path = out / "discourse_memory" / file
            text = path.read_text(encoding="utf-8")
            if old is None:
                text += new
            else:
                if text.count(old) != 1:
                    raise SystemExit(f"stub {part}: {old!r} is not once in {file}")
                text = text.replace(old, new)
            path.write_text(text, encoding="utf-8")
    return out


def run(script: str, path: Path, args: list[str]) -> str:
    env = dict(os.environ, PYTHONPATH=str(path), RAYON_NUM_THREADS="1")
    got = subprocess.run([sys.executable, str(HERE / script), *args], cwd=tempfile.gettempdir(), env=env,
                         capture_output=True, text=True, check=True)
    return got.stdout


def number(pattern: str, text: str) -> float:
    m = re.search(pattern, text)
    return float(m.group(1)) if m else float("nan")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--history", default=str(ROOT.parent / "shared" / "data" / "agents" / "swe_dev.jsonl"))
    ap.add_argument("--rounds", type=int, default=2)
    ap.add_argument("--turns", type=int, default=30)
    ap.add_argument("--only", help="comma-separated variants (default: all)")
    args = ap.parse_args()
    names = args.only.split(",") if args.only else VARIANTS
    history = str(Path(args.history).resolve())
    stages = ["rank every option", "  of which: the record's items", "take options", "plan and its record",
              "render the view", "render the note"]
    short = ["rank", "items", "take", "plan", "view", "note"]
    rows: dict[str, list[list[float]]] = {n: [] for n in names}
    with tempfile.TemporaryDirectory(prefix="design_bounds_") as tmp:
        paths = {n: build(n, Path(tmp)) for n in names}
        for rnd in range(args.rounds):
            load = os.getloadavg()[0]
            print(f"round {rnd + 1} (load {load:.1f})")
            print(f"  {'variant':8s} {'turn cpu':>9s} {'trim':>6s} {'ratio':>6s} {'turn wall':>9s} "
                  + " ".join(f"{s:>6s}" for s in short) + " passes")
            for n in names:
                speed = run("bench_core_speed.py", paths[n], ["--history", history, "--repeat", str(args.turns),
                                                              "--clock", "cpu"])
                split = run("bench_turn_stages.py", paths[n], ["--history", history, "--turns", str(args.turns)])
                figures = [number(r"view: median ([\d.]+) ms", speed), number(r"trim_messages.*median ([\d.]+) ms", speed)]
                figures.append(figures[0] / figures[1])
                figures.append(number(r"append \+ view: median ([\d.]+) ms", split))
                for s in stages:
                    line = next((ln for ln in split.splitlines() if ln.startswith(s)), "")
                    figures.append(float(line.split()[-1]) if line else float("nan"))
                take = next((ln for ln in split.splitlines() if ln.startswith("take options")), "")
                figures.append(float(take.split()[-2]) if take else float("nan"))
                rows[n].append(figures)
                print(f"  {n:8s} {figures[0]:9.1f} {figures[1]:6.1f} {figures[2]:6.3f} {figures[3]:9.1f} "
                      + " ".join(f"{x:6.2f}" for x in figures[4:-1]) + f" {figures[-1]:6.2f}", flush=True)
    print("medians over rounds")
    for n in names:
        med = [statistics.median(col) for col in zip(*rows[n])]
        print(f"  {n:8s} {med[0]:9.1f} {med[1]:6.1f} {med[2]:6.3f} {med[3]:9.1f} " + " ".join(f"{x:6.2f}" for x in med[4:-1]) + f" {med[-1]:6.2f}")


if __name__ == "__main__":
    main()

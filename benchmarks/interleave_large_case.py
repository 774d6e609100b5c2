"""Time one large case on this checkout and on an earlier commit, runs interleaved.

    python benchmarks/interleave_large_case.py REV [--case 10k_messages] [--runs 8]

The machine's speed drifts over a day (by 20% here), so a time measured today is only
comparable with one measured in the same minutes. This checks ``REV`` out in a temporary
git worktree and runs ``tests/reliability/large_case.py CASE`` alternately from it and
from this checkout, each in a fresh process of the same Python (``PYTHONPATH`` set to the
checkout's root, so each imports its own ``discourse_memory``). Prints each pair, the
ranges, the means and the ratio now / then.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _seconds(root: Path, case: str) -> float:
    out = subprocess.run(
        [sys.executable, str(root / "tests" / "reliability" / "large_case.py"), case],
        capture_output=True, text=True, check=True, cwd=root, env={**os.environ, "PYTHONPATH": str(root)},
    ).stdout
    return float(json.loads(out)["seconds"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("rev", help="the earlier commit to compare with")
    parser.add_argument("--case", default="10k_messages")
    parser.add_argument("--runs", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        then_root = Path(tmp) / "then"
        subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-q", str(then_root), args.rev],
                       check=True)
        try:
            then, now = [], []
            for _ in range(args.runs):
                then.append(_seconds(then_root, args.case))
                now.append(_seconds(ROOT, args.case))
                print(f"{args.rev[:10]} {then[-1]:.3f} s   now {now[-1]:.3f} s", flush=True)
        finally:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(then_root)], check=False)
    print(f"{args.case}, {args.runs} interleaved runs: now {min(now):.2f}-{max(now):.2f} s (mean "
          f"{statistics.fmean(now):.2f}), {args.rev[:10]} {min(then):.2f}-{max(then):.2f} s (mean "
          f"{statistics.fmean(then):.2f}); ratio {statistics.fmean(now) / statistics.fmean(then):.2f}")


if __name__ == "__main__":
    main()

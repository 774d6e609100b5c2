"""What the CLI's progress bar costs: a long input compacted in one call, and analysed in
steps first (what ``discourse-memory compact`` does when stderr is a terminal).

    python benchmarks/bench_cli.py ../shared/data/agents/swe_dev.jsonl [--mb 6.5] [--budget 8000] [--runs 2]

Joins the runs of the JSONL data set, largest first, into one conversation of at least
``--mb`` megabytes of JSON, writes it to a temporary file, and runs the command on it in
fresh processes, each way ``--runs`` times, alternating:

- ``one call``: ``discourse-memory compact FILE --budget N`` with stderr a pipe (no line);
- ``in steps``: the same with stderr a pseudo-terminal, so the progress line is drawn and
  the analysis done in ``cli.LIMITS.analysis_steps`` steps.

Prints each run's wall time, the medians and their ratio, and whether stdout (the view)
was the same both ways.
"""

from __future__ import annotations

import argparse
import json
import os
import pty
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def conversation(data: Path, megabytes: float) -> list[dict]:
    runs = [json.loads(line) for line in data.read_text(encoding="utf-8").splitlines() if line.strip()]
    runs.sort(key=lambda r: len(json.dumps(r["messages"])), reverse=True)
    messages: list[dict] = []
    size = 0
    for run in runs:
        messages += run["messages"]
        size += len(json.dumps(run["messages"]))
        if size >= megabytes * 1e6:
            break
    return messages


def run(path: str, budget: int, terminal: bool) -> tuple[float, bytes, str]:
    """Wall seconds, stdout, and the last progress line drawn (terminal only)."""
    argv = [sys.executable, "-m", "discourse_memory", "compact", path, "--budget", str(budget)]
    start = time.perf_counter()
    if not terminal:
        done = subprocess.run(argv, capture_output=True, check=True)
        return time.perf_counter() - start, done.stdout, ""
    leader, follower = pty.openpty()
    with tempfile.TemporaryFile() as out:
        proc = subprocess.Popen(argv, stdout=out, stderr=follower)
        os.close(follower)
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 4096)
            except OSError:  # the command closed its end
                break
            if not chunk:
                break
            drawn += chunk
        proc.wait()
        elapsed = time.perf_counter() - start
        os.close(leader)
        out.seek(0)
        lines = [s.strip() for s in drawn.decode("utf-8", "replace").split("\r") if s.strip()]
        return elapsed, out.read(), lines[-1] if lines else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="a JSONL data set with a 'messages' list a line")
    parser.add_argument("--mb", type=float, default=6.5, help="megabytes of JSON to join (default 6.5)")
    parser.add_argument("--budget", type=int, default=8000)
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    messages = conversation(args.data, args.mb)
    with tempfile.TemporaryDirectory() as tmp:
        path = str(Path(tmp) / "conversation.json")
        Path(path).write_text(json.dumps(messages), encoding="utf-8")
        print(f"{len(messages):,} messages, {os.path.getsize(path) / 1e6:.1f} MB, budget {args.budget}, "
              f"load average {os.getloadavg()[0]:.1f}")
        times: dict[bool, list[float]] = {False: [], True: []}
        outputs: dict[bool, bytes] = {}
        for _ in range(args.runs):
            for terminal in (False, True):
                seconds, stdout, line = run(path, args.budget, terminal)
                times[terminal].append(seconds)
                outputs[terminal] = stdout
                print(f"  {'in steps' if terminal else 'one call'}: {seconds:.1f} s" + (f"   last line: {line}" if line else ""))
    one, steps = statistics.median(times[False]), statistics.median(times[True])
    print(f"median: one call {one:.1f} s, in steps (with the bar) {steps:.1f} s, ratio {steps / one:.2f}")
    print(f"same view both ways: {outputs[False] == outputs[True]}")


if __name__ == "__main__":
    main()

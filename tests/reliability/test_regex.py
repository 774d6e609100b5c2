"""No catastrophic backtracking: every regular expression of discourse_memory runs in
time linear in its input on adversarial strings (long runs of the characters it
repeats, with a tail that makes it fail late).

The same check, at 10 KB and 100 KB with more tails, is part of
``benchmarks/bench_scaling.py``.
"""

from __future__ import annotations

import importlib.util
import re
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
_spec = importlib.util.spec_from_file_location("dm_bench_scaling", ROOT / "benchmarks" / "bench_scaling.py")
bench = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(bench)  # type: ignore[union-attr]

SMALL, LARGE = 1_000, 10_000
TAILS = ["", "!", "@"]
# Linear time gives ~10x for 10x input; allow noise. Exponential backtracking would not
# finish at all, quadratic gives ~100x.
MAX_GROWTH = 30.0
# Per character, at the worst input: generous for slow CI machines.
MAX_US_PER_CHAR = 20.0


def _time(pattern: re.Pattern[str], use: str, text: str) -> float:
    start = time.perf_counter()
    bench.apply(pattern, use, text)
    return time.perf_counter() - start


def _suspicious(pattern: re.Pattern[str], use: str, small: str, large: str) -> tuple[float, float] | None:
    """(growth, us/char at the large size) if the pattern looks super-linear here, after
    re-measuring (best of three) to rule out a pause of the machine; else None."""
    for attempt in range(2):
        repeat = 1 if attempt == 0 else 3
        t_small = max(min(_time(pattern, use, small) for _ in range(repeat)), 2e-5)
        t_large = min(_time(pattern, use, large) for _ in range(repeat))
        rate = t_large / len(large) * 1e6
        growth = t_large / t_small
        if rate <= MAX_US_PER_CHAR and not (t_large > 0.02 and growth > MAX_GROWTH):
            return None
    return growth, rate


def test_every_regex_is_linear_on_adversarial_input() -> None:
    patterns = bench.regexes()
    assert len(patterns) >= 20, [name for name, _, _ in patterns]
    problems = []
    for name, pattern, use in patterns:
        for run in bench.RUNS:
            for tail in TAILS:
                small = (run * (SMALL // len(run) + 1))[:SMALL] + tail
                large = (run * (LARGE // len(run) + 1))[:LARGE] + tail
                found = _suspicious(pattern, use, small, large)
                if found:
                    problems.append(f"{name} ({use}): {found[0]:.0f}x slower for 10x input, "
                                    f"{found[1]:.1f} us/char on {run!r} * n + {tail!r}")
                    break
            else:
                continue
            break
    assert not problems, problems

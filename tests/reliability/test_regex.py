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
# A screen at SMALL and LARGE that looks super-linear is measured again at sizes past every
# bounded repeat of the patterns (a URL's 2,000 characters, a path's segments): below
# them a pattern may match a whole bounded stretch at once and then scan the rest at its
# ordinary speed, a step in time per character (the 'http://a' * n + '@' input took
# 0.02 us/char at 2,000 characters and 2.6 at 10,000, linear after), not a curve. Growth
# is read from CONFIRM_SIZES (each 4x the last), best of CONFIRM_REPEAT, and must exceed
# CONFIRM_GROWTH per step on every step (quadratic gives 16x, linear 4x).
CONFIRM_SIZES = (20_000, 80_000)
CONFIRM_REPEAT = 3
CONFIRM_GROWTH = 8.0


def _time(pattern: re.Pattern[str], use: str, text: str) -> float:
    # CPU time of this thread, not wall time: another process loading the machine (a
    # second test suite, CI's other jobs) takes the cores away between our time slices,
    # which wall time counts and this does not.
    start = time.thread_time()
    bench.apply(pattern, use, text)
    return time.thread_time() - start


def _text(run: str, size: int, tail: str) -> str:
    return (run * (size // len(run) + 1))[:size] + tail


def _screen(pattern: re.Pattern[str], use: str, run: str, tail: str) -> bool:
    """Whether the pattern looks super-linear at SMALL -> LARGE (one run each)."""
    t_small = max(_time(pattern, use, _text(run, SMALL, tail)), 2e-5)
    t_large = _time(pattern, use, _text(run, LARGE, tail))
    rate = t_large / LARGE * 1e6
    return rate > MAX_US_PER_CHAR or t_large > 0.02 and t_large / t_small > MAX_GROWTH


def _confirmed(pattern: re.Pattern[str], use: str, run: str, tail: str) -> tuple[float, float] | None:
    """(smallest growth per 4x step, us/char at the largest size) if the pattern grows
    faster than linearly past its bounded repeats, or is slower than MAX_US_PER_CHAR
    there; None if neither."""
    times = []
    for size in CONFIRM_SIZES:
        text = _text(run, size, tail)
        best = min(_time(pattern, use, text) for _ in range(CONFIRM_REPEAT))
        times.append(max(best, 2e-5))
        if best > 10.0:  # quadratic at this size: no need to go further
            break
    rate = times[-1] / CONFIRM_SIZES[len(times) - 1] * 1e6
    growth = min((b / a for a, b in zip(times, times[1:])), default=float("inf"))
    if rate > MAX_US_PER_CHAR or growth > CONFIRM_GROWTH:
        return growth, rate
    return None


def _problems(patterns: list[tuple[str, re.Pattern[str], str]], runs: list[str]) -> list[str]:
    problems = []
    for name, pattern, use in patterns:
        for run in runs:
            for tail in TAILS:
                if not _screen(pattern, use, run, tail):
                    continue
                found = _confirmed(pattern, use, run, tail)
                if found:
                    problems.append(f"{name} ({use}): {found[0]:.0f}x slower for 4x input past "
                                    f"{CONFIRM_SIZES[0]:,} chars, {found[1]:.1f} us/char on {run!r} * n + {tail!r}")
                    break
            else:
                continue
            break
    return problems


def test_every_regex_is_linear_on_adversarial_input() -> None:
    patterns = bench.regexes()
    from discourse_memory import language

    patterns += [(f"language.{n}", v, "search") for n, v in sorted(vars(language).items())
                 if isinstance(v, re.Pattern)]
    assert len(patterns) >= 20, [name for name, _, _ in patterns]
    problems = _problems(patterns, bench.RUNS)
    assert not problems, problems


def test_the_check_fails_on_a_quadratic_pattern_and_passes_a_step() -> None:
    # A search for "a+$" tries every start and scans to the end from each: quadratic on a
    # long run of "a" with a tail that fails it. The check must report it ...
    quadratic = [("quadratic", re.compile(r"a{1,100000}$"), "search")]
    assert _problems(quadratic, ["a"]), "a quadratic pattern passed the check"
    # ... and not a linear one that matches a bounded stretch at once and then scans the
    # rest slowly (a step in us/char between SMALL and LARGE, linear after).
    step = [("step", re.compile(r"(?:(?<![a-z])x[a-z]{1,2000}|[a-z](?=[a-z]{0,40}[0-9]))"), "search")]
    assert not _problems(step, ["xabcdefgh"]), "a step was taken for growth"

"""The hostile shapes of issue 48: seconds, seconds per MB and peak memory of one
``compact`` of each, with the pipeline warm, in a fresh process per shape.

    python benchmarks/bench_hostile.py [--shapes deep-list-3000,items-100k,...] [--timeout 300] [--json out.json]

Each shape is what a user pastes into a chat (one user message and a short question
after it), or, for ``short-10k``, 10,000 short messages; compacted to 4,000 tokens.
``prose`` is the reference (about 1 s/MB). The bar of issue 48: a 1 MB line, 10,000
short messages and regex bait under 2 s; 100,000 list items, a 3,000-deep list and a
5,000-line unterminated fence under 5 s; the slow shapes of issue 18 (table-10k,
fences-50k, quoted-100k, json-1mb, log-5mb) at most 2 s/MB and 300 MB peak. Peak is the
process's high-water mark during the call above its memory just before it
(``ru_maxrss``, Linux).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import sys
import time
from typing import Any

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from bench_shapes import _rss_kb, build as build_slow, run_fresh as run_script  # noqa: E402

BUDGET = 4_000
MB = 1_000_000


def regex_bait() -> str:
    """Lines that invite a backtracking pattern to try every split (about 1 MB)."""
    n = 50_000
    return "\n".join([
        "1." * n, "a@" * n, "-" * (2 * n) + "x", "http://" + "a/" * n, "$" + "9," * n, " " * (2 * n) + "x",
        "_" * (2 * n), "0x" + "f" * (2 * n), "`" * (2 * n), "a:" * n, "v1.2" * (n // 2), "#" * (2 * n),
        "(" * n + ")" * n, "*" * (2 * n), "1e" * n, "../" * (n // 2 * 2 // 3) + "x",
    ])


def build(shape: str) -> str | list[str]:
    """The text of the message of ``shape`` (a list of texts: one message each)."""
    if shape == "deep-list-3000":
        return "\n".join("  " * i + "- " + ">" * (i % 50) for i in range(3000))
    if shape == "items-100k":
        return "\n".join(f"- item {i} value {3 * i}" for i in range(100_000))
    if shape == "short-10k":
        return [f"Step {i}: set retries to {i % 7} in /etc/app{i}.yaml." for i in range(10_000)]
    if shape == "line-1mb":
        return "alpha-7 beta_8 " * (MB // 15)
    if shape == "regex-bait":
        return regex_bait()
    if shape == "nested-json-1mb":  # a JSON document nested 200,000 deep without a space in it
        return "The body: " + '{"a":' * 100_000 + "1" + "}" * 100_000
    if shape == "fence-5000":  # one fence opened and never closed, 5,000 lines of code after it
        return "```python\n" + "\n".join(f"value_{i} = compute({i}, key='k{i}')" for i in range(5000))
    return build_slow(shape)


SHAPES = ["prose", "deep-list-3000", "items-100k", "short-10k", "line-1mb", "regex-bait", "nested-json-1mb", "fence-5000",
          "table-10k", "fences-50k", "quoted-100k", "json-1mb", "log-5mb"]


def measure(shape: str) -> dict[str, Any]:
    """One shape, in this process (called in a fresh subprocess)."""
    from discourse_memory import compact

    compact([{"role": "user", "content": "Warm up: the deploy on 2024-05-01 cost $12.50. " * 100},
             {"role": "user", "content": "ok"}], 100)
    text = build(shape)
    texts = text if isinstance(text, list) else [text]
    msgs = [{"role": "user", "content": t} for t in texts] + [{"role": "user", "content": "What failed, and when?"}]
    before = _rss_kb()
    start = time.perf_counter()
    view = compact(msgs, BUDGET)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    mb = sum(len(t.encode()) for t in texts) / MB
    return {"shape": shape, "mb": mb, "seconds": seconds, "s_per_mb": seconds / mb, "peak_mb": peak / 1000,
            "fits": view.tokens_after <= BUDGET}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--json")
    ap.add_argument("--profile", help="write a cProfile file per shape: <this>.<shape>.prof")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(measure(args.one)))
        return
    rows = []
    print(f"{'shape':<15} {'MB':>5} {'seconds':>8} {'s/MB':>6} {'peak MB':>8} {'fits':>5}")
    for shape in args.shapes.split(","):
        r = run_script(shape, args.timeout, __file__, f"{args.profile}.{shape}.prof" if args.profile else None)
        rows.append(r)
        if "seconds" not in r:
            print(f"{shape:<15} {r}", flush=True)
            continue
        print(f"{shape:<15} {r['mb']:5.2f} {r['seconds']:8.2f} {r['s_per_mb']:6.2f} {r['peak_mb']:8.0f} "
              f"{str(r['fits']):>5}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

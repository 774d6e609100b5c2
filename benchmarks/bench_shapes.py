"""The slow shapes of issue 18: seconds per MB and peak memory of one ``compact`` of a
message of each shape, beside ``trim_messages`` on the same input.

    python benchmarks/bench_shapes.py [--shapes prose,table-10k,...] [--timeout 300] [--json out.json]

Each shape is one user message (and a short question after it), compacted to 4,000
tokens in a fresh process with the pipeline loaded before timing. Prose is the
reference (about 1 s/MB); the bar of issue 18 is at most 2 s/MB and 300 MB peak for a
5 MB message. Peak is the process's high-water mark during the call above its memory
just before it (``ru_maxrss``, Linux). The ``trim`` column is LangChain's
``trim_messages`` (``strategy="last"``, ``allow_partial=True``, a tiktoken counter) on
the same messages, in the same process; ``inspect`` is the HTML inspector's page for the
view (seconds and size).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import time
from typing import Any

MB = 1_000_000
BUDGET = 4_000


def _words(rng: random.Random, n: int) -> list[str]:
    vocab = ("the deploy failed because the cache was cold and the worker restarted twice before "
             "anyone noticed that the config pointed at the staging bucket instead of production").split()
    return [rng.choice(vocab) for _ in range(n)]


def build(shape: str) -> str:
    """The text of one message of ``shape`` (deterministic)."""
    rng = random.Random(7)
    if shape == "prose":
        sentences = []
        size = 0
        i = 0
        while size < MB:
            s = " ".join(_words(rng, 14)).capitalize() + f" on 2024-05-{i % 28 + 1:02d} for ${i % 900 + 10}.50."
            sentences.append(s)
            size += len(s) + 1
            i += 1
        return "\n".join(" ".join(sentences[k:k + 5]) for k in range(0, len(sentences), 5))
    if shape == "zh-prose":  # Chinese answers naming places in lists, 2000 sentences a paragraph (a scraped page)
        places = ["故宫", "什刹海", "北京饭店", "天安门广场", "老书虫", "北京动物园", "恭王府", "前门"]
        sentences = []
        size = 0
        i = 0
        while size < MB:
            a, b, c = (places[(i + k) % len(places)] for k in (0, 3, 5))
            s = f"周边景点有{a}, {b}和{c}，门票{i % 90 + 10}元，电话是010-{6500_0000 + i}。"
            sentences.append(s)
            size += len(s.encode("utf-8"))
            i += 1
        return "\n".join("".join(sentences[k:k + 2000]) for k in range(0, len(sentences), 2000))
    if shape.startswith("table-"):
        rows = int(shape.split("-")[1].rstrip("k")) * 1000
        lines = ["| id | item | date | price | status |", "|---|---|---|---|---|"]
        lines += [f"| {i} | item-{i:05d} | 2024-05-{i % 28 + 1:02d} | ${i % 900 + 10}.50 | {'ok' if i % 3 else 'late'} |"
                  for i in range(rows)]
        return "\n".join(lines)
    if shape == "fences-50k":  # opening fences with info strings: none closes another
        return "".join(f"{'`' * (3 + i % 5)}x{i}\nvalue_{i} = {i}\n" for i in range(50_000))
    if shape == "quoted-100k":
        return 'He said "' + " ".join(_words(rng, 100_000)) + '" and left.'
    if shape == "json-1mb":
        items = []
        size = 0
        i = 0
        while size < MB:
            item = {"id": f"ord_{i:06d}", "sku": f"SKU-{i % 977}", "qty": i % 7 + 1, "price": round(i % 900 + 9.99, 2),
                    "tags": ["a", "b"] if i % 2 else [], "note": " ".join(_words(rng, 4))}
            items.append(item)
            size += len(json.dumps(item, separators=(",", ":")))
            i += 1
        return json.dumps({"orders": items}, separators=(",", ":"))
    if shape == "log-5mb":
        lines = []
        size = 0
        i = 0
        while size < 5 * MB:
            line = (f"2024-05-{i % 28 + 1:02d} 12:{i % 60:02d}:{i % 59:02d},{i % 1000:03d} INFO [worker-{i % 8}] "
                    f"request id=req{i:07d} path=/api/v1/items/{i % 5000} took {i % 300}ms")
            lines.append(line)
            size += len(line) + 1
            i += 1
        return "\n".join(lines)
    if shape == "json-log-5mb":  # the same log as a shell tool returns it ({"output": "...\n..."}, Codex)
        return json.dumps({"output": build("log-5mb"), "metadata": {"exit_code": 0, "duration_seconds": 4.2}})
    if shape == "blob-5mb":
        alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
        return "".join(rng.choice(alphabet) for _ in range(5 * MB))
    raise SystemExit(f"unknown shape {shape!r}")


SHAPES = ["prose", "zh-prose", "table-10k", "table-40k", "fences-50k", "quoted-100k", "json-1mb", "log-5mb",
          "json-log-5mb", "blob-5mb"]


def _rss_kb() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def measure(shape: str) -> dict[str, Any]:
    """One shape, in this process (called in a fresh subprocess)."""
    from discourse_memory import compact

    compact([{"role": "user", "content": "Warm up. " * 400}, {"role": "user", "content": "ok"}], 100)
    text = build(shape)
    msgs = [{"role": "user", "content": text}, {"role": "user", "content": "What failed, and when?"}]
    before = _rss_kb()
    start = time.perf_counter()
    view = compact(msgs, BUDGET)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before
    start = time.perf_counter()
    page = view.to_html()
    inspect_s = time.perf_counter() - start
    trim_s = None
    try:
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        from langchain_anchor import tiktoken_message_counter, to_langchain
        from langchain_core.messages import trim_messages

        lc = to_langchain(msgs)
        counter = tiktoken_message_counter()
        start = time.perf_counter()
        trim_messages(lc, max_tokens=BUDGET, token_counter=counter, strategy="last", allow_partial=True)
        trim_s = time.perf_counter() - start
    except ImportError:
        pass
    mb = len(text.encode()) / MB
    return {"shape": shape, "mb": mb, "seconds": seconds, "s_per_mb": seconds / mb, "peak_mb": peak / 1000,
            "fits": view.tokens_after <= BUDGET, "trim_s": trim_s, "inspect_s": inspect_s,
            "page_mb": len(page.encode()) / MB}


def run_fresh(shape: str, timeout: float, script: str = __file__, profile: str | None = None) -> dict[str, Any]:
    """``script --one shape`` in a fresh process (under cProfile, writing ``profile``, if given):
    its last line of output, read as JSON, or what went wrong."""
    cmd = [sys.executable, os.path.abspath(script), "--one", shape]
    if profile:
        cmd = [sys.executable, "-m", "cProfile", "-o", profile, *cmd[1:]]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"shape": shape, "timeout": timeout}
    if proc.returncode != 0:
        return {"shape": shape, "error": proc.stderr.strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--shapes", default=",".join(SHAPES))
    ap.add_argument("--timeout", type=float, default=300)
    ap.add_argument("--json")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.one:
        print(json.dumps(measure(args.one)))
        return
    rows = []
    print(f"{'shape':<12} {'MB':>5} {'seconds':>8} {'s/MB':>6} {'peak MB':>8} {'fits':>5} {'trim s':>7} "
          f"{'inspect s':>9} {'page MB':>8}")
    for shape in args.shapes.split(","):
        r = run_fresh(shape, args.timeout)
        rows.append(r)
        if "seconds" not in r:
            print(f"{shape:<12} {r}")
            continue
        trim = f"{r['trim_s']:7.2f}" if r["trim_s"] is not None else f"{'-':>7}"
        print(f"{shape:<12} {r['mb']:5.1f} {r['seconds']:8.2f} {r['s_per_mb']:6.2f} {r['peak_mb']:8.0f} "
              f"{str(r['fits']):>5} {trim} {r['inspect_s']:9.2f} {r['page_mb']:8.2f}", flush=True)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()

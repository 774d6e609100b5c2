"""Cold compaction of long histories made of real conversations, next to trim_messages.

    python benchmarks/bench_real_histories.py [DATA ...] [--messages 10000] [--budget 20000]

DATA are files ``discourse-memory-eval bench`` reads (default: the LoCoMo, tau-bench and
SWE-bench files under ``../shared/data``). Each file's conversations are joined, each
once and in order (so no text repeats by construction, and nothing is cached), into one
history of at most ``--messages`` messages, cut at a conversation boundary, keeping the
first system prompt only; the synthetic 10,000-message history of issue 6
(``tests/reliability/large_case.py``) is the last row. Each history runs in a fresh
process (spaCy and the encoding loaded before timing) and prints: its size, the seconds
of the first ``compact`` (budget ``--budget`` tokens, ``relax=True``), seconds per MB,
then in the same process one ``langchain_core.messages.trim_messages(strategy="last")``
with the same tiktoken encoding (the anchor: it keeps no state, so every call costs
this), and appending one message then taking a new view (what each later turn costs).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("RAYON_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_DATA = [ROOT.parent / "shared" / "data" / "locomo" / "locomo_dev.json",
                ROOT.parent / "shared" / "data" / "agents" / "tau_airline_dev.jsonl",
                ROOT.parent / "shared" / "data" / "agents" / "swe_dev.jsonl"]
SYNTHETIC = "synthetic-10k"


def history(source: str, limit: int) -> list[dict[str, Any]]:
    if source == SYNTHETIC:
        sys.path.insert(0, str(ROOT / "tests" / "reliability"))
        import large_case

        return large_case.conversation_10k()
    from discourse_memory_evaluation import datasets

    msgs: list[dict[str, Any]] = []
    for conv in datasets.load(source):
        body = [m for m in conv.messages if m.get("role") != "system" or not msgs]
        if msgs and len(msgs) + len(body) > limit:
            break
        msgs.extend(body)
    while msgs and msgs[-1].get("role") != "user":  # end on a user turn, no call left open
        msgs.pop()
    return msgs


def child(source: str, limit: int, budget: int) -> dict[str, Any]:
    from discourse_memory import DiscourseMemory, compact, get_token_counter
    from discourse_memory.nlp import get_pipeline

    compact([{"role": "user", "content": "Warm up. The pipeline loads once."}], 100)
    get_pipeline()("Warm up the pipeline.")
    msgs = history(source, limit)
    chars = sum(len(m["content"]) for m in msgs if isinstance(m.get("content"), str))
    chars += sum(len(c["function"]["arguments"] or "") for m in msgs for c in m.get("tool_calls") or [])
    start = time.perf_counter()
    result = compact(msgs, budget, relax=True)
    cold = time.perf_counter() - start
    row: dict[str, Any] = {"source": Path(source).name, "messages": len(msgs), "chars": chars,
                           "tokens": result.tokens_before, "after": result.tokens_after,
                           "cold_s": round(cold, 3)}
    memory = DiscourseMemory(msgs, relax=True)
    memory.view(budget)
    start = time.perf_counter()
    memory.append({"role": "user", "content": "One more question: what did we settle on for the rollout?"})
    memory.view(budget)
    row["append_view_s"] = round(time.perf_counter() - start, 4)
    try:
        from langchain_core.messages import trim_messages
    except ImportError:
        return row
    from langchain_anchor import tiktoken_message_counter, to_langchain

    lc_count = tiktoken_message_counter(get_token_counter().name)
    lc = to_langchain(msgs)
    start = time.perf_counter()
    trim_messages(lc, max_tokens=budget, token_counter=lc_count, strategy="last")
    row["trim_s"] = round(time.perf_counter() - start, 3)
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="*", default=[str(p) for p in DEFAULT_DATA if p.exists()])
    ap.add_argument("--messages", type=int, default=10_000)
    ap.add_argument("--budget", type=int, default=20_000)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.messages, args.budget)))
        return
    print("| history | messages | MB | tokens | first compact | s per MB | trim_messages (anchor) "
          "| ratio | append + view |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for source in [*args.data, SYNTHETIC]:
        out = subprocess.run([sys.executable, __file__, "--child", source, "--messages", str(args.messages),
                              "--budget", str(args.budget)], capture_output=True, text=True, check=True,
                             env={**os.environ, "PYTHONPATH": str(ROOT)}).stdout
        r = json.loads(out.strip().splitlines()[-1])
        mb = r["chars"] / 1e6
        trim = f"{r['trim_s']:.2f} s" if "trim_s" in r else "n/a"
        ratio = f"{r['cold_s'] / r['trim_s']:.1f}x" if r.get("trim_s") else "n/a"
        print(f"| {r['source']} | {r['messages']:,} | {mb:.2f} | {r['tokens']:,} | {r['cold_s']:.2f} s | "
              f"{r['cold_s'] / mb:.2f} | {trim} | {ratio} | {r['append_view_s'] * 1000:.0f} ms |", flush=True)


if __name__ == "__main__":
    main()

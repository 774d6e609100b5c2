"""Per-turn cost against history length, next to trim_messages and ChatMemoryBuffer.

    python benchmarks/bench_turn_scaling.py [--sizes 1000,10000,50000,100000,200000]
                                            [--budget 32000] [--turns 5] [--json out.json]
                                            [--clock wall|cpu] [--recall] [--no-anchors]

For each size, in a fresh process: a history of that many messages (the built-in sample
conversation, sessions chained until it is long enough, cut after a user message), put
in a ``DiscourseMemory``; the first view (the cold analysis); then ``--turns`` turns of
appending one ~500-token message and taking a view at ``--budget`` tokens, median
milliseconds. In the same process, the anchors on the same history and new messages:
``langchain_core.messages.trim_messages(strategy="last")`` with the same tiktoken
encoding (it keeps no state: every turn re-counts the history), and LlamaIndex's
``ChatMemoryBuffer.put`` + ``get`` with the same limit (skipped if not installed; one
turn, and only up to ``--buffer-max`` messages: its ``get`` re-counts the whole remaining
slice for every message it drops, so it is quadratic in the history past the limit).
Issue 18's bar: at most 30 ms per turn at 200k messages, flat from 10k to 200k.
``--recall``: the memory made with ``recall=True`` (the note names references, as the
LangChain middleware's does). ``--no-anchors``: the anchors are not run (at 200k,
``trim_messages`` alone is a minute of the run).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("RAYON_NUM_THREADS", "1")

HERE = Path(__file__).resolve().parent


def history(n: int) -> list[dict[str, Any]]:
    from discourse_memory.sample import sample_conversation

    sessions = 1
    msgs = sample_conversation(sessions)
    while len(msgs) < n:
        sessions = max(sessions + 1, int(sessions * n / max(len(msgs), 1)) + 1)
        msgs = sample_conversation(sessions)
    cut = max((i for i in range(min(n, len(msgs))) if msgs[i]["role"] == "user"), default=n - 1)
    return msgs[:cut + 1]


def new_message(i: int) -> dict[str, Any]:
    """The ~500-token message ``bench_core_speed.py`` appends (imported once, then cached)."""
    if str(HERE) not in sys.path:
        sys.path.insert(0, str(HERE))
    from bench_core_speed import new_message as make

    return make(i)


def child(n: int, budget: int, turns: int, buffer_max: int, clock: Any = time.perf_counter, recall: bool = False,
          anchors: bool = True) -> dict[str, Any]:
    from discourse_memory import DiscourseMemory, compact
    from discourse_memory.nlp import get_pipeline

    get_pipeline()("Warm up the pipeline.")
    compact([{"role": "user", "content": "Warm up, the pipeline loads once. " * 100},
             {"role": "assistant", "content": "Done."}], 300)
    msgs = history(n)
    row: dict[str, Any] = {"messages": len(msgs)}
    memory = DiscourseMemory(msgs, recall=recall)
    start = time.perf_counter()
    memory.view(budget)
    row["first_view_s"] = round(time.perf_counter() - start, 2)
    times = []
    for i in range(turns):
        message = new_message(i)
        start = clock()
        memory.append(message)
        memory.view(budget)
        times.append(clock() - start)
    row["turn_ms"] = round(1000 * statistics.median(times), 1)
    if not anchors:
        row["trim_ms"] = row["buffer_ms"] = "not run"
        return row
    try:
        from langchain_core.messages import trim_messages

        sys.path.insert(0, str(HERE))
        from langchain_anchor import tiktoken_message_counter, to_langchain
    except ImportError:
        row["trim_ms"] = None
    else:
        lc = to_langchain(msgs)
        counter = tiktoken_message_counter()
        times = []
        for i in range(turns):
            lc.extend(to_langchain([new_message(100 + i)]))
            start = clock()
            trim_messages(lc, max_tokens=budget, token_counter=counter, strategy="last")
            times.append(clock() - start)
        row["trim_ms"] = round(1000 * statistics.median(times), 1)
    try:
        from llama_index.core.llms import ChatMessage
        from llama_index.core.memory import ChatMemoryBuffer
    except ImportError:
        row["buffer_ms"] = None
    else:
        turns = 1 if len(msgs) <= buffer_max else 0
        def chat(m: dict[str, Any]) -> Any:
            role = m["role"] if m["role"] in ("user", "assistant", "system", "tool") else "user"
            return ChatMessage(role=role, content=m.get("content") or "")

        buffer = ChatMemoryBuffer.from_defaults(chat_history=[chat(m) for m in msgs], token_limit=budget)
        times = []
        for i in range(turns):
            message = chat(new_message(200 + i))
            start = clock()
            buffer.put(message)
            buffer.get()
            times.append(clock() - start)
        row["buffer_ms"] = round(1000 * statistics.median(times), 1) if times else "not run"
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="1000,10000,50000,100000,200000")
    ap.add_argument("--budget", type=int, default=32_000)
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--buffer-max", type=int, default=2_000)
    ap.add_argument("--json", type=Path)
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="time turns and anchors with the wall clock (default) or the process's CPU time "
                         "(steadier on a shared machine; the first view is wall clock either way)")
    ap.add_argument("--recall", action="store_true", help="the memory made with recall=True")
    ap.add_argument("--no-anchors", action="store_true", help="skip trim_messages and ChatMemoryBuffer")
    ap.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        clock = time.process_time if args.clock == "cpu" else time.perf_counter
        print(json.dumps(child(args.child, args.budget, args.turns, args.buffer_max, clock, args.recall,
                               not args.no_anchors)))
        return
    rows = []
    print(f"budget {args.budget} tokens; median of {args.turns} turns (append ~500 tokens + view)")
    print(f"{'messages':>9} {'first view':>11} {'turn':>9} {'trim_messages':>14} {'ChatMemoryBuffer':>17}")
    for n in (int(float(s)) for s in args.sizes.split(",")):
        out = subprocess.run([sys.executable, __file__, "--child", str(n), "--budget", str(args.budget),
                              "--turns", str(args.turns), "--buffer-max", str(args.buffer_max), "--clock", args.clock,
                              *(["--recall"] if args.recall else []), *(["--no-anchors"] if args.no_anchors else [])],
                             capture_output=True, text=True)
        if out.returncode:
            print(f"{n:9d} failed: {out.stderr.strip().splitlines()[-1] if out.stderr.strip() else out.returncode}")
            continue
        row = json.loads(out.stdout.strip().splitlines()[-1])
        rows.append(row)

        def ms(v: float | str | None) -> str:
            return "skipped" if v is None else v if isinstance(v, str) else f"{v:.1f} ms"

        print(f"{row['messages']:9d} {row['first_view_s']:10.2f}s {ms(row['turn_ms']):>9} {ms(row['trim_ms']):>14} "
              f"{ms(row['buffer_ms']):>17}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()

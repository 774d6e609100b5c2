"""Speed of the core on a ~65,000-token history, against LangChain's trim_messages.

    python benchmarks/bench_core_speed.py [--tokens 65000] [--repeat 30] [--history RUNS.jsonl]
                                          [--clock wall|cpu]

Prints: cold compaction time (pipelines loaded, nothing parsed yet), the median
time to append one ~500-token message and take a new view, and the median time of
``langchain_core.messages.trim_messages`` with the same tiktoken counter on the
same history (skipped with a message if langchain-core is not installed).
Budget: 25% of the history. Everything runs in this one process, one thread.
The history is the built-in sample conversation, or with ``--history`` a real one: the
runs of a JSON-lines file of ``{"messages": [...]}`` objects (such as
``../shared/data/agents/swe_dev.jsonl``) in order, cut once it holds ``--tokens``.
``--clock cpu`` times with this process's CPU time instead of the wall clock: on a machine
shared with other work, the wall clock counts the time the process waited for a core, and
the ratio moves by tens of percent from one run to the next.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time

os.environ.setdefault("RAYON_NUM_THREADS", "1")  # tiktoken's batch encoder: one core

from discourse_memory import Compactor, DiscourseMemory, get_token_counter  # noqa: E402
from discourse_memory.nlp import get_pipeline  # noqa: E402
from discourse_memory.sample import sample_conversation  # noqa: E402


def history(tokens: int) -> list[dict]:
    counter = get_token_counter()
    sessions = 1
    while True:
        msgs = sample_conversation(sessions, seed=11)
        total = sum(counter.count(m.get("content") or "") for m in msgs)
        if total >= tokens:
            return msgs
        sessions += max(1, int(sessions * (tokens - total) / max(total, 1)))


def real_history(path: str, tokens: int) -> list[dict]:
    counter = get_token_counter()
    msgs: list[dict] = []
    total = 0
    with open(path, encoding="utf-8") as f:
        for line in f:
            for m in json.loads(line)["messages"]:
                msgs.append(m)
                total += counter.count(m.get("content") or "")
                if total >= tokens:
                    return msgs
    return msgs


def new_message(i: int) -> dict:
    rng = random.Random(i)
    words = ["rollout", "latency", "pool", "ticket", "region", "replica", "cache", "owner", "budget"]
    sents = []
    while sum(len(s) for s in sents) < 2000:  # ~500 tokens
        sents.append(f"Step {rng.randint(1, 99)} moves {rng.choice(words)} for svc-{rng.randint(1, 999)} "
                     f"to v{rng.randint(1, 9)}.{rng.randint(0, 9)}.{rng.randint(0, 9)} on "
                     f"2026-11-{rng.randint(1, 28):02d} with {rng.randint(1, 500)} pods and a "
                     f"{rng.choice(words)} of {rng.randint(10, 999)} ms.")
    return {"role": "user" if i % 2 else "assistant", "content": " ".join(sents)}


def warm_memory(msgs: list[dict], turns: int = 5) -> tuple[DiscourseMemory, int]:
    """A memory of ``msgs`` after its first view and ``turns`` appended turns
    (:func:`new_message` ``100 + i``), with the benchmarks' budget, a quarter of the
    history's tokens: the warm state a turn is timed from."""
    counter = get_token_counter()
    budget = sum(counter.count(m.get("content") or "") for m in msgs) // 4
    mem = DiscourseMemory(msgs)
    mem.view(budget)
    for i in range(turns):
        mem.append(new_message(100 + i))
        mem.view(budget)
    return mem, budget


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, default=65_000)
    ap.add_argument("--repeat", type=int, default=30)
    ap.add_argument("--history", help="a JSON-lines file of runs to take the history from")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="time with the wall clock (default) or this process's CPU time")
    args = ap.parse_args()
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    counter = get_token_counter()
    msgs = real_history(args.history, args.tokens) if args.history else history(args.tokens)
    total = sum(counter.count(m.get("content") or "") for m in msgs)
    budget = total // 4
    get_pipeline()("Warm up the pipeline.")  # load spaCy before timing

    t = clock()
    view = Compactor().compact(msgs, budget)
    cold = clock() - t
    print(f"history: {len(msgs)} messages, {total} tokens (cl100k_base); budget {budget} (25%)")
    print(f"cold compaction: {cold * 1000:.0f} ms  -> {view.tokens_after} tokens")

    mem = DiscourseMemory(msgs)
    mem.view(budget)
    times = []
    for i in range(args.repeat):
        m = new_message(i)
        t = clock()
        mem.append(m)
        mem.view(budget)
        times.append(clock() - t)
    ours = statistics.median(times)
    print(f"append one ~500-token message + view: median {ours * 1000:.1f} ms over {args.repeat}")

    try:
        from langchain_core.messages import trim_messages
    except ImportError:
        print("trim_messages: skipped (langchain-core not installed)")
        return
    from langchain_anchor import tiktoken_message_counter, to_langchain

    lc = to_langchain(mem.messages)
    lc_count = tiktoken_message_counter()

    times = []
    for i in range(args.repeat):
        lc.extend(to_langchain([new_message(1000 + i)]))
        t = clock()
        trim_messages(lc, max_tokens=budget, token_counter=lc_count, strategy="last")
        times.append(clock() - t)
    theirs = statistics.median(times)
    print(f"trim_messages (same tiktoken counter): median {theirs * 1000:.1f} ms over {args.repeat}")
    print(f"ratio trim_messages / discourse-memory append+view: {theirs / ours:.2f}x "
          f"(append+view / trim_messages: {ours / theirs:.3f}x; {args.clock} clock)")


if __name__ == "__main__":
    main()

"""Does the budget bound the request? Views counted as OpenAI counts the request.

    python benchmarks/bench_request_budget.py [RUNS.jsonl] [--messages 300] [--budget 4000]

RUNS is a JSONL of OpenAI chat runs (default: ``../shared/data/agents/tau_airline_dev.jsonl``).

1. The issue's case: one chat of ``--messages`` messages with tool calls (the runs' messages
   joined, the first system prompt kept), compacted to ``--budget`` with
   ``message_overhead="none"`` (the count before the framing rules: text only) and with the
   default (``"auto"``: OpenAI's rule). Prints the text tokens and the request's tokens as
   OpenAI's cookbook counts them (``num_tokens_from_messages``: 3 a message, every string
   value, +1 a name, +3 reply priming; a call's id, type, name and arguments), counted here
   independently of the library, and the warm view time of each (best of 5, one Compactor
   that has analysed the chat), with their ratio.
2. Every run of the file at 10% and 25% of its request tokens: how many views' requests
   are over budget under each rule, and the worst overshoot.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("RAYON_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parents[1]
DEFAULT = Path(os.environ.get("DISCOURSE_MEMORY_DATA", ROOT.parent / "shared" / "data")) / "agents" / "tau_airline_dev.jsonl"


def request_tokens(messages: list[dict[str, Any]], count) -> int:
    """The OpenAI cookbook's count of a request (every value of a message encoded)."""
    n = 3  # <|start|>assistant<|message|>
    for m in messages:
        n += 3
        for key, value in m.items():
            if key == "tool_calls":
                for c in value or ():
                    fn = c["function"]
                    args = fn.get("arguments") or ""
                    n += count(c.get("id") or "") + count(c.get("type", "function")) + count(fn["name"])
                    n += count(args if isinstance(args, str) else json.dumps(args))
            elif isinstance(value, str):
                n += count(value) + (key == "name")
            elif isinstance(value, list):
                n += sum(count(p if isinstance(p, str) else p.get("text", "")) for p in value
                         if isinstance(p, str) or p.get("type") == "text")
    return n


def text_tokens(messages: list[dict[str, Any]]) -> int:
    from discourse_memory import Options, count_messages

    return count_messages(messages, options=Options(message_overhead="none"))


def joined(runs: list[list[dict[str, Any]]], n: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for run in runs:
        out += [m for m in run if not (out and m.get("role") == "system")]
        if len(out) >= n:
            break
    out = out[:n]
    while out and out[-1].get("role") != "user":  # (the chat ends on the user's turn)
        out.pop()
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("runs", nargs="?", default=str(DEFAULT))
    p.add_argument("--messages", type=int, default=300)
    p.add_argument("--budget", type=int, default=4000)
    args = p.parse_args(argv)

    from discourse_memory import BudgetTooSmallError, Compactor, Options, get_token_counter

    count = get_token_counter("cl100k_base").count
    runs = [json.loads(line)["messages"] for line in Path(args.runs).read_text().splitlines() if line.strip()]
    chat = joined(runs, args.messages)
    calls = sum(len(m.get("tool_calls") or ()) for m in chat)
    print(f"chat: {len(chat)} messages, {calls} tool calls, request {request_tokens(chat, count)} tokens "
          f"(text {text_tokens(chat)})")
    times = {}
    for rule in ("none", "auto"):
        compactor = Compactor(options=Options(message_overhead=rule))
        view = compactor.compact(chat, args.budget)
        best = float("inf")
        for _ in range(5):
            start = time.perf_counter()
            compactor.compact(chat, args.budget)
            best = min(best, time.perf_counter() - start)
        times[rule] = best
        req = request_tokens(view.messages, count)
        print(f"  message_overhead={rule!r:7} budget {args.budget}: {len(view.messages)} messages, text "
              f"{text_tokens(view.messages)}, request {req} ({100 * (req - args.budget) / args.budget:+.1f}% "
              f"of the budget), tokens_after {view.tokens_after}; warm view {1000 * best:.1f} ms")
    print(f"  warm view time auto / none: {times['auto'] / times['none']:.2f}x")

    for share in (0.1, 0.25):
        for rule in ("none", "auto"):
            over, worst, raised = 0, 0.0, 0
            for run in runs:
                budget = int(request_tokens(run, count) * share)
                try:
                    view = Compactor(options=Options(message_overhead=rule)).compact(run, budget)
                except BudgetTooSmallError:
                    raised += 1
                    continue
                req = request_tokens(view.messages, count)
                if req > budget:
                    over += 1
                    worst = max(worst, 100 * (req - budget) / budget)
            print(f"runs at {share:.0%} ({len(runs)}): message_overhead={rule!r:7} requests over budget {over}"
                  f" (worst {worst:+.1f}%), budget too small {raised}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

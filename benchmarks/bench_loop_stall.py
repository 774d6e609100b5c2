"""How long the async paths stall the event loop, each in a fresh process (a server's first request).

Usage:
    python benchmarks/bench_loop_stall.py [../shared/data/agents/tau_airline_dev.jsonl] [--budget 4000]

Each case runs in its own new Python process, as a server would: the modules are imported and the
memory object is built, then, inside ``asyncio.run``, a ticker coroutine wakes every millisecond
while the case awaits its async call twice (the first call pays spaCy's import and pipeline load,
the second is warm). The longest gap between two ticks is how long every other request of the
server would have waited. Cases:

- ``floor``: a worker thread runs plain Python for 1 s (no library code): what sharing the
  interpreter lock with any busy thread costs the loop on this machine, at its current load;
- ``middleware``: ``create_agent`` + ``DiscourseCompactionMiddleware(keep=("tokens", budget))``,
  ``ainvoke`` on a 298-message history (a system prompt, tau-bench airline runs chained, a question);
- ``history``: ``DiscourseChatMessageHistory(max_tokens=budget).aget_messages()`` on the same history;
- ``llamaindex``: ``DiscourseMemoryBuffer.aget()`` (skipped when the adapter is not installed);
- ``acompact``: the core's ``acompact(messages, budget)``, after ``warm_up(encoding="cl100k_base")``
  at start-up (as ``warm_up``'s docs tell an async server to do);
- ``acompact-bare``: the same with nothing done at start-up: the first call loads tiktoken's tables,
  which holds the interpreter lock (the adapters load their counter when they are made).

Without the data file the history is a synthetic support conversation of the same length.
Prints one row per case: the longest stall of the first and of the second call, and their wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

CASES = ("floor", "middleware", "history", "llamaindex", "acompact", "acompact-bare")
MESSAGES = 298
DEFAULT_DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "agents" / "tau_airline_dev.jsonl"


def openai_history(data: Path | None) -> list[dict[str, Any]]:
    """298 OpenAI chat messages: a system prompt, whole tau-bench steps (no call without its
    result), and a new user question last."""
    runs: list[list[dict[str, Any]]] = []
    if data is not None and data.exists():
        runs = [json.loads(line)["messages"] for line in data.read_text().splitlines() if line.strip()]
    if not runs:
        runs = [_synthetic_run(n) for n in range(80)]
    system = next((m for m in runs[0] if m["role"] == "system"), {"role": "system", "content": "You are an agent."})
    body: list[dict[str, Any]] = []
    for n, run in enumerate(runs):
        for m in run:
            if m["role"] == "system":
                continue
            m = dict(m)
            if m.get("tool_calls"):  # call ids repeat across runs
                m["tool_calls"] = [{**c, "id": f"r{n}-{c['id']}"} for c in m["tool_calls"]]
            if m["role"] == "tool":
                m["tool_call_id"] = f"r{n}-{m['tool_call_id']}"
            body.append(m)
        if len(body) >= MESSAGES:
            break
    cut = min(MESSAGES - 2, len(body))
    while 0 < cut < len(body) and body[cut]["role"] == "tool":  # end on a whole step: no call without its result
        cut -= 1
    body = body[:cut]
    while len(body) < MESSAGES - 2:  # pad with chatter to keep the count
        body.append({"role": "user" if len(body) % 2 == 0 else "assistant", "content": "Thanks, noted."})
    question = {"role": "user", "content": "Which reservation did I ask about first, and what was its flight?"}
    return [system, *body, question]


def _synthetic_run(n: int) -> list[dict[str, Any]]:
    call = {"id": f"c{n}", "type": "function",
            "function": {"name": "get_order", "arguments": json.dumps({"order_id": f"ORD-{1000 + n}"})}}
    return [
        {"role": "user", "content": f"Please check order ORD-{1000 + n}; I paid ${120 + n}.50 on 2024-05-{1 + n % 28:02d}."},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": f"c{n}", "content": json.dumps(
            {"order_id": f"ORD-{1000 + n}", "status": "shipped", "items": [f"item-{n}-{i}" for i in range(12)]})},
        {"role": "assistant", "content": f"Order ORD-{1000 + n} was shipped. Anything else?"},
    ]


async def _ticker(stop: asyncio.Event, gaps: list[float]) -> None:
    last = time.perf_counter()
    while not stop.is_set():
        await asyncio.sleep(0.001)
        now = time.perf_counter()
        gaps.append(now - last)
        last = now


async def _measure(call: Any) -> tuple[float, float]:
    """(longest gap between ticks, wall time) while ``await call()`` runs."""
    stop, gaps = asyncio.Event(), []
    ticker = asyncio.create_task(_ticker(stop, gaps))
    await asyncio.sleep(0.005)  # the ticker is running before the call starts
    gaps.clear()
    start = time.perf_counter()
    await call()
    wall = time.perf_counter() - start
    await asyncio.sleep(0.005)
    stop.set()
    await ticker
    return max(gaps, default=0.0), wall


def _case(name: str, messages: list[dict[str, Any]], budget: int) -> Any:
    """The async call of case ``name``, with its objects built (outside the loop, as at start-up)."""
    if name == "floor":
        def spin() -> None:
            end = time.perf_counter() + 1.0
            while time.perf_counter() < end:
                sum(range(100))

        return lambda: asyncio.to_thread(spin)
    if name.startswith("acompact"):
        from discourse_memory import acompact, warm_up

        if name == "acompact":
            warm_up(encoding="cl100k_base")
        return lambda: acompact(messages, budget)
    if name == "llamaindex":
        from llama_index.core.base.llms.types import ChatMessage
        from llama_index.memory.discourse import DiscourseMemoryBuffer

        history = [ChatMessage(role=m["role"], content=m.get("content") or "") for m in messages]
        buffer = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=budget)
        return lambda: buffer.aget()
    from langchain_core.messages import convert_to_messages

    lc = convert_to_messages(messages)
    if name == "history":
        from langchain_discourse_memory import DiscourseChatMessageHistory, ListChatMessageHistory

        store = DiscourseChatMessageHistory(ListChatMessageHistory(lc), max_tokens=budget)
        return store.aget_messages
    from langchain.agents import create_agent
    from langchain_core.messages import AIMessage
    from langchain_discourse_memory import DiscourseCompactionMiddleware
    from langchain_discourse_memory.testing import ScriptedToolChatModel

    model = ScriptedToolChatModel(messages=iter([AIMessage(f"answer {i}") for i in range(10)]))
    agent = create_agent(model, tools=[], middleware=[DiscourseCompactionMiddleware(keep=("tokens", budget))])
    return lambda: agent.ainvoke({"messages": lc})


def run_case(name: str, data: Path | None, budget: int) -> dict[str, Any]:
    messages = openai_history(data)
    call = _case(name, messages, budget)

    async def main() -> list[tuple[float, float]]:
        return [await _measure(call), await _measure(call)]

    (cold, cold_wall), (warm, warm_wall) = asyncio.run(main())
    return {"case": name, "messages": len(messages), "cold_stall_ms": round(cold * 1000, 1),
            "cold_wall_ms": round(cold_wall * 1000), "warm_stall_ms": round(warm * 1000, 1),
            "warm_wall_ms": round(warm_wall * 1000)}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="?", default=DEFAULT_DATA)
    parser.add_argument("--budget", type=int, default=4000)
    parser.add_argument("--case", choices=CASES, help="run one case in this process (the parent uses it)")
    parser.add_argument("--repeat", type=int, default=1, help="fresh processes per case")
    args = parser.parse_args(argv)
    if args.case:
        print(json.dumps(run_case(args.case, args.data, args.budget)))
        return 0
    print(f"longest event-loop stall per call, each case in a fresh process (budget {args.budget} tokens)")
    print(f"{'case':<12} {'messages':>8} {'1st stall ms':>13} {'1st wall ms':>12} {'2nd stall ms':>13} "
          f"{'2nd wall ms':>12}")
    worst = 0.0
    for name in CASES:
        for _ in range(args.repeat):
            proc = subprocess.run([sys.executable, __file__, str(args.data), "--budget", str(args.budget),
                                   "--case", name], capture_output=True, text=True)
            if proc.returncode != 0:
                last = (proc.stderr.strip().splitlines() or ["?"])[-1]
                print(f"{name:<12} skipped: {last}")
                continue
            row = json.loads(proc.stdout.strip().splitlines()[-1])
            worst = max(worst, row["cold_stall_ms"], row["warm_stall_ms"])
            print(f"{name:<12} {row['messages']:>8} {row['cold_stall_ms']:>13} {row['cold_wall_ms']:>12} "
                  f"{row['warm_stall_ms']:>13} {row['warm_wall_ms']:>12}")
    print(f"longest stall: {worst:.1f} ms")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

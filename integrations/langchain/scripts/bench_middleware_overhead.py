"""Time DiscourseCompactionMiddleware per model call on a ~65,000-token history.

Usage:
    python integrations/langchain/scripts/bench_middleware_overhead.py \
        [../shared/data/agents/tau_airline_dev.jsonl] [--tokens 65000] [--calls 40] [--keep 16000]

Builds a history of about `--tokens` tokens (cl100k_base, the core's accounting)
by chaining the conversations of the tau-bench airline file (ids made unique),
or, when the file is absent, from a synthetic support conversation. Then it
simulates an agent loop: `--calls` model calls, each after appending one
tool-calling AIMessage and its ToolMessage, and times `wrap_model_call` (with a
handler that returns at once) and, in the same run, `trim_messages` with the
same counter and budget. The first call (cold analysis caches) is reported apart
from the median over the others.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage, trim_messages
from langchain_discourse_memory import DiscourseCompactionMiddleware, count_tokens
from langchain_discourse_memory.testing import sample_conversation

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_tau_middleware import to_langchain  # noqa: E402


def build_history(data: Path | None, target: int, count) -> list[BaseMessage]:
    pool: list[list[BaseMessage]] = []
    if data is not None and data.exists():
        for n, line in enumerate(data.read_text().splitlines()):
            if line.strip():
                msgs = to_langchain(json.loads(line)["messages"])
                pool.append(
                    [m.model_copy(update={"id": f"r{n}-{m.id}"}) for m in msgs if not isinstance(m, SystemMessage)]
                )
    else:
        for n in range(200):
            pool.append([m.model_copy(update={"id": f"s{n}-{m.id}"}) for m in sample_conversation(6)[1:]])
    history: list[BaseMessage] = []
    tokens = 0
    for run in pool:
        for m in run:
            # tool-call ids repeat across tau runs: make them unique per run
            history.append(m)
        tokens = count(history)
        if tokens >= target:
            break
    return _unique_call_ids(history)


def _unique_call_ids(history: list[BaseMessage]) -> list[BaseMessage]:
    out: list[BaseMessage] = []
    for k, m in enumerate(history):
        if isinstance(m, AIMessage) and m.tool_calls:
            calls = [{**c, "id": f"{c['id']}-{k}"} for c in m.tool_calls]
            out.append(m.model_copy(update={"tool_calls": calls}))
            ids = {c["id"]: f"{c['id']}-{k}" for c in m.tool_calls}
        elif isinstance(m, ToolMessage):
            out.append(m.model_copy(update={"tool_call_id": ids.get(m.tool_call_id, m.tool_call_id)}))
        else:
            out.append(m)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, nargs="?", default=None)
    parser.add_argument("--tokens", type=int, default=65_000)
    parser.add_argument("--calls", type=int, default=40)
    parser.add_argument("--keep", type=int, default=16_000, help="middleware budget (tokens)")
    args = parser.parse_args(argv)
    count = count_tokens  # the adapter's default accounting (cl100k_base)
    per_message: dict[int, int] = {}

    def trim_count(messages: list[BaseMessage]) -> int:
        # The same accounting, memoized per message (all stay alive here): trim_messages calls its
        # counter on many prefixes, and the baseline should not pay for re-counting them.
        return sum(per_message[id(m)] if id(m) in per_message else per_message.setdefault(id(m), count([m]))
                   for m in messages)
    history = build_history(args.data, args.tokens, count)
    system = SystemMessage("You are an airline support agent.")
    model = GenericFakeChatModel(messages=iter(()))
    middleware = DiscourseCompactionMiddleware(keep=("tokens", args.keep))
    source = "tau-bench airline file" if args.data is not None and args.data.exists() else "synthetic"

    sent: list[ModelRequest] = []

    def handler(req: ModelRequest) -> ModelResponse:
        sent.append(req)
        return ModelResponse(result=[AIMessage("ok")])

    # Time the core's compaction inside the middleware's own call (instance attribute
    # wrapper), so "adapter" = middleware total - core, measured on the same call.
    compactor = middleware._thread_session().compactor  # outside a graph: the thread-less session
    core_compact = compactor.compact
    inside: list[float] = []

    def timed_compact(*a, **kw):
        t = time.perf_counter()
        try:
            return core_compact(*a, **kw)
        finally:
            inside.append(time.perf_counter() - t + (inside.pop() if inside else 0.0))

    compactor.compact = timed_compact
    mw, trim, core, sizes = [], [], [], []
    for k in range(args.calls):
        history = history + [
            AIMessage(
                "",
                tool_calls=[
                    {"id": f"loop{k}", "name": "get_reservation_details", "args": {"reservation_id": f"R{k:05d}"}}
                ],
                id=f"loop-ai-{k}",
            ),
            ToolMessage(
                json.dumps({"reservation_id": f"R{k:05d}", "status": "confirmed", "amount": 100 + k}),
                tool_call_id=f"loop{k}",
                id=f"loop-tool-{k}",
            ),
        ]
        request = ModelRequest(model=model, messages=history, system_message=system, state={"messages": history})
        inside.clear()
        t0 = time.perf_counter()
        middleware.wrap_model_call(request, handler)
        t1 = time.perf_counter()
        trim_messages(history, max_tokens=args.keep, token_counter=trim_count)
        t2 = time.perf_counter()
        mw.append((t1 - t0) * 1000)
        trim.append((t2 - t1) * 1000)
        core.append(inside.pop() * 1000)
        sizes.append(count(history))
    over = [i for i, req in enumerate(sent) if count(req.messages) > args.keep]
    if over:
        print(
            f"ERROR: {len(over)} of {len(sent)} calls were not compacted to keep={args.keep} "
            "(see the warnings above); the timings would not measure compaction."
        )
        return 1
    warm_mw, warm_trim = statistics.median(mw[1:]), statistics.median(trim[1:])
    print(
        f"history: {len(history)} messages, {sizes[0]}..{sizes[-1]} tokens ({source}); keep={args.keep} tokens; "
        f"{args.calls} calls"
    )
    print(f"first call (cold caches): middleware {mw[0]:.2f} ms, trim_messages {trim[0]:.2f} ms")
    print(
        f"median of the other calls: middleware {warm_mw:.2f} ms, trim_messages {warm_trim:.2f} ms, "
        f"ratio {warm_mw / warm_trim:.1f}x"
    )
    warm_core = statistics.median(core[1:])
    print(
        f"of which inside the core's compaction: {warm_core:.2f} ms; adapter (conversion both ways, checks): "
        f"{warm_mw - warm_core:.2f} ms"
    )
    print(f"bar (<10 ms median): {'PASS' if warm_mw < 10 else 'FAIL'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

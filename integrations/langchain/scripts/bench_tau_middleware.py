"""Replay tau-bench airline runs through DiscourseCompactionMiddleware vs trim_messages.

Usage:
    python integrations/langchain/scripts/bench_tau_middleware.py \
        ../shared/data/agents/tau_airline_dev.jsonl [--budget-fraction 0.25] [--limit N] [--json]

Each line of the data file is {"id", "messages", "gold_actions": [{"name", "kwargs"}]}
(assistant `tool_calls` may be a Python-repr string and content the string 'None';
both are parsed here). Every run is replayed turn by turn: before each assistant
message, the state so far goes through the middleware's `wrap_model_call` (with
`keep=("tokens", budget)`, budget = fraction of the whole run's tokens) and,
for comparison, through `trim_messages(..., include_system=True)` with the same
token counter (the core's offline cl100k_base accounting). At the last model
call of each run we measure the share of gold tool-call argument values (kwargs
leaves, as strings) found in the text the model receives. Across all calls we
count orphan ToolMessages and views over budget.

Exits 0 and prints "SKIP: ..." when the data file is absent.
"""

from __future__ import annotations

import argparse
import ast
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
    trim_messages,
)
from langchain_discourse_memory import DiscourseCompactionMiddleware, count_tokens
from langchain_discourse_memory.testing import orphan_tool_messages


def _content(value: Any) -> str:
    if value is None or value == "None":
        return ""
    return value if isinstance(value, str) else json.dumps(value)


def _tool_calls(value: Any) -> list[dict[str, Any]]:
    if not value or value == "None":
        return []
    calls = ast.literal_eval(value) if isinstance(value, str) else value
    out = []
    for call in calls:
        fn = call["function"]
        args = fn["arguments"]
        out.append({"id": call["id"], "name": fn["name"], "args": json.loads(args) if isinstance(args, str) else args})
    return out


def to_langchain(messages: list[dict[str, Any]]) -> list[BaseMessage]:
    """Convert one run's OpenAI-style messages (tau-bench dump format) to LangChain messages."""
    out: list[BaseMessage] = []
    for i, m in enumerate(messages):
        role, content, mid = m["role"], _content(m.get("content")), f"m{i}"
        if role == "system":
            out.append(SystemMessage(content, id=mid))
        elif role == "user":
            out.append(HumanMessage(content, id=mid))
        elif role == "assistant":
            out.append(AIMessage(content, tool_calls=_tool_calls(m.get("tool_calls")), id=mid))
        elif role == "tool":
            out.append(ToolMessage(content, tool_call_id=m["tool_call_id"], name=m.get("name"), id=mid))
        else:
            msg = f"unknown role {role!r} in message {i}"
            raise ValueError(msg)
    return out


def gold_values(actions: list[dict[str, Any]]) -> list[str]:
    """Leaf values of every gold action's kwargs, as strings."""
    values: list[str] = []

    def walk(v: Any) -> None:
        if isinstance(v, dict):
            for x in v.values():
                walk(x)
        elif isinstance(v, (list, tuple)):
            for x in v:
                walk(x)
        else:
            values.append(str(v))

    for action in actions:
        walk(action.get("kwargs", {}))
    return values


def received_text(messages: list[BaseMessage]) -> str:
    parts: list[str] = []
    for m in messages:
        parts.append(m.content if isinstance(m.content, str) else json.dumps(m.content))
        for call in getattr(m, "tool_calls", None) or []:
            parts.append(call["name"])
            parts.append(json.dumps(call["args"], ensure_ascii=False))
    return "\n".join(parts)


def run(path: Path, budget_fraction: float, limit: int | None, budget_base: str = "conversation") -> dict[str, Any]:
    count = count_tokens  # the adapter's default accounting (cl100k_base)
    model = GenericFakeChatModel(messages=iter(()))
    rows = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    if limit:
        rows = rows[:limit]
    totals = {
        "runs": 0,
        "gold_values": 0,
        "found_middleware": 0,
        "found_trim": 0,
        "found_middleware_strict": 0,
        "orphans_last_middleware": 0,
        "orphans_last_trim": 0,
        "orphans_all_middleware": 0,
        "orphans_all_trim": 0,
        "over_budget_calls_middleware": 0,
        "over_budget_calls_trim": 0,
        "over_budget_last_call_middleware": 0,
        "model_calls": 0,
    }
    mw_ms: list[float] = []
    trim_ms: list[float] = []
    per_run_mw: list[float] = []
    per_run_trim: list[float] = []
    for row in rows:
        messages = to_langchain(row["messages"])
        system = messages[0] if messages and isinstance(messages[0], SystemMessage) else None
        conversation_all = messages[1:] if system is not None else messages
        base = messages if budget_base == "all" else conversation_all
        budget = int(count(base) * budget_fraction)
        middleware = DiscourseCompactionMiddleware(keep=("tokens", budget))
        calls = [i for i, m in enumerate(conversation_all) if isinstance(m, AIMessage) and i > 0]
        if not calls:
            continue
        golds = gold_values(row.get("gold_actions", []))
        totals["runs"] += 1
        totals["gold_values"] += len(golds)
        for k, i in enumerate(calls):
            conversation = conversation_all[:i]
            request = ModelRequest(
                model=model,
                messages=conversation,
                system_message=system,
                state={"messages": conversation},
            )
            seen: list[BaseMessage] = []

            def handler(req: ModelRequest, seen: list[BaseMessage] = seen) -> ModelResponse:
                seen.extend(req.messages)
                return ModelResponse(result=[AIMessage("ok")])

            t0 = time.perf_counter()
            middleware.wrap_model_call(request, handler)
            t1 = time.perf_counter()
            trimmed = trim_messages(conversation, max_tokens=budget, token_counter=count, include_system=True)
            t2 = time.perf_counter()
            mw_ms.append((t1 - t0) * 1000)
            trim_ms.append((t2 - t1) * 1000)
            totals["model_calls"] += 1
            mw_orphans = len(orphan_tool_messages(seen))
            trim_orphans = len(orphan_tool_messages(trimmed))
            totals["orphans_all_middleware"] += mw_orphans
            totals["orphans_all_trim"] += trim_orphans
            totals["over_budget_calls_middleware"] += count(seen) > budget
            totals["over_budget_calls_trim"] += count(trimmed) > budget
            if k == len(calls) - 1:
                totals["over_budget_last_call_middleware"] += count(seen) > budget
                totals["orphans_last_middleware"] += mw_orphans
                totals["orphans_last_trim"] += trim_orphans
                mw_text, trim_text = received_text(seen), received_text(trimmed)
                found_mw = sum(v in mw_text for v in golds)
                found_trim = sum(v in trim_text for v in golds)
                totals["found_middleware"] += found_mw
                totals["found_trim"] += found_trim
                # strict: a view over budget (passed through) counts as nothing found
                totals["found_middleware_strict"] += found_mw if count(seen) <= budget else 0
                if golds:
                    per_run_mw.append(found_mw / len(golds))
                    per_run_trim.append(found_trim / len(golds))
    g = max(1, totals["gold_values"])
    totals["share_middleware"] = round(totals["found_middleware"] / g, 4)
    totals["share_trim"] = round(totals["found_trim"] / g, 4)
    totals["share_middleware_strict"] = round(totals["found_middleware_strict"] / g, 4)
    totals["mean_run_share_middleware"] = round(statistics.fmean(per_run_mw), 4) if per_run_mw else None
    totals["mean_run_share_trim"] = round(statistics.fmean(per_run_trim), 4) if per_run_trim else None
    totals["budget_base"] = budget_base
    totals["median_ms_middleware"] = round(statistics.median(mw_ms), 3) if mw_ms else None
    totals["median_ms_trim"] = round(statistics.median(trim_ms), 3) if trim_ms else None
    totals["budget_fraction"] = budget_fraction
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", type=Path, help="tau_airline_dev.jsonl")
    parser.add_argument("--budget-fraction", type=float, default=0.25)
    parser.add_argument("--limit", type=int, default=None, help="only the first N runs")
    parser.add_argument(
        "--budget-base",
        choices=["conversation", "all"],
        default="conversation",
        help="tokens the fraction is taken of: the conversation (default; what the middleware "
        "budgets, the system prompt being passed on unchanged) or all messages",
    )
    parser.add_argument("--json", action="store_true", help="print the totals as JSON")
    args = parser.parse_args(argv)
    if not args.data.exists():
        print(f"SKIP: data file {args.data} not found; nothing measured.")
        return 0
    totals = run(args.data, args.budget_fraction, args.limit, args.budget_base)
    if args.json:
        print(json.dumps(totals, indent=2))
        return 0
    print(
        f"runs: {totals['runs']}, model calls replayed: {totals['model_calls']}, budget: "
        f"{args.budget_fraction:.0%} of each run's {args.budget_base} tokens "
        "(cl100k_base, core accounting); system prompt passed unchanged to both"
    )
    print(
        f"gold argument values present at the last model call: middleware "
        f"{totals['share_middleware']:.1%} ({totals['found_middleware']}/{totals['gold_values']}), "
        f"trim_messages {totals['share_trim']:.1%} ({totals['found_trim']}/{totals['gold_values']})"
    )
    print(
        f"  strict (a last call over budget counts as nothing found): middleware "
        f"{totals['share_middleware_strict']:.1%} ({totals['found_middleware_strict']}/{totals['gold_values']})"
    )
    print(
        f"  mean of per-run shares: middleware {totals['mean_run_share_middleware']:.1%}, "
        f"trim_messages {totals['mean_run_share_trim']:.1%}"
    )
    print(
        f"orphan ToolMessages at the last call: middleware {totals['orphans_last_middleware']}, "
        f"trim_messages {totals['orphans_last_trim']}; over all calls: middleware "
        f"{totals['orphans_all_middleware']}, trim_messages {totals['orphans_all_trim']}"
    )
    print(
        f"calls over budget: middleware {totals['over_budget_calls_middleware']} "
        f"({totals['over_budget_last_call_middleware']} at a last call; passed through unchanged because "
        f"the budget is below the record note's frame), trim_messages {totals['over_budget_calls_trim']}"
    )
    print(
        f"median time per call: middleware {totals['median_ms_middleware']} ms, "
        f"trim_messages {totals['median_ms_trim']} ms"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

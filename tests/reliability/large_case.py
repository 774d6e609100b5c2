"""One large hostile input, compacted in a fresh process:
``python large_case.py NAME [--collect] [--no-pause] [--gc-stats]``.

Prints one JSON line: the case, the seconds ``compact`` took (pipeline already
loaded), the sizes, and whether the result is correct (fits the budget, at most one
note, sources increasing, the newest turn verbatim). Run in a subprocess by
``test_large_inputs.py`` so that a hang is killed by a timeout instead of hanging CI.
``--collect`` adds a full garbage collection right after ``compact`` to the time: the
collector is paused while a view is made (``discourse_memory.gc_pause``), and
this charges the collection that pause put off to the call. ``--no-pause`` turns that
pause off, and ``--gc-stats`` adds the garbage collections run during the call (count and
seconds by generation).
"""

from __future__ import annotations

import json
import random
import sys
import time
from collections.abc import Callable
from typing import Any

MB = 1_000_000


def _words_line(size: int) -> str:
    rng = random.Random(1)
    vocab = ["alpha", "Beta", "42", "v1.2.3", "x/y/z.py", "OPS-1", "the", "deploy", "latency", "rollback",
             "pool", "and", "2026-01-02", "$5", "Dana", "eu-west-1", "user@example.com", "3.5%"]
    out, n = [], 0
    while n < size:
        w = rng.choice(vocab)
        out.append(w)
        n += len(w) + 1
    return " ".join(out)[:size]


def _json_line(size: int) -> str:
    items, n, i = [], 2, 0
    while n < size:
        item = json.dumps({"id": i, "sku": f"SKU-{i:06d}", "price": round(i * 1.37, 2), "tags": ["a", "b"],
                           "updated": f"2024-05-{1 + i % 28:02d}T10:{i % 60:02d}:00Z"})
        items.append(item)
        n += len(item) + 2
        i += 1
    return ("[" + ", ".join(items) + "]")[:size]


def _log_lines(size: int) -> str:
    out, n, i = [], 0, 0
    while n < size:
        line = f"2024-05-01T10:{i % 60:02d}:{i % 60:02d}Z INFO worker-{i % 8} processed job {i} in {i % 997} ms"
        out.append(line)
        n += len(line) + 1
        i += 1
    return "\n".join(out)[:size]


def conversation_10k() -> list[dict[str, Any]]:
    from discourse_memory.sample import sample_conversation

    msgs: list[dict[str, Any]] = []
    sessions = 400
    while len(msgs) < 10_000:
        msgs = sample_conversation(sessions, seed=5)
        sessions += 200
    msgs = msgs[:9_999]
    # Cut where no tool call is left unanswered, then end on a user turn.
    while msgs and (msgs[-1].get("role") == "tool" or msgs[-1].get("tool_calls")):
        msgs.pop()
    msgs.append({"role": "user", "content": "Where do we stand on all of this?"})
    return msgs


def one(text: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": "You are a careful assistant."},
            {"role": "user", "content": text},
            {"role": "assistant", "content": "Received."},
            {"role": "user", "content": "Summarise the above."}]


CASES: dict[str, tuple[Callable[[], list[dict[str, Any]]], int]] = {
    # name: (messages, budget)
    "1mb_single_line_words": (lambda: one(_words_line(MB)), 4000),
    "1mb_single_line_json": (lambda: one(_json_line(MB)), 4000),
    "1mb_single_line_one_char": (lambda: one("a" * MB), 4000),
    "1mb_single_line_digits": (lambda: one("7" * MB), 4000),
    # The worst run found for the literal patterns (benchmarks/bench_scaling.py, ReDoS table).
    "1mb_single_line_dashed": (lambda: one("a-" * (MB // 2)), 4000),
    "1mb_log_lines": (lambda: one(_log_lines(MB)), 4000),
    "10k_messages": (conversation_10k, 20000),
    "100k_list_items": (lambda: one("\n".join(f"- item {i}" for i in range(100_000))), 4000),
    "nested_lists_500_deep": (lambda: one("\n".join("  " * d + f"- level {d}" for d in range(500)) * 4), 2000),
    "nested_quotes_100k": (lambda: one(">" * 100_000 + " deep quote"), 2000),
    "nested_quote_lines": (lambda: one("\n".join(">" * d + f" q{d}" for d in range(1, 2000))), 2000),
    "unterminated_fence_1mb": (lambda: one("```python\n" + "x = compute(1, 2)\n" * 55_000), 2000),
    "unterminated_tables": (lambda: one("| a | b\n| c | d |\n" * 10_000), 2000),
    "binary_junk_1mb": (lambda: one(random.Random(3).randbytes(MB).decode("latin-1")), 4000),
    "surrogates": (lambda: one("\ud800 text \udfff more \udbff\udc00 " * 20_000), 2000),
    "rtl_zero_width": (lambda: one("\u202eשלום\u200b עולם\u200d \u2066x\u2069 مرحبا " * 20_000), 2000),
    "emoji": (lambda: one("🙂👍🏽👨‍👩‍👧 ok " * 50_000), 2000),
    "whitespace_only": (lambda: one(" \t\n\r\x0b\x0c\u00a0\u2028" * 50_000), 2000),
    # A line with a pipe, then a long blank-looking line: the table-separator rule runs on it.
    "table_then_long_blank_line": (lambda: one("a | b\n" + " " * 200_000 + "x\n| c | d |\n" + "\t" * 200_000), 2000),
}


def run(name: str, collect: bool = False, pause: bool = True, gc_stats: bool = False) -> dict[str, Any]:
    import gc

    from discourse_memory import compact, gc_pause, get_token_counter

    if not pause:
        gc_pause.ENABLED = False
    compact([{"role": "user", "content": "Warm up. The pipeline loads once."}], 100)
    build, budget = CASES[name]
    msgs = build()
    chars = sum(len(m.get("content") or "") for m in msgs)
    collections: dict[str, list[float]] = {}
    began = [0.0]

    def watch(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            began[0] = time.perf_counter()
        else:
            entry = collections.setdefault(f"gen{info['generation']}", [0, 0.0])
            entry[0] += 1
            entry[1] = round(entry[1] + time.perf_counter() - began[0], 4)

    if gc_stats:
        gc.callbacks.append(watch)
    start = time.perf_counter()
    result = compact(msgs, budget)
    if collect:
        gc.collect()
    seconds = time.perf_counter() - start
    if gc_stats:
        gc.callbacks.remove(watch)
    counter = get_token_counter()
    def count(t: str) -> int:
        return counter.count(t.encode("utf-8", "replace").decode("utf-8"))
    tokens = sum(count(m["content"]) for m in result.messages if isinstance(m.get("content"), str))
    tokens += sum(count(c["function"]["name"]) + count(c["function"]["arguments"])
                  for m in result.messages for c in m.get("tool_calls") or [])
    real = [s for s in result.sources if s is not None]
    ok = (tokens <= budget and result.tokens_after <= budget and result.sources.count(None) <= 1
          and real == sorted(set(real)) and result.messages[-1] == msgs[-1])
    return {"case": name, "seconds": round(seconds, 3), "messages": len(msgs), "chars": chars,
            "tokens_before": result.tokens_before, "tokens_after": result.tokens_after, "budget": budget,
            "view_tokens": tokens, "ok": ok, **({"gc": collections} if gc_stats else {})}


if __name__ == "__main__":
    flags = sys.argv[2:]
    print(json.dumps(run(sys.argv[1], collect="--collect" in flags, pause="--no-pause" not in flags,
                         gc_stats="--gc-stats" in flags)))

"""A question that names a key across many tool results (issue 50, item 2).

    python benchmarks/bench_key_focus.py [--results 74] [--share 0.27]

Builds ``discourse_memory.sample.status_checks``: a chat of ``--results``
``get_service_status`` results (about 300 messages at 74), asks "Which ticket had the
highest p99, and on which database?" as the newest turn, and compacts it to ``--share``
of its tokens. Prints how many results' p99 values the view holds (its text or its note),
how many of them stand on one line (a message's line, a note entry's line) with what names
their result (its ticket; its service), whether the highest p99 and that result's database
and ticket are among them, and the note's share of the view (the issue's bar for an agent's
view at 25%: at most 20%).
"""

from __future__ import annotations

import argparse
import json
import re

from discourse_memory import compact, count_messages
from discourse_memory.sample import status_checks

QUESTION = "Which ticket had the highest p99, and on which database?"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--results", type=int, default=74)
    parser.add_argument("--share", type=float, default=0.27)
    args = parser.parse_args()
    msgs = status_checks(args.results) + [{"role": "user", "content": QUESTION}]
    total = count_messages(msgs)
    budget = int(args.share * total)
    results = [json.loads(m["content"]) for m in msgs if m["role"] == "tool"]
    top = max(results, key=lambda s: s["p99_latency_ms"])
    view = compact(msgs, budget)
    text = "\n".join(str(m.get("content") or "") for m in view.messages)
    held = sum(f"p99_latency_ms: {s['p99_latency_ms']}" in text or f'"p99_latency_ms": {s["p99_latency_ms"]}' in text
               for s in results)
    note = count_messages([{"role": "system", "content": view.note}]) if view.note else 0
    print(f"{len(msgs)} messages, {total} tokens, {len(results)} results; budget {budget} ({args.share:.0%})")
    print(f"p99 values held with their key: {held} of {len(results)}")
    lines = [line for m in view.messages for line in str(m.get("content") or "").splitlines()]
    named = {name: sum(any(_p99_on(line, s) and _names(line, s[name]) for line in lines) for s in results)
             for name in ("ticket", "service")}
    print(f"p99 values on one line with their result's ticket: {named['ticket']} of {len(results)}; "
          f"with its service: {named['service']} of {len(results)}")
    print(f"tickets anywhere in the view: {sum(any(_names(line, s['ticket']) for line in lines) for s in results)} "
          f"of {len(results)}")
    top_held = f"p99_latency_ms: {top['p99_latency_ms']}" in text
    print(f"highest p99 ({top['p99_latency_ms']} ms, {top['service']}) held: {top_held}; its database "
          f"{top['db']}: {top['db'] in text}; its service named: {top['service'] in text}; its ticket "
          f"{top['ticket']}: {top['ticket'] in text}")
    print(f"view {view.tokens_after} tokens, note {note} tokens ({note / max(view.tokens_after, 1):.0%} of the view; "
          "bar for an agent's view at 25%: at most 20%)")


def _p99_on(line: str, result: dict) -> bool:
    """The result's p99 value stands on ``line`` with its key (as the note or the JSON writes it)."""
    return re.search(rf'p99_latency_ms"?: {result["p99_latency_ms"]}(?![\d.])', line) is not None


def _names(line: str, name: str) -> bool:
    return re.search(rf"(?<![\w-]){re.escape(name)}(?![\w-])", line) is not None


if __name__ == "__main__":
    main()

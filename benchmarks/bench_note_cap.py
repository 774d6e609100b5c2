"""The note's share of a small view of a long history, and the values the view holds
against keeping the newest messages (issue 50, item 1).

    python benchmarks/bench_note_cap.py [--messages 12001] [--budgets 8000,2000,600]

Builds two chats of about ``--messages`` messages: the built-in sample conversation
(``sample_conversation``: tool calls, tables, runbooks; about 2 MB) and a chat of plain
turns each stating a ticket and a reference id among filler words (about 6.5 MB, a
million tokens). Compacts each to every budget and prints: the view's messages and
tokens, the note's tokens and share of the view (the bar: at most a quarter), and the
distinct values (the evaluation's grader literals) the view holds against the newest
messages that fit the same budget (the bar: at least as many).
"""

from __future__ import annotations

import argparse
import random
import time

from discourse_memory import compact, count_messages
from discourse_memory.sample import sample_conversation
from discourse_memory_evaluation.grader import extract_literals
from discourse_memory_evaluation.metrics import TextIndex, history_literals, message_text

WORDS = ("deploy service order service error the queue payment retry cache user login timeout latency "
         "rollback config check worker node database replica index backup job failed restart ok and of to").split()


def ticket_chat(n: int, seed: int = 7) -> list[dict]:
    """``n`` turns of about 90 filler words, each stating ``Ticket T-k`` and ``Reference R-nnnnn``."""
    rng = random.Random(seed)
    out = []
    for i in range(n):
        words = [rng.choice(WORDS) for _ in range(rng.randint(70, 100))]
        words.insert(rng.randint(5, 40), f"Ticket T-{i % 97}")
        words.insert(rng.randint(41, 70), f"Reference R-{rng.randint(10000, 99999)}")
        text = " ".join(words)
        out.append({"role": "user" if i % 2 == 0 else "assistant", "content": text[0].upper() + text[1:] + "."})
    return out


def sample_chat(n: int) -> list[dict]:
    msgs = sample_conversation(n // 18 + 1)[:n]
    while msgs[-1].get("tool_calls") or msgs[-1]["role"] == "tool":
        msgs.pop()
    return msgs


def newest(msgs: list[dict], budget: int) -> list[dict]:
    """The newest messages that fit ``budget`` (whole messages, as a plain buffer keeps them)."""
    out: list[dict] = []
    for m in reversed(msgs):
        if count_messages(out + [m]) > budget:
            break
        out.insert(0, m)
    return out


def bare_calls(view: list[dict]) -> list[dict]:
    """The view's tool calls with no text whose result it shows as the placeholder ``…``,
    and those placeholders: a call kept for the shape of the exchange, its result left out."""
    elided = {m.get("tool_call_id") for m in view if m.get("role") == "tool" and m.get("content") == "…"}
    return [m for m in view if m.get("role") == "tool" and m.get("tool_call_id") in elided
            or m.get("tool_calls") and not m.get("content")
            and all(c.get("id") in elided for c in m["tool_calls"])]


def held(literals: list[str], view: list[dict]) -> int:
    index = TextIndex("\n\n".join(message_text(m) for m in view))
    return sum(1 for x in literals if x in index)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--messages", type=int, default=12001)
    parser.add_argument("--budgets", default="8000,2000,600")
    args = parser.parse_args()
    budgets = [int(b) for b in args.budgets.split(",")]
    for name, msgs in (("sample", sample_chat(args.messages)), ("tickets", ticket_chat(args.messages))):
        total = count_messages(msgs)
        literals = history_literals(msgs)
        print(f"{name}: {len(msgs)} messages, {total} tokens, {sum(len(m.get('content') or '') for m in msgs)} "
              f"characters, {len(literals)} distinct values")
        for budget in budgets:
            start = time.perf_counter()
            view = compact(msgs, budget)
            seconds = time.perf_counter() - start
            note = count_messages([{"role": "system", "content": view.note}]) if view.note else 0
            mine = held(literals, view.messages)
            theirs = held(literals, newest(msgs, budget))
            print(f"  budget {budget}: view {len(view.messages)} messages, {view.tokens_after} tokens; note {note} "
                  f"tokens ({note / max(view.tokens_after, 1):.1%} of the view); values held {mine} "
                  f"(newest messages: {theirs}); {seconds:.1f} s")
            bare = bare_calls(view.messages)
            print(f"    tool calls shown without their result, with the '…' standing for it: {len(bare)} messages, "
                  f"{count_messages(bare) if bare else 0} tokens")


if __name__ == "__main__":
    main()

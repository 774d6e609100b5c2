"""Benchmark: DiscourseMemoryBuffer.get() against LlamaIndex's ChatMemoryBuffer.get() on LoCoMo.

    python integrations/llamaindex/scripts/bench_locomo_buffer.py [LOCOMO_JSON] [--share 0.25]
        [--repeat 5] [--json OUT.json]

Default data path: ../shared/data/locomo/locomo_dev.json, relative to the repository
root. When the file
is absent the script says so and exits 0 without measuring anything.

Both buffers get the same history (one ChatMessage per LoCoMo turn, built by the
shared loader ``discourse_memory_evaluation.datasets.load_locomo``), the same token
limit (``--share`` of the conversation's tokens: sum over messages of the cl100k
tokens of the text) and the same tokenizer (LlamaIndex's default ``get_tokenizer()``).

Speed, on the conversation with the most messages (the core caches the analysis of
every message it has seen, so the cost of our get() depends on what is new):
- ``ChatMemoryBuffer.get``: median of ``--repeat`` calls.
- ours, ``pipeline load``: the core's first use in the process (its text pipeline
  loads), measured on another, tiny conversation before anything else.
- ours, ``first get``: the first get() of this conversation: all messages analysed.
- ours, ``after one new message``: median of ``--repeat`` chat turns, each one
  ``put`` of a new message then ``get()`` -- what a chat engine does every turn.
- ours, ``nothing new``: median of ``--repeat`` further get() calls.
The bar's speed ratio is ``ChatMemoryBuffer`` median / ours after one new message;
the ratio for the first get is printed too.

Quality, on every conversation: the view of each buffer is scored with the shared
metrics of ``discourse_memory_evaluation.metrics`` (its own grader, independent of the
compactor): literal recall (distinct literals of the full history found in the view
text) and QA-answer containment (answers of QA categories 1-4 found in the view text,
case and whitespace ignored), averaged over conversations.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[3]
DEFAULT_DATA = REPO.parent / "shared" / "data" / "locomo" / "locomo_dev.json"


def _timed(fn: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("data", nargs="?", default=str(DEFAULT_DATA), help="LoCoMo JSON file")
    parser.add_argument("--share", type=float, default=0.25, help="token limit as a share of each conversation")
    parser.add_argument("--repeat", type=int, default=5, help="timed calls per measurement")
    parser.add_argument("--json", dest="json_out", help="also write the results to this JSON file")
    args = parser.parse_args(argv)

    data = Path(args.data)
    if not data.is_file():
        print(f"SKIPPED: LoCoMo data not found at {data} (pass its path as the first argument); nothing measured.")
        return 0
    if not 0 < args.share <= 1 or args.repeat < 1:
        parser.error("--share must be in (0, 1] and --repeat >= 1")

    sys.path.insert(0, str(REPO))  # the core, when run from a checkout
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.memory import ChatMemoryBuffer
    from llama_index.core.utils import get_tokenizer
    from llama_index.memory.discourse import DiscourseMemoryBuffer

    from discourse_memory_evaluation.datasets import load_locomo
    from discourse_memory_evaluation.metrics import (
        TextIndex,
        answer_containment,
        history_literals,
        literal_recall,
        view_text,
    )

    tokenizer = get_tokenizer()
    conversations = load_locomo(data)

    def as_chat(messages: list[dict]) -> list[ChatMessage]:
        return [ChatMessage(role=m["role"], content=m["content"]) for m in messages]

    def as_dicts(view: list[ChatMessage]) -> list[dict]:
        return [{"role": m.role.value, "content": m.content or ""} for m in view]

    def tokens(messages: list[dict]) -> int:
        return sum(len(tokenizer(m["content"] or "")) for m in messages)

    # ---- speed ---------------------------------------------------------------------
    longest = max(conversations, key=lambda c: len(c.messages))
    history = as_chat(longest.messages)
    limit = int(tokens(longest.messages) * args.share)

    # Once per process: the core loads its text pipeline on first use.
    other = min(conversations, key=lambda c: len(c.messages))
    pipeline_load, _ = _timed(
        DiscourseMemoryBuffer.from_defaults(
            chat_history=as_chat(other.messages[:4]), token_limit=20, tokenizer_fn=tokenizer
        ).get
    )
    ours = DiscourseMemoryBuffer.from_defaults(chat_history=list(history), token_limit=limit, tokenizer_fn=tokenizer)
    first, first_view = _timed(ours.get)  # every message analysed for the first time
    steady = []  # a chat engine's turn: one new message, then get()
    for k in range(args.repeat):
        ours.put(ChatMessage(role="user", content=f"{longest.messages[0]['content'][:40]} (follow-up {k})"))
        steady.append(_timed(ours.get)[0])
    again = [_timed(ours.get)[0] for _ in range(args.repeat)]  # nothing new
    theirs = ChatMemoryBuffer.from_defaults(
        chat_history=list(ours.get_all()), token_limit=limit, tokenizer_fn=tokenizer
    )
    baseline = [_timed(theirs.get)[0] for _ in range(args.repeat)]
    cmb = statistics.median(baseline)
    speed = {
        "conversation": longest.id,
        "messages": len(longest.messages),
        "token_limit": limit,
        "chat_memory_buffer_median_s": round(cmb, 4),
        "ours_pipeline_load_s": round(pipeline_load, 4),
        "ours_first_get_s": round(first, 4),
        "ours_after_one_new_message_median_s": round(statistics.median(steady), 4),
        "ours_unchanged_median_s": round(statistics.median(again), 4),
        "ratio_first_get": round(cmb / first, 1),
        "ratio_after_one_new_message": round(cmb / statistics.median(steady), 1),
        "ratio_unchanged": round(cmb / statistics.median(again), 1),
        "ours_view_tokens": ours.count_tokens(first_view),
    }

    # ---- quality ---------------------------------------------------------------------
    rows = []
    for conv in conversations:
        history = as_chat(conv.messages)
        limit = int(tokens(conv.messages) * args.share)
        views = {
            "ours": DiscourseMemoryBuffer.from_defaults(
                chat_history=history, token_limit=limit, tokenizer_fn=tokenizer
            ).get(),
            "chat_memory_buffer": ChatMemoryBuffer.from_defaults(
                chat_history=history, token_limit=limit, tokenizer_fn=tokenizer
            ).get(),
        }
        literals = history_literals(conv.messages)
        answers = [qa.answer for qa in conv.qa if qa.category in (1, 2, 3, 4) and qa.answer is not None]
        row: dict[str, Any] = {"conversation": conv.id, "messages": len(history), "token_limit": limit}
        for name, view in views.items():
            dicts = as_dicts(view)
            index = TextIndex(view_text(dicts))
            row[f"{name}_tokens"] = tokens(dicts)
            row[f"{name}_literal_recall"] = literal_recall(literals, index)
            row[f"{name}_answer_containment"] = answer_containment(answers, index)
        rows.append(row)

    def mean(key: str) -> float:
        values = [r[key] for r in rows if r[key] is not None]
        return round(statistics.mean(values), 4) if values else float("nan")

    quality = {
        "share": args.share,
        "conversations": len(rows),
        "ours_literal_recall": mean("ours_literal_recall"),
        "chat_memory_buffer_literal_recall": mean("chat_memory_buffer_literal_recall"),
        "ours_answer_containment": mean("ours_answer_containment"),
        "chat_memory_buffer_answer_containment": mean("chat_memory_buffer_answer_containment"),
        "ours_over_limit": sum(r["ours_tokens"] > r["token_limit"] for r in rows),
        "chat_memory_buffer_over_limit": sum(r["chat_memory_buffer_tokens"] > r["token_limit"] for r in rows),
    }

    print(f"data: {data}")
    print(
        f"speed, get() on {speed['conversation']} ({speed['messages']} messages), "
        f"token limit {speed['token_limit']} ({args.share:.0%}), same tokenizer:"
    )
    print(f"  ChatMemoryBuffer.get                      median {cmb:.4f} s of {args.repeat}")
    print(f"  DiscourseMemoryBuffer: core pipeline load   {pipeline_load:.4f} s (once per process, before any get)")
    print(f"  ... first get (all messages analysed)       {first:.4f} s")
    print(f"  ... get after one new message (chat turn)   median {statistics.median(steady):.4f} s of {args.repeat}")
    print(f"  ... get with nothing new                    median {statistics.median(again):.4f} s of {args.repeat}")
    print(
        f"  speed ratio ChatMemoryBuffer / ours: {speed['ratio_after_one_new_message']}x per chat turn, "
        f"{speed['ratio_unchanged']}x unchanged, {speed['ratio_first_get']}x first get"
    )
    print(f"quality at {args.share:.0%} of each conversation's tokens ({len(rows)} conversations):")
    print(f"  {'conversation':<14}{'msgs':>6}{'limit':>7}  {'literal recall':>22}  {'QA containment':>22}")
    print(f"  {'':<14}{'':>6}{'':>7}  {'ours':>10} {'buffer':>11}  {'ours':>10} {'buffer':>11}")
    for r in rows:
        print(
            f"  {r['conversation']:<14}{r['messages']:>6}{r['token_limit']:>7}  "
            f"{r['ours_literal_recall']:>10.3f} {r['chat_memory_buffer_literal_recall']:>11.3f}  "
            f"{r['ours_answer_containment']:>10.3f} {r['chat_memory_buffer_answer_containment']:>11.3f}"
        )
    print(
        f"  {'mean':<14}{'':>6}{'':>7}  {quality['ours_literal_recall']:>10.3f} "
        f"{quality['chat_memory_buffer_literal_recall']:>11.3f}  {quality['ours_answer_containment']:>10.3f} "
        f"{quality['chat_memory_buffer_answer_containment']:>11.3f}"
    )
    print(
        f"  views over the limit: ours {quality['ours_over_limit']}, "
        f"ChatMemoryBuffer {quality['chat_memory_buffer_over_limit']}"
    )
    if args.json_out:
        Path(args.json_out).write_text(json.dumps({"speed": speed, "quality": quality, "rows": rows}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

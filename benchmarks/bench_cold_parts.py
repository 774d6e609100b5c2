"""Where a cold compaction of the 10,000-message history goes, against the parts of it
that any analysis of that history must pay, and how deep in it the view reaches.

    python benchmarks/bench_cold_parts.py [--repeat 3]

1. **Cold compaction**: ``tests/reliability/large_case.py 10k_messages`` in fresh
   processes (pipeline loaded, nothing of the history cached), median of ``--repeat``.
2. **Floor**: on the same history, in this process, the work that stays whatever the
   Python around it does -- spaCy's tokenizer over the paragraphs the analysis sends it,
   several per doc as the analysis joins them, its cache primed as the analysis primes
   it (a fresh pipeline, so its vocabulary is as cold as in 1.), one tiktoken encode of
   each distinct text, the literal pattern over each distinct unit, and block splitting
   of each text (unit objects are built only for what a view shows). Their sum against 1. is what a rewrite of the analysis in Python
   could at best remove.
3. **Depth**: at the case's budget, where the messages the view shows lie, in multiples
   of the budget counted back from the newest message. An analysis that skipped
   messages deeper than k budgets (treating them as omitted) would change every view
   with shown messages beyond k.
4. **Memory**: what a fresh ``Compactor`` holds after compacting the history (its
   analysis cache and columns), and the peak during the call, by ``tracemalloc``.
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "reliability"))

import large_case  # noqa: E402


def cold_seconds(repeat: int) -> list[float]:
    out = []
    for _ in range(repeat):
        line = subprocess.run(
            [sys.executable, str(ROOT / "tests" / "reliability" / "large_case.py"), "10k_messages"],
            capture_output=True, text=True, check=True,
        ).stdout
        out.append(json.loads(line)["seconds"])
    return out


def floor_parts(messages: list[dict[str, Any]]) -> dict[str, float]:
    import spacy

    from discourse_memory import Compactor, doc_tokens, get_token_counter
    from discourse_memory.blocks import split_blocks
    from discourse_memory.gc_pause import gc_paused
    from discourse_memory.literals import combined_pattern
    from discourse_memory.nlp import get_pipeline
    from discourse_memory.segment import segment_texts

    texts = list(dict.fromkeys(m["content"] for m in messages if isinstance(m.get("content"), str) and m["content"]))
    # Record the paragraphs the analysis sends to the tokenizer.
    seen: list[tuple[list[str], int | None]] = []
    original, of_texts = doc_tokens.DocTokens.__dict__["of_texts"], doc_tokens.DocTokens.of_texts

    def recording(tokenizer: Any, batch: list[str], per_doc: int | None = None) -> Any:
        seen.append((batch, per_doc))
        return of_texts(tokenizer, batch, per_doc)

    doc_tokens.DocTokens.of_texts = recording
    try:
        pieces = segment_texts(texts, get_pipeline())
    finally:
        doc_tokens.DocTokens.of_texts = original
    bodies = list(dict.fromkeys(t[p.start:p.end] for t, ps in zip(texts, pieces) for p in ps))
    paragraphs = [t for batch, _ in seen for t in batch]
    joined = [j for batch, per_doc in seen for j in doc_tokens.doc_texts(batch, per_doc)]
    units = sum(len(f.units) for fs in Compactor().analyzer.fields(_validated(messages)) for f in fs)
    encoding = get_token_counter()._enc  # the tiktoken Encoding behind the default counter

    def timed(fn: Any) -> float:
        # Collector paused, as the analysis pauses it for a batch this large.
        with gc_paused():
            start = time.perf_counter()
            fn()
            return time.perf_counter() - start

    fresh = spacy.blank("en")
    return {
        "spaCy tokenizer over the paragraphs": timed(
            lambda: (doc_tokens.prime_cache(fresh.tokenizer, paragraphs), [fresh.tokenizer(t) for t in joined])),
        "one tiktoken encode per text": timed(lambda: [encoding.encode_ordinary(t) for t in texts]),
        "literal pattern over each unit": timed(lambda: [list(combined_pattern().finditer(b)) for b in bodies]),
        "block splitting": timed(lambda: [list(split_blocks(t)) for t in texts]),
        "_sizes": {"texts": len(texts), "paragraphs": len(paragraphs), "units": units, "distinct bodies": len(bodies)},
    }


def _validated(messages: list[dict[str, Any]]) -> Any:
    from discourse_memory.messages import validate_messages

    return validate_messages(messages)


def depth(messages: list[dict[str, Any]], budget: int) -> dict[str, Any]:
    from discourse_memory import compact, get_token_counter

    count = get_token_counter().count
    shown = [s for s in compact(messages, budget).sources if s is not None]
    after, total = [0] * len(messages), 0
    for i in range(len(messages) - 1, -1, -1):
        total += count(messages[i].get("content") or "")
        after[i] = total
    deep = [after[s] / budget for s in shown]
    return {"shown": len(shown), **{f"beyond {k}x": sum(d > k for d in deep) for k in (4, 8, 16)},
            "deepest x": round(max(deep), 1)}


def memory(messages: list[dict[str, Any]], budget: int) -> str:
    import gc
    import tracemalloc

    from discourse_memory import Compactor

    gc.collect()
    tracemalloc.start()
    compactor = Compactor()
    compactor.compact(messages, budget)
    gc.collect()
    held, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del compactor
    return f"held after the call {held / 1e6:.1f} MB, peak during it {peak / 1e6:.1f} MB"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    cold = cold_seconds(args.repeat)
    from discourse_memory import compact

    compact([{"role": "user", "content": "Warm up: the pipeline loads once."}], 100)
    build, budget = large_case.CASES["10k_messages"]
    messages = build()
    parts = floor_parts(messages)
    sizes = parts.pop("_sizes")
    floor = sum(parts.values())
    median = statistics.median(cold)
    print(f"10,000-message history: {sizes}")
    print(f"cold compaction, fresh processes: {', '.join(f'{s:.2f}' for s in cold)} s (median {median:.2f} s)")
    print("floor, same history, this process:")
    for name, seconds in parts.items():
        print(f"  {name:40} {seconds:.3f} s")
    print(f"  {'sum':40} {floor:.3f} s = {floor / median:.0%} of the cold compaction")
    print(f"depth of the view at budget {budget:,}: {depth(messages, budget)}")
    print(f"memory of a fresh Compactor (tracemalloc): {memory(messages, budget)}")


if __name__ == "__main__":
    main()

"""Memory of a long-running process: compact a new message of one-off words, again and again.

    python benchmarks/bench_memory.py [--rounds 10] [--items 30000] [--unbounded]

Each round compacts a conversation whose first message holds ``--items`` list items of
words never seen before (ids, host names: what chats are full of), then prints the
process's resident memory and the size of the spaCy vocabulary. With the library's
bounds the memory settles; ``--unbounded`` lifts them (vocabulary reload and analysis
cache limit) to show the growth they prevent.
"""

from __future__ import annotations

from dataclasses import replace

import argparse
import time


def rss_mb() -> float:
    with open("/proc/self/statm") as f:  # Linux
        return int(f.read().split()[1]) * 4096 / 2**20


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=10)
    ap.add_argument("--items", type=int, default=30_000)
    ap.add_argument("--unbounded", action="store_true")
    args = ap.parse_args()

    from discourse_memory import compact, nlp, units

    if args.unbounded:
        nlp.LIMITS = replace(nlp.LIMITS, vocabulary=10**12)
        units._PIECE_CACHE_LIMIT = 10**12
    compact([{"role": "user", "content": "Warm up."}], 100)
    print(f"{'round':>5} {'seconds':>8} {'vocabulary strings':>19} {'resident MB':>12}")
    print(f"{'-':>5} {'':>8} {len(nlp.get_pipeline().vocab.strings):>19,} {rss_mb():>12.0f}")
    for r in range(args.rounds):
        text = "\n".join(f"- Owner w{r}x{i} filed item-{r}-{i} today." for i in range(args.items))
        conversation = [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"},
                        {"role": "user", "content": "next"}]
        start = time.perf_counter()
        compact(conversation, 500)
        seconds = time.perf_counter() - start
        print(f"{r:>5} {seconds:>8.2f} {len(nlp.get_pipeline().vocab.strings):>19,} {rss_mb():>12.0f}")


if __name__ == "__main__":
    main()

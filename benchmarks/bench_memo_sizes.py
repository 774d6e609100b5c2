"""How large the conversation's memos grow over many turns of a long agent run.

    python benchmarks/bench_memo_sizes.py [--history ../shared/data/agents/swe_dev.jsonl]
                                          [--tokens 65000] [--turns 200] [--every 50]

A ``DiscourseMemory`` holds the first runs of ``--history`` up to ``--tokens`` (as
``bench_core_speed.py --history``); then ``--turns`` turns of appending one ~500-token
message and taking a view at 25% of the history's tokens. Printed every ``--every`` turns:
the units of the conversation and the entries of the memos that are kept from view to view
and are not one per message, unit or literal row (``fit.candidates._Candidates.covering``,
``fit.plan._Made``'s dicts), and the process's CPU seconds of those turns. Run it with
``PYTHONPATH=<a checkout>`` from outside a worktree to size another version.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_core_speed import new_message, real_history  # noqa: E402

from discourse_memory import DiscourseMemory, get_token_counter  # noqa: E402
from discourse_memory.fit.candidates import _Candidates  # noqa: E402
from discourse_memory.fit.plan import _Made  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--history", default=str(Path(__file__).resolve().parents[1] / "../shared/data/agents/swe_dev.jsonl"))
    ap.add_argument("--tokens", type=int, default=65000)
    ap.add_argument("--turns", type=int, default=200)
    ap.add_argument("--every", type=int, default=50)
    a = ap.parse_args()
    msgs = real_history(a.history, a.tokens)
    counter = get_token_counter()
    budget = sum(counter.count(m.get("content") or "") for m in msgs) // 4
    mem = DiscourseMemory(msgs)
    mem.view(budget)
    cols = mem._compactor._cols
    start = time.process_time()
    for i in range(1, a.turns + 1):
        mem.append(new_message(i))
        mem.view(budget)
        if i % a.every == 0:
            made = cols.memo(_Made)
            print(f"turn {i:4d}: units {len(cols.u_msg.view):6d}  covering {len(cols.memo(_Candidates).covering):6d}  "
                  f"plan narrowed/joined/entries {len(made.narrowed)}/{len(made.joined)}/{len(made.entries)}  "
                  f"cpu {time.process_time() - start:.1f} s", flush=True)


if __name__ == "__main__":
    main()

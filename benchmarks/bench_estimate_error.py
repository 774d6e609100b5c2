"""How far a view's first take's estimates are from its render, split into the note and the rest.

    python benchmarks/bench_estimate_error.py [--per-file 8] [--shares 0.1,0.25,0.5]

On the first ``--per-file`` conversations of each evaluation file (``../shared/data``, or
``DISCOURSE_MEMORY_DATA``), at half and all of each, compacted to each share of its tokens:
the fitting stage's first take (``fit.fitting._fit``'s, at the room the estimates leave) is
made and its plan rendered once more beside the view (the view itself is the fit's own, and
unchanged). Prints per file and share: the note's tokens as the take estimated them (its
items, entry labels and date lines, ``Chosen.noted``, and the note's frame) and as rendered
(with its framing as a message); the rest of the view likewise (what is fixed, and the
units and calls the take chose); and each estimate's excess as a share of the budget. A
view that takes once (no second take of the room the first left) comes out emptier by
about the sum of the two.
"""

from __future__ import annotations

import argparse
import os
import statistics
from collections import defaultdict
from pathlib import Path
from typing import Any

from discourse_memory import compact, count_messages
from discourse_memory.fit import fitting
from discourse_memory.fit.limits import LIMITS
from discourse_memory_evaluation.datasets import load

DATA = Path(os.environ.get("DISCOURSE_MEMORY_DATA", Path(__file__).resolve().parents[1] / ".." / "shared" / "data"))
FILES = ("locomo/locomo_dev.json", "agents/tau_airline_dev.jsonl", "agents/swe_dev.jsonl",
         "multilingual/crosswoz_dev.jsonl")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--per-file", type=int, default=8)
    ap.add_argument("--shares", default="0.1,0.25,0.5")
    args = ap.parse_args()
    rows: dict[tuple[str, float], list[tuple[float, ...]]] = defaultdict(list)
    at: dict[str, Any] = {}
    original = fitting._fit

    def first_take(scene: Any, step: Any, protected: frozenset[int], fixed: int, longest: int,
                   outlined: frozenset[int] = frozenset()) -> Any:
        # (the first lines of fitting._fit: the room of its first take)
        budget = scene.budget
        ranked = fitting._rank(scene, protected, outlined)
        margin = max(2, int(budget * LIMITS.margin_share))
        frame = fitting._frame_of(scene, ranked)
        known = fixed + frame - longest
        room = max(budget - known - margin, 0.0) / (1.0 - LIMITS.estimate_over)
        chosen = fitting._take(ranked, room)
        tokens, note = scene.measure(fitting._plan(scene, ranked, chosen, step.name))
        options = scene.options
        note_tokens = scene.count(note) + options.overhead({"role": options.note_role, "content": note})
        rows[at["key"]].append((chosen.noted + frame, note_tokens, known - frame + chosen.spent - chosen.noted,
                                tokens - note_tokens, budget))
        return original(scene, step, protected, fixed, longest, outlined)

    fitting._fit = first_take
    try:
        for name in FILES:
            for share in (float(s) for s in args.shares.split(",")):
                at["key"] = (Path(name).stem, share)
                for conversation in load(str(DATA / name))[:args.per_file]:
                    msgs = conversation.messages
                    for cut in (len(msgs) // 2, len(msgs)):
                        prefix = msgs[:cut]
                        compact(prefix, max(1, int(count_messages(prefix) * share)), relax=True)
    finally:
        fitting._fit = original
    print(f"{'file':24s} {'share':>5s} {'views':>5s} {'note: estimated':>15s} {'rendered':>8s} "
          f"{'rest: estimated':>15s} {'rendered':>8s} {'excess % of budget: note':>24s} {'rest':>5s}")
    for (name, share), got in rows.items():
        est_note, note, est_rest, rest, budget = map(list, zip(*got))
        mean = statistics.mean
        print(f"{name:24s} {share:5} {len(got):5d} {mean(est_note):15.0f} {mean(note):8.0f} {mean(est_rest):15.0f} "
              f"{mean(rest):8.0f} {100 * mean([(e - a) / b for e, a, b in zip(est_note, note, budget)]):24.2f} "
              f"{100 * mean([(e - a) / b for e, a, b in zip(est_rest, rest, budget)]):5.2f}")


if __name__ == "__main__":
    main()

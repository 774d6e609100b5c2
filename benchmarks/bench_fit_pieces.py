"""Where the take's estimate of a view differs from its render, piece by piece.

    python benchmarks/bench_fit_pieces.py [--per-file 6] [FILE ...]

For the first ``--per-file`` conversations of each data file (default: the four files of
``../shared/data``), at half and all of each conversation and at 10%, 25% and 50% of its
tokens, one ``compact(..., relax=True)`` each; the fit's first take is compared with the
render that confirms it, in three parts, each as a share of the budget (below 0: the
estimate counted more than the render holds, and the view is left short):

- messages: the shown messages less what is fixed (protected messages, their results'
  placeholders) against what the take spent on units, marks, labels, date lines and
  framing (``Chosen.spent`` less ``Chosen.noted``);
- note entries: the note less its frame against what the take spent on record items,
  entry labels, session date lines and the line opening the entries (``Chosen.noted``);
- frame: the note's frame as rendered against the bound the take was given
  (``fitting._frame_of``: the parts omitted at most those the options start from, a
  clause of clipped units if any unit can be clipped, the line of values dropped if
  any could be).

The fitting stage is watched from outside (``fit.fitting._fit``, ``_take``, ``_rank`` and
the scene's ``measure`` wrapped): the views are the library's own.
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
DATA = HERE.parent.parent / "shared" / "data"
FILES = ["locomo/locomo_dev.json", "agents/tau_airline_dev.jsonl", "agents/swe_dev.jsonl",
         "multilingual/crosswoz_dev.jsonl"]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", help="data files (default: the four of ../shared/data)")
    ap.add_argument("--per-file", type=int, default=6)
    args = ap.parse_args()
    try:
        from discourse_memory_evaluation.datasets import load
    except ImportError:
        sys.exit("needs the evaluation package (pip install -e evaluation)")
    from discourse_memory import compact, count_messages
    from discourse_memory.fit import fitting

    rows: list[tuple[float, float, float]] = []
    take, fit, rank = fitting._take, fitting._fit, fitting._rank

    def watched_fit(scene: Any, step: Any, protected: Any, fixed: int, longest: int, *rest: Any) -> Any:
        seen: dict[str, Any] = {}

        def watched_rank(*a: Any) -> Any:
            seen["ranked"] = rank(*a)
            return seen["ranked"]

        def watched_take(ranked: Any, room: float, *stop: Any, **kw: Any) -> Any:
            chosen = take(ranked, room, *stop, **kw)
            seen.setdefault("first", chosen)
            return chosen

        def measure(plan: Any) -> tuple[int, str]:
            got = scene.measure(plan)
            if "render" not in seen:
                seen["render"] = got
                seen["frame"] = fitting._frame(scene, *plan.counts, len(plan.record.dropped))
            return got

        fitting._take, fitting._rank = watched_take, watched_rank
        try:
            plan = fit(dataclasses.replace(scene, measure=measure), step, protected, fixed, longest, *rest)
        finally:
            fitting._take, fitting._rank = take, rank
        chosen = seen.get("first")
        if chosen is not None and "render" in seen:
            total, note = seen["render"]
            options = scene.options
            note_tokens = scene.count(note) + options.overhead({"role": options.note_role, "content": note})
            bound = fitting._frame_of(scene, seen["ranked"])
            budget = scene.budget
            messages = (total - note_tokens - (fixed - longest)) - (chosen.spent - chosen.noted)
            entries = (note_tokens - seen["frame"]) - chosen.noted
            rows.append((messages / budget * 100, entries / budget * 100, (seen["frame"] - bound) / budget * 100))
        return plan

    fitting._fit = watched_fit
    try:
        for name in args.files or [str(DATA / f) for f in FILES]:
            rows.clear()
            for conv in load(name)[:args.per_file]:
                msgs = conv.messages
                for cut in (len(msgs) // 2, len(msgs)):
                    total = count_messages(msgs[:cut])
                    for share in (0.1, 0.25, 0.5):
                        try:
                            compact(msgs[:cut], max(1, int(total * share)), relax=True)
                        except Exception as exc:  # noqa: BLE001 - a view that cannot be made is reported, not fatal
                            print(f"  {Path(name).name}: {type(exc).__name__}: {exc}")
            if not rows:
                print(f"{Path(name).name}: no view was fitted")
                continue
            parts = []
            for label, k in (("messages", 0), ("note entries", 1), ("frame", 2)):
                xs = [r[k] for r in rows]
                parts.append(f"{label} {statistics.median(xs):+.2f}% (least {min(xs):+.2f}, most {max(xs):+.2f})")
            print(f"{Path(name).name}: {len(rows)} views; render less estimate, median over the budget: " + "; ".join(parts))
    finally:
        fitting._fit = fit


if __name__ == "__main__":
    main()

"""How far the take's estimate of a view is from the view's count, and how many renders a view costs.

    python benchmarks/bench_fit_estimates.py [--per-file 6] [FILE ...]

For the first ``--per-file`` conversations of each data file (default: the four files of
``../shared/data``), at half and all of each conversation and at 10%, 25% and 50% of its
tokens, one
``compact(..., relax=True)`` each. Per file it prints:

- the first take's error: the view's count less what is fixed (protected messages, the
  note's frame at its longest), over the room the take spent by its estimates. Below 1 the estimates
  count more than the view holds (the view is left short, and a pass more fills it); above
  1, less (the view overflows, and a pass more cuts it);
- takes a view: how many whole takes (the first, and one for the room left; a cut is the
  first take rewound, :func:`discourse_memory.fit.take.rewound`, not a take);
- renders a view: how many plans were rendered and counted (the first take, a cut's
  each, a take for the room left, each round of longer heads), and how many views were
  lengthened (``fit.lengthen._lengthen``);
- the first render less the budget, as a share of it: where the first take landed
  (below 0 short, above 0 over: a cut follows);
- fill: the returned view's tokens over its budget.

The fitting stage is watched from outside (``fit.fitting._take`` and the scene's
``measure`` wrapped): the views are the library's own.
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

    fits: list[dict[str, Any]] = []
    take, fit, lengthen = fitting._take, fitting._fit, fitting._lengthen

    def watched_fit(scene: Any, step: Any, protected: Any, fixed: int, *rest: Any) -> Any:
        seen: dict[str, Any] = {"fixed": fixed, "budget": scene.budget, "takes": [], "counts": []}

        def watched_take(ranked: Any, room: float, *stop: Any, **kw: Any) -> Any:
            chosen = take(ranked, room, *stop, **kw)
            if not stop:  # (a cut's replay is no estimate of its own)
                seen["takes"].append(chosen.spent)
            return chosen

        def watched_lengthen(*args: Any) -> Any:
            seen["lengthen"] = seen.get("lengthen", 0) + 1
            return lengthen(*args)

        def measure(plan: Any) -> tuple[int, str]:
            got = scene.measure(plan)
            seen["counts"].append(got[0])
            return got

        fitting._take, fitting._lengthen = watched_take, watched_lengthen
        try:
            plan = fit(dataclasses.replace(scene, measure=measure), step, protected, fixed, *rest)
        finally:
            fitting._take, fitting._lengthen = take, lengthen
        fits.append(seen)
        return plan

    fitting._fit = watched_fit
    try:
        for name in args.files or [str(DATA / f) for f in FILES]:
            fits.clear()
            fills = []
            for conv in load(name)[:args.per_file]:
                msgs = conv.messages
                for cut in (len(msgs) // 2, len(msgs)):
                    total = count_messages(msgs[:cut])
                    for share in (0.1, 0.25, 0.5):
                        budget = max(1, int(total * share))
                        try:
                            view = compact(msgs[:cut], budget, relax=True)
                        except Exception as exc:  # noqa: BLE001 - a view that cannot be made is reported, not fatal
                            print(f"  {Path(name).name}: {type(exc).__name__}: {exc}")
                            continue
                        fills.append(view.tokens_after / budget)
            errors = [(f["counts"][0] - f["fixed"]) / f["takes"][0] for f in fits if f["takes"] and f["takes"][0] > 0]
            renders = [len(f["counts"]) for f in fits]
            takes = [len(f["takes"]) for f in fits]
            first = [(f["counts"][0] - f["budget"]) / f["budget"] * 100 for f in fits if f["counts"]]
            lengthened = sum(f.get("lengthen", 0) for f in fits)
            if not errors or not fills:
                print(f"{Path(name).name}: no view was fitted")
                continue
            print(f"{Path(name).name}: {len(fits)} views fitted; first take's count/estimate: min {min(errors):.3f} "
                  f"median {statistics.median(errors):.3f} max {max(errors):.3f}; takes a view "
                  f"{statistics.mean(takes):.2f}; renders a view "
                  f"{statistics.mean(renders):.2f} (most {max(renders)}); lengthened {lengthened}; first render less "
                  f"the budget: median {statistics.median(first):+.1f}% (least {min(first):+.1f}%, most "
                  f"{max(first):+.1f}%; {sum(x > 0 for x in first)} over); fill {statistics.mean(fills) * 100:.1f}% "
                  f"(least {min(fills) * 100:.1f}%)")
    finally:
        fitting._fit = fit


if __name__ == "__main__":
    main()

"""Two saved bench runs, measure by measure, on each half.

The rule this serves (issue 47): keep a weight, rule or pack entry only when it helps
on both halves of the data (:func:`~.bench.half_of`), and no measure drops by more
than a point on either half. :func:`compare` lines up the summary records of two runs
(``bench.json``) by mode, dataset, half, method and budget, and flags each measure
whose change

- ``mixed``: is better on one half and worse on the other, or
- ``drop``: is worse by more than :data:`POINT` on either half (or on the whole file,
  for runs without halves), or, for a count (:data:`COUNTS`), is higher at all.

"Better" is higher for the scores, lower for the noise shares
(:data:`LOWER_IS_BETTER`) and the counts. :func:`verdict` sums it up: ``KEEP`` when
nothing is flagged and some measure is better on both halves.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, fields
from pathlib import Path

from .bench import HALVES, METRIC_LABELS, METRICS, MODE_METRICS, OURS, OURS_NOSYS, RECORD_METRICS, Row, summarize

__all__ = [
    "COUNTS", "LOWER_IS_BETTER", "POINT", "Change", "compare", "load_summary", "markdown", "mismatches", "verdict",
]

POINT = 0.01  # scores are fractions: one percentage point
LOWER_IS_BETTER = frozenset({"record_openers", "record_system_only", "record_bare_numbers", "record_valueless"})
COUNTS = ("budget_violations", "failures")  # any rise is a drop
MEASURES = METRICS + RECORD_METRICS + MODE_METRICS + COUNTS
_LABELS = {**METRIC_LABELS, "budget_violations": "over budget", "failures": "failed"}
_EPS = 1e-9  # float noise of a mean; the bench is otherwise deterministic


@dataclass(frozen=True)
class Change:
    """One measure of one (mode, dataset, method, budget) in two runs.

    ``values`` maps a part (``None``: the whole file, then ``even``, ``odd`` when both
    runs have halves) to its (old, new) values; ``flags`` holds ``mixed`` and/or
    ``drop`` (see the module's docstring)."""

    mode: str
    dataset: str
    method: str
    budget: float
    measure: str
    values: dict[str | None, tuple[float, float]]
    flags: tuple[str, ...]

    def delta(self, part: str | None) -> float | None:
        """New minus old on a part, ``None`` where either run has no value."""
        pair = self.values.get(part)
        return None if pair is None else pair[1] - pair[0]

    @property
    def changed(self) -> bool:
        return any(abs(new - old) > _EPS for old, new in self.values.values())

    @property
    def helps(self) -> bool:
        """Better on both halves (on the whole file, when there are no halves)."""
        gains = _gains(self.measure, self.values)
        return bool(gains) and min(gains) > _EPS


def load_summary(path: str | Path) -> list[dict]:
    """The summary records of a saved run: ``bench.json`` or the ``--out`` directory
    holding it. A run saved without ``--halves`` whose rows carry their half is
    summarised again by half; older runs give the whole files only."""
    path = Path(path)
    if path.is_dir():
        path = path / "bench.json"
    if not path.is_file():
        raise FileNotFoundError(f"no bench.json at {path} (give a bench --out directory or its bench.json)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        summary = list(data["summary"])
    except (ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path} is not a bench.json (expected a 'summary' list): {exc}") from None
    if any(r.get("half") for r in summary):
        return summary
    rows = data.get("rows") or []
    if rows and all(r.get("half") in HALVES for r in rows):
        known = {f.name for f in fields(Row)}
        return summarize([Row(**{k: v for k, v in r.items() if k in known}) for r in rows], halves=True)
    return summary


def _better(measure: str, delta: float) -> float:
    """The delta signed so that positive is better."""
    return -delta if measure in LOWER_IS_BETTER or measure in COUNTS else delta


def _gains(measure: str, values: dict[str | None, tuple[float, float]]) -> list[float]:
    """The signed changes the rule judges: one per half, or the whole file's alone."""
    halves = [values[h] for h in HALVES if h in values]
    parts = halves if len(halves) == len(HALVES) else [values[None]] if None in values else []
    return [_better(measure, new - old) for old, new in parts]


def _flags(measure: str, values: dict[str | None, tuple[float, float]]) -> tuple[str, ...]:
    gains = _gains(measure, values)
    flags = []
    if len(gains) == len(HALVES) and max(gains) > _EPS and min(gains) < -_EPS:
        flags.append("mixed")
    floor = 0 if measure in COUNTS else POINT
    if any(g < -floor - _EPS for g in gains):
        flags.append("drop")
    return tuple(flags)


def compare(old: Sequence[dict], new: Sequence[dict], methods: Sequence[str] | None = (OURS, OURS_NOSYS)) -> list[Change]:
    """Every measure of the (mode, dataset, method, budget) records both runs have, for
    ``methods`` (``None``: every method), in the new run's order. Halves are compared
    where both runs have them; otherwise the whole files only."""
    def key(r):
        return (r.get("mode", "blind"), r["dataset"], r["method"], r["budget"])

    before = {(key(r), r.get("half")): r for r in old}
    after = {(key(r), r.get("half")): r for r in new}
    out = []
    for k in dict.fromkeys(key(r) for r in new):
        if methods is not None and k[2] not in methods:
            continue
        for measure in MEASURES:
            values = {}
            for part in (None, *HALVES):
                a, b = before.get((k, part)), after.get((k, part))
                if a is None or b is None or a.get(measure) is None or b.get(measure) is None:
                    continue
                values[part] = (float(a[measure]), float(b[measure]))
            if values:
                out.append(Change(*k, measure, values, _flags(measure, values)))
    return out


def mismatches(old: Sequence[dict], new: Sequence[dict]) -> list[str]:
    """Where the two runs scored different things: a (mode, dataset, half, method,
    budget) in one run only, or with other counts of conversations or items (other
    data, filters or samples). A change there is no change of the policy alone."""
    def key(r):
        return (r.get("mode", "blind"), r["dataset"], r.get("half"), r["method"], r["budget"])

    def where(k):
        mode, dataset, half, method, budget = k
        return f"{mode} {dataset}{'' if half is None else f' [{half} half]'} {method} @ {budget:g}"

    before, after = {key(r): r for r in old}, {key(r): r for r in new}
    out = [f"only in the old run: {where(k)}" for k in before if k not in after]
    out += [f"only in the new run: {where(k)}" for k in after if k not in before]
    for k in after:
        if k in before:
            a, b = before[k], after[k]
            counts = [(n, a.get(n), b.get(n)) for n in ("conversations", "items") if a.get(n) != b.get(n)]
            if counts:
                out.append(f"{where(k)}: " + ", ".join(f"{n} {x} -> {y}" for n, x, y in counts))
    return out


def verdict(changes: Sequence[Change]) -> str:
    """``FLAGGED`` (some measure is flagged), ``KEEP`` (none is, and some measure is
    better on both halves), ``NO GAIN ON BOTH HALVES`` (none is, none is better on
    both) or ``NO CHANGE``."""
    if any(c.flags for c in changes):
        return "FLAGGED"
    if any(c.helps for c in changes):
        return "KEEP"
    return "NO GAIN ON BOTH HALVES" if any(c.changed for c in changes) else "NO CHANGE"


def _cell(change: Change, part: str | None) -> str:
    pair = change.values.get(part)
    if pair is None:
        return "-"
    old, new = pair
    if change.measure in COUNTS:
        return f"{old:.0f} -> {new:.0f} ({new - old:+.0f})"
    return f"{100 * old:.1f} -> {100 * new:.1f} ({100 * (new - old):+.1f})"


def markdown(changes: Sequence[Change], *, unchanged: bool = False) -> str:
    """A table of the changed measures (every measure with ``unchanged``), then the
    flagged ones and a verdict line starting ``KEEP`` (helps on both halves, or on the
    whole file without halves, and nothing flagged), ``FLAGGED`` or ``NO CHANGE``."""
    shown = [c for c in changes if unchanged or c.changed]
    halves = any(h in c.values for c in changes for h in HALVES)
    parts = ["whole", *HALVES] if halves else ["whole"]
    header = ["mode", "dataset", "method", "budget", "measure", *parts, "flag"]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for c in shown:
        cells = [c.mode, c.dataset, c.method, f"{c.budget:g}", _LABELS.get(c.measure, c.measure)]
        cells += [_cell(c, None if p == "whole" else p) for p in parts]
        cells.append(", ".join(c.flags))
        lines.append("| " + " | ".join(cells) + " |")
    out = lines if shown else ["No measure changed."]
    if not halves:
        out.append("\nNo halves in one of the runs (run the bench with --halves): the whole files are compared.")
    flagged = [c for c in changes if c.flags]
    moved = [c for c in changes if c.changed]
    where = "both halves" if halves else "the whole files"
    out.append(f"\n{len(changes)} measures compared, {len(moved)} changed, "
               f"{sum(c.helps for c in changes)} better on {where}, {len(flagged)} flagged.")
    for c in flagged:
        deltas = ", ".join(
            f"{p} {_cell(c, None if p == 'whole' else p)}" for p in parts if (None if p == "whole" else p) in c.values
        )
        out.append(f"- {' and '.join(c.flags).upper()} {c.mode} {c.dataset} {c.method} @ {c.budget:g}: "
                   f"{_LABELS.get(c.measure, c.measure)}: {deltas}")
    result = verdict(changes)
    out.append({
        "FLAGGED": "FLAGGED: a measure is better on one half and worse on the other, or worse by more than a point.",
        "KEEP": f"KEEP: better on {where} somewhere; nothing worse by more than a point, "
                "nothing better on one half and worse on the other.",
        "NO GAIN ON BOTH HALVES": f"NO GAIN ON BOTH HALVES: nothing flagged, but no measure is better on {where}.",
        "NO CHANGE": "NO CHANGE on these measures.",
    }[result])
    return "\n".join(out) + "\n"

"""Comparing two saved bench runs half by half, on hand-made summaries."""

import json
from dataclasses import asdict

import pytest

from discourse_memory_evaluation.bench import Row
from discourse_memory_evaluation.compare import compare, load_summary, markdown, verdict


def record(half, method="discourse-memory", budget=0.25, mode="blind", dataset="d", **scores):
    return {"mode": mode, "dataset": dataset, "half": half, "method": method, "budget": budget,
            "budget_violations": 0, "failures": 0, **scores}


def run(whole, even, odd, measure="literal_recall", **more):
    """A run's summary: one measure's value on the whole file and on each half."""
    return [record(None, **{measure: whole}, **more), record("even", **{measure: even}, **more),
            record("odd", **{measure: odd}, **more)]


def one(changes, measure):
    (change,) = [c for c in changes if c.measure == measure]
    return change


def test_better_on_both_halves_is_kept():
    changes = compare(run(0.50, 0.50, 0.50), run(0.52, 0.51, 0.53))
    change = one(changes, "literal_recall")
    assert change.flags == () and change.helps
    assert change.delta("odd") == pytest.approx(0.03)
    assert verdict(changes) == "KEEP"
    text = markdown(changes)
    assert "| blind | d | discourse-memory | 0.25 | literal recall | 50.0 -> 52.0 (+2.0) | 50.0 -> 51.0 (+1.0) | " \
           "50.0 -> 53.0 (+3.0) |  |" in text
    assert text.rstrip().splitlines()[-1].startswith("KEEP")
    assert "over budget" not in text  # unchanged measures are left out unless asked for
    assert "over budget" in markdown(changes, unchanged=True)


def test_better_on_one_half_and_worse_on_the_other_is_mixed():
    # the whole file gains, but the odd half loses (by less than a point): tuned to one half
    changes = compare(run(0.50, 0.40, 0.60), run(0.51, 0.43, 0.595))
    change = one(changes, "literal_recall")
    assert change.flags == ("mixed",) and not change.helps
    assert verdict(changes) == "FLAGGED"
    assert "- MIXED blind d discourse-memory @ 0.25: literal recall: whole 50.0 -> 51.0 (+1.0), even 40.0 -> 43.0 " \
           "(+3.0), odd 60.0 -> 59.5 (-0.5)" in markdown(changes)


def test_a_drop_of_more_than_a_point_on_either_half_is_flagged():
    assert one(compare(run(0.5, 0.5, 0.5), run(0.49, 0.489, 0.491)), "literal_recall").flags == ("drop",)
    # a point exactly, on both halves: worse, not flagged, and not kept either
    changes = compare(run(0.5, 0.5, 0.5), run(0.49, 0.49, 0.49))
    assert one(changes, "literal_recall").flags == ()
    assert verdict(changes) == "NO GAIN ON BOTH HALVES"
    # better on one half, more than a point worse on the other: both flags
    assert one(compare(run(0.5, 0.5, 0.5), run(0.5, 0.53, 0.47)), "literal_recall").flags == ("mixed", "drop")


def test_noise_shares_and_counts_are_better_lower():
    old = run(0.05, 0.04, 0.06, measure="record_openers")
    new = run(0.03, 0.02, 0.04, measure="record_openers")
    assert one(compare(old, new), "record_openers").helps
    assert one(compare(new, old), "record_openers").flags == ("drop",)  # +2 points of noise on each half
    # entries stating no value are noise too: fewer is a gain, more a drop
    old = run(0.05, 0.04, 0.06, measure="record_valueless")
    new = run(0.03, 0.02, 0.04, measure="record_valueless")
    assert one(compare(old, new), "record_valueless").helps
    assert one(compare(new, old), "record_valueless").flags == ("drop",)
    # one more view over budget on one half: a drop, however small
    old, new = run(0.5, 0.5, 0.5), run(0.5, 0.5, 0.5)
    new[2]["budget_violations"] = new[0]["budget_violations"] = 1
    assert one(compare(old, new), "budget_violations").flags == ("drop",)


def test_only_our_methods_by_default_and_unchanged_runs():
    old = run(0.5, 0.5, 0.5) + run(0.3, 0.3, 0.3, method="trim-last")
    new = run(0.5, 0.5, 0.5) + run(0.2, 0.2, 0.2, method="trim-last")
    changes = compare(old, new)
    assert {c.method for c in changes} == {"discourse-memory"}
    assert verdict(changes) == "NO CHANGE" and "No measure changed." in markdown(changes)
    assert verdict(compare(old, new, None)) == "FLAGGED"  # every method: trim-last dropped 10 points


def test_runs_without_halves_compare_the_whole_files():
    old, new = [record(None, literal_recall=0.5)], [record(None, literal_recall=0.52)]
    changes = compare(old, new)
    assert one(changes, "literal_recall").helps and verdict(changes) == "KEEP"
    text = markdown(changes)
    assert "run the bench with --halves" in text and "| whole | flag |" in text


def test_load_summary_splits_a_run_saved_without_halves_from_its_rows(tmp_path):
    rows = [
        Row(dataset="d", conversation=f"c{i}", method="discourse-memory", fraction=0.25, budget=100, tokens_in=400,
            tokens_out=90, seconds=0.01, violation=False, orphan_tools=0, scores={"literal_recall": value},
            half="even" if i % 2 == 0 else "odd")
        for i, value in enumerate([0.9, 0.5, 0.7])
    ]
    whole = {**record(None, literal_recall=0.7), "conversations": 3}
    (tmp_path / "bench.json").write_text(json.dumps({"summary": [whole], "rows": [asdict(r) for r in rows]}))
    summary = load_summary(tmp_path)
    got = {r["half"]: r["literal_recall"] for r in summary}
    assert got == {None: pytest.approx(0.7), "even": pytest.approx(0.8), "odd": pytest.approx(0.5)}
    with pytest.raises(FileNotFoundError, match="no bench.json"):
        load_summary(tmp_path / "missing")
    (tmp_path / "bad.json").write_text("[1, 2]")
    with pytest.raises(ValueError, match="not a bench.json"):
        load_summary(tmp_path / "bad.json")


def test_mismatches_name_what_the_runs_scored_differently():
    from discourse_memory_evaluation.compare import mismatches

    old = [{**r, "conversations": 2, "items": 2} for r in run(0.5, 0.5, 0.5)]
    new = [{**r, "conversations": 2, "items": 2} for r in run(0.5, 0.5, 0.5)]
    assert mismatches(old, new) == []
    new[2]["items"] = 3
    new.append(record(None, budget=0.5, literal_recall=0.4))
    assert mismatches(old, new) == [
        "only in the new run: blind d discourse-memory @ 0.5",
        "blind d [odd half] discourse-memory @ 0.25: items 2 -> 3",
    ]

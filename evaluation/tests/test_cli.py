"""Smoke tests of ``bench`` and ``replay`` on tiny synthetic files."""

import json

import pytest

from discourse_memory_evaluation.cli import main, main_bench, main_compare, main_replay


def run_line(i):
    call = {"id": "c1", "type": "function", "function": {
        "name": "update_reservation", "arguments": json.dumps({"reservation_id": f"R{i}X42", "flight": f"HAT{100 + i}"}),
    }}
    return {
        "id": f"run-{i}",
        "messages": [
            {"role": "system", "content": "You help with bookings."},
            {"role": "user", "content": f"Please rebook reservation R{i}X42 for Mia Li on 2024-05-{10 + i}. "
                                        + "I paid with credit_card_4421486 and want economy. " * 6},
            {"role": "assistant", "content": f"I found flight HAT{100 + i} on 2024-05-{10 + i}. "
                                             + "It leaves Newark at 10:30 and costs $250 in economy. " * 6},
            {"role": "user", "content": "Yes, go ahead."},
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"status": "ok", "reservation_id": f"R{i}X42"})},
            {"role": "assistant", "content": "Done."},
        ],
        "gold_actions": [{"name": "update_reservation", "kwargs": {"reservation_id": f"R{i}X42", "flight": f"HAT{100 + i}"}}],
    }


@pytest.fixture
def runs_file(tmp_path):
    path = tmp_path / "tiny_runs.jsonl"
    path.write_text("\n".join(json.dumps(run_line(i)) for i in range(3)), encoding="utf-8")
    return path


def test_bench_writes_table_json_and_plot(runs_file, tmp_path, capsys):
    out = tmp_path / "results"
    code = main_bench([str(runs_file), "--budgets", "0.5,0.9", "--methods", "discourse-memory,trim-last,head-tail",
                       "--modes", "blind", "--out", str(out), "--quiet"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "### tiny_runs (3 conversations)" in printed
    data = json.loads((out / "bench.json").read_text())
    assert {(r["method"], r["budget"]) for r in data["summary"]} == {
        (m, b) for m in ("discourse-memory", "trim-last", "head-tail") for b in (0.5, 0.9)
    }
    assert len(data["rows"]) == 3 * 3 * 2
    for row in data["rows"]:
        assert row["tokens_out"] <= row["tokens_in"]
        assert 0 <= row["scores"]["literal_recall"] <= 1
        assert row["scores"]["gold_arg_recall"] is not None
    assert (out / "bench.md").read_text().startswith("### tiny_runs")
    assert (out / "bench.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bench_next_step_mode_on_tool_call_runs(runs_file, tmp_path, capsys):
    out = tmp_path / "results"
    code = main_bench([str(runs_file), "--budgets", "0.1,0.5", "--methods", "full-history,trim-last",
                       "--out", str(out), "--quiet", "--no-plot"])
    assert code == 0
    data = json.loads((out / "bench.json").read_text())
    steps = [r for r in data["rows"] if r["mode"] == "next-step"]
    # one action per run (update_reservation at message 4); its literals R{i}X42 and
    # HAT10{i} stand in the history before it: 3 runs x 2 methods x 2 budgets
    assert len(steps) == 3 * 2 * 2 and {r["item"] for r in steps} == {4}
    assert all(r["scores"]["next_step_support"] == 1.0 for r in steps if r["method"] == "full-history")
    assert {r["mode"] for r in data["rows"]} == {"blind", "next-step"}  # no QA in these runs
    printed = capsys.readouterr().out
    assert "### tiny_runs: next-step support" in printed and "(3 steps of 3 runs)" in printed
    assert "| full-history | 100.0 | 100.0 |" in printed


def test_bench_qa_mode_on_locomo(tmp_path, capsys):
    sample = {
        "sample_id": "conv-t",
        "conversation": {
            "speaker_a": "Caroline", "speaker_b": "Melanie",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [{"speaker": "Caroline" if i % 2 == 0 else "Melanie", "dia_id": f"D1:{i + 1}",
                           "text": f"Turn {i}: we talked about the garden and the {w}."}
                          for i, w in enumerate(["roses", "tulips", "weather", "kids", "pottery", "camping"])],
        },
        "qa": [{"question": "What did they talk about first?", "answer": "roses", "evidence": ["D1:1"], "category": 1},
               {"question": "What was the last topic?", "answer": "camping", "evidence": ["D1:6"], "category": 2}],
    }
    path = tmp_path / "tiny_locomo.json"
    path.write_text(json.dumps([sample]), encoding="utf-8")
    out = tmp_path / "results"
    assert main_bench([str(path), "--budgets", "0.5", "--methods", "trim-last,full-history", "--modes", "qa",
                       "--questions", "all", "--out", str(out), "--quiet", "--no-plot"]) == 0
    rows = json.loads((out / "bench.json").read_text())["rows"]
    got = {(r["method"], r["item"]): r["scores"]["qa_answer"] for r in rows}
    # the newest half of the history keeps the last topic, not the first
    assert got == {("trim-last", 0): 0.0, ("trim-last", 1): 1.0, ("full-history", 0): 1.0, ("full-history", 1): 1.0}
    assert "(2 questions of 1 conversations)" in capsys.readouterr().out


def test_bench_halves_and_compare(runs_file, tmp_path, capsys):
    out = tmp_path / "results"
    assert main_bench([str(runs_file), "--budgets", "0.5", "--methods", "discourse-memory,trim-last",
                       "--modes", "blind,next-step", "--halves", "--out", str(out), "--quiet", "--no-plot"]) == 0
    printed = capsys.readouterr().out
    # runs 0 and 2 are the even half, run 1 the odd one, in every mode
    assert "### tiny_runs [even half] (2 conversations)" in printed
    assert "### tiny_runs [odd half] (1 conversations)" in printed
    assert "### tiny_runs [odd half]: next-step support" in printed and "(1 steps of 1 runs)" in printed
    assert any(line.startswith("- PASS tiny_runs [odd half] @ 0.5: discourse-memory budget violations")
               for line in printed.splitlines())
    data = json.loads((out / "bench.json").read_text())
    assert data["config"]["halves"] is True
    assert {(r["conversation"], r["half"]) for r in data["rows"]} == {
        ("run-0", "even"), ("run-1", "odd"), ("run-2", "even")}
    assert {r["half"] for r in data["summary"]} == {None, "even", "odd"}
    assert "tiny_runs [even half]" in (out / "bench.md").read_text()
    csv_lines = (out / "bench.csv").read_text().splitlines()
    assert csv_lines[0].startswith("mode,kind,dataset,half,method,budget,")
    assert len(csv_lines) == 1 + 2 * 2 * 3  # 2 modes x 2 methods x (whole, even, odd)

    # the same run twice: nothing to flag
    assert main_compare([str(out), str(out / "bench.json")]) == 0
    assert "NO CHANGE" in capsys.readouterr().out
    # a change that helps the even half and costs the odd one 2 points
    changed = tmp_path / "changed"
    changed.mkdir()
    for record in data["summary"]:
        if record["method"] == "discourse-memory" and record["mode"] == "blind":
            record["literal_recall"] += {None: 0.0, "even": 0.01, "odd": -0.02}[record["half"]]
    (changed / "bench.json").write_text(json.dumps(data))
    assert main(["compare", str(out), str(changed)]) == 1
    printed = capsys.readouterr().out
    assert "- MIXED AND DROP blind tiny_runs discourse-memory @ 0.5: literal recall" in printed
    assert printed.rstrip().endswith("FLAGGED: a measure is better on one half and worse on the other, "
                                     "or worse by more than a point.")
    assert "scored different things" not in printed
    data["summary"][0]["conversations"] += 1  # as if run on other data: said before the table
    (changed / "bench.json").write_text(json.dumps(data))
    main_compare([str(out), str(changed)])
    assert "The runs scored different things" in capsys.readouterr().out
    assert main_compare([str(out), str(tmp_path / "nowhere")]) == 2
    assert "no bench.json" in capsys.readouterr().err
    assert main_compare([str(out), str(changed), "--methods", "nope"]) == 2


def test_bench_rejects_bad_arguments(runs_file, tmp_path, capsys):
    with pytest.raises(SystemExit):
        main_bench([str(runs_file), "--budgets", "0,2"])
    assert main_bench([str(runs_file), "--methods", "nope", "--out", str(tmp_path), "--quiet"]) == 2
    assert "unknown method" in capsys.readouterr().err
    assert main_bench([str(tmp_path / "missing.jsonl"), "--out", str(tmp_path), "--quiet"]) == 2
    assert main_bench([str(runs_file), "--modes", "blind,nope", "--out", str(tmp_path), "--quiet"]) == 2
    assert "unknown mode" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main_bench([str(runs_file), "--questions", "0"])


def test_replay_records_compaction_points(runs_file, tmp_path, capsys):
    out = tmp_path / "replay.json"
    code = main_replay([str(runs_file), "--context-limit", "200", "--target", "0.5", "--json", str(out), "--quiet"])
    assert code == 0
    data = json.loads(out.read_text())
    assert data["config"]["target"] == 100
    points = data["points"]
    # each run is over 200 tokens before its last two assistant messages (the model
    # calls at 215 and 251 tokens): 2 points x 3 runs x 2 methods
    assert {p["method"] for p in points} == {"discourse-memory", "head-tail"}
    assert sorted({p["index"] for p in points}) == [4, 6]
    assert len(points) == 2 * 3 * 2
    for p in points:
        assert p["tokens_before"] > 200 and p["tokens_after"] <= 100
        assert p["reduction"] == pytest.approx(1 - p["tokens_after"] / p["tokens_before"])
    assert "| discourse-memory | 3 (3) | 6 |" in capsys.readouterr().out


def test_module_entry_point_has_both_commands(runs_file, capsys):
    assert main(["replay", str(runs_file), "--context-limit", "100000", "--quiet"]) == 0
    assert "no compaction points" in capsys.readouterr().out


def test_replay_at_every_message(runs_file, tmp_path):
    out = tmp_path / "replay.json"
    assert main_replay([str(runs_file), "--context-limit", "200", "--target", "150", "--at", "message",
                        "--methods", "head-tail", "--json", str(out), "--quiet"]) == 0
    points = json.loads(out.read_text())["points"]
    # over 200 tokens after messages 3, 4, 5, 6 and 7 (the end): 5 points x 3 runs
    assert [p["index"] for p in points if p["conversation"] == "run-0"] == [3, 4, 5, 6, 7]
    assert len(points) == 15
    assert all(p["tokens_after"] <= 150 for p in points)


def test_replay_at_a_reduction_sizes_each_view_by_its_history(runs_file, tmp_path, capsys):
    """--reduction 0.7: each point's view is at most 30% of the history's tokens at that
    point, and each point scores the sentence openings of the history so far."""
    out = tmp_path / "replay.json"
    assert main_replay([str(runs_file), "--context-limit", "200", "--reduction", "0.7", "--json", str(out),
                        "--quiet"]) == 0
    data = json.loads(out.read_text())
    assert data["config"]["reduction"] == 0.7
    points = data["points"]
    assert len(points) == 2 * 3 * 2
    for p in points:
        assert p["target"] == int(0.3 * p["tokens_before"])
        assert p["tokens_after"] <= p["target"] and not p["violation"]
        assert 0.0 <= p["sentence_survival"] <= 1.0
    # the later point has a longer history, hence a larger view
    run0 = [p for p in points if p["conversation"] == "run-0" and p["method"] == "head-tail"]
    assert run0[0]["target"] < run0[1]["target"]
    summary = {s["method"]: s for s in data["summary"]}
    assert summary["head-tail"]["sentence_survival_mean"] is not None
    assert "30% of the history's tokens (70% reduction)" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main_replay([str(runs_file), "--reduction", "1.5"])


def test_replay_sentence_openings_by_hand(tmp_path):
    """A point's openings are those of the history before it: the full history as its
    own view keeps them all."""
    from discourse_memory_evaluation.datasets import Conversation
    from discourse_memory_evaluation.replay import ReplayConfig, replay

    messages = [{"role": "user", "content": "Fix the parser bug. It fails on empty input."},
                {"role": "assistant", "content": "Reading parser.py now."},
                {"role": "user", "content": "Also check the tests."},
                {"role": "assistant", "content": "Done."}]
    config = ReplayConfig(context_limit=1, target=10_000, methods=("full-history",))
    points = replay(Conversation(id="c", messages=messages), config)
    assert [p.index for p in points] == [1, 3]
    assert all(p.sentence_survival == 1.0 and p.literal_recall in (1.0, None) for p in points)

"""The LoCoMo benchmark script runs end to end on a tiny LoCoMo-format file."""

from __future__ import annotations

import json
import runpy
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "bench_locomo_buffer.py"


def tiny_locomo() -> list[dict]:
    samples = []
    for s in range(2):
        conv: dict = {"speaker_a": "Ana", "speaker_b": "Ben"}
        for n in range(1, 4):
            conv[f"session_{n}_date_time"] = f"1:0{n} pm on {n} May, 2023"
            conv[f"session_{n}"] = [
                {
                    "speaker": "Ana" if t % 2 == 0 else "Ben",
                    "dia_id": f"D{n}:{t}",
                    "text": f"I moved to Porto in 20{10 + t} and adopted a dog named Rex{s}{n}{t}. "
                    + "We talked about many ordinary things that day. " * 3,
                }
                for t in range(8)
            ]
        qa = [
            {"question": "Where?", "answer": "Porto", "evidence": ["D1:0"], "category": 1},
            {"question": "Dog?", "answer": f"Rex{s}10", "evidence": ["D1:0"], "category": 4},
        ]
        samples.append({"sample_id": f"conv-{s}", "conversation": conv, "qa": qa})
    return samples


def run_script(args: list[str], capsys) -> tuple[int, str]:
    argv = sys.argv
    sys.argv = [str(SCRIPT), *args]
    try:
        with pytest.raises(SystemExit) as exit_info:
            runpy.run_path(str(SCRIPT), run_name="__main__")
    finally:
        sys.argv = argv
    return exit_info.value.code, capsys.readouterr().out


def test_bench_script_reports_speed_and_quality(tmp_path, capsys):
    data = tmp_path / "locomo_tiny.json"
    data.write_text(json.dumps(tiny_locomo()))
    out_json = tmp_path / "out.json"
    code, out = run_script([str(data), "--repeat", "1", "--json", str(out_json)], capsys)
    assert code == 0
    assert "speed ratio ChatMemoryBuffer / ours" in out
    assert "literal recall" in out
    result = json.loads(out_json.read_text())
    assert result["quality"]["conversations"] == 2
    assert result["quality"]["ours_over_limit"] == 0
    for row in result["rows"]:
        assert 0 <= row["ours_literal_recall"] <= 1
        assert row["ours_tokens"] <= row["token_limit"]


def test_bench_script_skips_clearly_without_data(tmp_path, capsys):
    code, out = run_script([str(tmp_path / "missing.json")], capsys)
    assert code == 0
    assert out.startswith("SKIPPED: LoCoMo data not found")

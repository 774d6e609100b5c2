"""The discourse-memory command."""

import json
import subprocess
import sys
from pathlib import Path

from discourse_memory.cli import main
from discourse_memory.sample import sample_conversation

from .conftest import view_tokens


def test_compact_json_from_file(tmp_path, capsys):
    msgs = sample_conversation(2)
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(msgs))
    budget = view_tokens(msgs) // 2
    assert main(["compact", str(path), "--budget", str(budget), "--report"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["tokens_after"] <= budget
    assert view_tokens(out["messages"]) == out["tokens_after"]
    assert set(out["report"]["counts"]) == {"kept", "clipped", "deduplicated", "omitted"}


def test_compact_jsonl_text_format(tmp_path, capsys):
    msgs = sample_conversation(1)
    path = tmp_path / "conv.jsonl"
    path.write_text("\n".join(json.dumps(m) for m in msgs))
    assert main(["compact", str(path), "--budget", "600", "--format", "text"]) == 0
    out = capsys.readouterr().out
    assert "--- system" in out and "tokens, budget 600]" in out


def test_stdin_and_errors():
    msgs = sample_conversation(1)
    run = subprocess.run([sys.executable, "-m", "discourse_memory", "compact", "-", "--budget", "700"],
                         input=json.dumps(msgs), capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["tokens_after"] <= 700
    bad = subprocess.run([sys.executable, "-m", "discourse_memory", "compact", "-", "--budget", "5"],
                         input=json.dumps(msgs), capture_output=True, text=True)
    assert bad.returncode == 2
    assert "too small" in bad.stderr and "Traceback" not in bad.stderr
    junk = subprocess.run([sys.executable, "-m", "discourse_memory", "compact", "-", "--budget", "5"],
                          input="{not json", capture_output=True, text=True)
    assert junk.returncode == 2 and "JSONL" in junk.stderr


def test_demo_explains_the_compaction(capsys):
    assert main(["demo", "--sessions", "2"]) == 0
    out = capsys.readouterr().out
    for heading in ("Units by decision:", "Deduplicated (", "Clipped (", "Omitted (", "Record ("):
        assert heading in out
    assert "[discourse-memory record" in out


def test_the_readmes_demo_note_is_what_demo_prints(capsys):
    # README shows the note `discourse-memory demo` prints; it went stale once, unnoticed.
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    intro = readme.index("What the model reads (the note `discourse-memory demo` prints")
    block = readme[readme.index("```\n", intro) + 4:readme.index("\n```", readme.index("```\n", intro) + 4)]
    shown = [line for line in block.splitlines() if line != "…"]
    assert len(shown) >= 3, block
    assert main(["demo"]) == 0
    printed = capsys.readouterr().out.splitlines()
    assert all(line in printed for line in shown), [line for line in shown if line not in printed]

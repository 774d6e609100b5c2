"""The discourse-memory command."""

from dataclasses import replace
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


# ---- flags, names, files and progress (issue 46, item 5) ----

import io  # noqa: E402

import pytest  # noqa: E402

import discourse_memory  # noqa: E402
from discourse_memory import _progress, cli, compact  # noqa: E402


@pytest.fixture
def conv(tmp_path):
    msgs = sample_conversation(3)
    path = tmp_path / "conv.json"
    path.write_text(json.dumps(msgs))
    return msgs, path


def run_json(capsys, *argv):
    assert main(["compact", *map(str, argv)]) == 0, capsys.readouterr().err
    return json.loads(capsys.readouterr().out)


def test_version(capsys):
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out.strip() == f"discourse-memory {discourse_memory.__version__}"
    run = subprocess.run([sys.executable, "-m", "discourse_memory", "--version"], capture_output=True, text=True)
    assert run.returncode == 0 and discourse_memory.__version__ in run.stdout


@pytest.mark.parametrize("command", ["compact", "inspect", "recall"])
def test_every_subcommand_offers_the_same_compaction_flags(command, capsys):
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = capsys.readouterr().out
    for flag in ("--budget", "--format", "--relax", "--recall", "--focus", "--no-focus", "--keep-system",
                 "--no-keep-system", "--keep-last-turn", "--no-keep-last-turn", "--strict", "--note-role",
                 "--clip-tokens", "--token-counter", "--pipeline", "--message-overhead"):
        assert flag in text, flag
    if command != "recall":
        assert "-o PATH, --out PATH" in text and "--force" in text


@pytest.mark.parametrize("flags, kwargs", [
    ([], {}),
    (["--no-keep-system"], {"keep_system": False}),
    (["--no-keep-last-turn"], {"keep_last_turn": False}),
    (["--note-role", "user"], {"note_role": "user"}),
    (["--clip-tokens", "30"], {"clip_tokens": 30}),
    (["--recall"], {"recall": True}),
    (["--focus", "What was the hotel's phone number?"], {"focus": "What was the hotel's phone number?"}),
    (["--no-focus"], {"focus": None}),
    (["--strict"], {"strict": True}),
    (["--message-overhead", "3"], {"message_overhead": 3}),
    (["--token-counter", "cl100k_base"], {"token_counter": "cl100k_base"}),
])
def test_flags_are_compacts_arguments(conv, capsys, flags, kwargs):
    msgs, path = conv
    budget = view_tokens(msgs) // 3
    out = run_json(capsys, path, "--budget", budget, *flags)
    expected = compact(msgs, budget, **kwargs)
    assert out["messages"] == expected.messages
    assert out["tokens_after"] == expected.tokens_after
    if kwargs.get("recall"):
        assert out["references"] == list(expected.references) and out["references"]


def test_the_flags_change_the_view(conv, capsys):
    msgs, path = conv
    budget = view_tokens(msgs) // 3
    plain = run_json(capsys, path, "--budget", budget)
    assert run_json(capsys, path, "--budget", budget, "--note-role", "user")["messages"] != plain["messages"]
    assert run_json(capsys, path, "--budget", budget, "--no-keep-system")["messages"] != plain["messages"]
    recall = run_json(capsys, path, "--budget", budget, "--recall")
    assert "recall" in next(m["content"] for m in recall["messages"] if "[discourse-memory record" in str(m["content"]))


def test_relax_and_the_errors_advise_flags_not_keywords(tmp_path, capsys):
    msgs = [{"role": "user", "content": "Please summarise: " + "the quarterly report numbers " * 80}]
    path = tmp_path / "long.json"
    path.write_text(json.dumps(msgs))
    assert main(["compact", str(path), "--budget", "120"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "--relax" in err and "--budget" in err and "--no-keep-last-turn" in err
    assert "relax=True" not in err and "keep_system=False" not in err and "budget=" not in err
    out = run_json(capsys, path, "--budget", 120, "--relax")
    assert out["tokens_after"] <= 120


def test_for_the_command_line_spells_every_library_advice_as_flags():
    from discourse_memory import BudgetTooSmallError, EncodingUnavailableError  # noqa: F401

    text = cli.for_the_command_line(str(BudgetTooSmallError(5, 44)))
    assert "--budget 5 is too small" in text and "Raise --budget to >= 44" in text
    assert "--relax" in text and "--no-keep-last-turn" in text and "--no-keep-system" in text
    assert "=" not in text.replace(">=", "")


@pytest.mark.parametrize("content, says", [
    (b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "not UTF-8"),
    (b"[\x00\x00]", "binary"),
    (b"", "empty"),
    (b"{not json", "JSONL"),
    (b'[{"role": "user", "content": 5}]', "message 0: content"),
])
def test_errors_name_the_file(tmp_path, capsys, content, says):
    path = tmp_path / "input.bin"
    path.write_bytes(content)
    assert main(["compact", str(path), "--budget", "100"]) == 2
    err = capsys.readouterr().err
    assert f"error: {path}: " in err and says in err, err
    assert main(["compact", str(tmp_path / "missing.json"), "--budget", "100"]) == 2
    assert f"{tmp_path / 'missing.json'}: cannot read it" in capsys.readouterr().err


def test_a_flags_error_names_the_flag_not_the_file(conv, capsys):
    msgs, path = conv
    assert main(["compact", str(path), "--budget", "100", "--token-counter", "o300k_base"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("discourse-memory compact: error: unknown tiktoken encoding 'o300k_base'")
    assert "--token-counter" in err and "token_counter=" not in err


def test_inspect_never_overwrites_without_force(conv, tmp_path, capsys, monkeypatch):
    msgs, path = conv
    monkeypatch.chdir(tmp_path)
    assert main(["inspect", str(path), "--budget", "900"]) == 0
    assert capsys.readouterr().out.startswith("view.html: ")
    first = (tmp_path / "view.html").read_text()
    assert main(["inspect", str(path), "--budget", "700"]) == 0
    assert capsys.readouterr().out.startswith("view-2.html: ")
    assert (tmp_path / "view.html").read_text() == first  # untouched
    assert (tmp_path / "view-2.html").read_text() != first
    mine = tmp_path / "mine.html"
    mine.write_text("keep me")
    assert main(["inspect", str(path), "--budget", "900", "-o", str(mine)]) == 2
    assert "exists: pass --force" in capsys.readouterr().err and mine.read_text() == "keep me"
    assert main(["inspect", str(path), "--budget", "900", "-o", str(mine), "--force"]) == 0
    assert mine.read_text() == first


def test_compact_writes_to_out_and_refuses_an_existing_one(conv, tmp_path, capsys):
    msgs, path = conv
    out = tmp_path / "view.json"
    assert main(["compact", str(path), "--budget", "900", "--to", "text", "-o", str(out)]) == 0
    assert capsys.readouterr().out.startswith(f"{out}: ")
    assert out.read_text().startswith("--- system")
    assert main(["compact", str(path), "--budget", "900", "--out", str(out)]) == 2
    assert out.read_text().startswith("--- system")
    assert main(["compact", str(path), "--budget", "900", "--out", str(out), "--force"]) == 0
    assert json.loads(out.read_text())["budget"] == 900


def test_older_spellings_still_work_and_say_the_new_one(conv, tmp_path, capsys):
    msgs, path = conv
    assert main(["compact", str(path), "--budget", "900", "--output", "text"]) == 0
    captured = capsys.readouterr()
    assert "--- system" in captured.out and "--output text is deprecated: use --to text" in captured.err
    assert main(["compact", str(path), "--budget", "900", "--format", "json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["budget"] == 900 and "use --to json" in captured.err
    page = tmp_path / "page.html"
    assert main(["inspect", str(path), "--budget", "900", "--output", str(page)]) == 0
    assert page.exists() and "use -o/--out" in capsys.readouterr().err
    html = tmp_path / "demo.html"
    assert main(["demo", "--sessions", "1", "--html", str(html)]) == 0
    assert html.exists() and "use -o/--out" in capsys.readouterr().err
    assert main(["demo", "--sessions", "1", "-o", str(html)]) == 2
    assert "exists: pass --force" in capsys.readouterr().err


def test_recall_gives_back_what_the_view_left_out(conv, capsys):
    msgs, path = conv
    budget = view_tokens(msgs) // 3
    out = run_json(capsys, path, "--budget", budget, "--recall")
    ref = out["references"][0]
    assert main(["recall", str(path), ref, "--budget", str(budget), "--recall"]) == 0
    expected = compact(msgs, budget, recall=True).recall(ref)
    assert capsys.readouterr().out == expected.text + "\n" and expected.found
    assert main(["recall", str(path), "#99999", "--budget", str(budget)]) == 1


class FakeTTY(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_line_on_a_terminal_only_and_the_view_unchanged(tmp_path, capsys, monkeypatch):
    msgs = sample_conversation(12)  # 217 messages: analysed in steps below
    path = tmp_path / "long.json"
    path.write_text(json.dumps(msgs))
    argv = ["compact", str(path), "--budget", str(view_tokens(msgs) // 4)]
    assert main(argv) == 0
    captured = capsys.readouterr()
    plain, quiet = captured.out, captured.err
    assert quiet == ""  # not a terminal: no line

    monkeypatch.setattr(_progress, "LIMITS", replace(_progress.LIMITS, progress_delay=0.0))
    monkeypatch.setattr(cli, "LIMITS", replace(cli.LIMITS, analysis_steps=10))

    import time as _time

    real_advance = _progress.Progress.advance

    def slowly(self, done, total):  # each step long enough for a redraw
        real_advance(self, done, total)
        _time.sleep(0.12)

    monkeypatch.setattr(_progress.Progress, "advance", slowly)
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(argv) == 0
    assert capsys.readouterr().out == plain  # the same view, on stdout only
    drawn = tty.getvalue().split("\r")
    # (each step sleeps longer than a redraw: the analysis is drawn at least once; the
    # compaction after it may end before the next redraw)
    assert any(d.startswith(("⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏")) and "analysing 217 messages of" in d
               and "%" in d for d in drawn), drawn
    assert drawn[-1] == "" and drawn[-2].strip() == ""  # erased at the end


def test_progress_shows_a_bar_for_the_analysis():
    p = _progress.Progress(FakeTTY(), delay=0)
    p._start = 0.0
    p.stage("analysing 217 messages of x.json")
    assert "[" not in p.line(now=2.0)
    p.advance(50, 100)
    line = p.line(now=2.0)
    assert "analysing 217 messages of x.json [" + "#" * 12 + "." * 12 + "]  50% 2s" in line
    assert not _progress.Progress(io.StringIO()).enabled


def test_a_closed_pipe_and_an_interrupt_end_quietly(conv, capsys, monkeypatch):
    msgs, path = conv

    class ClosedPipe(io.StringIO):
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["compact", str(path), "--budget", "900"]) == 0  # `... | head`: no error, no traceback
    assert capsys.readouterr().err == ""

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(cli, "_compact", interrupted)
    assert main(["compact", str(path), "--budget", "900"]) == 130
    assert capsys.readouterr().err == "discourse-memory compact: interrupted\n"


def test_an_input_that_fits_is_not_analysed_for_the_bar(tmp_path, capsys, monkeypatch):
    msgs = sample_conversation(12)
    path = tmp_path / "long.json"
    path.write_text(json.dumps(msgs))
    monkeypatch.setattr(_progress, "LIMITS", replace(_progress.LIMITS, progress_delay=0.0))
    monkeypatch.setattr(cli, "LIMITS", replace(cli.LIMITS, analysis_steps=10))
    stages = []
    real_stage = _progress.Progress.stage
    monkeypatch.setattr(_progress.Progress, "stage", lambda self, text: stages.append(text) or real_stage(self, text))
    tty = FakeTTY()
    monkeypatch.setattr(sys, "stderr", tty)
    assert main(["compact", str(path), "--budget", "1000000"]) == 0
    out = json.loads(capsys.readouterr().out)
    analysed = [s for s in stages if s.startswith("analysing")]
    assert "counting 217 messages" in stages and stages[-1].startswith("compacting")
    assert out["messages"] == msgs and not analysed


def test_docs_cli_md_names_every_flag():
    import re

    doc = (Path(__file__).resolve().parents[1] / "docs" / "cli.md").read_text(encoding="utf-8")
    parser = cli._parser()
    commands = next(a for a in parser._actions if isinstance(a, cli.argparse._SubParsersAction)).choices
    missing = {(name, flag) for name, sub in commands.items() for action in sub._actions
               if action.help != cli.argparse.SUPPRESS for flag in action.option_strings
               if flag not in ("-h", "--help") and not re.search(rf"(?<![\w-]){flag}(?![\w-])", doc)}
    assert not missing, sorted(missing)

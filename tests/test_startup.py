"""Start-up: what a fresh process pays before its first view (issue 18).

A conversation that fits is counted, not analysed (spaCy is not even imported); a
long-lived memory loads the pipeline in a background thread while the caller does
something else (an LLM call)."""

from __future__ import annotations

import subprocess
import sys

from discourse_memory import Compactor
from discourse_memory.sample import sample_conversation


def _run(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)


def test_a_conversation_that_fits_is_not_analysed_until_its_report_is_read() -> None:
    code = ("import sys; from discourse_memory import compact; from discourse_memory.sample import sample_conversation;"
            "v = compact(sample_conversation(1), 100000); assert v.note is None;"
            "assert 'spacy' not in sys.modules, 'spaCy was imported for a conversation that fits';"
            "assert v.report.units; assert 'spacy' in sys.modules; print('ok')")
    run = _run(code)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr


def test_the_unanalysed_view_and_report_equal_the_analysed_ones() -> None:
    small = sample_conversation(1)
    fresh = Compactor().compact(small, 100000)
    analysed = Compactor()
    analysed.compact(sample_conversation(3), 300)  # the compactor now holds columns: no shortcut
    again = analysed.compact(small, 100000)
    assert fresh.messages == again.messages == small
    assert (fresh.tokens_before, fresh.sources) == (again.tokens_before, again.sources)
    assert fresh.report.to_dict() == again.report.to_dict()


def test_a_conversation_over_budget_or_with_an_unanswered_call_is_compacted() -> None:
    msgs = sample_conversation(1)
    total = Compactor().compact(msgs, 100000).tokens_before
    assert Compactor().compact(msgs, total).note is None
    assert Compactor().compact(msgs, total - 1).note is not None
    # An old call with no result is not a well-formed view, whatever the budget.
    call = {"role": "assistant", "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    broken = [msgs[0], call, *msgs[1:]]
    assert Compactor().compact(broken, 100000).note is not None


def test_a_memory_loads_the_pipeline_in_the_background_when_made() -> None:
    code = ("import time; from discourse_memory import DiscourseMemory, nlp;"
            "m = DiscourseMemory([{'role': 'user', 'content': 'hi'}]);"
            "deadline = time.time() + 120\n"
            "while 'blank:en' not in nlp._PIPELINES and time.time() < deadline: time.sleep(0.05)\n"
            "assert 'blank:en' in nlp._PIPELINES, 'no pipeline was loaded without a view'; print('ok')")
    run = _run(code)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr


def test_warm_up_runs_once_and_swallows_nothing_the_view_needs() -> None:
    code = ("from discourse_memory import warm_up, nlp, compact;"
            "t = warm_up(); assert t is not None; t.join(120);"
            "assert 'blank:en' in nlp._PIPELINES and warm_up() is None;"
            "bad = warm_up('no_such_model'); bad.join(60);"  # the error is the view's to raise
            "import discourse_memory.errors\n"
            "try:\n compact([{'role': 'user', 'content': 'x ' * 500}, {'role': 'user', 'content': 'y'}], 50,"
            " pipeline='no_such_model')\n"
            "except LookupError as e: print('ok')\n")
    run = _run(code)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr

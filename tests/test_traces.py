"""Trace readers: the registry, the built-in readers on lines written for these tests,
and the generic rules for a harness without a reader."""

from __future__ import annotations

import re

import pytest

from discourse_memory import traces
from discourse_memory.traces import TraceReader, register


@pytest.fixture
def registry(monkeypatch: pytest.MonkeyPatch):
    """A registry the test may change, restored after it (patterns are cached per
    generation, and a generation is never reused)."""
    traces.readers()
    monkeypatch.setattr(traces._REGISTRY, "_entries", dict(traces._REGISTRY._entries))
    monkeypatch.setattr(traces._REGISTRY, "_generation", traces.generation())
    return traces


def test_the_built_in_readers_are_registered_by_name():
    assert {"pytest", "mini-swe-agent", "claude-code", "codex"} <= set(traces.available())
    assert traces.reader("claude-code").line_number_marks == "→"
    with pytest.raises(KeyError, match="available: .*claude-code"):
        traces.reader("aider")


def test_a_reader_is_checked_when_made_and_registered():
    with pytest.raises(ValueError, match="needs a name"):
        TraceReader(name="")
    with pytest.raises(re.error):
        TraceReader(name="broken", harness_tags=("(unclosed",))
    with pytest.raises(TypeError, match="TraceReader"):
        register("claude-code")  # type: ignore[arg-type]


@pytest.mark.parametrize("text, tag", [
    ("<system-reminder>The file was changed on disk.</system-reminder>", "system-reminder"),
    ("<environment_context>\n  <cwd>/srv/app</cwd>\n</environment_context>", "environment_context"),
    ("<pr_instructions>Edit only the files under src/.</pr_instructions>", "pr_instructions"),
    ('<instructions lang="en">Run the tests first.</INSTRUCTIONS>', "instructions"),
])
def test_a_harness_block_is_read_whole(text, tag):
    found = traces.harness_block().search("before " + text + " after")
    assert found is not None and found.group(1) == tag and found.group() == text


def test_other_tags_are_no_harness_block():
    assert traces.harness_block().search("<note>Call Dana at 5.</note>") is None
    assert traces.harness_block().search("<system-reminder>never closed") is None


@pytest.mark.parametrize("line, number", [
    ("    12→def main():", "12"),  # Claude Code's Read
    ("12: import os", "12"),  # grep -n, nl
    ("     7\tprint(x)", "7"),  # cat -n
    ("30  return y", "30"),
])
def test_a_listings_line_number(line, number):
    found = traces.line_number().match(line)
    assert found is not None and found.group(1) == number


def test_a_number_in_prose_numbers_no_line():
    assert traces.line_number().match("12 apples were sold") is None


def test_a_test_runners_progress_line():
    assert traces.progress_line().fullmatch("tests/test_cart.py ..F.s.x [ 40%]")
    assert traces.progress_line().fullmatch("..... [100%]")
    assert not traces.progress_line().fullmatch("Coverage is 40%")


def test_a_users_reader_is_read_once_registered(registry):
    assert traces.harness_block().search("<task_context>Use staging.</task_context>") is None
    assert traces.line_number().match("  8» x = 1") is None
    register(TraceReader(name="my-harness", harness_tags=(r"task[-_]context",), line_number_marks="»"))
    assert traces.harness_block().search("<task_context>Use staging.</task_context>").group(1) == "task_context"
    assert traces.line_number().match("  8» x = 1").group(1) == "8"
    assert traces.harness_block().search("<system-reminder>x</system-reminder>")  # the built-in ones stay


def test_a_harness_without_a_reader_gets_the_generic_rules(registry):
    register(TraceReader(name="claude-code"))  # its entries gone: as a harness no reader knows
    assert traces.line_number().match("    12→def main():") is None
    assert traces.line_number().match("12: import os").group(1) == "12"
    assert traces.harness_block().search("<system-reminder>x</system-reminder>") is None
    for name in traces.available():
        register(TraceReader(name=name))
    assert traces.harness_block().search("<instructions>x</instructions>") is None
    assert traces.progress_line().fullmatch("..... [100%]") is None



def _harness_texts(text: str) -> list[str]:
    """The units of a user message ``text`` the record reads as a harness's own."""
    from discourse_memory.columns import Columns
    from discourse_memory.messages import validate_messages
    from discourse_memory.record.examples import harness_units
    from discourse_memory.tokens import get_token_counter
    from discourse_memory.units import Analyzer

    counter = get_token_counter(None)
    msgs = validate_messages([{"role": "system", "content": "You run one command per turn."},
                              {"role": "user", "content": text}])
    cols = Columns(counter.count)
    cols.extend(msgs, Analyzer(counter).fields(msgs))
    return [u.text for u, inside in zip(cols.units, harness_units(cols)) if inside]


def test_the_record_reads_a_registered_harness_tags_block_as_the_harness_s(registry):
    text = ("Fix the stalled worker pool in pool.py.\n\n<task_context>\nPrefix any action with "
            "MY_ENV_VAR=MY_VALUE.\nCombine commands as command1 && command2.\n</task_context>")
    assert _harness_texts(text) == []  # a tag no reader knows: text like any other
    register(TraceReader(name="my-harness", harness_tags=(r"task[-_]context",)))
    inside = _harness_texts(text)
    assert inside and all("pool.py" not in t for t in inside)
    assert any("MY_ENV_VAR=MY_VALUE" in t for t in inside) and any("command1" in t for t in inside)
    reminder = _harness_texts(text.replace("task_context", "system-reminder"))  # a built-in tag alike
    assert [t.replace("system-reminder", "task_context") for t in reminder] == inside

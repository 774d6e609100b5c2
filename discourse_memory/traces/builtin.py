"""The built-in trace readers (see :mod:`discourse_memory.traces`)."""

from __future__ import annotations

from . import TraceReader

__all__ = ["CLAUDE_CODE", "CODEX", "MINI_SWE_AGENT", "PYTEST", "READERS"]

PYTEST = TraceReader(
    name="pytest",
    # "tests/lint/unittest_lint.py ......F.. [ 80%]": which tests ran, not a value
    progress_lines=(r"(?:\S+[ \t]+)?[.FEsxX]+[ \t]*\[[ \t]*\d{1,3}%\]",),
)
MINI_SWE_AGENT = TraceReader(
    name="mini-swe-agent",
    # the instructions mini-swe-agent and SWE-agent wrap around a task
    # ("<instructions>", "<pr_instructions>"); Codex's "<user_instructions>" too
    harness_tags=(r"(?:\w+[-_])?instructions",),
)
CLAUDE_CODE = TraceReader(
    name="claude-code",
    harness_tags=(r"system[-_]reminder",),  # appended to a turn, and to a file it read
    line_number_marks="→",  # its Read tool: "    12→def main():"
)
CODEX = TraceReader(
    name="codex",
    harness_tags=(r"environment[-_]context",),  # the cwd, sandbox and shell of a turn
)
READERS = (PYTEST, MINI_SWE_AGENT, CLAUDE_CODE, CODEX)

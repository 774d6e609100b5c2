"""Text agents' steps: a command in an assistant's code block, and the user message that
returns its output (mini-SWE-agent, SWE-agent and other ReAct-style loops that do not use
tool calls).

The policy treats such an output like a tool result (:func:`.fit.signals.is_tool_output`), the
focus takes a command and its output as one step, and the record keys the values of an
output by the command that printed them (:func:`record.command_label`).
"""

from __future__ import annotations

import re

from collections.abc import Sequence

from .json_units import json_object
from .messages import Message

__all__ = ["answers_action", "argv_command", "is_action", "last_command", "main_step", "reads_code"]

_OPEN = re.compile(r"[ \t]{0,3}(`{3,}(?!`)|~{3,}(?!~))[ \t]*([\w+-]*)")
SHELLS = frozenset({"", "bash", "sh", "shell", "console", "zsh", "fish", "powershell", "pwsh", "cmd", "bat"})
"""Info strings of a fenced block that holds a command (a ``yaml`` or ``python`` block
shows code; it runs nothing)."""


def is_action(m: Message) -> bool:
    """An assistant message with a code block: a text agent's action."""
    return m.role == "assistant" and any("```" in tf.text for tf in m.texts)


def answers_action(messages: Sequence[Message], i: int) -> bool:
    """Message ``i`` is a user message right after an action: the action's output."""
    return i > 0 and messages[i].role == "user" and is_action(messages[i - 1])


def _fenced(text: str) -> list[tuple[str, str]]:
    """The closed fenced blocks of ``text``: (info string, body), in order; a fence left
    open runs to the end (CommonMark), so it closes no block. Read line by line: one
    pattern over the whole text backtracked over a long run of backticks (its time grew
    with the square of the run)."""
    blocks: list[tuple[str, str]] = []
    fence, info, body = "", "", []  # the open fence's marker, its info string, its lines
    for line in text.split("\n"):
        if fence:
            if line.lstrip(" \t").startswith(fence) and len(line) - len(line.lstrip(" \t")) <= 3:
                blocks.append((info, "\n".join(body) + "\n" if body else ""))
                fence = ""
            else:
                body.append(line)
            continue
        opening = _OPEN.match(line)
        if opening:
            fence, info, body = opening.group(1), opening.group(2), []
    return blocks


_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")


def last_command(m: Message) -> str | None:
    """The command a text agent runs: of the last fenced shell block of ``m`` (info string
    in :data:`SHELLS`), its last line outside here-documents (``cat <<'EOF' > t.py`` ...
    ``EOF`` then ``python3 t.py``: the run, whose output comes next), or ``None``."""
    for tf in reversed(m.texts):
        for info, body in reversed(_fenced(tf.text)):
            if info.lower() not in SHELLS:
                continue
            lines: list[str] = []
            end = None
            for line in body.splitlines():
                if end is not None:
                    if line.strip() == end:
                        end = None
                    continue
                if line.strip():
                    lines.append(line.strip())
                    here = _HEREDOC.search(line)
                    end = here.group(1) if here else None
            if lines:
                return lines[-1]
    return None


_READER = re.compile(r"(?:cat|nl|head|tail|less|more|bat|sed\s+-n|awk\s+'?NR)\b")
_READ_TOOL = re.compile(r"(?i)(?:^|_)(?:read|view|cat|open|show)(?:_?file)?(?:$|_)|^(?:read|view)[A-Z]|file_?read")
_CODE_FILE = re.compile(
    r"[\w/.-]\.(?:py|pyi|pyx|js|jsx|mjs|ts|tsx|go|rs|java|kt|scala|c|h|cc|cpp|hpp|cs|rb|php|swift|m|lua|pl|sh|"
    r"ex|exs|erl|hs|ml|clj|dart|r|jl|vue|svelte)\b")


def reads_code(command: str | None = None, tool: str | None = None, arguments: str = "") -> bool:
    """A command or tool call that prints a file of source code (``nl -ba a.py | sed -n
    10,20p``, ``cd /repo && cat src/app.ts``, Claude Code's ``Read`` of a ``.go`` file,
    ``read_file``, an editor's ``view``): what it printed can be read again, and a line of
    it is a fragment, where a line of a config or a document is a fact (``timeout_ms:
    1344``), so only code is meant."""
    if command is not None:
        first = main_step(command)
        return (first is not None and _READER.match(first) is not None and ">" not in first and "<<" not in first
                and _CODE_FILE.search(first) is not None)
    if tool is not None:
        head = arguments[:300]
        if _READ_TOOL.search(tool) is not None or ('"view"' in head and "command" in head):
            return _CODE_FILE.search(head) is not None
        shell = _shell_command(arguments)  # Claude Code's Bash, Codex's shell, execute_bash
        return shell is not None and reads_code(shell)
    return False


def _shell_command(arguments: str) -> str | None:
    """The command of a shell tool's arguments (``{"command": "cat a.py"}``, Codex's
    ``{"command": ["bash", "-lc", "sed -n 1,80p a.rs"]}``), or None."""
    if '"command"' not in arguments[:200] and '"cmd"' not in arguments[:200]:
        return None
    parsed = json_object(arguments)
    if parsed is None:
        return None
    command = parsed.get("command", parsed.get("cmd"))
    return argv_command(command) if isinstance(command, list) else command if isinstance(command, str) else None


def main_step(command: str) -> str | None:
    """Of ``cd /testbed && nl -ba a.py | sed -n 10,20p``, the step that reads or runs
    something (not the ``cd`` before it) and the first stage of its pipe (the file, not the
    filter): ``nl -ba a.py``; None when there is none."""
    steps = [s for s in re.split(r"\s*(?:&&|\|\||;)\s*", command.strip()) if s and not s.startswith("cd ")]
    return re.split(r"\s+\|\s+", steps[-1])[0].strip() if steps else None


def argv_command(argv: list) -> str | None:
    """The command an argv runs (Codex's shell: ``["bash", "-lc", "sed -n 1,80p a.rs"]``
    runs ``sed -n 1,80p a.rs``; ``["ls", "-la"]`` runs ``ls -la``), or None when it is
    no list of strings."""
    if not argv or not all(isinstance(a, str) for a in argv):
        return None
    return argv[-1] if len(argv) >= 3 and argv[-2] in ("-c", "-lc") else " ".join(argv)

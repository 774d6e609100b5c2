"""Text agents' steps: a command in an assistant's code block, and the user message that
returns its output (mini-SWE-agent, SWE-agent and other ReAct-style loops that do not use
tool calls).

The policy treats such an output like a tool result (:func:`fit.is_tool_output`), the
focus takes a command and its output as one step, and the record keys the values of an
output by the command that printed them (:func:`record.command_label`).
"""

from __future__ import annotations

import re

from .messages import Message

__all__ = ["is_action", "last_command"]

_FENCE = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[ \t]*([\w+-]*)[^\n]*\n(.*?)^[ \t]{0,3}\1", re.M | re.S)
SHELLS = frozenset({"", "bash", "sh", "shell", "console", "zsh", "fish", "powershell", "pwsh", "cmd", "bat"})
"""Info strings of a fenced block that holds a command (a ``yaml`` or ``python`` block
shows code; it runs nothing)."""


def is_action(m: Message) -> bool:
    """An assistant message with a code block: a text agent's action."""
    return m.role == "assistant" and any("```" in tf.text for tf in m.texts)


_HEREDOC = re.compile(r"<<-?\s*['\"]?(\w+)['\"]?")


def last_command(m: Message) -> str | None:
    """The command a text agent runs: of the last fenced shell block of ``m`` (info string
    in :data:`SHELLS`), its last line outside here-documents (``cat <<'EOF' > t.py`` ...
    ``EOF`` then ``python3 t.py``: the run, whose output comes next), or ``None``."""
    for tf in reversed(m.texts):
        for _, info, body in reversed(_FENCE.findall(tf.text)):
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

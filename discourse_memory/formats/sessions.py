"""Agent session files: Claude Code and Codex JSONL transcripts, read into a format
:func:`~discourse_memory.compact` reads.

- **Claude Code** (``~/.claude/projects/<project>/<session>.jsonl``): one JSON object a
  line; lines of ``"type": "user"`` / ``"assistant"`` hold an Anthropic message in
  ``message``; other lines (``summary``, ``file-history-snapshot``, ``system``,
  ``queue-operation``, ...) are not sent to the model and are skipped, as are
  ``isSidechain`` lines of a main session (a subagent's file, all sidechain, is read
  whole). Claude Code writes an assistant response one content block a line, the lines
  sharing ``message.id``: they are joined into one message; the results of one turn's
  parallel tool calls (one user line each) are joined into one user message, as the
  Messages API wants them. The result: Anthropic messages.
- **Codex** (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``): lines
  ``{"type": "response_item", "payload": <Responses item>}`` (other line types are
  events and context, skipped); ``session_meta.payload.instructions``, when set, is the
  body's ``instructions``; a ``compacted`` line with ``replacement_history`` replaces the
  items before it (Codex's own compaction). Older rollouts (items on their own lines
  after a metadata line) are read too. The result: a Responses body.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

__all__ = ["SESSION_FORMATS", "detect_session", "read_claude_code", "read_codex"]

SESSION_FORMATS = ("claude-code", "codex")
_CODEX_LINES = frozenset({"session_meta", "response_item", "turn_context", "event_msg", "compacted"})
_CLAUDE_LINES = frozenset({"user", "assistant", "summary", "file-history-snapshot", "system", "queue-operation",
                           "progress"})


def detect_session(lines: Sequence[Any]) -> str | None:
    """``"claude-code"``, ``"codex"`` or None for parsed JSONL ``lines``."""
    dicts = [x for x in lines if isinstance(x, Mapping)]
    if not dicts or len(dicts) != len(lines):
        return None
    if any(x.get("type") in _CODEX_LINES and "payload" in x for x in dicts):
        return "codex"
    if any(x.get("type") in ("user", "assistant") and isinstance(x.get("message"), Mapping) for x in dicts) and \
            all(x.get("type") in _CLAUDE_LINES or "uuid" in x or "sessionId" in x for x in dicts):
        return "claude-code"
    if any(x.get("record_type") == "state" for x in dicts) or (
            "instructions" in dicts[0] and "id" in dicts[0] and "timestamp" in dicts[0] and "role" not in dicts[0]):
        return "codex"
    return None


def _only_results(content: Any) -> bool:
    return isinstance(content, list) and bool(content) and all(
        isinstance(b, Mapping) and b.get("type") == "tool_result" for b in content)


def _blocks(content: Any) -> list[Any]:
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    return list(content) if isinstance(content, list) else []


def read_claude_code(lines: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
    """Anthropic messages from the parsed lines of a Claude Code session."""
    turns = [x for x in lines if x.get("type") in ("user", "assistant") and isinstance(x.get("message"), Mapping)]
    main = [x for x in turns if not x.get("isSidechain")]
    turns = main or turns
    out: list[dict[str, Any]] = []
    last_id: Any = None
    for line in turns:
        msg = line["message"]
        role = msg.get("role") or line["type"]
        content = msg.get("content")
        if role == "assistant":
            mid = msg.get("id")
            if out and out[-1]["role"] == "assistant" and mid is not None and mid == last_id:
                out[-1]["content"] = _blocks(out[-1]["content"]) + _blocks(content)
                continue
            last_id = mid
            out.append({"role": "assistant", "content": list(content) if isinstance(content, list) else content})
            continue
        last_id = None
        prev = out[-1] if out else None
        if prev is not None and prev["role"] == "user" and _only_results(prev["content"]) and (
                _only_results(content) or not any(isinstance(b, Mapping) and b.get("type") == "tool_result"
                                                  for b in _blocks(content))):
            prev["content"] = _blocks(prev["content"]) + _blocks(content)
            continue
        out.append({"role": "user", "content": list(content) if isinstance(content, list) else content})
    return out


def read_codex(lines: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """A Responses body (``input``, and ``instructions`` when the session has them)."""
    items: list[Any] = []
    instructions = None
    for n, line in enumerate(lines):
        kind = line.get("type")
        payload = line.get("payload")
        if kind == "session_meta" and isinstance(payload, Mapping):
            if isinstance(payload.get("instructions"), str) and payload["instructions"]:
                instructions = payload["instructions"]
        elif kind == "response_item" and isinstance(payload, Mapping):
            items.append(dict(payload))
        elif kind == "compacted" and isinstance(payload, Mapping):
            history = payload.get("replacement_history")
            if isinstance(history, list):
                items = [dict(x) for x in history if isinstance(x, Mapping)]
            elif isinstance(payload.get("message"), str):
                items = [{"type": "message", "role": "user",
                          "content": [{"type": "input_text", "text": payload["message"]}]}]
        elif "payload" not in line and line.get("record_type") is None:
            if n == 0 and "instructions" in line and "role" not in line and "type" not in line:
                if isinstance(line.get("instructions"), str) and line["instructions"]:
                    instructions = line["instructions"]
            elif isinstance(kind, str) or isinstance(line.get("role"), str):
                items.append(dict(line))
    body: dict[str, Any] = {"input": items}
    if instructions:
        body["instructions"] = instructions
    return body

"""Loading evaluation data into one shape: :class:`Conversation`.

Two formats, detected from the file itself (:func:`load`):

- LoCoMo's native JSON (a list of samples with ``conversation`` and ``qa``): each
  turn becomes one message ``"Speaker: text"`` (a shared photo as
  ``[shares a photo: caption]``), the first speaker's turns as ``user``, the
  second's as ``assistant``; the first turn of each session opens with the
  session's date line. Each message remembers its ``dia_id`` s; QA pairs keep
  their question, answer (as a string), evidence and category.
- JSONL of chat runs, one ``{"id", "messages", optional "gold_actions" or
  "gold_values"}`` a line (a JSON list of such objects works too): tau-bench runs
  (``gold_actions``: the gold tool calls), mini-swe-agent runs, CrossWOZ chats
  (``gold_values``: the facts to keep, as strings). Messages are OpenAI chat format; they
  are normalised: ``tool_calls`` given as a Python-repr or JSON string are parsed,
  assistant ``content`` ``"None"`` next to tool calls becomes ``None``, and
  non-string tool arguments are dumped to JSON.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

__all__ = [
    "QA", "Conversation", "DataFormatError", "SHELL_ACTION", "conversation_kind", "load", "load_locomo", "load_runs",
]


class DataFormatError(ValueError):
    """The file is not LoCoMo JSON nor JSONL of chat runs."""


@dataclass(frozen=True)
class QA:
    question: str
    answer: str | None
    evidence: tuple[str, ...]
    category: int | None


@dataclass
class Conversation:
    """One conversation or agent run, ready for a memory."""

    id: str
    messages: list[dict]
    dataset: str = ""
    dia_ids: list[tuple[str, ...]] = field(default_factory=list)
    turns: dict[str, str] = field(default_factory=dict)  # dia_id -> turn text
    qa: list[QA] = field(default_factory=list)
    gold_actions: list[dict] = field(default_factory=list)
    gold_values: list[str] = field(default_factory=list)  # facts to keep, given as strings


SHELL_ACTION = re.compile(r"```bash\s*\n(.*?)\n```", re.DOTALL)
"""A mini-swe-agent action: the bash command in a fenced block of the assistant's
content (the pattern mini-swe-agent parses)."""


def conversation_kind(conv: Conversation) -> str:
    """What kind of history this is, for the modes and bars that apply to a kind:

    - ``qa-dialogue``: has QA pairs (LoCoMo);
    - ``tool-calls``: an agent run in the tool-call format (assistant ``tool_calls``,
      ``role: tool`` results; tau-bench);
    - ``shell-agent``: an agent run whose assistant messages carry a bash command in a
      fenced block and whose tool output comes back as user messages (mini-swe-agent);
    - ``gold-values``: a chat with ``gold_values`` (CrossWOZ);
    - ``chat``: anything else.
    """
    if conv.qa:
        return "qa-dialogue"
    if any(m.get("tool_calls") or m.get("role") == "tool" for m in conv.messages):
        return "tool-calls"
    if any(
        m.get("role") == "assistant" and isinstance(m.get("content"), str) and SHELL_ACTION.search(m["content"])
        for m in conv.messages
    ):
        return "shell-agent"
    if conv.gold_values:
        return "gold-values"
    return "chat"


# -- LoCoMo -----------------------------------------------------------------


def _session_keys(conv: dict) -> list[str]:
    keys = [k for k in conv if k.startswith("session_") and k[8:].isdigit()]
    return sorted(keys, key=lambda k: int(k[8:]))


def _turn_text(turn: dict) -> str:
    text = str(turn.get("text", "")).strip()
    caption = turn.get("blip_caption")
    if caption:
        text = f"{text} [shares a photo: {str(caption).strip()}]".strip()
    return text


def _locomo_sample(sample: dict, index: int, dataset: str) -> Conversation:
    conv = sample["conversation"]
    speaker_a = conv.get("speaker_a")
    messages: list[dict] = []
    dia_ids: list[tuple[str, ...]] = []
    turns: dict[str, str] = {}
    for key in _session_keys(conv):
        date = conv.get(f"{key}_date_time")
        for position, turn in enumerate(conv[key] or ()):
            speaker = str(turn.get("speaker", ""))
            text = _turn_text(turn)
            dia_id = str(turn.get("dia_id", ""))
            content = f"{speaker}: {text}"
            if position == 0 and date:
                content = f"[{date}]\n{content}"
            role = "user" if speaker == speaker_a or speaker_a is None else "assistant"
            messages.append({"role": role, "content": content})
            dia_ids.append((dia_id,) if dia_id else ())
            if dia_id:
                turns[dia_id] = text
    qa = []
    for item in sample.get("qa") or ():
        answer = item.get("answer")
        evidence = item.get("evidence") or ()
        if isinstance(evidence, str):
            evidence = [evidence]
        qa.append(
            QA(
                question=str(item.get("question", "")),
                answer=None if answer is None else str(answer),
                evidence=tuple(str(e) for e in evidence),
                category=item.get("category"),
            )
        )
    return Conversation(
        id=str(sample.get("sample_id", f"locomo-{index}")),
        messages=messages,
        dataset=dataset,
        dia_ids=dia_ids,
        turns=turns,
        qa=qa,
    )


def load_locomo(path: str | Path) -> list[Conversation]:
    """LoCoMo native JSON (a list of samples) -> conversations."""
    path = Path(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict):
        data = [data]
    return [_locomo_sample(s, i, path.stem) for i, s in enumerate(data)]


# -- chat runs ----------------------------------------------------------------


def _parse_tool_calls(value: Any) -> list[dict] | None:
    if value is None or value == "" or value == "None":
        return None
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            value = ast.literal_eval(value)  # Python repr, as some dumps have it
    calls = []
    for call in value or ():
        call = dict(call)
        function = dict(call.get("function") or {})
        arguments = function.get("arguments")
        if arguments is not None and not isinstance(arguments, str):
            function["arguments"] = json.dumps(arguments)
        call["function"] = function
        call.setdefault("type", "function")
        calls.append(call)
    return calls or None


def normalize_message(message: dict) -> dict:
    """One OpenAI chat message, normalised (see the module docstring)."""
    out = dict(message)
    if "tool_calls" in out:
        calls = _parse_tool_calls(out["tool_calls"])
        if calls is None:
            del out["tool_calls"]
        else:
            out["tool_calls"] = calls
    if out.get("role") == "assistant" and out.get("content") == "None":
        out["content"] = None
    return out


def _run(obj: dict, index: int, dataset: str) -> Conversation:
    if not isinstance(obj, dict) or not isinstance(obj.get("messages"), list):
        raise DataFormatError(
            f"{dataset}: record {index} has no 'messages' list; expected "
            '{"id": ..., "messages": [...], "gold_actions": [...]} per line'
        )
    return Conversation(
        id=str(obj.get("id", f"{dataset}-{index}")),
        messages=[normalize_message(m) for m in obj["messages"]],
        dataset=dataset,
        gold_actions=list(obj.get("gold_actions") or ()),
        gold_values=[str(v) for v in obj.get("gold_values") or () if str(v).strip()],
    )


def load_runs(path: str | Path) -> list[Conversation]:
    """JSONL (or a JSON list) of chat runs -> conversations."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    stripped = text.lstrip()
    if stripped.startswith("["):
        records = json.loads(stripped)
    else:
        records = []
        for number, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as exc:
                    raise DataFormatError(f"{path}:{number}: not JSON ({exc})") from None
    return [_run(r, i, path.stem) for i, r in enumerate(records)]


def _is_locomo(records: Sequence[Any]) -> bool:
    return bool(records) and all(
        isinstance(r, dict) and "conversation" in r for r in records[:3]
    )


def load(path: str | Path) -> list[Conversation]:
    """Load LoCoMo JSON or chat-run JSONL, whichever ``path`` holds."""
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"no such data file: {path}")
    with path.open(encoding="utf-8") as handle:
        head = handle.read(1 << 16).lstrip()
    if head.startswith("[") or (head.startswith("{") and '"conversation"' in head[:4096]):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            data = None  # JSONL whose first line is an object: fall through
        if data is not None:
            records = data if isinstance(data, list) else [data]
            if _is_locomo(records):
                return load_locomo(path)
            return [_run(r, i, path.stem) for i, r in enumerate(records)]
    return load_runs(path)

"""Scores of one view (a list of messages) against the full history it came from.

Every score is a share in ``[0, 1]`` of things of the history found in the view
text (``None`` when the history has none of them):

- ``literal_recall``: distinct grader literals of the history found in the view.
- ``sentence_survival``: distinct sentence openings (first five words) of the
  history found verbatim in the view.
- ``evidence_retention``: evidence turns (LoCoMo ``dia_id`` s) all of whose
  sentence openings are found in the view.
- ``answer_containment``: QA answers (categories 1-4) found in the view, case and
  whitespace ignored.
- ``gold_arg_recall``: distinct leaf values of the gold tool-call arguments found
  in the view (the bench counts only the values the full history states: a value
  the conversation never mentions cannot be remembered).

"Found" means: present in the view text (whitespace collapsed) at a word boundary:
``30`` is not found in ``2030``, and ``Li`` is not found in ``Lisbon``. A CJK
character (Chinese, kana) is a word of its own, as CJK is written without spaces:
``篱苑图书馆`` is found in ``就去篱苑图书馆吧``, ``A12345`` in ``订单号是A12345``. The view
text is the concatenation of every message's text content and tool-call names and
arguments, the record note included (the model receives it).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from .grader import CJK, distinct, extract_literals, normalize_space, sentence_openings

__all__ = [
    "TextIndex",
    "answer_containment",
    "evidence_retention",
    "gold_arg_recall",
    "gold_values",
    "history_literals",
    "literal_recall",
    "message_text",
    "orphan_tool_messages",
    "sentence_survival",
    "share_found",
    "view_text",
]

_RUN = re.compile(f"[^\\W{CJK}]+|[{CJK}]")  # a run of word characters; each CJK character alone
_WORD_EDGE = re.compile(f"[^\\W{CJK}]")  # a word character that joins its neighbour (not CJK)


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return str(content)


def message_text(message: dict) -> str:
    """Text content plus tool-call names and arguments of one message."""
    pieces = [_content_text(message.get("content"))]
    for call in message.get("tool_calls") or ():
        function = call.get("function", call) if isinstance(call, dict) else {}
        name = function.get("name") or ""
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments) if arguments is not None else ""
        pieces.append(f"{name} {arguments}".strip())
    return "\n".join(p for p in pieces if p)


def view_text(messages: Iterable[dict]) -> str:
    """Concatenated text of a view (or a history), one message per paragraph."""
    return "\n\n".join(message_text(m) for m in messages)


class TextIndex:
    """Word-boundary substring search over one text, fast for many queries.

    Every ``\\w+`` run of the (whitespace-collapsed) text is indexed by its
    position (a CJK character is a run of its own); a query is looked up by its own
    first run, then compared in place. A query is found when it occurs with no word
    character right before it (if it starts with one) and none right after it (if it
    ends with one), CJK characters aside: they border anything.
    """

    def __init__(self, text: str) -> None:
        self.text = normalize_space(text)
        self._runs: dict[str, list[int]] = {}
        for m in _RUN.finditer(self.text):
            self._runs.setdefault(m.group(), []).append(m.start())

    def __contains__(self, query: str) -> bool:
        query = normalize_space(query)
        first = _RUN.search(query)
        if first is None:
            return bool(query) and query in self.text
        offset = first.start()
        text = self.text
        end_is_word = bool(_WORD_EDGE.fullmatch(query[-1]))
        for position in self._runs.get(first.group(), ()):
            start = position - offset
            if start < 0 or not text.startswith(query, start):
                continue
            stop = start + len(query)
            if end_is_word and stop < len(text) and _WORD_EDGE.fullmatch(text[stop]):
                continue
            return True
        return False


def share_found(items: Sequence[str], index: TextIndex) -> float | None:
    """Share of ``items`` found in ``index``; ``None`` when there are none."""
    if not items:
        return None
    return sum(1 for item in items if item in index) / len(items)


def literal_recall(history_literals: Sequence[str], index: TextIndex) -> float | None:
    """Share of the history's distinct grader literals found in the view."""
    return share_found(distinct(history_literals), index)


def sentence_survival(history_openings: Sequence[str], index: TextIndex) -> float | None:
    """Share of the history's distinct sentence openings found in the view."""
    return share_found(distinct(history_openings), index)


def evidence_retention(
    evidence_turns: dict[str, str], index: TextIndex
) -> float | None:
    """Share of evidence turns (``dia_id -> turn text``) whose every sentence
    opening is found in the view."""
    if not evidence_turns:
        return None
    kept = 0
    for text in evidence_turns.values():
        openings = sentence_openings(text)
        if all(opening in index for opening in openings):
            kept += 1
    return kept / len(evidence_turns)


def answer_containment(answers: Sequence[str], index: TextIndex) -> float | None:
    """Share of answers contained in the view text, case and whitespace ignored
    (plain substring: answers are phrases, not literals)."""
    if not answers:
        return None
    lowered = index.text.lower()
    found = sum(1 for a in answers if normalize_space(a).lower() in lowered)
    return found / len(answers)


def gold_values(gold_actions: Sequence[dict]) -> list[str]:
    """Distinct leaf values of the gold actions' keyword arguments, as strings
    (``None`` and empty strings left out; ``True``/``False`` as written in JSON)."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)
        elif value is None:
            return
        elif isinstance(value, bool):
            out.append("true" if value else "false")
        else:
            text = str(value).strip()
            if text:
                out.append(text)

    for action in gold_actions:
        walk(action.get("kwargs") or action.get("arguments") or {})
    return distinct(out)


def gold_arg_recall(gold: Sequence[str], index: TextIndex) -> float | None:
    """Share of gold argument values found in the view."""
    return share_found(gold, index)


def orphan_tool_messages(messages: Sequence[dict]) -> int:
    """Tool results in a view whose calling assistant message is not in it
    (providers reject such a request)."""
    called: set[str] = set()
    orphans = 0
    for message in messages:
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict) and call.get("id"):
                called.add(call["id"])
        if message.get("role") == "tool" and message.get("tool_call_id") not in called:
            orphans += 1
    return orphans


def history_literals(messages: Iterable[dict]) -> list[str]:
    """Distinct grader literals of a list of messages."""
    return distinct(lit for m in messages for lit in extract_literals(message_text(m)))

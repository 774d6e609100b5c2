"""The focused modes of the bench: the newest turn asks for something.

- **qa** (LoCoMo, :func:`qa_items`): for each QA item of categories 1-4 with an
  answer, the question is appended to the whole history as the newest user message.
  The budget is ``floor(f x tokens of the history without the question)`` plus the
  question's own tokens, so every method has the same room for the history and the
  question costs nothing. Score: 1 if the answer stands in the view *outside the
  question* (every occurrence of the question's text is cut out of the view text
  first, wherever a method put it), at word boundaries, case and whitespace
  ignored (:func:`~.metrics.answer_found`); else 0.
- **next-step** (agent runs, :func:`step_items`): at sampled assistant actions of a
  run, the history before the action is what the memory gets, at ``floor(f x its
  tokens)``. The action's literals: in the tool-call format (tau-bench), the leaf
  values of its tool calls' arguments (the rule of :func:`~.metrics.gold_values`);
  in a mini-swe-agent run, the grader's literals (:func:`~.grader.extract_literals`)
  of the bash command in its fenced block. Only the literals that already stand in
  that history count (a value the agent has not seen cannot be remembered); an
  action with none is not sampled. Score: the share of them found in the view.
- **ask** (agent runs, :func:`ask_items`): the user asks, after the whole run, for a
  value an earlier tool output stated under a name: a code line's assignment
  (``HORIZON_MIN_TOKENS = 200_000``: "What is `HORIZON_MIN_TOKENS` set to?") or a JSON
  member (``"address1": "975 Sunset Drive"``: "What was `address1` in the output of
  get_user_details?"). Only names assigned (or made a member) once in the run, with
  values stated at most twice, in the first 70% of its messages (so that the newest messages alone
  do not hold them). Budget and score as in **qa**.

Sampling is deterministic: up to ``n`` items per conversation, spread evenly over the
eligible ones in order (:func:`spread`); ``None`` takes them all.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass

from . import baselines
from .datasets import SHELL_ACTION, Conversation
from .grader import distinct, extract_literals, normalize_space
from .metrics import TextIndex, answer_found, gold_values, message_text, orphan_tool_messages, view_text

__all__ = [
    "AGENT_KINDS",
    "Item",
    "action_literals",
    "ask_items",
    "qa_items",
    "score_item",
    "spread",
    "step_items",
]

QA_CATEGORIES = (1, 2, 3, 4)
AGENT_KINDS = ("tool-calls", "shell-agent")
MODE_METRIC = {"qa": "qa_answer", "next-step": "next_step_support", "ask": "ask_answer"}
_QUESTION_CUT = " \x00 "  # stands where the question was: no word, so no answer spans it


@dataclass(frozen=True)
class Item:
    """One question or one step: what the memory gets and what the view is scored on."""

    mode: str  # "qa", "next-step" or "ask"
    index: int  # the QA item's number in conv.qa, or the action's message index
    messages: list[dict]
    base_tokens: int  # the budget fraction applies to these tokens
    extra_tokens: int  # added to the budget (the question's tokens)
    targets: tuple[str, ...]  # the answer, or the action's literals standing in the history
    exclude: str | None = None  # text cut out of the view before scoring (the question)

    def budget(self, fraction: float) -> int:
        return int(fraction * self.base_tokens) + self.extra_tokens


def spread(items: Sequence, n: int | None) -> list:
    """Up to ``n`` of ``items``, evenly spread, first and last included, in order."""
    if n is None or len(items) <= n:
        return list(items)
    if n == 1:
        return [items[0]]
    picks = sorted({round(i * (len(items) - 1) / (n - 1)) for i in range(n)})
    return [items[i] for i in picks]


def qa_items(conv: Conversation, counter, n: int | None) -> list[Item]:
    """The sampled questions of a LoCoMo conversation, each appended to the history."""
    eligible = [
        (i, qa) for i, qa in enumerate(conv.qa) if qa.category in QA_CATEGORIES and qa.answer and qa.answer.strip()
    ]
    return _questions(conv, counter, "qa", [(i, qa.question, qa.answer) for i, qa in spread(eligible, n)])


def _questions(conv: Conversation, counter, mode: str, asked: list[tuple[int, str, str]]) -> list[Item]:
    """Items of ``mode``: each (index, question, answer) appended to the whole history as
    the newest user message; the budget is a share of the history's tokens plus the
    question's own."""
    history = baselines.view_tokens(counter, conv.messages)
    out = []
    for index, text, answer in asked:
        question = {"role": "user", "content": text}
        out.append(
            Item(
                mode=mode,
                index=index,
                messages=[*conv.messages, question],
                base_tokens=history,
                extra_tokens=baselines.message_tokens(counter, question),
                targets=(answer,),
                exclude=text,
            )
        )
    return out


def action_literals(message: dict) -> list[str]:
    """The literals of an assistant action: its tool calls' argument leaf values, or
    the grader's literals of the bash command in its content (mini-swe-agent)."""
    calls = message.get("tool_calls") or ()
    if calls:
        out: list[str] = []
        for call in calls:
            arguments = (call.get("function") or {}).get("arguments")
            try:
                parsed = json.loads(arguments) if isinstance(arguments, str) else arguments
            except json.JSONDecodeError:
                parsed = arguments
            out.extend(gold_values([{"kwargs": parsed if isinstance(parsed, dict) else {"value": parsed}}]))
        return distinct(out)
    content = message.get("content")
    if message.get("role") == "assistant" and isinstance(content, str):
        match = SHELL_ACTION.search(content)
        if match:
            return distinct(extract_literals(match.group(1)))
    return []


def step_items(conv: Conversation, counter, n: int | None) -> list[Item]:
    """The sampled next-action steps of an agent run."""
    messages = conv.messages
    indexes: list[TextIndex | None] = [None] * len(messages)  # one per message, built on demand
    first_seen: dict[str, int | None] = {}

    def seen_before(literal: str, k: int) -> bool:
        # the first message stating the literal, searched once per literal
        if literal not in first_seen:
            first_seen[literal] = None
            for j in range(len(messages)):
                if indexes[j] is None:
                    indexes[j] = TextIndex(message_text(messages[j]))
                if literal in indexes[j]:
                    first_seen[literal] = j
                    break
        j = first_seen[literal]
        return j is not None and j < k

    eligible = []
    for k, message in enumerate(messages):
        if message.get("role") != "assistant" or k == 0:
            continue
        literals = [lit for lit in action_literals(message) if seen_before(lit, k)]
        if literals:
            eligible.append((k, tuple(literals)))
    out = []
    sizes = [baselines.message_tokens(counter, m) for m in messages]
    for k, literals in spread(eligible, n):
        out.append(
            Item(
                mode="next-step",
                index=k,
                messages=list(messages[:k]),
                base_tokens=sum(sizes[:k]) + baselines.reply_tokens(counter),  # (as a request)
                extra_tokens=0,
                targets=literals,
            )
        )
    return out


ASK_SHARE = 0.7
"""The ask mode's values stand in the first this share of a run's messages."""
_ASSIGNED = re.compile(r"^\s*(?:\d+\s+)?([A-Za-z_]\w{3,})\s*=\s*(\d[\d_.]*|'[^'\n]{1,30}'|\"[^\"\n]{1,30}\")\s*,?\s*(?:#.*)?$",
                       re.MULTILINE)
_MEMBER = re.compile(r'"([A-Za-z_]\w{2,})":\s*("[^"\n\\]{2,40}"|-?\d[\d.]*)(?=\s*[,}\n])')


def _outputs(conv: Conversation) -> list[tuple[int, str, str]]:
    """(index, text, what made it) of each tool output of a run (the observations of
    :func:`~.baselines.observation_indices`): a ``tool`` message, made by its call's
    function; a user message after a mini-swe-agent action, by its command."""
    names: dict[str, str] = {}
    out = []
    messages = conv.messages
    outputs = set(baselines.observation_indices(messages))
    for k, message in enumerate(messages):
        for call in message.get("tool_calls") or ():
            names[call.get("id", "")] = (call.get("function") or {}).get("name") or "the tool"
        if k not in outputs:
            continue
        if message.get("role") == "tool":
            maker = names.get(message.get("tool_call_id", ""), "the tool")
        else:
            command = SHELL_ACTION.search(messages[k - 1]["content"]).group(1).split()
            maker = f"`{command[0]}`" if command else "the command"
        out.append((k, message_text(message), maker))
    return out


def ask_items(conv: Conversation, counter, n: int | None) -> list[Item]:
    """The sampled questions of an agent run about values its earlier tool outputs
    named (see the module docstring), each appended to the whole run."""
    everything = "\n".join(message_text(m) for m in conv.messages)
    cut = int(len(conv.messages) * ASK_SHARE)
    eligible = []
    asked: set[str] = set()
    for k, text, maker in _outputs(conv):
        if k >= cut:
            break
        found = [(m.group(1), m.group(2), f"What is `{m.group(1)}` set to?", len(re.findall(
            rf"\b{m.group(1)}\s*=(?!=)", everything))) for m in _ASSIGNED.finditer(text)]
        found += [(m.group(1), m.group(2), f"What was `{m.group(1)}` in the output of {maker}?",
                   everything.count(f'"{m.group(1)}":')) for m in _MEMBER.finditer(text)]
        for name, value, question, stated in found:
            value = value.strip("'\"")
            # (named once, so the question has one answer; a value stated rarely, so that
            # finding it in the view is finding it where it was named)
            if name in asked or len(value) < 2 or stated != 1 or everything.count(value) > 2:
                continue
            asked.add(name)
            eligible.append((k, question, value))
    return _questions(conv, counter, "ask", spread(eligible, n))


def score_item(item: Item, view: Sequence[dict]) -> tuple[float, list[str]]:
    """The item's score on ``view`` and the targets it lost."""
    text = view_text(view)
    if item.mode in ("qa", "ask"):
        text = normalize_space(text)
        if item.exclude:
            text = text.replace(normalize_space(item.exclude), _QUESTION_CUT)
        index = TextIndex(text.lower())
        lost = [t for t in item.targets if not answer_found(t, index)]
    else:
        index = TextIndex(text)
        lost = [t for t in item.targets if t not in index]
    return 1 - len(lost) / len(item.targets), lost


def run_items(conv: Conversation, items: Sequence[Item], config, method_names: Sequence[str], row_type) -> list:
    """Every method at every budget on each item, as ``row_type`` rows (bench.Row)."""
    counter = baselines.get_counter(config.encoding)
    rows = []
    for item in items:
        for name in method_names:
            if (
                name == "llamaindex-buffer"
                and config.llamaindex_max_tokens is not None
                and item.base_tokens > config.llamaindex_max_tokens
            ):
                continue
            method = baselines.METHODS[name]
            for fraction in config.budgets:
                budget = item.budget(fraction)
                start = time.perf_counter()
                error = None
                try:
                    view = method.run(item.messages, budget, counter)
                except Exception as exc:  # scored as an empty view, counted as a failure
                    view, error = [], f"{type(exc).__name__}: {exc}"
                seconds = time.perf_counter() - start
                out = baselines.view_tokens(counter, view)
                note = getattr(view, "note", None)
                value, lost = score_item(item, view)
                metric = MODE_METRIC[item.mode]
                rows.append(
                    row_type(
                        dataset=conv.dataset,
                        conversation=conv.id,
                        method=name,
                        fraction=fraction,
                        budget=budget,
                        tokens_in=item.base_tokens + item.extra_tokens,
                        tokens_out=out,
                        seconds=seconds,
                        violation=out > budget,
                        orphan_tools=orphan_tool_messages(view),
                        note_tokens=baselines.message_tokens(counter, note) if note is not None else 0,
                        error=error,
                        scores={metric: value},
                        lost={"targets": lost[: config.examples]} if lost and config.examples else {},
                        mode=item.mode,
                        item=item.index,
                    )
                )
    return rows

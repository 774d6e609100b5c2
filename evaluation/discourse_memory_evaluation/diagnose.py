"""Diagnostics behind the bench numbers: where a memory loses, and why.

    python -m discourse_memory_evaluation.diagnose DATA [DATA ...] [--budgets 0.25,0.5]

Prints, per data file and budget:

1. protected tokens: conversations whose system messages alone, or system messages
   plus the newest turn (the last user message and everything after it), do not
   fit the budget: a memory that keeps those verbatim cannot answer there;
2. task statement kept: per method, the mean share of the first user message's
   sentence openings found in the view (in agent runs that message is the task);
3. for QA data, per method: of the answers the history states verbatim, how many
   the view keeps; answers lost although all their evidence turns are kept
   verbatim, and answers lost with their evidence;
4. for discourse-memory: the history's literals (by the bench's grader) that its
   view lost, split by what the library's own extractor makes of them -- a value it
   records (lost only where the record was cut to fit) or not a literal to it (JSON
   field names, for instance: it records their values, not the names) -- with the
   most frequent of each.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from collections.abc import Sequence

from . import baselines
from .bench import _EVIDENCE_SPLIT, QA_CATEGORIES, targets
from .datasets import Conversation, load
from .grader import distinct, normalize_space, sentence_openings
from .metrics import TextIndex, evidence_retention, message_text, share_found, view_text

__all__ = ["main", "protected_tokens"]

SYSTEM_ROLES = ("system", "developer")


def protected_tokens(conv: Conversation, counter) -> tuple[int, int]:
    """Tokens of the system messages, and of the newest turn (last user message on)."""
    system = sum(baselines.message_tokens(counter, m) for m in conv.messages if m.get("role") in SYSTEM_ROLES)
    users = [i for i, m in enumerate(conv.messages) if m.get("role") == "user"]
    start = users[-1] if users else len(conv.messages)
    turn = sum(
        baselines.message_tokens(counter, m) for m in conv.messages[start:] if m.get("role") not in SYSTEM_ROLES
    )
    return system, turn


def _task_openings(conv: Conversation) -> list[str]:
    first = next((m for m in conv.messages if m.get("role") == "user"), None)
    return distinct(sentence_openings(message_text(first))) if first else []


def _stated_answers(conv: Conversation) -> list[str]:
    """Category 1-4 answers that the history states verbatim (case and spaces aside)."""
    history = TextIndex(view_text(conv.messages)).text.lower()
    return [
        qa.answer
        for qa in conv.qa
        if qa.category in QA_CATEGORIES and qa.answer and normalize_space(qa.answer).lower() in history
    ]


def _qa_losses(conv: Conversation, index: TextIndex) -> tuple[int, int]:
    """(answers lost with all evidence kept, answers lost with evidence lost)."""
    lowered = index.text.lower()
    kept_evidence = lost_evidence = 0
    for qa in conv.qa:
        if qa.category not in QA_CATEGORIES or not qa.answer or normalize_space(qa.answer).lower() in lowered:
            continue
        ids = [d for raw in qa.evidence for d in _EVIDENCE_SPLIT.split(raw) if d in conv.turns]
        if ids and evidence_retention({d: conv.turns[d] for d in ids}, index) == 1.0:
            kept_evidence += 1
        else:
            lost_evidence += 1
    return kept_evidence, lost_evidence


def own_literals(conv: Conversation) -> set[str]:
    """Every literal text the library's own extractor finds in the history (message
    texts, tool-call names and arguments), read off the report of a compaction that
    keeps everything."""
    from discourse_memory import compact

    report = compact(conv.messages, budget=10**12, relax=True).report
    return {text for unit in report.units for text in unit.literals_kept}


def _lost_literals(literals: Sequence[str], own: set[str], index: TextIndex, ours: Counter,
                   not_ours: Counter) -> None:
    for literal in literals:
        if literal not in index:
            (ours if literal in own else not_ours)[literal] += 1


def diagnose(path: str, budgets: Sequence[float], methods: Sequence[str], limit: int | None, out=print) -> None:
    counter = baselines.get_counter()
    convs = load(path)[:limit] if limit else load(path)
    ready, skipped = baselines.resolve_methods(methods)
    for message in skipped:
        out(message)
    totals = {c.id: baselines.view_tokens(counter, c.messages) for c in convs}
    protected = {c.id: protected_tokens(c, counter) for c in convs}
    out(f"## {path}: {len(convs)} conversations\n")
    literal_sets: dict[str, tuple[list[str], set[str]]] = {}
    for fraction in budgets:
        budgets_of = {cid: int(fraction * n) for cid, n in totals.items()}
        system_over = sum(protected[cid][0] > b for cid, b in budgets_of.items())
        both_over = sum(sum(protected[cid]) > b for cid, b in budgets_of.items())
        out(
            f"budget {fraction:g}: system messages alone over budget in {system_over}, "
            f"system + newest turn over budget in {both_over} of {len(convs)}"
        )
        stated = {conv.id: _stated_answers(conv) for conv in convs}
        n_stated = sum(len(v) for v in stated.values())
        for method in ready:
            task, qa_kept, qa_lost, failed, stated_kept = [], 0, 0, 0, 0
            lost_ours: Counter = Counter()
            lost_other: Counter = Counter()
            for conv in convs:
                try:
                    view = method.run(conv.messages, budgets_of[conv.id], counter)
                except Exception:
                    failed += 1
                    view = []
                index = TextIndex(view_text(view))
                share = share_found(_task_openings(conv), index)
                if share is not None:
                    task.append(share)
                kept, lost = _qa_losses(conv, index)
                qa_kept += kept
                qa_lost += lost
                lowered = index.text.lower()
                stated_kept += sum(normalize_space(a).lower() in lowered for a in stated[conv.id])
                if method.name == "discourse-memory":
                    if conv.id not in literal_sets:  # the same at every budget: once per conversation
                        literal_sets[conv.id] = (targets(conv).literals, own_literals(conv))
                    _lost_literals(*literal_sets[conv.id], index, lost_ours, lost_other)
            line = f"  {method.name}: task statement openings kept {100 * sum(task) / max(1, len(task)):.1f}%"
            if any(conv.qa for conv in convs):
                line += (
                    f"; answers the history states verbatim kept {stated_kept} of {n_stated}"
                    f" ({100 * stated_kept / max(1, n_stated):.1f}%)"
                    f"; answers lost with evidence kept {qa_kept}, with evidence lost {qa_lost}"
                )
            out(line + (f" ({failed} failed, scored empty)" if failed else ""))
            if method.name == "discourse-memory":
                n_ours, n_other = sum(lost_ours.values()), sum(lost_other.values())
                out(f"    literals lost: {n_ours + n_other}; values its extractor records (record cut to fit): "
                    f"{n_ours}; not literals to its extractor: {n_other}")
                for label, lost in (("records", lost_ours), ("not literals", lost_other)):
                    top = ", ".join(f"{text} ({n})" for text, n in lost.most_common(12))
                    if top:
                        out(f"    most lost, {label}: {top}")
    out("")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m discourse_memory_evaluation.diagnose", description=__doc__.split("\n")[0])
    parser.add_argument("data", nargs="+")
    parser.add_argument("--budgets", default="0.25,0.5")
    parser.add_argument("--methods", default="discourse-memory,trim-last,head-tail")
    parser.add_argument("--limit", type=int)
    args = parser.parse_args(argv)
    budgets = [float(b) for b in args.budgets.split(",") if b.strip()]
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    for path in args.data:
        diagnose(path, budgets, methods, args.limit)
    return 0


if __name__ == "__main__":
    sys.exit(main())

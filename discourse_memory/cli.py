"""The ``discourse-memory`` command: compact a conversation, inspect it, run the demo.

(The evaluation against baselines is a separate distribution: ``discourse-memory-eval``.)

    discourse-memory compact FILE --budget N [--encoding NAME] [--format json|text] [--report]
    discourse-memory demo [--sessions N] [--budget-share F]
    discourse-memory inspect FILE --budget N -o view.html
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from .errors import DiscourseMemoryError

__all__ = ["main", "read_messages"]


def read_messages(source: str) -> list[dict[str, Any]]:
    """Messages from a JSON array, a ``{"messages": [...]}`` object, or JSONL (``-`` = stdin)."""
    text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    stripped = text.strip()
    if not stripped:
        raise ValueError(f"{source}: empty input; expected a JSON array of messages or JSONL")
    try:
        data = json.loads(stripped)
    except json.JSONDecodeError:
        data = None
        lines = [line for line in stripped.splitlines() if line.strip()]
        try:
            data = [json.loads(line) for line in lines]
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}: neither a JSON document nor JSONL ({exc})") from exc
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if not isinstance(data, list):
        raise ValueError(f"{source}: expected a list of messages, got {type(data).__name__}")
    return data


def _text_of(message: dict[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        content = "\n".join(p.get("text", f"[{p.get('type')}]") if isinstance(p, dict) else str(p) for p in content)
    out = content or ""
    for call in message.get("tool_calls") or []:
        fn = call.get("function", {})
        out += f"\n→ {fn.get('name')}({fn.get('arguments')})"
    return out


def _cmd_compact(args: argparse.Namespace) -> int:
    from .compaction import compact

    messages = read_messages(args.file)
    result = compact(messages, args.budget, token_counter=args.encoding,
                     keep_last_turn=not args.no_keep_last_turn)
    if args.format == "json":
        out: dict[str, Any] = {"messages": result.messages, "tokens_before": result.tokens_before,
                               "tokens_after": result.tokens_after, "budget": result.budget}
        if args.report:
            out["report"] = result.report.to_dict()
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        for m in result.messages:
            print(f"--- {m.get('role')}")
            print(_text_of(m))
        print(f"\n[{result.tokens_before} -> {result.tokens_after} tokens, budget {result.budget}]")
        if args.report:
            counts = result.report.counts
            print("units: " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    return 0


def _cmd_demo(args: argparse.Namespace) -> int:
    from .compaction import compact
    from .sample import sample_conversation

    messages = sample_conversation(args.sessions)
    probe = compact(messages, 10**9)
    budget = max(1, int(probe.tokens_before * args.budget_share))
    result = compact(messages, budget)
    report = result.report
    print(f"Sample conversation: {len(messages)} messages, {result.tokens_before} tokens "
          f"(cl100k_base). Budget: {budget} tokens ({args.budget_share:.0%}).")
    print(f"View: {len(result.messages)} messages, {result.tokens_after} tokens.\n")
    print("Units by decision: " + ", ".join(f"{k} {v}" for k, v in report.counts.items()))
    by_decision: dict[str, list[Any]] = {}
    for u in report.units:
        by_decision.setdefault(u.decision, []).append(u)
    for decision in ("deduplicated", "clipped", "omitted"):
        units = by_decision.get(decision, [])
        print(f"\n{decision.capitalize()} ({len(units)}), for example:")
        for u in units[:4]:
            text = _unit_text(messages, u).replace("\n", " ⏎ ")
            extra = f" (newer copy: {u.duplicate_of})" if u.duplicate_of else ""
            print(f"  - message {u.message}, {u.kind}: {text[:90]}{'…' if len(text) > 90 else ''}{extra}")
    print(f"\nRecord ({len(report.record)} literals in the note, {len(report.dropped)} dropped):")
    print(report.note)
    if args.html:
        from .inspect import render_html

        Path(args.html).write_text(render_html(result, messages), encoding="utf-8")
        print(f"\nHTML view written to {args.html}")
    return 0


def _unit_text(messages: list[dict[str, Any]], unit: Any) -> str:
    msg = messages[unit.message]
    if unit.field.startswith("tool_calls."):
        fn = msg["tool_calls"][int(unit.field.split(".")[1])]["function"]
        return f"{fn['name']}({fn['arguments']})"
    content = msg.get("content")
    if unit.field != "content":
        part = content[int(unit.field.split(".")[1])]
        content = part if isinstance(part, str) else part.get("text", "")
    return content[unit.start:unit.end]


def _cmd_inspect(args: argparse.Namespace) -> int:
    from .compaction import compact
    from .inspect import render_html

    messages = read_messages(args.file)
    result = compact(messages, args.budget, token_counter=args.encoding)
    Path(args.output).write_text(render_html(result, messages), encoding="utf-8")
    print(f"{args.output}: {result.tokens_before} -> {result.tokens_after} tokens "
          f"(budget {result.budget}); " + ", ".join(f"{k} {v}" for k, v in result.report.counts.items()))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="discourse-memory", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("compact", help="compact a conversation to a token budget")
    p.add_argument("file", help="JSON array or JSONL of OpenAI-style messages; - for stdin")
    p.add_argument("--budget", type=int, required=True, help="token budget of the output")
    p.add_argument("--encoding", default="cl100k_base", help="tiktoken encoding (default cl100k_base)")
    p.add_argument("--format", choices=("json", "text"), default="json")
    p.add_argument("--report", action="store_true", help="include the per-unit report")
    p.add_argument("--no-keep-last-turn", action="store_true", help="let the newest turn be compacted too")
    p.set_defaults(func=_cmd_compact)

    p = sub.add_parser("demo", help="compact the built-in sample conversation and explain the result")
    p.add_argument("--sessions", type=int, default=3, help="sessions in the sample (size)")
    p.add_argument("--budget-share", type=float, default=0.4, help="budget as a share of the tokens")
    p.add_argument("--html", help="also write the HTML inspector page here")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("inspect", help="write an HTML page showing what a compaction kept and left out")
    p.add_argument("file", help="JSON array or JSONL of messages; - for stdin")
    p.add_argument("--budget", type=int, required=True)
    p.add_argument("--encoding", default="cl100k_base")
    p.add_argument("-o", "--output", default="view.html")
    p.set_defaults(func=_cmd_inspect)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except (DiscourseMemoryError, ValueError, TypeError, LookupError, OSError) as exc:
        print(f"discourse-memory {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

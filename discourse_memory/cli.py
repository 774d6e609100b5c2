"""The ``discourse-memory`` command: compact a conversation, inspect it, run the demo.

(The evaluation against baselines is a separate distribution: ``discourse-memory-eval``.)

    discourse-memory compact FILE --budget N [--encoding NAME] [--format FORMAT] [--output json|text] [--report]
    discourse-memory demo [--sessions N] [--budget-share F]
    discourse-memory inspect FILE --budget N [--format FORMAT] -o view.html

FILE holds messages of any format ``compact`` reads (OpenAI chat, Responses items,
Anthropic messages or a request body, LangChain or LlamaIndex dicts) as a JSON array, a
``{"messages": [...]}`` / request-body object or JSONL, or a Claude Code or Codex
session file (JSONL); the format is detected unless ``--format`` names it.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from .errors import DiscourseMemoryError

__all__ = ["INPUT_FORMATS", "main", "read_input", "read_messages"]

INPUT_FORMATS = ("auto", "openai", "responses", "anthropic", "langchain", "llamaindex", "claude-code", "codex")


def _load(source: str) -> tuple[Any, bool]:
    """The parsed input and whether it was JSONL."""
    text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    stripped = text.strip()
    if not stripped:
        raise ValueError(f"{source}: empty input; expected a JSON array of messages or JSONL")
    try:
        return json.loads(stripped), False
    except json.JSONDecodeError:
        lines = [line for line in stripped.splitlines() if line.strip()]
        try:
            return [json.loads(line) for line in lines], True
        except json.JSONDecodeError as exc:
            raise ValueError(f"{source}: neither a JSON document nor JSONL ({exc})") from exc


def read_messages(source: str) -> list[dict[str, Any]]:
    """Messages from a JSON array, a ``{"messages": [...]}`` object, or JSONL (``-`` = stdin)."""
    data, _ = _load(source)
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if not isinstance(data, list):
        raise ValueError(f"{source}: expected a list of messages, got {type(data).__name__}")
    return data


def read_input(source: str, fmt: str = "auto") -> tuple[Any, str]:
    """What ``compact`` is given for ``source`` and the format to name: messages, a
    request body, or a Claude Code / Codex session file read into Anthropic messages /
    a Responses body (``fmt``: one of :data:`INPUT_FORMATS`)."""
    from .formats.sessions import detect_session, read_claude_code, read_codex

    data, jsonl = _load(source)
    session = fmt if fmt in ("claude-code", "codex") else detect_session(data) if jsonl and fmt == "auto" else None
    if session is not None:
        if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
            raise ValueError(f"{source}: a {session} session file is JSONL of objects")
        if session == "claude-code":
            return read_claude_code(data), "anthropic"
        return read_codex(data), "responses"
    if isinstance(data, dict):
        if set(data) == {"messages"} and isinstance(data["messages"], list):
            data = data["messages"]
        elif not (isinstance(data.get("messages"), list) or "input" in data):
            raise ValueError(f"{source}: expected a list of messages or a request body with 'messages' or 'input'")
    elif not isinstance(data, list):
        raise ValueError(f"{source}: expected a list of messages, got {type(data).__name__}")
    return data, fmt


def _part_text(p: Any) -> str:
    if not isinstance(p, dict):
        return str(p)
    kind = p.get("type") or p.get("block_type")
    if kind in ("tool_use", "tool_call"):
        return f"→ {p.get('name') or p.get('tool_name')}({json.dumps(p.get('input', p.get('args', p.get('tool_kwargs'))), ensure_ascii=False)})"
    if kind == "tool_result":
        inner = p.get("content")
        body = inner if isinstance(inner, str) else "\n".join(_part_text(x) for x in inner or ())
        return f"← {p.get('tool_use_id')}: {body}"
    for key in ("text", "thinking", "reasoning", "refusal"):
        if isinstance(p.get(key), str):
            return p[key] if key == "text" else f"[{key}] {p[key]}"
    return f"[{kind}]"


def _text_of(message: dict[str, Any]) -> str:
    if isinstance(message.get("data"), dict):
        message = message["data"]
    content = message.get("content", message.get("blocks"))
    if isinstance(content, list):
        content = "\n".join(_part_text(p) for p in content)
    out = content if isinstance(content, str) else ""
    if not message.get("role") and message.get("type") not in (None, "message"):
        kind = message["type"]
        if "arguments" in message or "input" in message:
            out += f"→ {message.get('name')}({message.get('arguments', message.get('input'))})"
        elif "output" in message:
            output = message["output"]
            out += f"← {message.get('call_id')}: " + (output if isinstance(output, str) else json.dumps(output))
        elif kind == "reasoning":
            out += "[reasoning] " + " ".join(x.get("text", "") for x in message.get("summary") or ())
    for call in message.get("tool_calls") or []:
        fn = call.get("function", call)
        out += f"\n→ {fn.get('name')}({fn.get('arguments', fn.get('args'))})"
    return out


def _role_of(message: dict[str, Any]) -> str:
    data = message.get("data") if isinstance(message.get("data"), dict) else message
    return str(data.get("role") or data.get("type"))


def _formats(args: argparse.Namespace) -> tuple[str, str]:
    """(input format, output kind): ``--format json|text`` is the older spelling of ``--output``."""
    if args.format in ("json", "text"):
        return "auto", args.output or args.format
    return args.format, args.output or "json"


def _cmd_compact(args: argparse.Namespace) -> int:
    from .compaction import compact

    fmt, output = _formats(args)
    messages, fmt = read_input(args.file, fmt)
    result = compact(messages, args.budget, token_counter=args.encoding,
                     keep_last_turn=not args.no_keep_last_turn, format=fmt)
    if output == "json":
        out: dict[str, Any] = {"messages": result.messages, "tokens_before": result.tokens_before,
                               "tokens_after": result.tokens_after, "budget": result.budget}
        if getattr(result, "format", None) is not None:
            out["format"] = result.format
        if getattr(result, "body", None) is not None:
            out["body"] = result.body
        if args.report:
            out["report"] = result.report.to_dict()
        json.dump(out, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        for m in result.messages:
            print(f"--- {_role_of(m)}")
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

    messages, fmt = read_input(args.file, args.format)
    result = compact(messages, args.budget, token_counter=args.encoding, format=fmt)
    Path(args.output).write_text(result.to_html(), encoding="utf-8")
    print(f"{args.output}: {result.tokens_before} -> {result.tokens_after} tokens "
          f"(budget {result.budget}); " + ", ".join(f"{k} {v}" for k, v in result.report.counts.items()))
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="discourse-memory", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)

    p = sub.add_parser("compact", help="compact a conversation to a token budget")
    p.add_argument("file", help="messages (JSON array, JSONL, request body) or a Claude Code / Codex session; - for stdin")
    p.add_argument("--budget", type=int, required=True, help="token budget of the output")
    p.add_argument("--encoding", default="cl100k_base", help="tiktoken encoding (default cl100k_base)")
    p.add_argument("--format", choices=(*INPUT_FORMATS, "json", "text"), default="auto",
                   help="the input's format (default: detected); json/text: the same as --output (older spelling)")
    p.add_argument("--output", choices=("json", "text"), default=None, help="print JSON (default) or the text")
    p.add_argument("--report", action="store_true", help="include the per-unit report")
    p.add_argument("--no-keep-last-turn", action="store_true", help="let the newest turn be compacted too")
    p.set_defaults(func=_cmd_compact)

    p = sub.add_parser("demo", help="compact the built-in sample conversation and explain the result")
    p.add_argument("--sessions", type=int, default=3, help="sessions in the sample (size)")
    p.add_argument("--budget-share", type=float, default=0.4, help="budget as a share of the tokens")
    p.add_argument("--html", help="also write the HTML inspector page here")
    p.set_defaults(func=_cmd_demo)

    p = sub.add_parser("inspect", help="write an HTML page showing what a compaction kept and left out")
    p.add_argument("file", help="messages (JSON array, JSONL, request body) or a Claude Code / Codex session; - for stdin")
    p.add_argument("--budget", type=int, required=True)
    p.add_argument("--encoding", default="cl100k_base")
    p.add_argument("--format", choices=INPUT_FORMATS, default="auto", help="the input's format (default: detected)")
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

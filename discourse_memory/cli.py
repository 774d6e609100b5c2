"""The ``discourse-memory`` command: compact a conversation, inspect it, recall what a
compaction left out, run the demo.

(The evaluation against baselines is a separate distribution: ``discourse-memory-eval``.)

    discourse-memory compact FILE --budget N [OPTIONS] [--to json|text] [--report] [-o PATH [--force]]
    discourse-memory inspect FILE --budget N [OPTIONS] [-o PATH [--force]]
    discourse-memory recall FILE REF --budget N [OPTIONS] [--max-tokens N]
    discourse-memory demo [--sessions N] [--budget-share F] [-o PATH [--force]]
    discourse-memory --version

OPTIONS are those of ``compact()``: ``--focus TEXT`` / ``--no-focus``, ``--keep-system`` /
``--no-keep-system``, ``--keep-last-turn`` / ``--no-keep-last-turn``, ``--strict``,
``--relax``, ``--recall``, ``--note-role``, ``--clip-tokens``, ``--token-counter``,
``--pipeline``, ``--message-overhead``, and ``--format`` (the input's format).

FILE holds messages of any format ``compact`` reads (OpenAI chat, Responses items,
Anthropic messages or a request body, LangChain or LlamaIndex dicts) as a JSON array, a
``{"messages": [...]}`` / request-body object or JSONL, or a Claude Code or Codex
session file (JSONL); the format is detected unless ``--format`` names it.

``-o/--out`` is always a path, and an existing file is never overwritten without
``--force`` (``inspect`` without ``-o`` picks a free name: ``view.html``, ``view-2.html``,
...). Errors name the file and the flag to change; exit status 2. A command that runs
longer than a second shows a progress line on stderr when stderr is a terminal.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path
from typing import Any, Callable, Sequence

from . import __version__
from ._progress import Progress
from .errors import DiscourseMemoryError, InvalidOptionError
from .options import NEWEST_TURN, NOTE_ROLES, Options
from .limits import LIMITS

__all__ = ["INPUT_FORMATS", "main", "read_input", "read_messages"]

INPUT_FORMATS = ("auto", "openai", "responses", "anthropic", "langchain", "llamaindex", "claude-code", "codex")
OUTPUT_KINDS = ("json", "text")
DEFAULT_PAGE = "view.html"

# The library's advice names its keyword arguments; on the command line it names the flags.
_TO_FLAGS: tuple[tuple[str, "str | Callable[[re.Match[str]], str]"], ...] = (
    (r"\bbudget=(\d+) tokens", r"--budget \1"),
    (r"\bRaise the budget\b", "Raise --budget"),
    (r"\brelax=True\b", "--relax"),
    (r"\bstrict=True\b", "--strict"),
    (r"\brecall=True\b", "--recall"),
    (r"\bkeep_last_turn=False\b", "--no-keep-last-turn"),
    (r"\bkeep_system=False\b", "--no-keep-system"),
    (r"\bpass token_counter=<callable\(str\) -> int>", "name another with --token-counter"),
    (r"\b(clip_tokens|note_role|message_overhead|token_counter|pipeline|focus)\b(?= must)",
     lambda m: "--" + m.group(1).replace("_", "-")),
)


class CommandError(ValueError):
    """A mistake in how the command was called; its message is complete as it is."""


def for_the_command_line(message: str) -> str:
    """``message`` with the library's keyword arguments spelled as this command's flags."""
    for pattern, replacement in _TO_FLAGS:
        message = re.sub(pattern, replacement, message)
    return message


def _name(source: str) -> str:
    return "<stdin>" if source == "-" else source


def _load(source: str, progress: Progress | None = None) -> tuple[Any, bool]:
    """The parsed input and whether it was JSONL."""
    if progress is not None:
        progress.stage(f"reading {_name(source)}")
    try:
        text = sys.stdin.read() if source == "-" else Path(source).read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CommandError(f"{_name(source)}: not UTF-8 text (byte {exc.start}: {exc.object[exc.start:exc.start + 1]!r}); "
                           "expected a JSON array of messages, JSONL or a session file") from exc
    except OSError as exc:
        raise CommandError(f"{_name(source)}: cannot read it ({exc.strerror or exc})") from exc
    stripped = text.strip()
    if not stripped:
        raise CommandError(f"{_name(source)}: empty input; expected a JSON array of messages or JSONL")
    if "\x00" in stripped:
        raise CommandError(f"{_name(source)}: a binary file (it holds NUL bytes); "
                           "expected a JSON array of messages, JSONL or a session file")
    try:
        return json.loads(stripped), False
    except json.JSONDecodeError:
        lines = [line for line in stripped.splitlines() if line.strip()]
        if progress is not None:
            progress.stage(f"reading {_name(source)} ({len(lines):,} lines)")
        data = []
        for i, line in enumerate(lines):
            try:
                data.append(json.loads(line))
            except json.JSONDecodeError as exc:
                raise CommandError(f"{_name(source)}: neither a JSON document nor JSONL (line {i + 1}: {exc})") from exc
            if progress is not None and not i % 256:
                progress.advance(i, len(lines))
        return data, True


def read_messages(source: str) -> list[dict[str, Any]]:
    """Messages from a JSON array, a ``{"messages": [...]}`` object, or JSONL (``-`` = stdin)."""
    data, _ = _load(source)
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if not isinstance(data, list):
        raise CommandError(f"{_name(source)}: expected a list of messages, got {type(data).__name__}")
    return data


def read_input(source: str, fmt: str = "auto", progress: Progress | None = None) -> tuple[Any, str]:
    """What ``compact`` is given for ``source`` and the format to name: messages, a
    request body, or a Claude Code / Codex session file read into Anthropic messages /
    a Responses body (``fmt``: one of :data:`INPUT_FORMATS`)."""
    from .formats.sessions import detect_session, read_claude_code, read_codex

    data, jsonl = _load(source, progress)
    session = fmt if fmt in ("claude-code", "codex") else detect_session(data) if jsonl and fmt == "auto" else None
    if session is not None:
        if not isinstance(data, list) or not all(isinstance(x, dict) for x in data):
            raise CommandError(f"{_name(source)}: a {session} session file is JSONL of objects")
        if session == "claude-code":
            return read_claude_code(data), "anthropic"
        return read_codex(data), "responses"
    if isinstance(data, dict):
        if set(data) == {"messages"} and isinstance(data["messages"], list):
            data = data["messages"]
        elif not (isinstance(data.get("messages"), list) or "input" in data):
            raise CommandError(f"{_name(source)}: expected a list of messages or a request body with 'messages' or 'input'")
    elif not isinstance(data, list):
        raise CommandError(f"{_name(source)}: expected a list of messages, got {type(data).__name__}")
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


def _warn(args: argparse.Namespace, text: str) -> None:
    print(f"discourse-memory {args.command}: warning: {text}", file=sys.stderr)


def _deprecations(args: argparse.Namespace) -> None:
    """The older spellings still work, with a note of the new one: ``compact --output json|text``
    and ``--format json|text`` are ``--to``; ``inspect --output PATH`` and ``demo --html PATH``
    are ``-o/--out``."""
    fmt = getattr(args, "format", None)
    if fmt in OUTPUT_KINDS:
        _warn(args, f"--format {fmt} is deprecated: --format names the input's format; use --to {fmt}")
        args.format = "auto"
        args.to = args.to or fmt
    legacy = getattr(args, "legacy_output", None)
    if legacy is not None:
        if args.command == "compact":
            _warn(args, f"--output {legacy} is deprecated: use --to {legacy} (-o/--out is a path)")
            args.to = args.to or legacy
        else:
            _warn(args, f"--output is deprecated: use -o/--out {legacy}")
            args.out = args.out or legacy
    if getattr(args, "html", None) is not None:
        _warn(args, f"--html is deprecated: use -o/--out {args.html}")
        args.out = args.out or args.html


def _options(args: argparse.Namespace) -> dict[str, Any]:
    """``compact()``'s keyword arguments from the flags."""
    given = dict(focus=args.focus, token_counter=args.token_counter, keep_system=args.keep_system,
                 keep_last_turn=args.keep_last_turn, strict=args.strict, relax=args.relax,
                 note_role=args.note_role, pipeline=args.pipeline, clip_tokens=args.clip_tokens, recall=args.recall)
    if args.message_overhead is not None:  # (left out: the library's default applies)
        given["message_overhead"] = args.message_overhead
    return given


def _compact(args: argparse.Namespace, progress: Progress) -> tuple[Any, Any]:
    """The input of ``args.file`` and its compaction by the flags."""
    from .compaction import compact

    data, fmt = read_input(args.file, args.format, progress)
    options = _options(args)
    _analyse(data, fmt, args.budget, options, progress, _name(args.file))
    progress.stage(f"compacting {_name(args.file)}")
    return data, compact(data, args.budget, format=fmt, **options)


def _analyse(data: Any, fmt: str, budget: int, options: dict[str, Any], progress: Progress, name: str) -> None:
    """Analyse ``data``'s messages before ``compact()`` does, a slice more at a time, so the
    progress line can show how far the analysis (most of a long input's time) has come.

    Each slice extends the last, as a growing conversation's messages do: the shared
    compactor that ``compact()`` then uses extends its analysis at each step, and finds it
    done. The view is the same as without the steps (tests/test_cli.py checks)."""
    from .compaction import _compactor
    from .formats import to_internal
    from .gc_pause import gc_paused

    n = len(data) if isinstance(data, list) else 0
    if n < 2 * LIMITS.analysis_steps or not progress.enabled:
        return  # (a short input, or nobody to show the line to: one call does it all)
    compactor = _compactor(Options(token_counter=options["token_counter"], pipeline=options["pipeline"],
                                   clip_tokens=options["clip_tokens"]))
    internal = to_internal(data, fmt, compactor.counter)
    step = -(-len(internal) // LIMITS.analysis_steps)
    if _fits(internal, budget, step, compactor.counter, progress):
        return  # (compact() returns an input that fits without analysing it)
    progress.stage(f"analysing {n:,} messages of {name}")
    for k in range(step, len(internal) + step, step):
        with gc_paused(), compactor._lock:
            compactor._columns(internal[:k])
        progress.advance(min(k, len(internal)), len(internal))


def _fits(messages: list[Any], budget: int, step: int, counter: Any, progress: Progress) -> bool:
    """Whether ``messages``' text fits ``budget``, counted a slice at a time up to the first
    slice over it (an input over the budget is found so at once)."""
    from .compaction import count_messages

    progress.stage(f"counting {len(messages):,} messages")
    total = 0
    for k in range(0, len(messages), step):
        try:
            total += count_messages(messages[k:k + step], counter)
        except DiscourseMemoryError:  # (compact() names the message, by its index in the input)
            return False
        if total > budget:
            return False
        progress.advance(k + step, len(messages))
    return True


def _check_out(path: str | None, force: bool) -> None:
    """Refuse an existing output before the work, not after it."""
    if path is not None and path != "-" and not force and Path(path).exists():
        raise CommandError(f"{path} exists: pass --force to overwrite it, or -o another path")


def _write(path: str, text: str, force: bool) -> None:
    try:
        with open(path, "w" if force else "x", encoding="utf-8") as f:
            f.write(text)
    except FileExistsError:  # (made since the check before the work)
        raise CommandError(f"{path} exists: pass --force to overwrite it, or -o another path") from None
    except OSError as exc:
        raise CommandError(f"{path}: cannot write it ({exc.strerror or exc})") from exc


def _write_free(base: str, text: str) -> str:
    """``text`` written to ``base``, or to ``view-2.html``, ``view-3.html``, ... if it exists."""
    stem, suffix = Path(base).stem, Path(base).suffix
    for k in range(1, 10_000):
        path = base if k == 1 else str(Path(base).with_name(f"{stem}-{k}{suffix}"))
        try:
            _write(path, text, force=False)
            return path
        except CommandError:
            if not Path(path).exists():
                raise
    raise CommandError(f"no free name for {base}: pass -o PATH")


def _summary(result: Any) -> str:
    return (f"{result.tokens_before} -> {result.tokens_after} tokens (budget {result.budget}); "
            + ", ".join(f"{k} {v}" for k, v in result.report.counts.items()))


def _cmd_compact(args: argparse.Namespace, progress: Progress) -> int:
    _check_out(args.out, args.force)
    _, result = _compact(args, progress)
    if (args.to or "json") == "json":
        out: dict[str, Any] = {"messages": result.messages, "tokens_before": result.tokens_before,
                               "tokens_after": result.tokens_after, "budget": result.budget}
        if getattr(result, "format", None) is not None:
            out["format"] = result.format
        if getattr(result, "body", None) is not None:
            out["body"] = result.body
        if args.recall:
            out["references"] = list(result.references)
        if args.report:
            out["report"] = result.report.to_dict()
        text = json.dumps(out, ensure_ascii=False, indent=2) + "\n"
    else:
        lines = []
        for m in result.messages:
            lines += [f"--- {_role_of(m)}", _text_of(m)]
        lines.append(f"\n[{result.tokens_before} -> {result.tokens_after} tokens, budget {result.budget}]")
        if args.report:
            lines.append("units: " + ", ".join(f"{k} {v}" for k, v in result.report.counts.items()))
        text = "\n".join(lines) + "\n"
    if args.out is None or args.out == "-":
        progress.stop()
        sys.stdout.write(text)
    else:
        progress.stage(f"writing {args.out}")
        _write(args.out, text, args.force)
        progress.stop()
        print(f"{args.out}: {_summary(result)}")
    return 0


def _cmd_inspect(args: argparse.Namespace, progress: Progress) -> int:
    _check_out(args.out, args.force)
    _, result = _compact(args, progress)
    progress.stage("rendering the page")
    page = result.to_html()
    path = _write_free(DEFAULT_PAGE, page) if args.out is None else args.out
    if args.out is not None:
        _write(args.out, page, args.force)
    progress.stop()
    print(f"{path}: {_summary(result)}")
    return 0


def _cmd_recall(args: argparse.Namespace, progress: Progress) -> int:
    _, result = _compact(args, progress)
    progress.stage(f"recalling {args.ref}")
    recalled = result.recall(args.ref, args.max_tokens)
    progress.stop()
    print(recalled.text)
    return 0 if recalled.found else 1


def _cmd_demo(args: argparse.Namespace, progress: Progress) -> int:
    from .compaction import compact
    from .sample import sample_conversation

    _check_out(args.out, args.force)
    progress.stage("compacting the sample conversation")
    messages = sample_conversation(args.sessions)
    probe = compact(messages, 10**9)
    budget = max(1, int(probe.tokens_before * args.budget_share))
    result = compact(messages, budget)
    report = result.report
    progress.stop()
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
    if args.out:
        from .inspect import render_html

        _write(args.out, render_html(result, messages), args.force)
        print(f"\nHTML view written to {args.out}")
    return 0


def _overhead(text: str) -> str | int:
    from .framing import FRAMING_RULES
    return text if text in FRAMING_RULES else _tokens(text)


def _tokens(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number of tokens, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number of tokens >= 0, got {value}")
    return value


def _positive(text: str) -> int:
    value = _tokens(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number of tokens >= 1, got {value}")
    return value


def _input_args(p: argparse.ArgumentParser, *, legacy_kinds: bool = False) -> None:
    """The input, its budget and ``compact()``'s options: the same flags in every subcommand."""
    p.add_argument("file", help="messages (JSON array, JSONL, request body) or a Claude Code / Codex session; - for stdin")
    p.add_argument("--budget", type=_tokens, required=True, metavar="N", help="the most tokens the compacted messages may hold")
    formats = (*INPUT_FORMATS, *OUTPUT_KINDS) if legacy_kinds else INPUT_FORMATS
    p.add_argument("--format", choices=formats, default="auto", metavar="FORMAT",
                   help=f"the input's format: {', '.join(INPUT_FORMATS)} (default: auto, detected)")
    defaults = Options()
    o = p.add_argument_group("compaction options (those of compact())")
    focus = o.add_mutually_exclusive_group()
    focus.add_argument("--focus", metavar="TEXT", default=NEWEST_TURN,
                       help="what the view serves, e.g. the question about to be asked (default: the newest turn)")
    focus.add_argument("--no-focus", dest="focus", action="store_const", const=None,
                       help="no focus: rank by what units state, regardless of the next turn")
    o.add_argument("--keep-system", action=argparse.BooleanOptionalAction, default=defaults.keep_system,
                   help="keep system/developer messages verbatim (default: yes)")
    o.add_argument("--keep-last-turn", action=argparse.BooleanOptionalAction, default=defaults.keep_last_turn,
                   help="keep the newest user message and what follows verbatim (default: yes)")
    o.add_argument("--strict", action="store_true",
                   help="fail when the protected messages do not fit, instead of protecting less")
    o.add_argument("--relax", action="store_true", help="when even the newest message does not fit, compact it too")
    o.add_argument("--recall", action="store_true",
                   help="the note tells the model how to recall what was left out (see the recall command)")
    o.add_argument("--note-role", choices=NOTE_ROLES, default=defaults.note_role,
                   help=f"role of the record note (default: {defaults.note_role})")
    o.add_argument("--clip-tokens", type=_positive, default=defaults.clip_tokens, metavar="N",
                   help=f"tokens a clipped unit keeps (default: {defaults.clip_tokens}; twice that for code and tables)")
    o.add_argument("--token-counter", "--encoding", dest="token_counter", metavar="NAME",
                   help="tiktoken encoding that counts tokens (default: cl100k_base)")
    o.add_argument("--pipeline", metavar="NAME",
                   help="spaCy pipeline: blank:en (default) or an installed model such as en_core_web_sm")
    o.add_argument("--message-overhead", type=_overhead, metavar="RULE|N",
                   help="how the request's framing is counted: auto (default: each format's provider rule), "
                        "openai, anthropic, none (text only), or N tokens a message")


def _out_args(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("-o", "--out", metavar="PATH", help=what)
    p.add_argument("--force", action="store_true", help="overwrite PATH if it exists")


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="discourse-memory",
        description="Compact a conversation to a token budget, inspect what it kept, recall what it left out.",
        epilog="discourse-memory COMMAND --help lists a command's flags; docs/cli.md has them all.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    p = sub.add_parser("compact", help="compact a conversation to a token budget")
    _input_args(p, legacy_kinds=True)
    p.add_argument("--to", choices=OUTPUT_KINDS, default=None, help="print JSON (default) or the text")
    p.add_argument("--report", action="store_true", help="include the per-unit report")
    _out_args(p, "write the output here instead of stdout")
    p.add_argument("--output", dest="legacy_output", choices=OUTPUT_KINDS, help=argparse.SUPPRESS)
    p.set_defaults(func=_cmd_compact)

    p = sub.add_parser("inspect", help="write an HTML page showing what a compaction kept and left out")
    _input_args(p)
    _out_args(p, f"the page's path (default: {DEFAULT_PAGE}, or view-2.html, ... if that exists)")
    p.add_argument("--output", dest="legacy_output", metavar="PATH", help=argparse.SUPPRESS)
    p.set_defaults(func=_cmd_inspect)

    p = sub.add_parser("recall", help="print what a compaction left out, verbatim (a reference from its note)")
    _input_args(p)
    p.add_argument("ref", help="a reference the note hands out (#12, #12-#15, <tag>#12) or words to search for")
    p.add_argument("--max-tokens", type=_positive, default=1000, metavar="N",
                   help="the most tokens recalled (default: 1000)")
    p.set_defaults(func=_cmd_recall)

    p = sub.add_parser("demo", help="compact the built-in sample conversation and explain the result")
    p.add_argument("--sessions", type=int, default=3, help="sessions in the sample (size)")
    p.add_argument("--budget-share", type=float, default=0.4, help="budget as a share of the tokens")
    _out_args(p, "also write the HTML inspector page here")
    p.add_argument("--html", metavar="PATH", help=argparse.SUPPRESS)
    p.set_defaults(func=_cmd_demo)

    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    _deprecations(args)
    command: Callable[[argparse.Namespace, Progress], int] = args.func
    try:
        with Progress() as progress:
            return int(command(args, progress) or 0)
    except KeyboardInterrupt:
        print(f"discourse-memory {args.command}: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader went away (`... | head`): nothing more to say
        sys.stdout = open(os.devnull, "w")  # (so the interpreter's final flush does not fail again)
        return 0
    except (DiscourseMemoryError, ValueError, TypeError, LookupError, OSError) as exc:
        message = for_the_command_line(str(exc))
        source = getattr(args, "file", None)
        about_the_input = not isinstance(exc, (CommandError, InvalidOptionError, LookupError))  # (not a flag's)
        if source is not None and about_the_input and not message.startswith(_name(source)):
            message = f"{_name(source)}: {message}"
        print(f"discourse-memory {args.command}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())

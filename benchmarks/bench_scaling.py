"""How compaction time grows with input size, the two size bars, and a ReDoS check.

    python benchmarks/bench_scaling.py [--sizes 1e3,1e4,1e5,1e6,1e7] [--timeout 300]
                                       [--shapes line,lines,messages] [--skip-redos] [--json out.json]

1. **Scaling**: ``compact`` of inputs from 1 KB to 10 MB in three shapes -- one long
   single line (words, numbers, ids: no newline), many short lines in one message (a
   log), and many messages (the built-in sample conversation) -- each in a fresh
   process (spaCy pipeline loaded before timing; nothing of the input cached), budget
   4,000 tokens. Prints seconds and seconds per MB; linear growth means a flat s/MB
   column. A run over ``--timeout`` seconds is killed and reported as such.
2. **Bars** (issue 6): a 1 MB single-line message and a 10,000-message history must each
   compact in under 2 s.
3. **ReDoS**: every regular expression of ``discourse_memory`` (blocks.py, literals.py --
   each literal kind on its own and the combined pattern --, segment.py, keys.py,
   tokens.py, units.py) is run (``finditer`` over the text, or ``match`` on each line for
   the line rules) on adversarial strings: long runs of the characters it repeats, with a
   non-matching tail. Prints the worst microseconds per character at 10 KB and 100 KB and
   their ratio (about 10 for linear time; exponential backtracking would not finish).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import re
import subprocess
import sys
import time
from typing import Any

os.environ.setdefault("RAYON_NUM_THREADS", "1")

BUDGET = 4000
MB = 1_000_000


# ---- inputs --------------------------------------------------------------------------

def long_line(size: int) -> str:
    rng = random.Random(1)
    vocab = ["alpha", "Beta", "42", "v1.2.3", "x/y/z.py", "OPS-1", "the", "deploy", "latency", "rollback",
             "pool", "and", "2026-01-02", "$5", "Dana", "eu-west-1", "user@example.com", "3.5%", "ok"]
    out, n = [], 0
    while n < size:
        w = rng.choice(vocab)
        out.append(w)
        n += len(w) + 1
    return " ".join(out)[:size]


def log_lines(size: int) -> str:
    out, n, i = [], 0, 0
    while n < size:
        line = f"2024-05-01T10:{i % 60:02d}:{(i * 7) % 60:02d}Z INFO worker-{i % 8} processed job {i} in {i % 997} ms"
        out.append(line)
        n += len(line) + 1
        i += 1
    return "\n".join(out)[:size]


def many_messages(size: int) -> list[dict[str, Any]]:
    from discourse_memory.sample import sample_conversation

    sessions = 1
    while True:
        msgs = sample_conversation(sessions, seed=5)
        chars = sum(len(m.get("content") or "") for m in msgs)
        if chars >= size or sessions > 100_000:
            break
        sessions = max(sessions + 1, int(sessions * size / max(chars, 1)) + 1)
    out, n = [], 0
    for m in msgs:
        out.append(m)
        n += len(m.get("content") or "")
        if n >= size and m.get("role") != "tool" and not m.get("tool_calls"):
            break
    while out and (out[-1].get("role") == "tool" or out[-1].get("tool_calls")):
        out.pop()
    return out + [{"role": "user", "content": "Where do we stand?"}]


def wrap(text: str) -> list[dict[str, Any]]:
    return [{"role": "system", "content": "You are a careful assistant."},
            {"role": "user", "content": text},
            {"role": "assistant", "content": "Received."},
            {"role": "user", "content": "Summarise the above."}]


def ten_thousand_messages() -> list[dict[str, Any]]:
    from discourse_memory.sample import sample_conversation

    sessions = 400
    msgs: list[dict[str, Any]] = []
    while len(msgs) < 10_000:
        msgs = sample_conversation(sessions, seed=5)
        sessions += 200
    msgs = msgs[:9_999]
    while msgs and (msgs[-1].get("role") == "tool" or msgs[-1].get("tool_calls")):
        msgs.pop()
    return msgs + [{"role": "user", "content": "Where do we stand on all of this?"}]


def build(shape: str, size: int) -> list[dict[str, Any]]:
    if shape == "line":
        return wrap(long_line(size))
    if shape == "lines":
        return wrap(log_lines(size))
    if shape == "messages":
        return many_messages(size)
    if shape == "bar-1mb-line":
        return wrap(long_line(MB))
    if shape == "bar-10k-messages":
        return ten_thousand_messages()
    raise SystemExit(f"unknown shape {shape!r}")


def measure(shape: str, size: int) -> dict[str, Any]:
    """One measurement, in this process (called in a fresh subprocess)."""
    from discourse_memory import compact

    compact([{"role": "user", "content": "Warm up. The pipeline loads once."}], 100)
    msgs = build(shape, size)
    chars = sum(len(m.get("content") or "") for m in msgs)
    start = time.perf_counter()
    result = compact(msgs, BUDGET if not shape.startswith("bar-10k") else 20_000)
    seconds = time.perf_counter() - start
    return {"shape": shape, "size": size, "chars": chars, "messages": len(msgs), "seconds": seconds,
            "tokens_before": result.tokens_before, "tokens_after": result.tokens_after, "budget": result.budget,
            "fits": result.tokens_after <= result.budget}


def run_fresh(shape: str, size: int, timeout: float) -> dict[str, Any]:
    cmd = [sys.executable, os.path.abspath(__file__), "--one", shape, str(size)]
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except subprocess.TimeoutExpired:
        return {"shape": shape, "size": size, "timeout": timeout}
    if proc.returncode != 0:
        return {"shape": shape, "size": size, "error": proc.stderr.strip().splitlines()[-1:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def fmt_size(n: int) -> str:
    return f"{n / MB:g} MB" if n >= MB else f"{n / 1000:g} KB"


# ---- ReDoS ---------------------------------------------------------------------------

# How the library applies each pattern: "search" = finditer over the whole text; "line" =
# match at the start of each line (the block rules of split_blocks); "match" = match at the
# start of the text; "nline" = match at each newline (units: a table's separator row);
# "fullline" = fullmatch of each line (a line that is one file name).
USAGE = {"blocks._MULTI_SENTENCE": "search", "blocks._FILE_NAME": "fullline", "literals._LIST_MARKER": "match",
         "units._TABLE_SEP_LINE": "nline", "fit.signals._DEFINES": "match", "actions._READER": "match",
         # the record reads these at one place each (after a value, at a line's start), never by a search
         "record.keys._CODE_AFTER": "match", "record.lines._GREP_LINE": "match", "record.items._ITEM_MARK": "match",
         "record.json_keys._JSON_START": "match",
         "record.context._OBJECT": "match", "record.lines._BANNER": "match"}


def regexes() -> list[tuple[str, re.Pattern[str], str]]:
    """(name, pattern, how the library applies it; see ``USAGE``)."""
    from discourse_memory import actions, blocks, keys, literals, segment, text_marks, tokens, units
    from discourse_memory.fit import candidates, signals
    from discourse_memory.record import clauses, context, examples, items, json_keys, labels, lines, noise, note, text
    from discourse_memory.record import keys as record_keys
    from discourse_memory import traces
    from discourse_memory.lang import zh

    out: list[tuple[str, re.Pattern[str], str]] = []
    seen: set[int] = set()  # a pattern once, under the module that makes it (the record's modules share theirs)
    for mod in (blocks, literals, segment, keys, tokens, units, actions, signals, candidates, text, noise, examples,
                labels, lines, json_keys, record_keys, clauses, context, items, note, zh):
        for name, value in sorted(vars(mod).items()):
            if isinstance(value, re.Pattern) and id(value) not in seen:
                seen.add(id(value))
                full = f"{mod.__name__.removeprefix('discourse_memory.')}.{name}"
                out.append((full, value, USAGE.get(full, "line" if mod is blocks else "search")))
    # (text_marks' other patterns run at a place, or in a window of a few characters: as columns.py's did)
    out.append(("text_marks._TAG_LINE", text_marks._TAG_LINE, "fullline"))
    # The packs' and readers' patterns the core builds or reads (not module attributes).
    for field, value in vars(zh.TOPICS).items():
        for k, pattern in enumerate(value if isinstance(value, tuple) else (value,)):
            for j, p in enumerate(pattern if isinstance(pattern, tuple) else (pattern,)):
                if isinstance(p, re.Pattern):
                    out.append((f"zh.TOPICS.{field}[{k}][{j}]", p, "search"))
    out.append(("traces.harness_block()", traces.harness_block(), "search"))
    out.append(("traces.line_number()", traces.line_number(), "match"))
    out.append(("traces.progress_line()", traces.progress_line(), "fullline"))
    out.append(("literals.combined_pattern()", literals.combined_pattern(), "search"))
    out.append(("literals.comma_pattern()", literals.comma_pattern(), "search"))
    for kind, pattern in literals.patterns():  # each literal kind alone
        out.append((f"literals.{kind}", re.compile(pattern), "search"))
    # The closing-fence rule split_blocks builds for an opening fence of three backticks.
    out.append(("blocks.<closing fence>", re.compile(r"^ {0,3}`{3,}[ \t]*$"), "line"))
    return out


def apply(pattern: re.Pattern[str], use: str, text: str) -> None:
    """Run ``pattern`` over ``text`` the way the library does."""
    if use == "line":
        for line in text.split("\n"):
            pattern.match(line)
    elif use == "match":
        pattern.match(text)
    elif use == "fullline":
        for line in text.split("\n"):
            pattern.fullmatch(line)
    elif use == "nline":
        pos = text.find("\n")
        while pos != -1:
            pattern.match(text, pos)
            pos = text.find("\n", pos + 1)
        pattern.match("\n" + text)
    else:
        for _ in pattern.finditer(text):
            pass


RUNS = ["a", "A", "1", "9,", "1.", " ", "\t", "-", "a-", "_", "a_", "a.", ".", "/", "a/", "\\", ":", " :", "|", "| ",
        "-|", "`", "~", "#", "*", "* ", "- ", "> ", "'", '"', "a'", "@", "a@", "$1", "1:", "aB", "Ab", "Aa ", "v1.",
        "\n", "\n-", "\n|", "=", "(", "a(", "www.", "http://a", "“", "%", "a ", "A ", "1 "]
TAILS = ["", "!", "@", "x", "\n"]


def _timed(pattern: re.Pattern[str], use: str, run: str, tail: str, size: int) -> float:
    text = (run * (size // len(run) + 1))[:size] + tail
    start = time.perf_counter()
    apply(pattern, use, text)
    return time.perf_counter() - start


def redos(sizes: tuple[int, int] = (10_000, 100_000), budget_seconds: float = 5.0) -> list[dict[str, Any]]:
    """Worst microseconds per character of each regex over ``RUNS`` x ``TAILS``.

    When an input is so slow at the small size that the large one would take more than
    ``budget_seconds`` if the pattern were quadratic, the large size is not run for it:
    its time is measured at twice the small size instead and the growth exponent
    reported (1 = linear, 2 = quadratic)."""
    small, large = sizes
    results = []
    for name, pattern, use in regexes():
        worst_small = worst_large = 0.0
        worst_input, exponent = "", 1.0
        for run in RUNS:
            for tail in TAILS:
                t_small = _timed(pattern, use, run, tail, small)
                worst_small = max(worst_small, t_small / small * 1e6)
                if t_small * (large / small) ** 2 > budget_seconds:
                    t_double = _timed(pattern, use, run, tail, 2 * small)
                    k = max(0.0, math.log2(max(t_double, 1e-9) / max(t_small, 1e-9)))
                    t_large = t_small * (large / small) ** k  # extrapolated
                    exponent = max(exponent, k)
                else:
                    t_large = _timed(pattern, use, run, tail, large)
                if t_large / large * 1e6 > worst_large:
                    worst_large = t_large / large * 1e6
                    worst_input = repr(run) + " * n + " + repr(tail)
        growth = worst_large * large / max(worst_small * small, 1e-12)
        results.append({"regex": name, "use": use, "us_per_char_small": worst_small, "us_per_char_large": worst_large,
                        "worst_input": worst_input, "growth": growth,
                        "exponent": exponent if exponent > 1.3 else None})
    return results


# ---- main ----------------------------------------------------------------------------

def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--one", nargs=2, metavar=("SHAPE", "SIZE"), help=argparse.SUPPRESS)
    ap.add_argument("--sizes", default="1e3,1e4,1e5,1e6,1e7")
    ap.add_argument("--shapes", default="line,lines,messages")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds before one run is killed")
    ap.add_argument("--skip-redos", action="store_true")
    ap.add_argument("--only-redos", action="store_true")
    ap.add_argument("--json", help="also write every result to this file")
    args = ap.parse_args()
    if args.one:
        print(json.dumps(measure(args.one[0], int(float(args.one[1])))))
        return

    report: dict[str, Any] = {"scaling": [], "bars": [], "redos": []}
    if not args.only_redos:
        scaling_and_bars(args, report)
    if not args.skip_redos:
        print_redos(report)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=2)


def scaling_and_bars(args: argparse.Namespace, report: dict[str, Any]) -> None:
    sizes = [int(float(s)) for s in args.sizes.split(",")]
    shapes = args.shapes.split(",")
    names = {"line": "one long line", "lines": "many lines, one message", "messages": "many messages"}
    print(f"## Scaling (compact to {BUDGET} tokens; fresh process per run; pipeline loaded before timing)\n")
    print("| shape | size | messages | tokens before | seconds | s per MB |")
    print("|---|---:|---:|---:|---:|---:|")
    for shape in shapes:
        skip = False
        for size in sizes:
            if skip:
                print(f"| {names[shape]} | {fmt_size(size)} | | | skipped (smaller size timed out) | |")
                continue
            r = run_fresh(shape, size, args.timeout)
            report["scaling"].append(r)
            if "timeout" in r:
                print(f"| {names[shape]} | {fmt_size(size)} | | | > {args.timeout:g} (killed) | |")
                skip = True
            elif "error" in r:
                print(f"| {names[shape]} | {fmt_size(size)} | | | error: {r['error']} | |")
            else:
                print(f"| {names[shape]} | {fmt_size(size)} | {r['messages']} | {r['tokens_before']:,} | "
                      f"{r['seconds']:.3f} | {r['seconds'] / (r['chars'] / MB):.2f} |", flush=True)

    print("\n## Bars (< 2 s each)\n")
    print("| case | messages | chars | tokens before | seconds | < 2 s |")
    print("|---|---:|---:|---:|---:|---|")
    for shape, label in (("bar-1mb-line", "1 MB single-line message"), ("bar-10k-messages", "10,000-message history")):
        r = run_fresh(shape, 0, args.timeout)
        report["bars"].append(r)
        if "seconds" in r:
            print(f"| {label} | {r['messages']} | {r['chars']:,} | {r['tokens_before']:,} | {r['seconds']:.3f} | "
                  f"{'yes' if r['seconds'] < 2 else 'NO'} |", flush=True)
        else:
            print(f"| {label} | | | | {r} | NO |", flush=True)


def print_redos(report: dict[str, Any]) -> None:
    print("\n## ReDoS check (worst input per regex; microseconds per character)\n")
    print("| regex | applied | µs/char at 10 KB | µs/char at 100 KB | growth 10 KB -> 100 KB | worst input |")
    print("|---|---|---:|---:|---:|---|")
    rows = redos()
    report["redos"] = rows
    for r in sorted(rows, key=lambda r: -r["us_per_char_large"]):
        large = f"{r['us_per_char_large']:.3f}"
        if r["exponent"]:
            large += f" (extrapolated: time ~ n^{r['exponent']:.1f})"
        print(f"| {r['regex']} | {r['use']} | {r['us_per_char_small']:.3f} | {large} | "
              f"{r['growth']:.1f}x | `{r['worst_input']}` |", flush=True)
    worst = max(rows, key=lambda r: r["us_per_char_large"])
    print(f"\nmax: {worst['regex']} at {worst['us_per_char_large']:.3f} µs/char "
          f"(= {worst['us_per_char_large']:.2f} s per MB); max growth for 10x input: "
          f"{max(r['growth'] for r in rows):.1f}x")


if __name__ == "__main__":
    main()

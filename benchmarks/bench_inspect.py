"""Benchmark the HTML inspector on the largest conversation of a JSONL data set.

    python benchmarks/bench_inspect.py ../shared/data/agents/swe_dev.jsonl [--share 0.25] [--runs 3]

Each line of the data set is ``{"id": ..., "messages": [{"role", "content"}, ...]}``.
Picks the conversation with the most characters, compacts it to ``--share`` of its
tokens, builds the page and prints:

- the page's size against the conversation's text size (bar: < 5x);
- how long headless Chromium takes to load and lay it out (bar: < 3 s): measured
  inside the page (``performance.now()`` after a forced layout at the load event,
  written into the DOM and read back with ``--dump-dom``), and the wall time of a
  ``--dump-dom`` and of a ``--screenshot`` run, next to the wall time of the same
  runs on an empty page (browser start-up).

If the newest turn alone is over the budget (``BudgetTooSmallError``), the
conversation is compacted with ``keep_last_turn=False`` and this is printed.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--mute-audio",
]

# Added to a copy of the page only (the page itself has no script): forces a full
# layout at the load event and records the time since navigation start.
_TIMER = ("<script>addEventListener('load',function(){document.body.offsetHeight;"
          "var t=performance.now();document.documentElement.setAttribute('data-load-ms',t.toFixed(1));"
          "var n=performance.getEntriesByType('navigation')[0];"
          "if(n)document.documentElement.setAttribute('data-dcl-ms',n.domContentLoadedEventEnd.toFixed(1));});"
          "</script>")


def text_size(messages: list[dict]) -> int:
    """Characters of the conversation's text: contents (text parts) and tool-call arguments."""
    n = 0
    for m in messages:
        c = m.get("content")
        if isinstance(c, str):
            n += len(c)
        elif isinstance(c, list):
            n += sum(len(p if isinstance(p, str) else p.get("text") or "") for p in c)
        for call in m.get("tool_calls") or []:
            fn = call.get("function", {})
            n += len(fn.get("name") or "") + len(str(fn.get("arguments") or ""))
    return n


def largest(path: Path) -> tuple[str, list[dict]]:
    best: tuple[int, str, list[dict]] | None = None
    with path.open(encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            row = json.loads(line)
            size = text_size(row["messages"])
            if best is None or size > best[0]:
                best = (size, str(row.get("id")), row["messages"])
    if best is None:
        raise SystemExit(f"{path}: no conversations")
    return best[1], best[2]


def chromium(args: list[str], url: str, profile: str) -> tuple[float, str]:
    t = time.perf_counter()
    proc = subprocess.run([CHROMIUM, *CHROMIUM_FLAGS, f"--user-data-dir={profile}", *args, url],
                          capture_output=True, text=True, timeout=120)
    wall = time.perf_counter() - t
    if proc.returncode != 0:
        raise RuntimeError(f"chromium failed ({proc.returncode}): {proc.stderr[-2000:]}")
    return wall, proc.stdout


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("data", help="JSONL of conversations, e.g. ../shared/data/agents/swe_dev.jsonl")
    ap.add_argument("--share", type=float, default=0.25, help="budget as a share of the tokens (default 0.25)")
    ap.add_argument("--runs", type=int, default=3, help="Chromium runs per measurement (median)")
    ap.add_argument("--keep", help="also write the page here")
    args = ap.parse_args(argv)

    data = Path(args.data)
    if not data.is_file():
        print(f"bench_inspect: data file {data} not found; pass the path of a JSONL of "
              '{"id", "messages"} rows (e.g. ../shared/data/agents/swe_dev.jsonl)', file=sys.stderr)
        return 2

    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from discourse_memory import BudgetTooSmallError, compact

    cid, messages = largest(data)
    chars = text_size(messages)
    before = compact(messages, 10**12).tokens_before
    budget = max(1, int(before * args.share))
    keep_last_turn = True
    t = time.perf_counter()
    try:
        result = compact(messages, budget)
    except BudgetTooSmallError as exc:
        print(f"note: with the newest turn protected the budget is too small (needs {exc.minimum}); "
              "compacting with keep_last_turn=False")
        keep_last_turn = False
        t = time.perf_counter()
        result = compact(messages, budget, keep_last_turn=False)
    t_compact = time.perf_counter() - t
    t = time.perf_counter()
    report = result.report
    t_report = time.perf_counter() - t
    t = time.perf_counter()
    page = result.to_html(messages)
    t_html = time.perf_counter() - t
    size = len(page.encode("utf-8"))
    text_bytes = len("".join(_texts(messages)).encode("utf-8"))

    print(f"conversation {cid}: {len(messages)} messages, {chars} characters ({text_bytes} bytes UTF-8), "
          f"{before} tokens")
    print(f"budget {budget} tokens ({args.share:.0%}), keep_last_turn={keep_last_turn}: "
          f"after {result.tokens_after} tokens; units {len(report.units)}: "
          + ", ".join(f"{k} {v}" for k, v in report.counts.items()))
    print(f"python: compact {t_compact:.2f} s, report {t_report:.2f} s, render_html {t_html:.2f} s")
    print(f"page size: {size} bytes = {size / text_bytes:.2f}x the conversation's text "
          f"(bar < 5x: {'PASS' if size < 5 * text_bytes else 'FAIL'})")

    if not Path(CHROMIUM).exists():
        print(f"Chromium not found at {CHROMIUM}: render time not measured "
              "(install Debian's `chromium` package, or set CHROMIUM=/path/to/chromium)")
        return 1

    with tempfile.TemporaryDirectory() as tmp:
        tmpd = Path(tmp)
        page_path = tmpd / "view.html"
        page_path.write_text(page, encoding="utf-8")
        if args.keep:
            Path(args.keep).write_text(page, encoding="utf-8")
        timed = page.replace("style-src 'unsafe-inline'", "style-src 'unsafe-inline'; script-src 'unsafe-inline'", 1)
        timed = timed.replace("</body>", _TIMER + "</body>", 1)
        timed_path = tmpd / "timed.html"
        timed_path.write_text(timed, encoding="utf-8")
        empty_path = tmpd / "empty.html"
        empty_path.write_text("<!DOCTYPE html><title>empty</title><p>empty</p>", encoding="utf-8")

        load_ms, dcl_ms, dump_wall, empty_dump, shot_wall, empty_shot = [], [], [], [], [], []
        for r in range(args.runs):
            prof = str(tmpd / f"profile{r}")
            wall, dom = chromium(["--dump-dom"], timed_path.as_uri(), prof)
            m = re.search(r'data-load-ms="([\d.]+)"', dom)
            d = re.search(r'data-dcl-ms="([\d.]+)"', dom)
            if not m:
                raise RuntimeError("the timing script did not run (no data-load-ms in the dumped DOM)")
            load_ms.append(float(m.group(1)))
            if d:
                dcl_ms.append(float(d.group(1)))
            dump_wall.append(chromium(["--dump-dom"], page_path.as_uri(), prof)[0])
            empty_dump.append(chromium(["--dump-dom"], empty_path.as_uri(), prof)[0])
            shot = tmpd / f"shot{r}.png"
            shot_wall.append(chromium([f"--screenshot={shot}", "--window-size=1400,1000"],
                                      page_path.as_uri(), prof)[0])
            empty_shot.append(chromium([f"--screenshot={tmpd / 'empty.png'}", "--window-size=1400,1000"],
                                       empty_path.as_uri(), prof)[0])
    med = statistics.median
    print(f"chromium (median of {args.runs}): load event + forced layout at {med(load_ms):.0f} ms after "
          f"navigation start (DOMContentLoaded {med(dcl_ms):.0f} ms) (bar < 3000 ms: "
          f"{'PASS' if med(load_ms) < 3000 else 'FAIL'})")
    print(f"chromium wall time: --dump-dom {med(dump_wall):.2f} s (empty page {med(empty_dump):.2f} s); "
          f"--screenshot {med(shot_wall):.2f} s (empty page {med(empty_shot):.2f} s)")
    print(f"all runs: load_ms={load_ms} dump_wall={[round(x, 2) for x in dump_wall]} "
          f"shot_wall={[round(x, 2) for x in shot_wall]}")
    return 0


def _texts(messages: list[dict]):
    for m in messages:
        c = m.get("content")
        if isinstance(c, str):
            yield c
        elif isinstance(c, list):
            for p in c:
                yield p if isinstance(p, str) else p.get("text") or ""
        for call in m.get("tool_calls") or []:
            fn = call.get("function", {})
            yield (fn.get("name") or "") + str(fn.get("arguments") or "")


if __name__ == "__main__":
    sys.exit(main())

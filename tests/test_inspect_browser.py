"""End to end: the inspector page in a real headless Chromium (Debian's ``chromium``).

Chromium runs headless with networking cut off (every host name resolves to
nothing; the page's own Content-Security-Policy forbids loading anything too).
Skipped, saying why, only where ``/usr/bin/chromium`` is not installed
(``.ci/run`` installs it: ``apt-get install -y chromium``).

Screenshots go to ``$DM_ARTIFACTS_DIR`` if set, else to the test's tmp dir.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from collections import Counter
from pathlib import Path

import pytest

from discourse_memory import compact
from discourse_memory.inspect import DECISIONS, render_html
from discourse_memory.sample import sample_conversation

from .conftest import SHARED_DATA
from .html_tree import parse

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-extensions", "--mute-audio", "--host-resolver-rules=MAP * ~NOTFOUND",
]
SWE_DEV = Path(os.environ.get("DM_SWE_DEV", SHARED_DATA / "agents" / "swe_dev.jsonl"))

pytestmark = [pytest.mark.required_in_ci("Chromium is not installed"), pytest.mark.skipif(
    not (Path(CHROMIUM).is_file() and os.access(CHROMIUM, os.X_OK)),
    reason=f"Chromium is not installed at {CHROMIUM} (Debian: apt-get install -y chromium, as .ci/run does); "
           "the end-to-end browser test of the HTML inspector cannot run here",
)]

# Added to a copy of a page to time it (the page itself has no script): a forced
# layout at the load event, and the time since navigation start, into the DOM.
TIMER = ("<script>addEventListener('load',function(){document.body.offsetHeight;"
         "document.documentElement.setAttribute('data-load-ms',performance.now().toFixed(1));});</script>")


def chromium(tmp: Path, url: str, *args: str, timeout: float = 90) -> str:
    profile = tmp / "chromium-profile"
    proc = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args, url],
                          capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return proc.stdout


def timed_copy(page: str) -> str:
    page = page.replace("style-src 'unsafe-inline'", "style-src 'unsafe-inline'; script-src 'unsafe-inline'", 1)
    return page.replace("</body>", TIMER + "</body>", 1)


def load_ms(tmp: Path, page: str) -> float:
    path = tmp / "timed.html"
    path.write_text(timed_copy(page), encoding="utf-8")
    dom = chromium(tmp, path.as_uri(), "--dump-dom")
    found = re.search(r'data-load-ms="([\d.]+)"', dom)
    assert found, "the timing script did not run"
    return float(found.group(1))


def artifacts(tmp: Path) -> Path:
    out = os.environ.get("DM_ARTIFACTS_DIR")
    if out:
        Path(out).mkdir(parents=True, exist_ok=True)
        return Path(out)
    return tmp


def test_rendered_dom_and_screenshot(tmp_path):
    messages = sample_conversation(3)
    total = compact(messages, 10**9).tokens_before
    result = compact(messages, int(total * 0.5))  # a budget where every decision occurs
    counts = result.report.counts
    assert all(counts[d] for d in DECISIONS), counts
    page_path = tmp_path / "view.html"
    page_path.write_text(render_html(result, messages), encoding="utf-8")

    dom = parse(chromium(tmp_path, page_path.as_uri(), "--dump-dom"), strict=False)
    header = dom.by_id("summary")
    assert header is not None, "no header in the rendered DOM"
    for d in DECISIONS:
        assert int(header.attrs[f"data-count-{d}"]) == counts[d]
        assert dom.by_id(f"count-{d}").text() == str(counts[d])
    assert dom.by_id("tokens-before").text() == str(result.tokens_before)
    assert dom.by_id("tokens-after").text() == str(result.tokens_after)
    assert dom.by_id("budget").text() == str(result.budget)
    # the browser parsed every unit where it belongs: one element each, with its decision
    units = dom.find_all(lambda n: n.tag == "span" and "u" in n.classes)
    assert Counter(n.attrs["data-decision"] for n in units) == Counter(counts)
    assert len({n.attrs["id"] for n in units}) == len(result.report.units)
    assert dom.by_id("record").text() == result.note
    assert len(dom.by_id("pane-orig").find_all(lambda n: n.tag == "article")) == len(messages)

    shot = artifacts(tmp_path) / "inspect_view.png"
    shot.unlink(missing_ok=True)
    chromium(tmp_path, page_path.as_uri(), f"--screenshot={shot}", "--window-size=1400,1000")
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n" and len(data) > 20_000, len(data)
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(shot) as im:
        assert im.size == (1400, 1000)
        colours = im.convert("RGB").getcolors(maxcolors=1 << 20) or []
        assert len(colours) > 50, "the screenshot looks blank"
    print(f"screenshot: {shot}")


def test_markup_in_messages_stays_text_in_the_browser(tmp_path):
    attack = ("<script>document.title='pwned';document.documentElement.setAttribute('data-pwned','1')</script>"
              "<img src=x onerror=\"document.documentElement.setAttribute('data-pwned','2')\">")
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": f"Here is the page source: {attack} What does ticket OPS-42 say?"},
        {"role": "assistant", "content": f"It says {attack} and also mentions version v2.0.1 twice."},
        {"role": "user", "content": "ok </article></main><h1 id=injected>x</h1>"},
    ]
    result = compact(messages, 10**6)
    page_path = tmp_path / "evil.html"
    page = render_html(result, messages)
    page_path.write_text(page, encoding="utf-8")
    raw = chromium(tmp_path, page_path.as_uri(), "--dump-dom")
    dom = parse(raw, strict=False)
    html_el = dom.find_all(lambda n: n.tag == "html")[0]
    assert "data-pwned" not in html_el.attrs
    assert not re.search(r"<html[^>]*data-pwned", raw)
    assert not dom.find_all(lambda n: n.tag in ("script", "img") or n.attrs.get("id") == "injected")
    title = dom.find_all(lambda n: n.tag == "title")[0].text()
    assert title.startswith("discourse-memory view")
    assert attack in dom.by_id("m-1").text()
    assert "</article></main><h1 id=injected>x</h1>" in dom.by_id("m-3").text()


def test_500_messages_render_in_time(tmp_path):
    messages = sample_conversation(12)
    while len(messages) < 500:
        messages += sample_conversation(4, seed=len(messages))[1:]
    messages = messages[:500]
    total = compact(messages, 10**9).tokens_before
    result = compact(messages, total // 4)
    ms = load_ms(tmp_path, render_html(result, messages))
    print(f"500 messages: loaded and laid out in {ms:.0f} ms")
    # The 3 s bar is measured by benchmarks/bench_inspect.py; a test only guards against
    # a page that cannot be laid out at all (timed tests flake on shared machines).
    assert ms < 20_000, ms


def _largest(path: Path) -> list[dict]:
    best: tuple[int, list[dict]] = (-1, [])
    with path.open(encoding="utf-8") as f:
        for line in f:
            if line.strip():
                msgs = json.loads(line)["messages"]
                size = sum(len(m.get("content") or "") for m in msgs)
                if size > best[0]:
                    best = (size, msgs)
    return best[1]


@pytest.mark.skipif(not SWE_DEV.is_file(), reason=f"{SWE_DEV} not found (set DM_SWE_DEV to swe_dev.jsonl)")
def test_bar_on_the_largest_swe_dev_conversation(tmp_path):
    """The issue's bar: under 3 s in Chromium, under 5x the conversation's text."""
    messages = _largest(SWE_DEV)
    total = compact(messages, 10**12).tokens_before
    # its newest turn alone is over 25% of it, so that turn is compacted too
    result = compact(messages, total // 4, keep_last_turn=False)
    page = render_html(result, messages)
    text = sum(len((m.get("content") or "").encode()) for m in messages)
    ratio = len(page.encode()) / text
    ms = load_ms(tmp_path, page)
    print(f"largest swe_dev conversation: {len(page.encode())} bytes = {ratio:.2f}x its text; "
          f"loaded and laid out in {ms:.0f} ms")
    assert ratio < 5, ratio
    assert ms < 20_000, ms  # the 3 s bar: benchmarks/bench_inspect.py

"""The async API (``acompact``, ``DiscourseMemory.aview``) works in a worker thread, never on the
event loop's, and returns what the sync call returns. Checked by where the work runs (the token
counter records its thread), not by timing; ``benchmarks/bench_loop_stall.py`` measures stalls."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading

import pytest

from discourse_memory import (
    BudgetTooSmallError,
    DiscourseMemory,
    acompact,
    compact,
    get_token_counter,
    warm_up,
)
from discourse_memory.sample import sample_conversation

BUDGET = 600


class ThreadRecordingCounter:
    """cl100k_base counts, and the thread of every call."""

    def __init__(self) -> None:
        self._count = get_token_counter("cl100k_base").count
        self.threads: set[int] = set()

    def __call__(self, text: str) -> int:
        self.threads.add(threading.get_ident())
        return self._count(text)


def _on_loop(coro_fn):  # runs coro_fn() on a new loop; returns (result, the loop thread's id)
    async def main():
        return await coro_fn(), threading.get_ident()

    return asyncio.run(main())


def test_acompact_runs_in_a_worker_thread_and_equals_compact() -> None:
    messages = sample_conversation(6)
    counter = ThreadRecordingCounter()
    view, loop_thread = _on_loop(lambda: acompact(messages, BUDGET, token_counter=counter))
    assert counter.threads and loop_thread not in counter.threads
    same = compact(messages, BUDGET, token_counter=ThreadRecordingCounter())
    assert view.note is not None and view.tokens_after <= BUDGET
    assert (view.messages, view.note, view.sources) == (same.messages, same.note, same.sources)


def test_acompact_takes_the_same_options_and_raises_the_same_errors() -> None:
    messages = sample_conversation(3)
    view, _ = _on_loop(lambda: acompact(messages, BUDGET, keep_last_turn=False, note_role="user", focus=None))
    same = compact(messages, BUDGET, keep_last_turn=False, note_role="user", focus=None)
    assert (view.messages, view.note) == (same.messages, same.note)
    with pytest.raises(BudgetTooSmallError):
        _on_loop(lambda: acompact(messages, 3))
    assert acompact.__name__ == "acompact" and "worker thread" in (acompact.__doc__ or "")


def test_aview_runs_in_a_worker_thread_and_equals_view() -> None:
    messages = sample_conversation(6)
    counter = ThreadRecordingCounter()
    memory = DiscourseMemory(messages, token_counter=counter)
    counter.threads.clear()  # (building the memory counted nothing, but be sure)
    view, loop_thread = _on_loop(lambda: memory.aview(BUDGET))
    assert counter.threads and loop_thread not in counter.threads
    again = DiscourseMemory(messages, token_counter=ThreadRecordingCounter()).view(BUDGET)
    assert (view.messages, view.note) == (again.messages, again.note)
    focused, _ = _on_loop(lambda: memory.aview(BUDGET, focus="ORD-1002"))
    fresh = DiscourseMemory(messages, token_counter=ThreadRecordingCounter())
    assert focused.messages == fresh.view(BUDGET, focus="ORD-1002").messages


def test_the_loop_goes_on_while_acompact_works() -> None:
    # Deterministic: the counter blocks until a loop task has run, which it can only do if the
    # compaction is not holding the loop's thread.
    messages = sample_conversation(4)
    ran = threading.Event()
    base = get_token_counter("cl100k_base").count

    def counter(text: str) -> int:
        if not ran.wait(timeout=30):
            raise AssertionError("the event loop did not run while compacting")
        return base(text)

    async def main():
        async def mark():
            ran.set()

        task = asyncio.ensure_future(mark())
        view = await acompact(messages, BUDGET, token_counter=counter)
        await task
        return view

    assert asyncio.run(main()).tokens_after <= BUDGET


_IMPORT_WATCH = """
import sys, threading
seen = {}
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == 'spacy' and 'spacy' not in seen:
            seen['spacy'] = threading.current_thread() is threading.main_thread()
        return None
sys.meta_path.insert(0, Watch())
"""


def _prints_ok(code: str) -> None:
    """``code`` run in a fresh process exits 0 having printed only ``ok``."""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr


def test_a_fresh_process_imports_spacy_off_the_loop_thread() -> None:
    """The start-up (spaCy's import, the pipeline) of a first ``acompact`` or ``aview`` is not
    done on the loop's thread (here the main thread)."""
    code = _IMPORT_WATCH + (
        "import asyncio; from discourse_memory import acompact, DiscourseMemory, warm_up;"
        "from discourse_memory.sample import sample_conversation\n"
        "warm_up(encoding='cl100k_base')\n"  # the documented start-up: the counter's tables now
        # (whether spaCy is in sys.modules here is a race with warm_up's thread; where it was
        # imported is what counts: `seen`, recorded by the import hook, says which thread)
        "v = asyncio.run(acompact(sample_conversation(6), 600))\n"
        "assert v.note and 'spacy' in sys.modules and seen['spacy'] is False, seen\n"
        "print('ok')")
    _prints_ok(code)


def test_warm_up_loads_an_encoding_now_and_names_a_bad_one() -> None:
    from discourse_memory import EncodingUnavailableError
    from discourse_memory import tokens

    warm_up(encoding="cl100k_base")
    assert "cl100k_base" in tokens._COUNTERS
    with pytest.raises(EncodingUnavailableError, match="no_such_encoding"):
        warm_up(encoding="no_such_encoding")


def test_a_first_analysis_waits_for_a_running_warm_up() -> None:
    code = ("import threading; from discourse_memory import nlp, Compactor;"
            "from discourse_memory.sample import sample_conversation\n"
            "t = nlp.warm_up()\n"
            "assert t is not None and t.is_alive()\n"
            "Compactor().compact(sample_conversation(4), 300)\n"
            "assert not t.is_alive(), 'the analysis ran beside the warm-up'\n"
            "print('ok')")
    _prints_ok(code)



def test_the_loop_stall_benchmark_runs_a_case(tmp_path) -> None:
    """``benchmarks/bench_loop_stall.py`` (its figures are in docs/reliability.md) runs; no timing
    is checked here, only that a case completes and reports its rows."""
    import json
    from pathlib import Path

    script = Path(__file__).resolve().parents[1] / "benchmarks" / "bench_loop_stall.py"
    run = subprocess.run([sys.executable, str(script), str(tmp_path / "absent.jsonl"), "--case", "acompact"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    row = json.loads(run.stdout.strip().splitlines()[-1])
    assert row["case"] == "acompact" and row["messages"] == 298
    assert {"cold_stall_ms", "warm_stall_ms", "cold_wall_ms", "warm_wall_ms"} <= set(row)

"""The collector pause around bulk analysis: scoped, nested, never leaves the
program's own setting changed."""

from __future__ import annotations

import gc
import threading

import pytest

from discourse_memory import Compactor
from discourse_memory.gc_pause import gc_paused, is_bulk
from discourse_memory.limits import LIMITS


@pytest.fixture(autouse=True)
def _restore_gc():
    was = gc.isenabled()
    yield
    (gc.enable if was else gc.disable)()


def _bulk_history() -> list[dict]:
    msgs = [{"role": "system", "content": "You are terse."}]
    for i in range(LIMITS.bulk_texts + 10):
        msgs.append({"role": "user" if i % 2 else "assistant", "content": f"Step {i}: moved ticket OPS-{i} to done."})
    return msgs


def test_pause_disables_then_restores():
    gc.enable()
    with gc_paused():
        assert not gc.isenabled()
    assert gc.isenabled()


def test_inactive_pause_changes_nothing():
    gc.enable()
    with gc_paused(False):
        assert gc.isenabled()
    assert gc.isenabled()


def test_nested_pauses_reenable_only_at_the_outermost_end():
    gc.enable()
    with gc_paused():
        with gc_paused():
            assert not gc.isenabled()
        assert not gc.isenabled()
    assert gc.isenabled()


def test_a_program_that_disabled_the_collector_keeps_it_disabled():
    gc.disable()
    with gc_paused():
        pass
    assert not gc.isenabled()
    Compactor().compact(_bulk_history(), 300)
    assert not gc.isenabled()


def test_an_exception_inside_restores_the_collector():
    gc.enable()
    with pytest.raises(RuntimeError):
        with gc_paused():
            raise RuntimeError("boom")
    assert gc.isenabled()


def test_bulk_compaction_leaves_the_collector_enabled():
    gc.enable()
    history = _bulk_history()
    assert is_bulk([m["content"] for m in history])
    paused: list[bool] = []
    compactor = Compactor()
    analyse = compactor.analyzer.analyse

    def spy(texts):
        paused.append(not gc.isenabled())
        return analyse(texts)

    compactor.analyzer.analyse = spy  # type: ignore[method-assign]
    result = compactor.compact(history, 300)
    assert paused == [True]
    assert result.tokens_after <= 300
    assert gc.isenabled()


def test_small_batches_never_pause():
    assert not is_bulk(["one short message", "and another"])


def test_concurrent_pauses_end_enabled():
    gc.enable()
    barrier = threading.Barrier(4)
    errors: list[BaseException] = []

    def work() -> None:
        try:
            barrier.wait()
            for _ in range(200):
                with gc_paused():
                    # Another thread ending its pause must not end this one's.
                    assert not gc.isenabled()
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert gc.isenabled()


def test_what_a_bulk_batch_made_goes_to_the_oldest_generation():
    # A young collection over a cold analysis (hundreds of thousands of long-lived
    # objects) once cost a tenth of the call; after the pause they are old already.
    gc.enable()
    gc.collect()
    with gc_paused():
        made = [{"i": i} for i in range(50_000)]
        assert gc.get_count()[0] >= 50_000
    assert gc.isenabled()
    assert gc.get_count()[0] < 1_000
    assert len(made) == 50_000


def test_cycles_made_during_a_pause_are_still_collected():
    import weakref

    class Node:
        pass

    gc.enable()
    with gc_paused():
        a, b = Node(), Node()
        a.other, b.other = b, a
        gone = weakref.ref(a)
        del a, b
    assert gone() is not None  # not yet: nothing collects while paused
    gc.collect()
    assert gone() is None


def _agent_history() -> list[dict]:
    from discourse_memory.sample import sample_conversation

    msgs = sample_conversation(3)
    for i in range(6):
        msgs.append({"role": "assistant", "content": "", "tool_calls": [
            {"id": f"c{i}", "type": "function", "function": {"name": "read_file", "arguments": f'{{"path": "src/m{i}.py"}}'}}]})
        msgs.append({"role": "tool", "tool_call_id": f"c{i}", "content": f"def f{i}(x):\n    return x + {i}\n" * 20})
    msgs.append({"role": "user", "content": "Which file defines f3, and what does it add?"})
    return msgs


def test_views_make_no_reference_cycles():
    # Views run with the collector paused and their survivors go straight to the oldest
    # generation: that is only free if a view leaves no cyclic garbage for it to find.
    from discourse_memory import DiscourseMemory, compact

    msgs = _agent_history()
    mem = DiscourseMemory(msgs[:-3])
    mem.view(300)  # the analysis, the pipeline: warm before counting
    compact(msgs, 300)
    gc.collect()
    gc.disable()
    try:
        for m in msgs[-3:]:
            mem.append(m)
            view = mem.view(300)
            view.report  # (built lazily)
            view.recall("f3")
        for budget in (200, 400):
            compact(msgs, budget, focus="Which file defines f3?").report
        assert gc.collect() == 0
    finally:
        gc.enable()


def test_a_view_runs_with_the_collector_paused_and_restores_it(monkeypatch):
    from discourse_memory import DiscourseMemory, compaction, gc_pause

    seen: list[bool] = []
    fit = compaction.fit

    def spy(scene):
        seen.append(gc.isenabled())
        return fit(scene)

    monkeypatch.setattr(compaction, "fit", spy)
    gc.enable()
    mem = DiscourseMemory(_agent_history())
    mem.view(300)
    assert seen == [False] and gc.isenabled()
    monkeypatch.setattr(gc_pause, "ENABLED", False)  # (the switch that measures what the pause saves)
    mem.append({"role": "assistant", "content": "src/m3.py defines f3; it adds 3."})
    mem.view(300)
    assert seen == [False, True] and gc.isenabled()

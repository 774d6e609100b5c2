"""The core under concurrency: the module-level ``compact`` (one cached ``Compactor``
per encoding, shared by every thread), one ``DiscourseMemory`` shared by threads, and
many sessions on an event loop. Results must equal the serial results exactly."""

from __future__ import annotations

import asyncio
import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from discourse_memory import DiscourseMemory, compact, get_token_counter
from discourse_memory.sample import sample_conversation

COUNTER = get_token_counter()


def tokens(messages: list[dict[str, Any]]) -> int:
    total = 0
    for m in messages:
        c = m.get("content")
        if isinstance(c, str):
            total += COUNTER.count(c)
        for call in m.get("tool_calls") or []:
            total += COUNTER.count(call["function"]["name"]) + COUNTER.count(call["function"]["arguments"])
    return total


def conversation(seed: int, n: int = 40) -> list[dict[str, Any]]:
    msgs = sample_conversation(1, seed=seed)
    return msgs[:n] + [{"role": "user", "content": f"Session {seed}: what is still open?"}]


def test_shared_compact_across_threads_equals_serial() -> None:
    """Threads interleave different conversations through the one cached Compactor
    (which caches the columns of the last conversation): every result is byte-identical
    to the serial one."""
    convs = [conversation(seed) for seed in range(8)]
    budgets = [300, 600, 1200]
    serial = {(c, b): json.dumps(compact(convs[c], b).messages) for c in range(len(convs)) for b in budgets}
    jobs = [(c, b) for _ in range(6) for c in range(len(convs)) for b in budgets]

    def run(job: tuple[int, int]) -> tuple[tuple[int, int], str, int]:
        c, b = job
        # Growing prefixes too: the cache's "extend the last conversation" path.
        compact(convs[c][: len(convs[c]) // 2], b)
        result = compact(convs[c], b)
        return job, json.dumps(result.messages), tokens(result.messages)

    with ThreadPoolExecutor(max_workers=8) as pool:
        for job, out, n in pool.map(run, jobs):
            assert out == serial[job]
            assert n <= job[1]


def test_one_memory_shared_by_threads() -> None:
    """Eight threads append to and view one DiscourseMemory: every message is stored
    exactly once, each thread's messages in its order, and every view fits."""
    memory = DiscourseMemory()
    per_thread, threads_n, budget = 40, 8, 500
    errors: list[BaseException] = []
    over: list[int] = []

    def run(t: int) -> None:
        try:
            for i in range(per_thread):
                memory.append({"role": "user" if i % 2 == 0 else "assistant",
                               "content": f"Thread {t} message {i}: order ORD-{t * 1000 + i} ships "
                                          f"on 2024-05-{1 + i % 28:02d}, invoice INV-{t}{i}."})
                if i % 5 == 4:
                    view = memory.view(budget)
                    if tokens(view.messages) > budget:
                        over.append(tokens(view.messages))
        except BaseException as exc:  # noqa: BLE001
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(threads_n)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(timeout=300)
    assert not errors, errors[:3]
    assert not over
    contents = [m["content"] for m in memory.messages]
    assert len(contents) == len(set(contents)) == per_thread * threads_n
    for t in range(threads_n):
        mine = [c for c in contents if c.startswith(f"Thread {t} ")]
        assert [int(c.split()[3].rstrip(":")) for c in mine] == list(range(per_thread))
    final = memory.view(budget)
    assert tokens(final.messages) <= budget
    # The shared memory's view equals a fresh compaction of the same history.
    assert final.messages == compact(memory.messages, budget).messages


def test_many_sessions_on_an_event_loop() -> None:
    """A DiscourseMemory per session; views taken in worker threads from coroutines
    (as an async agent would), all sessions at once."""
    sessions, turns, budget = 24, 8, 350

    async def session(s: int) -> list[str]:
        memory = DiscourseMemory()
        for i in range(turns):
            memory.append({"role": "user", "content": f"S{s} turn {i}: deploy svc-{s}-{i} at 10:{i:02d} in eu-west-{s % 3}."})
            memory.append({"role": "assistant", "content": f"S{s} turn {i}: done, ticket OPS-{s * 100 + i}, "
                                                           f"cost ${s}.{i:02d}; logs at /var/log/svc/{s}/{i}.log"})
            view = await asyncio.to_thread(memory.view, budget)
            assert tokens(view.messages) <= budget
            await asyncio.sleep(0)
        return [m["content"] for m in memory.messages]

    async def main() -> list[list[str]]:
        return await asyncio.gather(*(session(s) for s in range(sessions)))

    results = asyncio.run(main())
    for s, contents in enumerate(results):
        assert len(contents) == 2 * turns
        assert all(c.startswith(f"S{s} turn ") for c in contents)

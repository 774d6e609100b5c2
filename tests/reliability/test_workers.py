"""The load test of issue 49: four worker processes on one real ``redis-server`` serve many
conversations, each turn routed to a random worker, every turn queued at once (so turns of
one conversation race on different workers); no message is lost, and every view a worker
took is the view a single process takes of the same messages. Throughput and latency are
measured by ``benchmarks/bench_workers.py``, not here."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

from discourse_memory import DiscourseMemory

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from workers_app import new_message, view_digest  # noqa: E402

WORKERS = 4
CONVERSATIONS = 16
TURNS = 8
BUDGET = 400


def test_workers_share_one_cache_and_lose_nothing(redis_server):
    redis = pytest.importorskip("redis")
    url = redis_server.url[:-1] + "3"  # a database of its own
    client = redis.Redis.from_url(url)
    client.flushdb()
    names = [f"w{i}" for i in range(WORKERS)]
    procs = [subprocess.Popen([sys.executable, str(HERE / "workers_app.py"), url, name, "--budget", str(BUDGET)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for name in names]
    try:
        for _ in names:
            assert client.blpop(["ready"], timeout=60) is not None, "a worker did not start"
        rng = random.Random(49)
        sent: dict[str, list[dict]] = {f"c{c}": [] for c in range(CONVERSATIONS)}
        for i in range(TURNS):
            for conv in sent:
                message = new_message(conv, i)
                sent[conv].append(message)
                client.rpush(f"queue:{rng.choice(names)}", json.dumps({"conv": conv, "message": message}))
        results = []
        deadline = time.monotonic() + 120
        while len(results) < CONVERSATIONS * TURNS and time.monotonic() < deadline:
            got = client.blpop(["results"], timeout=5)
            if got is not None:
                results.append(json.loads(got[1]))
            else:
                assert all(p.poll() is None for p in procs), [p.communicate()[1][-2000:] for p in procs if p.poll()]
        assert len(results) == CONVERSATIONS * TURNS
    finally:
        for name in names:
            client.rpush(f"queue:{name}", json.dumps({"stop": True}))
        for p in procs:
            try:
                p.wait(timeout=30)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    assert [p.returncode for p in procs] == [0] * WORKERS, [p.stderr.read()[-2000:] for p in procs if p.stderr]

    # Nothing lost, nothing doubled: each list holds exactly the messages sent to it.
    final = {conv: [json.loads(m) for m in client.lrange(f"conv:{conv}", 0, -1)] for conv in sent}
    for conv, messages in sent.items():
        assert sorted(map(json.dumps, final[conv])) == sorted(map(json.dumps, messages)), conv
    # Every view is the one process's view of the messages the worker read (a prefix of the list).
    for r in results:
        expected = view_digest(DiscourseMemory(final[r["conv"]][:r["n"]]).view(BUDGET))
        assert r["view"] == expected, r
    # The turns went to all the workers, most of them to one that had not seen the conversation's
    # last turn, and those read the analyses the others wrote.
    assert {r["worker"] for r in results} == set(names)
    assert sum(not r["warm"] for r in results) >= CONVERSATIONS
    keys = client.keys("dm:a:*")
    assert keys and all(0 < client.ttl(k) <= 3600 for k in keys)

"""Many workers, one conversation (issue 49): the shared analysis cache on a local Redis.

    python benchmarks/bench_workers.py [--tokens 65000] [--turns 5] [--workers 4]
                                       [--conversations 12] [--load-turns 6] [--fresh-runs 5] [--skip-load]
                                       [--clock wall|cpu]

Needs ``redis-server`` on the PATH (it starts its own on a free port, in a temporary directory).

1. The bar: a history of ``--tokens`` tokens of ``swe_dev.jsonl`` (the first runs, as
   bench_core_speed.py takes them; budget a quarter of it). A warm worker's turn is the
   median of ``--turns`` turns of appending a ~500-token message and taking a view in a
   ``DiscourseMemory`` that took the turns before. A fresh worker is a new process (its
   pipeline loaded and a view of another conversation taken before the clock starts: a worker
   in service) that restores the same conversation, one new
   message on, with ``DiscourseMemory.from_dict`` and takes its first view (the view of another
   conversation before the clock starts goes through the same store, as a worker's in service
   would, its entries under a prefix of its own): with the shared
   cache holding what the workers before it analysed (all but the new message), and
   without. ``--fresh-runs`` rounds, each of three warm turns and then a fresh process of each
   case: the medians are printed,
   and the median of each round's ratio to its warm turn (the machine's load moves between
   rounds). Views are checked equal to the warm worker's. ``--clock cpu``: the bar's times are
   the CPU time of the process that takes the turn or the view (``time.process_time``, every
   thread of it), not the wall clock: on a machine that other jobs load, a wall-clock time is
   mostly how long the process waited for a core (the load's times are the wall clock's).
2. The load: ``--workers`` processes of ``tests/reliability/workers_app.py`` serve
   ``--conversations`` conversations (runs of swe_dev.jsonl and tau_airline_dev.jsonl, in
   Redis lists) for ``--load-turns`` new messages each, every turn queued at once to a
   random worker; then the same turns with no shared cache; then all turns to a single
   worker (which is warm for every conversation after its first turn). Printed: turns per
   second (wall clock, first turn queued to last view), and p50 / p99 of a turn (append to
   view, timed in the worker).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("RAYON_NUM_THREADS", "1")
HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT / "tests" / "reliability"))
DATA = ROOT.parent / "shared" / "data" / "agents"

FRESH = """
import json, os, sys, time
from discourse_memory import DiscourseMemory, RedisAnalysisCache
from discourse_memory.nlp import get_pipeline
import redis
state, budget, url = json.load(open(sys.argv[1])), int(sys.argv[2]), sys.argv[3]
clock = time.process_time if sys.argv[5] == "cpu" else time.perf_counter
cache = RedisAnalysisCache(redis.Redis.from_url(url)) if url != "-" else None
get_pipeline()  # (a worker's start-up: not the turn's)
# A worker in service has served other conversations, through the same store: its code paths
# are warm (its pipeline's too: the other conversation is analysed here, under a prefix of this
# process, not counted below), not this conversation.
other = [json.loads(line)["messages"] for line in open(sys.argv[4])][-1]
own = None if cache is None else RedisAnalysisCache(cache.client, prefix=f"dm:w{os.getpid()}:")
DiscourseMemory(other, cache=own).view(4000)
t = clock()
memory = DiscourseMemory.from_dict(state, cache=cache)
view = memory.view(budget)
ms = (clock() - t) * 1000
print(json.dumps({"ms": ms, "messages": view.messages, "note": view.note}))
"""


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_redis(directory: str) -> tuple[subprocess.Popen[bytes], str]:
    import redis

    binary = shutil.which("redis-server")
    if binary is None:
        sys.exit("redis-server is not on the PATH (Debian: apt-get install redis-server)")
    port = _free_port()
    proc = subprocess.Popen([binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", directory], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    client = redis.Redis(port=port)
    for _ in range(200):
        try:
            if client.ping():
                return proc, f"redis://127.0.0.1:{port}/0"
        except redis.ConnectionError:
            time.sleep(0.05)
    proc.kill()
    sys.exit("redis-server did not start")


def bar(url: str, tokens: int, turns: int, runs: int, tmp: str, clock_name: str = "wall") -> None:
    import redis

    from bench_core_speed import new_message, real_history
    from discourse_memory import DiscourseMemory, RedisAnalysisCache, get_token_counter

    clock = time.process_time if clock_name == "cpu" else time.perf_counter
    msgs = real_history(str(DATA / "swe_dev.jsonl"), tokens)
    count = get_token_counter().count
    budget = sum(count(m.get("content") or "") for m in msgs) // 4
    client = redis.Redis.from_url(url)
    client.flushdb()
    cache = RedisAnalysisCache(client)
    # The workers before: one took every turn so far (and wrote what it analysed to the cache).
    warm = DiscourseMemory(msgs, cache=cache)
    warm.view(budget)
    times = []
    for i in range(3 + turns):
        warm.append(new_message(i))
        t = clock()
        warm.view(budget)
        if i >= 3:
            times.append(clock() - t)
    warm_ms = statistics.median(times) * 1000
    # The next turn lands on a fresh worker: the state holds the new message, the cache all before it
    # (the rendered texts' counts as the warm worker's last turn wrote them, one message back:
    # shared_counts.py; put back before each fresh worker, as the views after it replace them).
    counts_keys = client.keys(cache.prefix + "*:k*")
    counts = dict(zip(counts_keys, client.mget(counts_keys))) if counts_keys else {}
    warm.append(new_message(99))
    state = warm.to_dict()
    expected = warm.view(budget)  # (the warm worker's view of the same turn, to compare; taken after the
    # state was saved, its analysis of the new message is written too: drop it, the fresh worker makes it)
    newest = cache.prefix + warm._compactor.analyzer.shared.key(new_message(99)["content"])
    client.delete(newest)
    path = Path(tmp) / "state.json"
    path.write_text(json.dumps(state))
    got: dict[str, list[float]] = {"shared cache": [], "no shared cache": []}
    ratios: dict[str, list[float]] = {"shared cache": [], "no shared cache": []}
    warm_ms: list[float] = [statistics.median(times) * 1000]
    for r in range(runs):
        # The machine's load moves from minute to minute: each round times warm turns of its own
        # (on the warm memory, one message on each) next to its two fresh workers.
        round_ms = []
        for j in range(3):
            warm.append(new_message(200 + 3 * r + j))
            t = clock()
            warm.view(budget)
            round_ms.append((clock() - t) * 1000)
        warm_ms.append(statistics.median(round_ms))
        for label, arg in (("shared cache", url), ("no shared cache", "-")):
            if arg != "-" and counts:
                client.mset(counts)
            run = subprocess.run([sys.executable, "-c", FRESH, str(path), str(budget), arg,
                                  str(DATA / "swe_dev.jsonl"), clock_name], capture_output=True,
                                 text=True, check=True)
            out = json.loads(run.stdout.strip().splitlines()[-1])
            assert out["messages"] == expected.messages and out["note"] == expected.note, "views differ"
            got[label].append(out["ms"])
            ratios[label].append(out["ms"] / warm_ms[-1])
            if arg != "-":  # (the fresh worker wrote the new message's analysis: drop it for the next run)
                client.delete(newest)
    n_tokens = sum(count(m.get("content") or "") for m in state["messages"])
    print(f"history: {len(state['messages'])} messages of swe_dev.jsonl, {n_tokens} tokens; budget {budget}; "
          f"times: {'CPU (process_time)' if clock_name == 'cpu' else 'wall clock'}")
    print(f"warm worker's turn (append + view): median {statistics.median(warm_ms):.0f} ms "
          f"(first {turns} turns, then 3 a round: {', '.join(f'{v:.0f}' for v in warm_ms)} ms)")
    for label, values in got.items():
        print(f"fresh worker's first view, {label}: median {statistics.median(values):.0f} ms "
              f"({', '.join(f'{v:.0f}' for v in values)} ms in {runs} processes); x its round's warm turn: "
              f"median {statistics.median(ratios[label]):.1f}x ({', '.join(f'{v:.1f}' for v in ratios[label])})")
    entries = client.keys("dm:a:*")
    sizes = {k: client.memory_usage(k) or 0 for k in entries}
    size = sum(sizes.values())
    chars = max(1, sum(len(m.get("content") or "") for m in state["messages"]))
    print(f"shared cache: {len(entries)} entries, {size / 1024:.0f} KiB in Redis ({size / chars:.2f} bytes a "
          f"character of the history)")
    # (by kind: a text's analysis, a segment's rows (fit/shared_rows.py), a segment's columns (shared_columns.py),
    # the counts of a segment's last view's rendered texts (shared_counts.py))
    for kind, mark in (("rows", b":r"), ("columns", b":u"), ("counts", b":k")):
        own = [v for k, v in sizes.items() if mark in k]
        print(f"  of which {kind}: {len(own)} entries, {sum(own) / 1024:.0f} KiB ({sum(own) / chars:.2f} bytes a "
              f"character)")


def conversations(n: int) -> list[list[dict]]:
    runs = [json.loads(line)["messages"] for line in (DATA / "swe_dev.jsonl").open()][: n // 2]
    runs += [json.loads(line)["messages"] for line in (DATA / "tau_airline_dev.jsonl").open()][: n - len(runs)]
    return runs


def load(url: str, workers: int, convs: list[list[dict]], turns: int, cache: bool, budget: int) -> dict[str, float]:
    import redis

    from workers_app import new_message

    client = redis.Redis.from_url(url)
    client.flushdb()
    for c, messages in enumerate(convs):
        client.rpush(f"conv:c{c}", *[json.dumps(m) for m in messages])
    names = [f"w{i}" for i in range(workers)]
    args = ["--budget", str(budget)] + ([] if cache else ["--no-cache"])
    procs = [subprocess.Popen([sys.executable, str(ROOT / "tests" / "reliability" / "workers_app.py"), url, name,
                               *args]) for name in names]
    try:
        for _ in names:
            if client.blpop(["ready"], timeout=120) is None:
                sys.exit("a worker did not start")
        rng = random.Random(49)
        start = time.perf_counter()
        for i in range(turns):
            for c in range(len(convs)):
                job = {"conv": f"c{c}", "message": new_message(f"c{c}", 1000 + i)}
                client.rpush(f"queue:{rng.choice(names)}", json.dumps(job))
        results = [json.loads(client.blpop(["results"], timeout=600)[1]) for _ in range(turns * len(convs))]
        wall = time.perf_counter() - start
    finally:
        for name in names:
            client.rpush(f"queue:{name}", json.dumps({"stop": True}))
        for p in procs:
            p.wait(timeout=60)
    ms = sorted(r["ms"] for r in results)
    return {"turns/s": len(ms) / wall, "p50": statistics.median(ms), "p99": ms[min(len(ms) - 1, int(len(ms) * 0.99))],
            "warm share": sum(r["warm"] for r in results) / len(results)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tokens", type=int, default=65000)
    ap.add_argument("--turns", type=int, default=5)
    ap.add_argument("--fresh-runs", type=int, default=5, help="fresh worker processes per case")
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--conversations", type=int, default=12)
    ap.add_argument("--load-turns", type=int, default=6)
    ap.add_argument("--budget", type=int, default=4000, help="of the load's views")
    ap.add_argument("--skip-load", action="store_true")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="the bar's times: wall clock, or the CPU time of the process (steadier under load)")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server, url = start_redis(tmp)
        try:
            bar(url, args.tokens, args.turns, args.fresh_runs, tmp, args.clock)
            if args.skip_load:
                return
            convs = conversations(args.conversations)
            print(f"\nload: {len(convs)} conversations ({sum(map(len, convs))} messages stored), {args.load_turns} "
                  f"new messages each, views at {args.budget} tokens, each turn queued at once to a random worker")
            print(f"{'case':42s} {'turns/s':>8s} {'p50 ms':>8s} {'p99 ms':>8s} {'warm':>6s}")
            for label, workers, cache in ((f"{args.workers} workers, shared cache", args.workers, True),
                                          (f"{args.workers} workers, no shared cache", args.workers, False),
                                          ("1 worker (warm after a conversation's first turn)", 1, False)):
                got = load(url, workers, convs, args.load_turns, cache, args.budget)
                print(f"{label:42s} {got['turns/s']:8.2f} {got['p50']:8.0f} {got['p99']:8.0f} "
                      f"{got['warm share']:6.0%}")
        finally:
            server.kill()
            server.wait()


if __name__ == "__main__":
    main()

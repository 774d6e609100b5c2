"""A worker of a chat service: turns of any conversation, one at a time, from a Redis queue.

    python workers_app.py URL NAME [--no-cache] [--budget N] [--keep N]

The history lives in Redis (one list per conversation, ``RPUSH`` per message); each worker
keeps the memories of the conversations it served last (``--keep``, default 64) and takes
any turn of any conversation: a turn it has not seen the start of is served by a memory
built from the stored history, with the shared analysis cache (``RedisAnalysisCache``) unless
``--no-cache``. A turn: ``{"conv", "message"}`` popped from ``queue:NAME``; the worker appends
the message to the conversation's list, reads the list back (what it reads is a prefix of
what the list will ever hold: lists only grow), takes a view of it at ``--budget`` tokens and
pushes ``{"conv", "n", "view", "ms", "worker", "warm"}`` to ``results`` (``view``: a digest of
the view's messages and note; ``ms``: the turn, append to view). ``{"stop": true}`` ends it.
Used by ``test_workers.py`` (the load test) and ``benchmarks/bench_workers.py``.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections import OrderedDict
from typing import Any


def new_message(conv: str, i: int) -> dict[str, Any]:
    """Message ``i`` of conversation ``conv``: unique, about 100 tokens, literal-rich."""
    city = ["Lisbon", "Osaka", "Denver", "Nairobi", "Bergen", "Quito"][i % 6]
    if i % 2 == 0:
        text = (f"[{conv}#{i}] Order ORD-{1000 + i} ships on 2024-0{1 + i % 9}-1{i % 10} to {city}. "
                f"Please confirm invoice INV-{7000 + i} for ${100 + i}.50 and tell Dana Reyes the new slot. "
                f"The pool latency was {20 + i % 50} ms on replica r{i % 4}. Ticket OPS-{4400 + i} tracks the "
                f"rollback of service svc-{i % 13} in region eu-west-{1 + i % 3}, owned by Priya Natarajan.")
        return {"role": "user", "content": text}
    text = (f"[{conv}#{i}] Noted.\n\n- Order: ORD-{1000 + i}\n- Destination: {city}\n"
            f"- Contact: agent{i}@example.com\n- Owner: Mia Li\n\nThe carrier confirmed the slot at "
            f"10:{i % 60:02d} with reference REF-{i * 7}; the gateway runs v2.{i % 9}.{i % 5} now. "
            f"I also moved pool p{i % 11} to the {city} cluster and filed ticket OPS-{5500 + i} for the audit.")
    return {"role": "assistant", "content": text}


def view_digest(view: Any) -> str:
    payload = json.dumps([view.messages, view.note], sort_keys=True, ensure_ascii=False)
    return hashlib.blake2b(payload.encode(), digest_size=12).hexdigest()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("url")
    ap.add_argument("name")
    ap.add_argument("--no-cache", action="store_true")
    ap.add_argument("--budget", type=int, default=400)
    ap.add_argument("--keep", type=int, default=64)
    args = ap.parse_args()

    import redis

    from discourse_memory import DiscourseMemory, RedisAnalysisCache
    from discourse_memory.nlp import get_pipeline

    client = redis.Redis.from_url(args.url, socket_timeout=5)
    cache = None if args.no_cache else RedisAnalysisCache(client, ttl=3600)
    get_pipeline()  # (a worker's start-up, before it takes turns)
    memories: OrderedDict[str, DiscourseMemory] = OrderedDict()
    client.rpush("ready", args.name)
    idle = 0
    while True:
        got = client.blpop([f"queue:{args.name}"], timeout=1)  # (within the client's socket_timeout)
        if got is None:
            idle += 1
            if idle >= 120:
                return  # (the driver is gone)
            continue
        idle = 0
        job = json.loads(got[1])
        if job.get("stop"):
            return
        conv = job["conv"]
        started = time.perf_counter()
        client.rpush(f"conv:{conv}", json.dumps(job["message"]))
        stored = [json.loads(m) for m in client.lrange(f"conv:{conv}", 0, -1)]
        memory = memories.pop(conv, None)
        warm = memory is not None and len(memory) <= len(stored)
        if warm:
            memory.extend(stored[len(memory):])  # (its messages are the list's first ones: lists only grow)
        else:
            memory = DiscourseMemory(stored, cache=cache)
        memories[conv] = memory
        while len(memories) > args.keep:
            memories.popitem(last=False)
        view = memory.view(args.budget)
        ms = (time.perf_counter() - started) * 1000
        client.rpush("results", json.dumps({"conv": conv, "n": len(stored), "view": view_digest(view), "ms": ms,
                                            "worker": args.name, "warm": warm}))


if __name__ == "__main__":
    main()

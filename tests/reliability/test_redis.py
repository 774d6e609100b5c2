"""Both adapters on a real Redis server: a second process sees the same view, a crash
and restart of Redis between turns loses nothing acknowledged, many sessions and two
writers on one session key neither lose nor duplicate a message, and every view fits.
"""

from __future__ import annotations

import asyncio
import importlib
import importlib.util
import json
import os
import subprocess
import sys
import threading
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("dm_reliability_redis_app", HERE / "redis_app.py")
app = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(app)  # type: ignore[union-attr]


def _require(module: str, package: str) -> None:
    """Skip without the client packages; in CI (``CI`` set) fail instead: scripts/setup.sh
    installs them, so a CI run must not pass without these tests."""
    try:
        importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            raise
        pytest.skip(f"{package} is not installed (pip install {package})", allow_module_level=True)


_require("redis", "redis")
_require("llama_index.storage.chat_store.redis", "llama-index-storage-chat-store-redis")
_require("langchain_discourse_memory", "integrations/langchain")

BUDGET = 400
PLAIN = ("llamaindex", "langchain")


@pytest.fixture(params=["llamaindex", "langchain", "langchain-redis"])
def adapter(request: pytest.FixtureRequest) -> str:
    if request.param == "langchain-redis":
        _require("langchain_redis", "langchain-redis")
    return request.param


@pytest.fixture()
def server(adapter: str, request: pytest.FixtureRequest) -> Any:
    """The Redis the adapter needs: Debian's redis-server, or Redis Stack for langchain-redis
    (RedisJSON documents in a RediSearch index)."""
    return request.getfixturevalue("redis_stack_server" if adapter == "langchain-redis" else "redis_server")


def _key(tag: str) -> str:
    return f"dm-{tag}-{uuid.uuid4().hex[:10]}"


def _second_process(command: list[str]) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, str(HERE / "redis_app.py"), *command],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _expected_full(writer: str, turns: range) -> list[str]:
    out = []
    for i in turns:
        out.extend(app.turn(writer, i))
    return out


def test_second_process_reads_the_same_view(adapter: str, server: Any) -> None:
    key = _key("view")
    mem = app.memory(adapter, server.url, key, BUDGET)
    for i in range(12):
        app.add_turn(adapter, mem, "w", i)
    here = app.view(adapter, mem)
    assert any("record" in (m["content"] or "") for m in here), "the history must be compacted"
    assert app.view_tokens(adapter, mem, mem.get() if adapter == "llamaindex" else mem.messages) <= BUDGET
    there = _second_process(["view", adapter, server.url, key, str(BUDGET)])
    assert there["view"] == here
    assert [m["content"] for m in there["full"]] == _expected_full("w", range(12))


def _restart_case(server: Any, adapters: tuple[str, ...], crash: bool) -> None:
    """The adapters write turns, Redis is killed and restarted between turns, the same
    objects (the agent loop keeps running) go on; nothing acknowledged is lost."""
    keys = {a: _key("restart") for a in adapters}
    mems = {a: app.memory(a, server.url, keys[a], BUDGET) for a in adapters}
    views = {}
    for a in adapters:
        for i in range(6):
            app.add_turn(a, mems[a], "r", i)
        views[a] = app.view(a, mems[a])
    server.restart(kill=crash)
    for a in adapters:
        # Right after the restart, before any new write: the same view.
        assert app.view(a, mems[a]) == views[a]
        for i in range(6, 10):
            app.add_turn(a, mems[a], "r", i)
    server.restart(kill=crash)
    for a in adapters:
        fresh = app.memory(a, server.url, keys[a], BUDGET)
        assert [m["content"] for m in app.full(a, fresh)] == _expected_full("r", range(10))
        assert app.view(a, fresh) == app.view(a, mems[a])
        there = _second_process(["view", a, server.url, keys[a], str(BUDGET)])
        assert there["view"] == app.view(a, fresh)


@pytest.mark.parametrize("crash", [True, False], ids=["sigkill", "sigterm"])
def test_redis_restart_between_turns_loses_nothing(private_redis: Any, crash: bool) -> None:
    _restart_case(private_redis, PLAIN, crash)


@pytest.mark.parametrize("crash", [True, False], ids=["sigkill", "sigterm"])
def test_redis_stack_restart_between_turns_loses_nothing(private_redis_stack: Any, crash: bool) -> None:
    """The same through langchain-redis's RedisChatMessageHistory on Redis Stack."""
    _require("langchain_redis", "langchain-redis")
    _restart_case(private_redis_stack, ("langchain-redis",), crash)


def _check_session(adapter: str, mem: Any, writer: str, turns: int) -> None:
    assert [m["content"] for m in app.full(adapter, mem)] == _expected_full(writer, range(turns))
    messages = mem.get() if adapter == "llamaindex" else mem.messages
    assert app.view_tokens(adapter, mem, messages) <= BUDGET


def test_many_sessions_in_threads(adapter: str, server: Any) -> None:
    sessions, turns = 12, 6
    errors: list[BaseException] = []
    over: list[int] = []
    keys = [_key(f"thr{s}") for s in range(sessions)]
    shared_store = None
    if adapter == "llamaindex":
        from llama_index.storage.chat_store.redis import RedisChatStore

        shared_store = RedisChatStore(redis_url=server.url)  # one client, many sessions

    def run(s: int) -> None:
        try:
            mem = app.memory(adapter, server.url, keys[s], BUDGET, store=shared_store)
            for i in range(turns):
                app.add_turn(adapter, mem, f"s{s}", i)
                messages = mem.get() if adapter == "llamaindex" else mem.messages
                tokens = app.view_tokens(adapter, mem, messages)
                if tokens > BUDGET:
                    over.append(tokens)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(s,)) for s in range(sessions)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=300)
    assert not errors, errors[:3]
    assert not over
    for s in range(sessions):
        _check_session(adapter, app.memory(adapter, server.url, keys[s], BUDGET), f"s{s}", turns)


def test_many_sessions_with_asyncio(redis_server: Any) -> None:
    """Async writes and views, many sessions at once on one event loop."""
    from langchain_core.messages import AIMessage, HumanMessage
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.storage.chat_store.redis import RedisChatStore

    sessions, turns = 16, 5
    li_keys = [_key(f"aio-li{s}") for s in range(sessions)]
    lc_keys = [_key(f"aio-lc{s}") for s in range(sessions)]

    async def llamaindex_session(store: Any, s: int) -> None:
        mem = app.memory("llamaindex", redis_server.url, li_keys[s], BUDGET, store=store)
        for i in range(turns):
            user, assistant = app.turn(f"a{s}", i)
            await mem.aput(ChatMessage(role="user", content=user))
            await mem.aput(ChatMessage(role="assistant", content=assistant))
            view = await mem.aget()
            assert mem.count_tokens(view) <= BUDGET

    async def langchain_session(s: int) -> None:
        mem = app.memory("langchain", redis_server.url, lc_keys[s], BUDGET)
        for i in range(turns):
            user, assistant = app.turn(f"a{s}", i)
            await mem.aadd_messages([HumanMessage(user), AIMessage(assistant)])
            view = await mem.aget_messages()
            assert app.view_tokens("langchain", mem, view) <= BUDGET

    async def main() -> None:
        store = RedisChatStore(redis_url=redis_server.url)  # its async client binds to this loop
        await asyncio.gather(*(llamaindex_session(store, s) for s in range(sessions)),
                             *(langchain_session(s) for s in range(sessions)))

    asyncio.run(main())
    for s in range(sessions):
        _check_session("llamaindex", app.memory("llamaindex", redis_server.url, li_keys[s], BUDGET), f"a{s}", turns)
        _check_session("langchain", app.memory("langchain", redis_server.url, lc_keys[s], BUDGET), f"a{s}", turns)


def test_two_writer_processes_on_one_session_key(adapter: str, server: Any) -> None:
    """Two processes append turns to the same session key at the same time: every
    message is stored exactly once, each writer's messages keep their order, and the
    view of the interleaved history fits the budget and is the same in both processes."""
    key = _key("two")
    turns = 15
    procs = [
        subprocess.Popen([sys.executable, str(HERE / "redis_app.py"), "write", adapter, server.url,
                          key, writer, "0", str(turns)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        for writer in ("A", "B")
    ]
    for p in procs:
        _out, err = p.communicate(timeout=180)
        assert p.returncode == 0, err[-3000:]
    mem = app.memory(adapter, server.url, key, BUDGET)
    stored = [m["content"] for m in app.full(adapter, mem)]
    expected = _expected_full("A", range(turns)) + _expected_full("B", range(turns))
    counts = Counter(stored)
    assert sorted(counts) == sorted(expected), "a message was lost or invented"
    assert all(n == 1 for n in counts.values()), "a message was stored twice"
    for writer in ("A", "B"):
        mine = [c for c in stored if c.startswith(f"[{writer}#")]
        assert mine == _expected_full(writer, range(turns)), f"writer {writer}'s order changed"
    messages = mem.get() if adapter == "llamaindex" else mem.messages
    assert app.view_tokens(adapter, mem, messages) <= BUDGET
    there = _second_process(["view", adapter, server.url, key, str(BUDGET)])
    assert there["view"] == app.view(adapter, mem)


def test_two_writer_threads_on_one_session_key(redis_server: Any) -> None:
    """Two threads with their own memory objects on one session key, reading views while
    writing: no message lost or duplicated, every view within budget."""
    errors: list[BaseException] = []
    for adapter in PLAIN:
        key = _key("two-thr")
        turns = 20

        def run(writer: str, adapter: str = adapter, key: str = key, turns: int = turns) -> None:
            try:
                mem = app.memory(adapter, redis_server.url, key, BUDGET)
                for i in range(turns):
                    app.add_turn(adapter, mem, writer, i)
                    messages = mem.get() if adapter == "llamaindex" else mem.messages
                    assert app.view_tokens(adapter, mem, messages) <= BUDGET
            except BaseException as exc:  # noqa: BLE001
                errors.append(exc)

        threads = [threading.Thread(target=run, args=(w,)) for w in ("A", "B")]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=300)
        assert not errors, errors[:3]
        stored = [m["content"] for m in app.full(adapter, app.memory(adapter, redis_server.url, key, BUDGET))]
        assert sorted(stored) == sorted(_expected_full("A", range(turns)) + _expected_full("B", range(turns)))
        if adapter == "langchain":  # one RPUSH per turn: a turn's two messages stay adjacent
            for j in range(0, len(stored), 2):
                assert stored[j].split("]")[0] == stored[j + 1].split("]")[0]

"""A saved ``DiscourseMemoryBuffer`` over ``RedisChatStore`` restores against the same Redis server
(on a non-default port), in a new process; a server that needs a password, or is down, is refused
with an error naming ``chat_store=``; no password is ever written into the state, and no upstream
error (the store's ``NameError``) leaks through. The LangChain adapter keeps no saved state of its
store (a history is made anew over the store; ``test_redis.py`` reads the same view from a second
process)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import uuid
from typing import Any

import pytest

from discourse_memory import StateError

try:
    import redis
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.memory.discourse import DiscourseMemoryBuffer
    from llama_index.storage.chat_store.redis import RedisChatStore
except ImportError as exc:  # scripts/setup.sh test installs them; a CI run must not pass without them
    if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
        raise
    pytest.skip(f"the Redis client packages are not installed ({exc})", allow_module_level=True)

PASSWORD = "s3cret-do-not-save"


def _turns(buffer: DiscourseMemoryBuffer, n: int = 10) -> None:
    for i in range(n):
        buffer.put(ChatMessage(role="user", content=f"Order ORD-{1000 + i} ships to Lisbon on 2024-05-1{i % 10}; "
                                                    f"invoice INV-{7000 + i} for ${100 + i}.50, please confirm."))
        buffer.put(ChatMessage(role="assistant", content=f"Confirmed ORD-{1000 + i}, carrier slot 10:{i:02d}."))


def _buffer(url: str, **store_kwargs: Any) -> DiscourseMemoryBuffer:
    store = RedisChatStore(redis_url=url, **store_kwargs)
    return DiscourseMemoryBuffer.from_defaults(chat_store=store, chat_store_key=f"dm-state-{uuid.uuid4().hex[:8]}",
                                               token_limit=300)


RESTORE = """
import json, sys
from llama_index.storage.chat_store.redis import RedisChatStore  # the app imports its store's package
from llama_index.memory.discourse import DiscourseMemoryBuffer
buffer = DiscourseMemoryBuffer.from_dict(json.loads(sys.stdin.read()))
print(json.dumps({"all": [m.content for m in buffer.get_all()], "view": [m.content for m in buffer.get()]}))
"""


def _restore_elsewhere(state: dict[str, Any]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", RESTORE], input=json.dumps(state), capture_output=True, text=True,
                          timeout=120)


def test_a_saved_buffer_restores_against_the_same_server_in_a_new_process(redis_server: Any) -> None:
    assert redis_server.port != 6379  # the upstream store's default: restoring there would be wrong
    buffer = _buffer(redis_server.url)
    _turns(buffer)
    state = json.loads(json.dumps(buffer.to_dict()))
    assert state["chat_store"]["redis_url"] == f"redis://127.0.0.1:{redis_server.port}/0"
    run = _restore_elsewhere(state)
    assert run.returncode == 0, run.stderr[-3000:]
    there = json.loads(run.stdout.strip().splitlines()[-1])
    assert there["all"] == [m.content for m in buffer.get_all()] and len(there["all"]) == 20
    assert there["view"] == [m.content for m in buffer.get()]


def test_the_db_number_and_ttl_are_kept(redis_server: Any) -> None:
    url = f"redis://127.0.0.1:{redis_server.port}/3"
    buffer = _buffer(url, ttl=600)
    _turns(buffer, 2)
    state = buffer.to_dict()
    assert state["chat_store"] == {"class_name": "RedisChatStore", "redis_url": url, "ttl": 600}
    again = DiscourseMemoryBuffer.from_dict(json.loads(json.dumps(state)))
    assert [m.content for m in again.get_all()] == [m.content for m in buffer.get_all()]
    assert again.chat_store.ttl == 600


def test_a_password_is_never_saved_and_restoring_asks_for_the_store(private_redis: Any) -> None:
    admin = redis.Redis(host="127.0.0.1", port=private_redis.port)
    admin.config_set("requirepass", PASSWORD)
    admin.close()
    url = f"redis://:{PASSWORD}@127.0.0.1:{private_redis.port}/0"
    buffer = _buffer(url)
    _turns(buffer, 3)
    text = json.dumps(buffer.to_dict())
    assert PASSWORD not in text
    state = json.loads(text)
    assert state["chat_store"]["credentials"] == "not saved"
    with pytest.raises(StateError, match=r"needs credentials.*chat_store=RedisChatStore"):
        DiscourseMemoryBuffer.from_dict(state)
    run = _restore_elsewhere(state)
    assert run.returncode != 0 and "StateError" in run.stderr and "chat_store=" in run.stderr
    assert "NameError" not in run.stderr
    again = DiscourseMemoryBuffer.from_dict(state, chat_store=RedisChatStore(redis_url=url))
    assert [m.content for m in again.get_all()] == [m.content for m in buffer.get_all()]


def test_a_server_that_turned_on_a_password_is_refused_clearly(private_redis: Any) -> None:
    buffer = _buffer(private_redis.url)
    _turns(buffer, 1)
    state = buffer.to_dict()
    admin = redis.Redis(host="127.0.0.1", port=private_redis.port)
    admin.config_set("requirepass", PASSWORD)
    admin.close()
    with pytest.raises(StateError, match=r"needs credentials.*chat_store="):
        DiscourseMemoryBuffer.from_dict(state)


def test_a_server_that_is_down_is_refused_clearly_not_with_the_upstream_name_error(private_redis: Any) -> None:
    buffer = _buffer(private_redis.url)
    _turns(buffer, 1)
    state = json.loads(json.dumps(buffer.to_dict()))
    private_redis.stop()
    with pytest.raises(StateError, match=r"cannot reach the Redis server at redis://127\.0\.0\.1:\d+/0.*chat_store="):
        DiscourseMemoryBuffer.from_dict(state)
    run = _restore_elsewhere(state)
    assert run.returncode != 0 and "NameError" not in run.stderr
    assert "cannot reach the Redis server" in run.stderr and "chat_store=" in run.stderr
    private_redis.start()  # (the fixture stops it at the end)


def test_a_state_without_an_address_asks_for_the_store(redis_server: Any) -> None:
    buffer = _buffer(redis_server.url)
    state = buffer.to_dict()
    state["chat_store"]["redis_url"] = None  # what a cluster or Sentinel client's store is saved as
    with pytest.raises(StateError, match="without its Redis server's address.*chat_store="):
        DiscourseMemoryBuffer.from_dict(state)

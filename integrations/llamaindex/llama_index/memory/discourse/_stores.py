"""A chat store as JSON-safe data, and back: what a saved ``DiscourseMemoryBuffer`` holds of its store.

``SimpleChatStore``: its messages (its own serialiser fails under pydantic 2.14). ``RedisChatStore``
(llama-index-storage-chat-store-redis) does not keep the URL it was made with (its ``redis_url``
field stays ``redis://localhost:6379``), so the address is read from its client's connection pool:
host, port and db (or the socket path), never a password. A store whose server needs credentials,
or whose address is unknown (cluster, Sentinel), is saved without them and refused on restore with
an error that says to pass ``chat_store=``; a server that cannot be reached is refused the same way,
before the upstream constructor (which raises ``NameError`` when its connection check fails) runs.
Other stores: their pydantic dump without a password (none in a URL, no field named like one: such
a store is refused on restore the same way), rebuilt only from classes the application has imported.
"""

from __future__ import annotations

import re
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.storage.chat_store import BaseChatStore, SimpleChatStore

from discourse_memory import StateError

__all__ = ["dump_store", "load_store"]

REDIS = "RedisChatStore"
_PASS_IT = "pass the store itself: DiscourseMemoryBuffer.from_dict(data, chat_store={store})"


def dump_store(store: BaseChatStore) -> dict[str, Any]:
    """``store`` as JSON-safe data, with ``class_name``."""
    if isinstance(store, SimpleChatStore):
        messages = {key: [m.model_dump(mode="json") for m in ms] for key, ms in store.store.items()}
        return {"class_name": SimpleChatStore.class_name(), "store": messages}
    if store.class_name() == REDIS:
        return {"class_name": REDIS, "ttl": getattr(store, "ttl", None), **_redis_address(store)}
    return {**_without_secrets(store.model_dump(mode="json")), "class_name": store.class_name()}


_URL_PASSWORD = re.compile(r"^(?P<head>[A-Za-z][A-Za-z0-9+.-]*://(?P<user>[^:@/]*)):(?P<password>[^@/]*)@")


def _without_secrets(dump: dict[str, Any]) -> dict[str, Any]:
    """A store's settings without a password: none in a URL's user part, no field named like one;
    ``"credentials": "not saved"`` when one was left out (restoring then asks for the store)."""
    out: dict[str, Any] = {}
    left_out = False
    for key, value in dump.items():
        match = _URL_PASSWORD.match(value) if isinstance(value, str) else None
        if match and match["password"]:
            value, left_out = match["head"] + "@" + value[match.end():], True
        elif any(word in key.lower() for word in ("password", "secret")) and value:
            left_out = True
            continue
        out[key] = value
    return {**out, "credentials": "not saved"} if left_out else out


def load_store(data: Any) -> BaseChatStore:
    """The store ``dump_store`` saved; ``StateError`` (a ``ValueError``) saying what to pass if it cannot
    be rebuilt as it was."""
    if data is None:
        return SimpleChatStore()
    if not isinstance(data, dict) or "class_name" not in data:
        raise StateError("chat_store in a saved DiscourseMemoryBuffer must be a dict with class_name")
    name = data["class_name"]
    payload = {k: v for k, v in data.items() if k != "class_name"}
    if name == SimpleChatStore.class_name():
        store = payload.get("store") or {}
        return SimpleChatStore(store={k: [ChatMessage.model_validate(m) for m in ms] for k, ms in store.items()})
    # Only classes the application has imported: loading data never imports a module it names.
    cls = next((c for c in _subclasses(BaseChatStore) if c.class_name() == name), None)
    if cls is None:
        raise StateError(f"cannot rebuild chat store {name!r} from a dict: import its package first, or "
                         + _PASS_IT.format(store="store"))
    if name == REDIS:
        return _load_redis(cls, payload)
    if payload.pop("credentials", None):
        raise StateError(f"the saved {name} needs credentials, which a saved DiscourseMemoryBuffer never holds: "
                         + _PASS_IT.format(store=f"{name}(...)"))
    return cls.model_validate(payload)


def _subclasses(cls: type) -> list[type]:
    return [c for sub in cls.__subclasses__() for c in (sub, *_subclasses(sub))]


def _redis_address(store: BaseChatStore) -> dict[str, Any]:
    """``{"redis_url": ...}`` of the server ``store``'s client talks to (None if unknown), and
    ``"credentials": "not saved"`` when it authenticates."""
    pool = getattr(getattr(store, "_redis_client", None), "connection_pool", None)
    kwargs = getattr(pool, "connection_kwargs", None)
    if not isinstance(kwargs, dict) or "Sentinel" in type(pool).__name__:
        return {"redis_url": None}
    db = int(kwargs.get("db") or 0)
    if kwargs.get("path"):
        url = f"unix://{kwargs['path']}?db={db}"
    elif kwargs.get("host"):
        host = str(kwargs["host"])
        host = f"[{host}]" if ":" in host else host
        scheme = "rediss" if "SSL" in getattr(pool, "connection_class", type).__name__ else "redis"
        url = f"{scheme}://{host}:{int(kwargs.get('port') or 6379)}/{db}"
    else:
        return {"redis_url": None}
    if kwargs.get("password") or kwargs.get("username") or kwargs.get("credential_provider"):
        return {"redis_url": url, "credentials": "not saved"}
    return {"redis_url": url}


def _load_redis(cls: type, payload: dict[str, Any]) -> BaseChatStore:
    url = payload.get("redis_url")
    example = f"RedisChatStore(redis_url={url!r}, password=...)" if isinstance(url, str) else "RedisChatStore(...)"
    if not isinstance(url, str) or not url:
        raise StateError("this DiscourseMemoryBuffer was saved without its Redis server's address (a cluster "
                         "or Sentinel client does not expose one): " + _PASS_IT.format(store=example))
    if payload.get("credentials"):
        raise StateError(f"the Redis server at {url} needs credentials, which a saved DiscourseMemoryBuffer "
                         "never holds: " + _PASS_IT.format(store=example))
    import redis

    client = redis.Redis.from_url(url, socket_connect_timeout=5, socket_timeout=5)
    try:
        client.ping()
    except redis.exceptions.AuthenticationError as exc:
        raise StateError(f"the Redis server at {url} needs credentials ({exc}), which a saved "
                         "DiscourseMemoryBuffer never holds: " + _PASS_IT.format(store=example)) from exc
    except redis.exceptions.RedisError as exc:
        raise StateError(f"cannot reach the Redis server at {url}, which this DiscourseMemoryBuffer was saved "
                         f"with ({type(exc).__name__}: {exc}): start it, or "
                         + _PASS_IT.format(store="RedisChatStore(redis_url=...)")) from exc
    finally:
        client.close()
    try:
        return cls(redis_url=url, ttl=payload.get("ttl"))
    except Exception as exc:  # the upstream constructor's own failures (its NameError among them)
        raise StateError(f"RedisChatStore(redis_url={url!r}) failed ({type(exc).__name__}: {exc}): "
                         + _PASS_IT.format(store="RedisChatStore(...)")) from exc

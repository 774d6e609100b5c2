"""`policy=` and `cache=` on the history and the middleware: the policy reaches the core (the
view is the core's view with it), and a second worker's history over the same store reads the
analyses the first one wrote instead of making them."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence

import pytest
from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_discourse_memory import (
    DiscourseChatMessageHistory,
    DiscourseCompactionMiddleware,
    ListChatMessageHistory,
    compact_messages,
)
from langchain_discourse_memory.testing import sample_conversation

from discourse_memory import Policy

POLICY = Policy(record_value=0.0)  # (changes the sample conversation's view at 300 tokens)


class DictCache:
    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}
        self.reads = 0

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
        self.reads += 1
        return [self.data.get(k) for k in keys]

    def set_many(self, items: Mapping[str, bytes]) -> None:
        self.data.update(items)


def _history(store: ListChatMessageHistory, **kwargs) -> DiscourseChatMessageHistory:  # type: ignore[no-untyped-def]
    return DiscourseChatMessageHistory(store, max_tokens=300, **kwargs)


def _contents(messages: Sequence[BaseMessage]) -> list[object]:
    return [(m.type, m.content) for m in messages]


def test_the_history_takes_a_policy() -> None:
    store = ListChatMessageHistory()
    store.add_messages(sample_conversation(8))
    with_policy = _contents(_history(store, policy=POLICY).messages)
    assert with_policy != _contents(_history(store).messages)
    assert with_policy == _contents(compact_messages(store.messages, max_tokens=300, include_system=True,
                                                     note_role="system", relax=True, policy=POLICY))
    with pytest.raises(Exception, match="policy"):
        _history(store, policy={"record_value": 0.0})


def test_a_second_worker_reads_what_the_first_analysed(monkeypatch: pytest.MonkeyPatch) -> None:
    store, cache = ListChatMessageHistory(), DictCache()
    store.add_messages(sample_conversation(8))
    expected = _contents(_history(store).messages)
    assert _contents(_history(store, cache=cache).messages) == expected
    assert cache.data  # the first worker wrote its analyses

    def analysed_here(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("analysed though the shared cache holds it")

    monkeypatch.setattr("discourse_memory.units.segment_texts", analysed_here)
    reads = cache.reads
    assert _contents(_history(store, cache=cache).messages) == expected
    assert cache.reads == reads + 1


def _request(messages: list[BaseMessage]) -> ModelRequest:
    return ModelRequest(model=GenericFakeChatModel(messages=iter(())), messages=messages, system_message=None,
                        state={"messages": messages})


def _sent(middleware: DiscourseCompactionMiddleware, messages: list[BaseMessage]) -> list[object]:
    seen: list[ModelRequest] = []

    def handler(req: ModelRequest) -> ModelResponse:
        seen.append(req)
        return ModelResponse(result=[AIMessage("ok")])

    middleware.wrap_model_call(_request(messages), handler)
    return _contents(seen[0].messages)


def test_the_middleware_takes_a_policy_and_a_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    conv = sample_conversation(8)[1:]
    plain = _sent(DiscourseCompactionMiddleware(keep=("tokens", 300)), conv)
    with_policy = _sent(DiscourseCompactionMiddleware(keep=("tokens", 300), policy=POLICY), conv)
    assert with_policy != plain
    cache = DictCache()
    assert _sent(DiscourseCompactionMiddleware(keep=("tokens", 300), policy=POLICY, cache=cache), conv) == with_policy
    assert cache.data

    def analysed_here(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("analysed though the shared cache holds it")

    monkeypatch.setattr("discourse_memory.units.segment_texts", analysed_here)
    other_worker = DiscourseCompactionMiddleware(keep=("tokens", 300), policy=POLICY, cache=cache)
    assert _sent(other_worker, conv) == with_policy


class LangGraphStoreCache:
    """docs/workers.md's LangGraph-store cache, as printed there."""

    def __init__(self, store, namespace=("discourse-memory", "analyses"), ttl_minutes=None):  # type: ignore[no-untyped-def]
        self.store, self.namespace, self.ttl = store, namespace, ttl_minutes

    def get_many(self, keys):  # type: ignore[no-untyped-def]
        from langgraph.store.base import GetOp

        items = self.store.batch([GetOp(self.namespace, k) for k in keys])
        return [None if it is None else base64.b64decode(it.value["b"]) for it in items]

    def set_many(self, items):  # type: ignore[no-untyped-def]
        from langgraph.store.base import PutOp

        self.store.batch([PutOp(self.namespace, k, {"b": base64.b64encode(v).decode()}, index=False,
                                ttl=self.ttl) for k, v in items.items()])


def test_the_docs_langgraph_store_cache_works(monkeypatch: pytest.MonkeyPatch) -> None:
    from langgraph.store.memory import InMemoryStore

    from discourse_memory import DiscourseMemory

    messages = [{"role": "user" if i % 2 == 0 else "assistant",
                 "content": f"Order ORD-{1000 + i} ships to Osaka on 2024-05-{10 + i} for ${100 + i}.50. " * 6}
                for i in range(12)]
    expected = DiscourseMemory(messages).view(400)
    cache = LangGraphStoreCache(InMemoryStore())
    assert DiscourseMemory(messages, cache=cache).view(400).messages == expected.messages

    def analysed_here(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("analysed though the store holds it")

    monkeypatch.setattr("discourse_memory.units.segment_texts", analysed_here)
    got = DiscourseMemory(messages, cache=cache).view(400)
    assert (got.messages, got.note) == (expected.messages, expected.note)

"""``policy=`` and ``cache=`` on the buffer and the block: the policy reaches the core (views
change with it, as the core's do), and a second worker's buffer or block over the same messages
reads the analyses the first one wrote instead of making them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pytest
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.storage.chat_store import SimpleChatStore
from llama_index.memory.discourse import DiscourseMemoryBlock, DiscourseMemoryBuffer

from discourse_memory import Policy

POLICY = Policy(record_value=0.0, opening=5.0)


class DictCache:
    def __init__(self) -> None:
        self.data: dict[str, bytes] = {}
        self.reads = 0

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
        self.reads += 1
        return [self.data.get(k) for k in keys]

    def set_many(self, items: Mapping[str, bytes]) -> None:
        self.data.update(items)


def history(turns: int = 10) -> list[ChatMessage]:
    out = []
    for i in range(turns):
        out.append(ChatMessage(role="user", content=(
            f"Booking BK-{7300 + i} for {['Ana', 'Bram', 'Chen', 'Dara'][i % 4]} Okafor, room {100 + i}, arriving "
            f"2025-0{1 + i % 9}-{10 + i % 18}. Card ends {4000 + i}. Please keep the room away from the elevator.")))
        out.append(ChatMessage(role="assistant", content=f"Done, booking BK-{7300 + i} is noted for room {100 + i}."))
    return out


def _texts(messages: Sequence[ChatMessage]) -> list[tuple[str, str]]:
    return [(str(m.role), m.content or "") for m in messages]


def _buffer(store: SimpleChatStore, **kwargs) -> DiscourseMemoryBuffer:  # type: ignore[no-untyped-def]
    return DiscourseMemoryBuffer.from_defaults(chat_store=store, chat_store_key="k", token_limit=300, **kwargs)


def _no_analysis(monkeypatch: pytest.MonkeyPatch) -> None:
    def analysed_here(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("analysed though the shared cache holds it")

    monkeypatch.setattr("discourse_memory.units.segment_texts", analysed_here)


def test_the_buffer_takes_a_policy_and_a_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    store = SimpleChatStore()
    store.set_messages("k", history())
    plain = _texts(_buffer(store).get())
    with_policy = _texts(_buffer(store, policy=POLICY).get())
    assert with_policy != plain
    assert _texts(DiscourseMemoryBuffer(chat_store=store, chat_store_key="k", token_limit=300, policy=POLICY).get()) \
        == with_policy
    cache = DictCache()
    assert _texts(_buffer(store, policy=POLICY, cache=cache).get()) == with_policy
    assert cache.data
    _no_analysis(monkeypatch)
    assert _texts(_buffer(store, policy=POLICY, cache=cache).get()) == with_policy
    with pytest.raises(ValueError, match="policy"):
        DiscourseMemoryBuffer(chat_store=store, token_limit=300, policy={"opening": 5.0})
    with pytest.raises(ValueError, match="cache"):
        DiscourseMemoryBuffer(chat_store=store, token_limit=300, cache="redis://localhost")


def test_the_block_takes_a_policy_and_a_cache(monkeypatch: pytest.MonkeyPatch) -> None:
    def block(**kwargs) -> DiscourseMemoryBlock:  # type: ignore[no-untyped-def]
        b = DiscourseMemoryBlock(token_limit=250, **kwargs)
        b.messages.extend(history())
        return b

    plain = block().render_within(250)
    with_policy = block(policy=POLICY).render_within(250)
    assert with_policy != plain
    cache = DictCache()
    assert block(policy=POLICY, cache=cache).render_within(250) == with_policy
    assert cache.data
    _no_analysis(monkeypatch)
    assert block(policy=POLICY, cache=cache).render_within(250) == with_policy
    with pytest.raises(ValueError, match="policy"):
        DiscourseMemoryBlock(policy=1)

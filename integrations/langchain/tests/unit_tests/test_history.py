"""DiscourseChatMessageHistory against the chat-history contract, with two backing stores."""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain_core.chat_history import BaseChatMessageHistory, InMemoryChatMessageHistory
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    messages_from_dict,
    messages_to_dict,
)
from langchain_core.messages.utils import count_tokens_approximately
from langchain_discourse_memory import DiscourseChatMessageHistory, ListChatMessageHistory
from langchain_discourse_memory._counting import resolve_token_counter
from langchain_discourse_memory.testing import orphan_tool_messages, sample_conversation
from lc_history_contract import ChatMessageHistoryTests, CompactingChatMessageHistoryTests


class SerializingHistory(BaseChatMessageHistory):
    """Stores messages as JSON text, the way Redis-backed histories do: every read
    builds new message objects."""

    def __init__(self) -> None:
        self.rows: list[str] = []

    @property
    def messages(self) -> list[BaseMessage]:  # type: ignore[override]
        return messages_from_dict([json.loads(r) for r in self.rows])

    def add_messages(self, messages: Sequence[BaseMessage]) -> None:
        self.rows.extend(json.dumps(d) for d in messages_to_dict(list(messages)))

    def clear(self) -> None:
        self.rows = []


DEFAULT_COUNT = resolve_token_counter(None).messages


def in_memory_store() -> InMemoryChatMessageHistory:
    """langchain-core's own in-memory history (deprecated since 1.6.4, still a real store)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        return InMemoryChatMessageHistory()


class TestContractHoldsForLangChainsOwnHistory(ChatMessageHistoryTests):
    """The base contract is fair: langchain-core's in-memory history passes it."""

    @pytest.fixture
    def chat_history(self) -> BaseChatMessageHistory:
        return in_memory_store()


class TestListHistory(ChatMessageHistoryTests):
    @pytest.fixture
    def chat_history(self) -> BaseChatMessageHistory:
        return ListChatMessageHistory()


class TestInMemoryBacked(CompactingChatMessageHistoryTests):
    @pytest.fixture
    def chat_history(self) -> BaseChatMessageHistory:
        return DiscourseChatMessageHistory(max_tokens=100_000)

    @pytest.fixture
    def compacting_history(self) -> BaseChatMessageHistory:
        return DiscourseChatMessageHistory(in_memory_store(), max_tokens=300)

    @pytest.fixture
    def max_tokens(self) -> int:
        return 300

    @pytest.fixture
    def count_tokens(self):
        return DEFAULT_COUNT

    @pytest.fixture
    def full_messages(self):
        return lambda h: h.full_messages


class TestSerializingBackedApproximate(CompactingChatMessageHistoryTests):
    """A JSON store and LangChain's approximate counter (with per-message overhead)."""

    @pytest.fixture
    def chat_history(self) -> BaseChatMessageHistory:
        return DiscourseChatMessageHistory(SerializingHistory(), max_tokens=100_000, token_counter="approximate")

    @pytest.fixture
    def compacting_history(self) -> BaseChatMessageHistory:
        return DiscourseChatMessageHistory(SerializingHistory(), max_tokens=400, token_counter="approximate")

    @pytest.fixture
    def max_tokens(self) -> int:
        return 400

    @pytest.fixture
    def count_tokens(self):
        return count_tokens_approximately

    @pytest.fixture
    def full_messages(self):
        return lambda h: h.store.messages


def test_store_is_the_given_backing_history() -> None:
    store = in_memory_store()
    history = DiscourseChatMessageHistory(store, max_tokens=200)
    conv = sample_conversation(4)
    history.add_messages(conv)
    assert store.messages == conv  # the very same messages, in order
    assert len(history.messages) < len(conv)


def test_too_small_budget_falls_back_to_full_history_with_warning(caplog: pytest.LogCaptureFixture) -> None:
    history = DiscourseChatMessageHistory(max_tokens=3)
    conv = [SystemMessage("You are a careful assistant for the airline support desk."), HumanMessage("hi")]
    history.add_messages(conv)
    with caplog.at_level(logging.WARNING, logger="langchain_discourse_memory.history"):
        view = history.messages
    assert view == conv
    assert "too small" in caplog.text.lower()
    with pytest.raises(ValueError, match="too small"):
        history.view()


def test_rejects_bad_arguments() -> None:
    with pytest.raises(TypeError):
        DiscourseChatMessageHistory(["not a history"], max_tokens=10)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="max_tokens"):
        DiscourseChatMessageHistory(max_tokens=-1)
    with pytest.raises(ValueError, match="note_role"):
        DiscourseChatMessageHistory(max_tokens=10, note_role="assistant")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="already"):
        DiscourseChatMessageHistory(DiscourseChatMessageHistory(max_tokens=10), max_tokens=10)


def test_add_messages_accepts_any_sequence_and_generator() -> None:
    history = DiscourseChatMessageHistory(max_tokens=10_000)
    history.add_messages(tuple([HumanMessage("a"), AIMessage("b")]))
    history.add_messages(m for m in [HumanMessage("c")])
    assert [m.content for m in history.full_messages] == ["a", "b", "c"]


def test_default_store_emits_no_deprecation_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        history = DiscourseChatMessageHistory(max_tokens=100)
        history.add_messages([HumanMessage("hello")])
        assert [m.content for m in history.messages] == ["hello"]


@settings(max_examples=30, deadline=None)
@given(
    turns=st.integers(1, 10),
    cuts=st.lists(st.integers(1, 40), max_size=12),
    budget=st.integers(250, 2000),
    use_async=st.booleans(),
)
def test_property_store_keeps_everything_and_every_view_fits(
    turns: int, cuts: list[int], budget: int, use_async: bool
) -> None:
    conv = sample_conversation(turns)
    history = DiscourseChatMessageHistory(SerializingHistory(), max_tokens=budget)
    bounds = sorted({c for c in cuts if c < len(conv)} | {len(conv)})
    start = 0
    for end in bounds:
        batch = conv[start:end]
        if use_async:
            asyncio.run(history.aadd_messages(batch))
            view = asyncio.run(history.aget_messages())
        else:
            history.add_messages(batch)
            view = history.messages
        assert DEFAULT_COUNT(view) <= budget
        assert orphan_tool_messages(view) == []
        start = end
    assert [(m.type, m.content, m.id) for m in history.full_messages] == [(m.type, m.content, m.id) for m in conv]


def test_count_tokens_is_the_histories_own_counter() -> None:
    conv = sample_conversation(4)
    assert DiscourseChatMessageHistory(max_tokens=100).count_tokens(conv) == DEFAULT_COUNT(conv)
    approximate = DiscourseChatMessageHistory(max_tokens=100, token_counter="approximate")
    assert approximate.count_tokens(conv) == count_tokens_approximately(conv)

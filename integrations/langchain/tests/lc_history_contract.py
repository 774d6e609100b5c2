"""Contract tests for chat message histories, in the style of `langchain-tests` (which has no
suite for them): subclass a class and provide the fixtures it names. They need pytest, so they
live with the tests, not in the package (`langchain_discourse_memory.testing` has the helpers
that apps and examples use)."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableLambda
from langchain_discourse_memory.testing import orphan_tool_messages, sample_conversation

__all__ = ["ChatMessageHistoryTests", "CompactingChatMessageHistoryTests"]


def _needs(name: str) -> Any:
    @pytest.fixture(name=name)
    def fixture(self: Any) -> Any:
        raise NotImplementedError(f"Subclasses provide the {name} fixture.")

    return fixture


def _rows(messages: Sequence[BaseMessage]) -> list[tuple[Any, ...]]:
    return [(m.type, m.content, m.id) for m in messages]


History, Messages, Fn = BaseChatMessageHistory, list[BaseMessage], Callable[..., Any]


class ChatMessageHistoryTests:
    """Behaviour every `BaseChatMessageHistory` must have. Fixture `chat_history`: new, empty."""

    chat_history = _needs("chat_history")

    def test_new_history_is_empty(self, chat_history: History) -> None:
        assert chat_history.messages == []

    def test_add_messages_keeps_order_and_content(self, chat_history: History) -> None:
        chat_history.add_messages([HumanMessage("hello", id="1"), AIMessage("hi there", id="2")])
        chat_history.add_messages([HumanMessage("how are you?", id="3")])
        assert _rows(chat_history.messages) == [("human", "hello", "1"), ("ai", "hi there", "2"),
                                                ("human", "how are you?", "3")]

    def test_add_message_and_helpers(self, chat_history: History) -> None:
        chat_history.add_message(HumanMessage("a"))
        chat_history.add_user_message("b")
        chat_history.add_ai_message("c")
        assert [(m.type, m.content) for m in chat_history.messages] == [("human", "a"), ("human", "b"), ("ai", "c")]

    def test_clear(self, chat_history: History) -> None:
        chat_history.add_messages([HumanMessage("x"), AIMessage("y")])
        chat_history.clear()
        assert chat_history.messages == []
        chat_history.add_messages([HumanMessage("z")])
        assert [m.content for m in chat_history.messages] == ["z"]

    def test_async_methods(self, chat_history: History) -> None:
        async def run() -> tuple[Messages, Messages]:
            await chat_history.aadd_messages([HumanMessage("q", id="q"), AIMessage("a", id="a")])
            got = await chat_history.aget_messages()
            await chat_history.aclear()
            return got, await chat_history.aget_messages()

        got, after_clear = asyncio.run(run())
        assert [(m.content, m.id) for m in got] == [("q", "q"), ("a", "a")]
        assert after_clear == []


class CompactingChatMessageHistoryTests(ChatMessageHistoryTests):
    """A history whose `messages` is a compacted view of a full store. Fixtures: `compacting_history`
    (new, empty, small budget), `max_tokens`, `count_tokens` (over a list), `full_messages`."""

    compacting_history = _needs("compacting_history")
    max_tokens = _needs("max_tokens")
    count_tokens = _needs("count_tokens")
    full_messages = _needs("full_messages")

    @pytest.fixture
    def conversation(self) -> Messages:  # well over max_tokens (override to change it)
        return sample_conversation(8)

    def test_conversation_is_over_budget(self, conversation: Messages, count_tokens: Fn, max_tokens: int) -> None:
        assert count_tokens(conversation) > max_tokens  # the other tests are only meaningful if it compacts

    def test_store_keeps_every_message(self, compacting_history: History, conversation: Messages,
                                       full_messages: Fn) -> None:
        for i in range(0, len(conversation), 3):
            compacting_history.add_messages(conversation[i : i + 3])
            compacting_history.messages  # noqa: B018  (reads must not change the store)
        assert _rows(full_messages(compacting_history)) == _rows(conversation)

    def test_view_fits_and_has_no_orphans(self, compacting_history: History, conversation: Messages,
                                          count_tokens: Fn, max_tokens: int) -> None:
        for i in range(1, len(conversation) + 1):
            compacting_history.clear()
            compacting_history.add_messages(conversation[:i])
            view = compacting_history.messages
            assert count_tokens(view) <= max_tokens, f"view over budget after {i} messages"
            assert orphan_tool_messages(view) == []

    def test_view_is_compacted_and_keeps_newest_message(self, compacting_history: History,
                                                         conversation: Messages) -> None:
        compacting_history.add_messages(conversation)
        view = compacting_history.messages
        assert len(view) < len(conversation)
        assert _rows(view[-1:]) == _rows(conversation[-1:])

    def test_two_reads_agree(self, compacting_history: History, conversation: Messages) -> None:
        compacting_history.add_messages(conversation)
        first, second = compacting_history.messages, compacting_history.messages
        assert _rows(first) == _rows(second)
        assert [(m.type, m.content) for m in asyncio.run(compacting_history.aget_messages())] == [
            (m.type, m.content) for m in first]

    @pytest.mark.parametrize("history_key", [None, "history"])
    def test_runnable_with_message_history_stores_each_message_once(
        self, compacting_history: History, conversation: Messages, full_messages: Fn, history_key: str | None
    ) -> None:
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
        from langchain_core.runnables.history import RunnableWithMessageHistory

        compacting_history.add_messages(conversation)
        replies = iter(f"reply {i}" for i in range(100))
        chain: Any = RunnableLambda(lambda messages: AIMessage(next(replies)))
        if history_key is not None:
            prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder(history_key), ("human", "{input}")])
            chain = prompt | RunnableLambda(lambda p: AIMessage(next(replies)))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # RunnableWithMessageHistory is deprecated
            with_history = RunnableWithMessageHistory(
                chain, lambda _session_id: compacting_history,
                input_messages_key=None if history_key is None else "input", history_messages_key=history_key)
        asked = [f"question {i} about ORD-{2000 + i}" for i in range(4)]
        for text in asked:
            payload: Any = [HumanMessage(text)] if history_key is None else {"input": text}
            with_history.invoke(payload, config={"configurable": {"session_id": "s"}})
        stored = full_messages(compacting_history)
        assert [(m.type, m.content) for m in stored[: len(conversation)]] == [(m.type, m.content) for m in conversation]
        expected = [row for i, text in enumerate(asked) for row in (("human", text), ("ai", f"reply {i}"))]
        assert [(m.type, m.content) for m in stored[len(conversation) :]] == expected

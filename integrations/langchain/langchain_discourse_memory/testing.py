"""Contract tests for chat message histories (subclass, provide the fixtures each class names),
`ScriptedToolChatModel` and `check_agent_requests` for `create_agent` loops (needs `pytest`)."""

from __future__ import annotations

import asyncio
import warnings
from collections.abc import Callable, Sequence
from typing import Any

import pytest
from langchain_core.chat_history import BaseChatMessageHistory
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatResult
from langchain_core.runnables import RunnableLambda
from pydantic import Field

from langchain_discourse_memory._convert import NOTE_SOURCE_TAG, orphan_tool_messages

__all__ = ["ChatMessageHistoryTests", "CompactingChatMessageHistoryTests", "ScriptedToolChatModel",
           "check_agent_requests", "orphan_tool_messages", "sample_conversation"]


class ScriptedToolChatModel(GenericFakeChatModel):
    """`ScriptedToolChatModel(messages=iter([AIMessage(...), ...]))`; inputs in `received`."""

    received: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> ScriptedToolChatModel:
        return self

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kw: Any) -> ChatResult:
        self.received.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kw)


def check_agent_requests(received: Sequence[Sequence[BaseMessage]], *, system: str, budget: int,
                         count_tokens: Callable[..., int]) -> int:
    """Every request: `system` first, the conversation after it within `budget`, no tool result
    without its call and no call without its result. Returns how many carry the record note."""
    compacted = 0
    for inputs in received:
        assert isinstance(inputs[0], SystemMessage) and inputs[0].content == system
        conversation = list(inputs[1:])
        assert count_tokens(conversation) <= budget
        assert orphan_tool_messages(conversation) == []
        calls = {c["id"] for m in conversation if isinstance(m, AIMessage) for c in m.tool_calls}
        assert calls <= {m.tool_call_id for m in conversation if isinstance(m, ToolMessage)}, "a call without result"
        compacted += any(m.additional_kwargs.get("lc_source") == NOTE_SOURCE_TAG for m in conversation)
    return compacted


def sample_conversation(turns: int = 8) -> list[BaseMessage]:
    """A support conversation with ids, amounts and dates, and a tool call per turn."""
    messages: list[BaseMessage] = [SystemMessage("You are a support agent for an airline.", id="sys")]
    for t in range(turns):
        order = f"ORD-{1000 + t}"
        items = ", ".join(f'"item-{t}-{i}"' for i in range(12))
        messages += [
            HumanMessage(f"Turn {t}: please check order {order}; I paid ${120 + t}.50 on 2024-05-{10 + t:02d}.",
                         id=f"h{t}"),
            AIMessage("", tool_calls=[{"id": f"call_{t}", "name": "get_order", "args": {"order_id": order}}],
                      id=f"a{t}"),
            ToolMessage(f'{{"order_id": "{order}", "status": "shipped", "items": {items}}}', tool_call_id=f"call_{t}",
                        name="get_order", id=f"t{t}"),
            AIMessage(f"Order {order} was shipped. The items are listed in the record. "
                      "Is there anything else I can help you with today?", id=f"r{t}"),
        ]
    return messages


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

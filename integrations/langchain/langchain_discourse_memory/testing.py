"""Contract tests for chat message histories (needs `pytest`).

`langchain-tests` ships standard suites for chat models, embeddings, vector
stores, tools and retrievers, but none for `BaseChatMessageHistory`. These
classes fill that gap in the same style: subclass, provide fixtures, and pytest
collects the inherited tests.

* `ChatMessageHistoryTests`: what any `BaseChatMessageHistory` must do
  (ordered appends, single and bulk adds, clear, and the async twins). Provide
  a `chat_history` fixture returning a new, empty history; for a compacting
  history, make its budget large enough that nothing is compacted.
* `CompactingChatMessageHistoryTests`: what a history whose `messages` is a
  compacted view must also do: every added message stays in the backing store,
  the view fits the budget, holds no orphan `ToolMessage`, is the same on two
  reads in a row, and `RunnableWithMessageHistory` stores each message exactly
  once. Provide `compacting_history` (new, empty, small budget), `max_tokens`,
  `count_tokens` (the history's own counter over a list of messages) and
  `full_messages` (a function returning the backing store's messages).
* `ScriptedToolChatModel`: a chat model that replies from a script, accepts
  `bind_tools` and records every input it gets, to run a real `create_agent`
  loop (with `DiscourseCompactionMiddleware`) without an LLM;
  `check_agent_requests` asserts what every request such a loop sent must hold.

Example:
    ```python
    class TestMyHistory(CompactingChatMessageHistoryTests):
        @pytest.fixture
        def chat_history(self):
            return DiscourseChatMessageHistory(max_tokens=10**6)

        @pytest.fixture
        def compacting_history(self):
            return DiscourseChatMessageHistory(max_tokens=300)
        ...
    ```
"""

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

__all__ = [
    "ChatMessageHistoryTests",
    "CompactingChatMessageHistoryTests",
    "ScriptedToolChatModel",
    "check_agent_requests",
    "orphan_tool_messages",
    "sample_conversation",
]


class ScriptedToolChatModel(GenericFakeChatModel):
    """`GenericFakeChatModel` that accepts `bind_tools` and records every input it gets
    (`received`): `ScriptedToolChatModel(messages=iter([AIMessage(...), ...]))`."""

    received: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> ScriptedToolChatModel:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.received.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def check_agent_requests(
    received: Sequence[Sequence[BaseMessage]],
    *,
    system: str,
    budget: int,
    count_tokens: Callable[[Sequence[BaseMessage]], int],
) -> int:
    """Assert what every model request of an agent loop with `DiscourseCompactionMiddleware`
    must hold (`received`: e.g. `ScriptedToolChatModel.received`): the system prompt
    `system` first, the conversation after it within `budget` tokens by `count_tokens`,
    no tool result without its call and no call without its result. Returns how many
    requests were compacted (carry the record note)."""
    compacted = 0
    for inputs in received:
        assert isinstance(inputs[0], SystemMessage) and inputs[0].content == system
        conversation = list(inputs[1:])
        assert count_tokens(conversation) <= budget
        assert orphan_tool_messages(conversation) == []
        results = {m.tool_call_id for m in conversation if isinstance(m, ToolMessage)}
        for m in conversation:
            if isinstance(m, AIMessage):
                assert {c["id"] for c in m.tool_calls} <= results, "a tool call without its result"
        compacted += any(m.additional_kwargs.get("lc_source") == NOTE_SOURCE_TAG for m in conversation)
    return compacted


def sample_conversation(turns: int = 8) -> list[BaseMessage]:
    """A support conversation with ids, amounts and dates, and a tool call per turn."""
    messages: list[BaseMessage] = [SystemMessage("You are a support agent for an airline.", id="sys")]
    for t in range(turns):
        order = f"ORD-{1000 + t}"
        messages += [
            HumanMessage(
                f"Turn {t}: please check order {order}; I paid ${120 + t}.50 on 2024-05-{10 + t:02d}.",
                id=f"h{t}",
            ),
            AIMessage(
                "",
                tool_calls=[{"id": f"call_{t}", "name": "get_order", "args": {"order_id": order}}],
                id=f"a{t}",
            ),
            ToolMessage(
                f'{{"order_id": "{order}", "status": "shipped", "items": '
                + ", ".join(f'"item-{t}-{i}"' for i in range(12))
                + "}",
                tool_call_id=f"call_{t}",
                name="get_order",
                id=f"t{t}",
            ),
            AIMessage(
                f"Order {order} was shipped. The items are listed in the record. "
                "Is there anything else I can help you with today?",
                id=f"r{t}",
            ),
        ]
    return messages


class ChatMessageHistoryTests:
    """Behaviour every `BaseChatMessageHistory` must have."""

    @pytest.fixture
    def chat_history(self) -> BaseChatMessageHistory:
        """A new, empty history (with a budget large enough not to compact)."""
        msg = "Subclasses provide the chat_history fixture."
        raise NotImplementedError(msg)

    def test_new_history_is_empty(self, chat_history: BaseChatMessageHistory) -> None:
        assert chat_history.messages == []

    def test_add_messages_keeps_order_and_content(self, chat_history: BaseChatMessageHistory) -> None:
        batch = [HumanMessage("hello", id="1"), AIMessage("hi there", id="2")]
        chat_history.add_messages(batch)
        chat_history.add_messages([HumanMessage("how are you?", id="3")])
        got = chat_history.messages
        assert [(m.type, m.content, m.id) for m in got] == [
            ("human", "hello", "1"),
            ("ai", "hi there", "2"),
            ("human", "how are you?", "3"),
        ]

    def test_add_message_and_helpers(self, chat_history: BaseChatMessageHistory) -> None:
        chat_history.add_message(HumanMessage("a"))
        chat_history.add_user_message("b")
        chat_history.add_ai_message("c")
        assert [(m.type, m.content) for m in chat_history.messages] == [("human", "a"), ("human", "b"), ("ai", "c")]

    def test_clear(self, chat_history: BaseChatMessageHistory) -> None:
        chat_history.add_messages([HumanMessage("x"), AIMessage("y")])
        chat_history.clear()
        assert chat_history.messages == []
        chat_history.add_messages([HumanMessage("z")])
        assert [m.content for m in chat_history.messages] == ["z"]

    def test_async_methods(self, chat_history: BaseChatMessageHistory) -> None:
        async def run() -> tuple[list[BaseMessage], list[BaseMessage]]:
            await chat_history.aadd_messages([HumanMessage("q", id="q"), AIMessage("a", id="a")])
            got = await chat_history.aget_messages()
            await chat_history.aclear()
            return got, await chat_history.aget_messages()

        got, after_clear = asyncio.run(run())
        assert [(m.content, m.id) for m in got] == [("q", "q"), ("a", "a")]
        assert after_clear == []


class CompactingChatMessageHistoryTests(ChatMessageHistoryTests):
    """Behaviour of a history whose `messages` is a compacted view of a full store."""

    @pytest.fixture
    def compacting_history(self) -> BaseChatMessageHistory:
        """A new, empty history with a budget of `max_tokens`."""
        msg = "Subclasses provide the compacting_history fixture."
        raise NotImplementedError(msg)

    @pytest.fixture
    def max_tokens(self) -> int:
        """The budget of `compacting_history`."""
        msg = "Subclasses provide the max_tokens fixture."
        raise NotImplementedError(msg)

    @pytest.fixture
    def count_tokens(self) -> Callable[[Sequence[BaseMessage]], int]:
        """The history's own token counter, over a list of messages."""
        msg = "Subclasses provide the count_tokens fixture."
        raise NotImplementedError(msg)

    @pytest.fixture
    def full_messages(self) -> Callable[[BaseChatMessageHistory], list[BaseMessage]]:
        """A function giving every message in the history's backing store."""
        msg = "Subclasses provide the full_messages fixture."
        raise NotImplementedError(msg)

    @pytest.fixture
    def conversation(self) -> list[BaseMessage]:
        """A conversation well over `max_tokens` (override to change it)."""
        return sample_conversation(8)

    def test_conversation_is_over_budget(
        self, conversation: list[BaseMessage], count_tokens: Callable[..., int], max_tokens: int
    ) -> None:
        # Guards the other tests: they are only meaningful if compaction happens.
        assert count_tokens(conversation) > max_tokens

    def test_store_keeps_every_message(
        self,
        compacting_history: BaseChatMessageHistory,
        conversation: list[BaseMessage],
        full_messages: Callable[[BaseChatMessageHistory], list[BaseMessage]],
    ) -> None:
        for i in range(0, len(conversation), 3):
            compacting_history.add_messages(conversation[i : i + 3])
            compacting_history.messages  # noqa: B018  (reads must not change the store)
        stored = full_messages(compacting_history)
        assert [(m.type, m.content, m.id) for m in stored] == [(m.type, m.content, m.id) for m in conversation]

    def test_view_fits_and_has_no_orphans(
        self,
        compacting_history: BaseChatMessageHistory,
        conversation: list[BaseMessage],
        count_tokens: Callable[..., int],
        max_tokens: int,
    ) -> None:
        for i in range(1, len(conversation) + 1):
            compacting_history.clear()
            compacting_history.add_messages(conversation[:i])
            view = compacting_history.messages
            assert count_tokens(view) <= max_tokens, f"view over budget after {i} messages"
            assert orphan_tool_messages(view) == []

    def test_view_is_compacted_and_keeps_newest_message(
        self,
        compacting_history: BaseChatMessageHistory,
        conversation: list[BaseMessage],
    ) -> None:
        compacting_history.add_messages(conversation)
        view = compacting_history.messages
        assert len(view) < len(conversation)
        assert view[-1].id == conversation[-1].id
        assert view[-1].content == conversation[-1].content

    def test_two_reads_agree(self, compacting_history: BaseChatMessageHistory, conversation: list[BaseMessage]) -> None:
        compacting_history.add_messages(conversation)
        first, second = compacting_history.messages, compacting_history.messages
        assert [(m.type, m.content, m.id) for m in first] == [(m.type, m.content, m.id) for m in second]
        assert [(m.type, m.content) for m in asyncio.run(compacting_history.aget_messages())] == [
            (m.type, m.content) for m in first
        ]

    @pytest.mark.parametrize("history_key", [None, "history"])
    def test_runnable_with_message_history_stores_each_message_once(
        self,
        compacting_history: BaseChatMessageHistory,
        conversation: list[BaseMessage],
        full_messages: Callable[[BaseChatMessageHistory], list[BaseMessage]],
        history_key: str | None,
    ) -> None:
        from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
        from langchain_core.runnables.history import RunnableWithMessageHistory

        compacting_history.add_messages(conversation)
        replies = iter(f"reply {i}" for i in range(100))

        def fake_model(messages: Any) -> AIMessage:
            return AIMessage(next(replies))

        if history_key is None:
            chain: Any = RunnableLambda(fake_model)
        else:
            prompt = ChatPromptTemplate.from_messages([MessagesPlaceholder(history_key), ("human", "{input}")])
            chain = prompt | RunnableLambda(lambda p: fake_model(p.to_messages()))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)  # RunnableWithMessageHistory is deprecated
            with_history = RunnableWithMessageHistory(
                chain,
                lambda _session_id: compacting_history,
                input_messages_key=None if history_key is None else "input",
                history_messages_key=history_key,
            )
        asked = [f"question {i} about ORD-{2000 + i}" for i in range(4)]
        for text in asked:
            config = {"configurable": {"session_id": "s"}}
            if history_key is None:
                with_history.invoke([HumanMessage(text)], config=config)
            else:
                with_history.invoke({"input": text}, config=config)
        stored = full_messages(compacting_history)
        added = stored[len(conversation) :]
        assert [(m.type, m.content) for m in stored[: len(conversation)]] == [(m.type, m.content) for m in conversation]
        expected: list[tuple[str, Any]] = []
        for i, text in enumerate(asked):
            expected += [("human", text), ("ai", f"reply {i}")]
        assert [(m.type, m.content) for m in added] == expected

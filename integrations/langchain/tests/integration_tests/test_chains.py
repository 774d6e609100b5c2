"""compact_messages in LCEL chains, RunnableWithMessageHistory, and a legacy chain with memory."""

from __future__ import annotations

import asyncio
import warnings

import pytest
from langchain_core.messages import HumanMessage, trim_messages
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables.history import RunnableWithMessageHistory
from langchain_discourse_memory import ConversationDiscourseMemory, DiscourseChatMessageHistory, compact_messages
from langchain_discourse_memory._counting import resolve_token_counter
from langchain_discourse_memory.testing import orphan_tool_messages, sample_conversation

COUNT = resolve_token_counter(None).messages
PROMPT = ChatPromptTemplate.from_messages(
    [("system", "You are the order desk."), MessagesPlaceholder("history"), ("human", "{question}")]
)


@pytest.mark.parametrize("reducer", [trim_messages, compact_messages], ids=["trim_messages", "compact_messages"])
def test_drop_in_for_trim_messages_in_an_lcel_chain(reducer, scripted_model) -> None:
    # The very same chain definition, with one word changed.
    model = scripted_model(["answer one", "answer two"])
    chain = (
        PROMPT
        | reducer(max_tokens=400, token_counter=COUNT, include_system=True, strategy="last", start_on="human")
        | model
    )
    inputs = {"history": sample_conversation(8)[1:], "question": "And ORD-1003?"}
    assert chain.invoke(inputs).content == "answer one"
    assert asyncio.run(chain.ainvoke(inputs)).content == "answer two"
    for received in model.received:
        assert COUNT(received) <= 400
        assert orphan_tool_messages(received) == []
        assert received[0].content == "You are the order desk."
        assert received[-1].content == "And ORD-1003?"
    if reducer is compact_messages:
        # what was left out is recorded: order ids from the compacted turns are named
        note = [m for m in model.received[0] if m.additional_kwargs.get("lc_source") == "discourse_memory"]
        assert len(note) == 1 and note[0].content.strip()


def run_turns(with_history, asked, *, use_async: bool, key_mode: str):
    config = {"configurable": {"session_id": "s1"}}
    for q in asked:
        payload = [HumanMessage(q)] if key_mode == "messages" else {"question": q}
        if use_async:
            asyncio.run(with_history.ainvoke(payload, config=config))
        else:
            with_history.invoke(payload, config=config)


@pytest.mark.parametrize("use_async", [False, True], ids=["sync", "async"])
@pytest.mark.parametrize("key_mode", ["messages", "history_key"])
def test_runnable_with_message_history_over_several_turns(scripted_model, use_async: bool, key_mode: str) -> None:
    budget = 350
    history = DiscourseChatMessageHistory(max_tokens=budget)
    seed = sample_conversation(6)
    history.add_messages(seed)
    answers = [f"Answer {i}: ticket TCK-{700 + i} is open. " + "More detail. " * 12 for i in range(5)]
    model = scripted_model(list(answers))
    if key_mode == "messages":
        chain = model
        kwargs = {}
    else:
        chain = ChatPromptTemplate.from_messages([MessagesPlaceholder("history"), ("human", "{question}")]) | model
        kwargs = {"input_messages_key": "question", "history_messages_key": "history"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # deprecated since langchain-core 1.3.3
        with_history = RunnableWithMessageHistory(chain, lambda session_id: history, **kwargs)
    asked = [f"Question {i} about TCK-{700 + i}?" for i in range(5)]
    run_turns(with_history, asked, use_async=use_async, key_mode=key_mode)

    stored = history.full_messages
    assert stored[: len(seed)] == seed
    expected = [m for i in range(5) for m in (("human", asked[i]), ("ai", answers[i]))]
    assert [(m.type, m.content) for m in stored[len(seed) :]] == expected  # nothing duplicated or lost
    for received in model.received:
        # the view fits; the new question comes on top of it
        assert COUNT(received[:-1]) <= budget
        assert received[-1].content.startswith("Question")
        assert orphan_tool_messages(received) == []
    assert len(model.received) == 5


def test_legacy_conversation_chain_with_discourse_memory(scripted_model) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from langchain_classic.chains import ConversationChain

        memory = ConversationDiscourseMemory(max_token_limit=250, return_messages=True)
        prompt = ChatPromptTemplate.from_messages(
            [("system", "You are helpful."), MessagesPlaceholder("history"), ("human", "{input}")]
        )
        replies = [
            f"Reply {i}: booking BK-{i:03d} confirmed for 2024-07-{1 + i:02d}. " + "Thanks! " * 10 for i in range(8)
        ]
        model = scripted_model(list(replies))
        chain = ConversationChain(llm=model, memory=memory, prompt=prompt)
        for i in range(8):
            out = chain.invoke({"input": f"Book BK-{i:03d} please"})
            assert out["response"] == replies[i]
    assert len(memory.chat_memory.messages) == 16  # nothing pruned
    for received in model.received:
        history_part = received[1:-1]
        assert COUNT(history_part) <= 250
    # the later calls got a compacted history, with its record note
    assert any(m.additional_kwargs.get("lc_source") == "discourse_memory" for m in model.received[-1])

"""DiscourseMemoryBuffer inside real LlamaIndex chat engines (mock LLM, offline)."""

from __future__ import annotations

import asyncio

from li_helpers import count, load_example, text_of, view_tokens
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall
from llama_index.memory.discourse import DiscourseMemoryBuffer

SYSTEM = "You are a support agent for a parcel company. Answer briefly."


def user_turn(i: int) -> str:
    return (
        f"Parcel PKG-{300 + i} left Bergen on 2024-03-{1 + i % 28:02d}; invoice INV-{9000 + i} "
        f"was ${20 + i}.99. Mail me at person{i}@example.net. "
        + "I am still waiting and I would like an update on the delivery as soon as possible. "
        * 2
    )


def test_simple_chat_engine_views_fit_and_store_keeps_every_message():
    limit = 500
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=12)
    memory = DiscourseMemoryBuffer.from_defaults(llm=llm, token_limit=limit)
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory, system_prompt=SYSTEM)
    budget = limit - count(SYSTEM)  # SimpleChatEngine's initial_token_count
    turns = 40
    for i in range(turns):
        engine.chat(user_turn(i))
        sent = list(llm.last_chat_messages)
        assert sent[0].content == SYSTEM
        view = sent[1:]
        assert view_tokens(view) <= budget, f"turn {i}: {view_tokens(view)} > {budget}"
        assert text_of(view[-1]) == user_turn(i)  # the question is sent verbatim
    stored = memory.get_all()
    assert len(stored) == 2 * turns
    assert [m.content for m in stored[0::2]] == [user_turn(i) for i in range(turns)]
    assert all(m.role.value == "assistant" for m in stored[1::2])
    assert view_tokens(stored) > 3 * limit  # it really had to compact


def test_async_chat_engine_uses_aget_with_initial_token_count():
    limit = 300
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=8)
    memory = DiscourseMemoryBuffer.from_defaults(llm=llm, token_limit=limit)
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory, system_prompt=SYSTEM)
    budget = limit - count(SYSTEM)

    async def talk() -> None:
        for i in range(15):
            await engine.achat(user_turn(i))
            view = list(llm.last_chat_messages)[1:]
            assert view_tokens(view) <= budget

    asyncio.run(talk())
    assert len(memory.get_all()) == 30


def test_streaming_chat_engine_writes_the_answer_to_the_store():
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=5)
    memory = DiscourseMemoryBuffer.from_defaults(llm=llm, token_limit=200)
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory, system_prompt=SYSTEM)
    for i in range(6):
        response = engine.stream_chat(user_turn(i))
        for _ in response.response_gen:
            pass
        thread = response.write_response_to_history_thread
        if thread is not None:
            thread.join(timeout=10)
        assert view_tokens(list(llm.last_chat_messages)[1:]) <= 200 - count(SYSTEM)
    assert len(memory.get_all()) == 12


def test_chat_engine_example_runs():
    example = load_example("llamaindex_chat_engine.py")
    summary = example.run(turns=30)
    assert summary["stored_messages"] == 60
    assert summary["max_view_tokens"] <= summary["budget_per_get"]
    assert summary["full_history_tokens"] > 3 * summary["token_limit"]
    # Old messages are compacted, not dropped: more of the 30 parcel ids reach the
    # LLM than with LlamaIndex's buffer at the same limit.
    assert summary["parcel_ids_visible"] > summary["parcel_ids_visible_chat_memory_buffer"] > 0
    # And of all the facts the user stated (ids, dates, amounts, addresses, cities), at
    # least those the newest messages hold ("at any budget"); the note the LLM got (role
    # "user", the buffer's default) is found and printed.
    assert summary["values_visible"] >= summary["values_visible_chat_memory_buffer"] > 0
    assert summary["record_note"] and summary["record_note"].startswith("[discourse-memory record")


def test_chat_engine_example_prints_the_note_it_sent(capsys):
    load_example("llamaindex_chat_engine.py").main()
    printed = capsys.readouterr().out
    assert "(none" not in printed
    assert printed.split("record note sent to the LLM (first 400 characters):\n", 1)[1].startswith(
        "[discourse-memory record")


def test_context_chat_engine_calls_get_with_input(monkeypatch):
    from llama_index.core.chat_engine import ContextChatEngine
    from llama_index.core.retrievers import BaseRetriever
    from llama_index.core.schema import NodeWithScore, TextNode

    class OneNode(BaseRetriever):
        def _retrieve(self, query_bundle):
            return [NodeWithScore(node=TextNode(text="Parcels ship from Bergen."), score=1.0)]

    limit = 300
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=8)
    memory = DiscourseMemoryBuffer.from_defaults(token_limit=limit)
    calls = []
    original_get = DiscourseMemoryBuffer.get

    def spy(self, input=None, initial_token_count=0, **kwargs):
        view = original_get(self, input=input, initial_token_count=initial_token_count, **kwargs)
        calls.append((input, view))
        return view

    engine = ContextChatEngine.from_defaults(retriever=OneNode(), llm=llm, memory=memory)
    monkeypatch.setattr(DiscourseMemoryBuffer, "get", spy)
    for i in range(12):
        engine.chat(user_turn(i))
    assert [c[0] for c in calls] == [user_turn(i) for i in range(12)]
    assert all(view_tokens(view) <= limit for _, view in calls)
    assert len(memory.get_all()) == 24


def test_engines_can_build_it_through_memory_cls():
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=4)
    engine = SimpleChatEngine.from_defaults(llm=llm, memory_cls=DiscourseMemoryBuffer)
    memory = engine._memory
    assert isinstance(memory, DiscourseMemoryBuffer)
    assert memory.token_limit == llm.metadata.context_window - 256  # what the engine asks for
    engine.chat("hello")
    assert [m.role.value for m in memory.get_all()] == ["user", "assistant"]

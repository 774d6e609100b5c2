"""ConversationDiscourseMemory: the legacy BaseMemory interface, without pruning or an LLM."""

from __future__ import annotations

import asyncio
import warnings

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, SystemMessage
from langchain_discourse_memory import ConversationDiscourseMemory
from langchain_discourse_memory._counting import resolve_token_counter

COUNT = resolve_token_counter(None).messages


def exchange(i: int) -> tuple[dict, dict]:
    return (
        {"input": f"Question {i}: what is the status of ticket TCK-{900 + i} filed on 2024-02-{1 + i:02d}?"},
        {"response": f"Ticket TCK-{900 + i} is open; engineer eng_{i:03d} owns it. " + "Details follow. " * 10},
    )


def test_is_a_base_memory_with_the_token_buffer_fields() -> None:
    from langchain_classic.base_memory import BaseMemory

    memory = ConversationDiscourseMemory(
        max_token_limit=300, return_messages=True, input_key="input", output_key="response"
    )
    assert isinstance(memory, BaseMemory)
    assert memory.memory_variables == ["history"]
    assert memory.load_memory_variables({}) == {"history": []}


def test_construction_emits_no_deprecation_warning() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        ConversationDiscourseMemory(max_token_limit=100)


def test_save_context_never_prunes_and_load_fits() -> None:
    memory = ConversationDiscourseMemory(max_token_limit=300, return_messages=True)
    for i in range(10):
        memory.save_context(*exchange(i))
    stored = memory.chat_memory.messages
    assert len(stored) == 20
    assert stored[0].content == exchange(0)[0]["input"]  # the oldest is still there
    loaded = memory.load_memory_variables({"input": "next"})["history"]
    assert COUNT(loaded) <= 300
    assert len(loaded) < 20
    assert loaded[-1].content == stored[-1].content and loaded[-2].content == stored[-2].content
    assert any(
        isinstance(m, SystemMessage) and m.additional_kwargs.get("lc_source") == "discourse_memory" for m in loaded
    )


def test_string_buffer_uses_prefixes() -> None:
    memory = ConversationDiscourseMemory(max_token_limit=5000, human_prefix="User", ai_prefix="Bot")
    memory.save_context({"q": "hi"}, {"a": "hello"})
    assert memory.load_memory_variables({})["history"] == "User: hi\nBot: hello"


def test_input_and_output_keys() -> None:
    memory = ConversationDiscourseMemory(
        max_token_limit=5000, input_key="question", output_key="answer", return_messages=True
    )
    memory.save_context({"question": "q1", "other": "x"}, {"answer": "a1", "debug": "y"})
    assert [(m.type, m.content) for m in memory.buffer_as_messages] == [("human", "q1"), ("ai", "a1")]
    with pytest.raises(KeyError):
        memory.save_context({"other": "x"}, {"answer": "a"})


def test_clear_and_async() -> None:
    memory = ConversationDiscourseMemory(max_token_limit=5000, return_messages=True)

    async def run() -> tuple[dict, dict]:
        await memory.asave_context({"input": "a"}, {"output": "b"})
        loaded = await memory.aload_memory_variables({})
        await memory.aclear()
        return loaded, await memory.aload_memory_variables({})

    loaded, cleared = asyncio.run(run())
    assert [m.content for m in loaded["history"]] == ["a", "b"]
    assert cleared == {"history": []}


def test_llm_counts_when_given_and_no_token_counter() -> None:
    llm = GenericFakeChatModel(messages=iter(()), custom_get_token_ids=lambda s: list(range(len(s.split()))))
    memory = ConversationDiscourseMemory(llm=llm, max_token_limit=120, return_messages=True)
    for i in range(8):
        memory.save_context(*exchange(i))
    loaded = memory.buffer_as_messages
    assert llm.get_num_tokens_from_messages(loaded) <= 120
    assert len(memory.chat_memory.messages) == 16


def test_too_small_limit_returns_full_history_with_warning(caplog: pytest.LogCaptureFixture) -> None:
    memory = ConversationDiscourseMemory(max_token_limit=2, return_messages=True)
    memory.save_context({"input": "a fairly long question about the weather"}, {"output": "a fairly long answer"})
    with caplog.at_level("WARNING", logger="langchain_discourse_memory.memory"):
        loaded = memory.buffer_as_messages
    assert [m.content for m in loaded] == ["a fairly long question about the weather", "a fairly long answer"]
    assert "too small" in caplog.text


def test_bad_settings_fail_at_construction() -> None:
    with pytest.raises(ValueError, match="max_tokens"):
        ConversationDiscourseMemory(max_token_limit=-1)
    with pytest.raises(ValueError, match="counts messages"):
        ConversationDiscourseMemory(token_counter=len)


def test_messages_types_in_history() -> None:
    memory = ConversationDiscourseMemory(max_token_limit=5000, return_messages=True)
    memory.save_context({"input": "x"}, {"output": "y"})
    assert [type(m) for m in memory.buffer] == [HumanMessage, AIMessage]

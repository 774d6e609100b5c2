"""DiscourseCompactionMiddleware on ModelRequest objects, called as the agent factory calls it."""

from __future__ import annotations

import asyncio
import logging

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from langchain.agents.middleware import AgentMiddleware
from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage
from langchain_discourse_memory import DiscourseCompactionMiddleware
from langchain_discourse_memory._convert import NOTE_SOURCE_TAG
from langchain_discourse_memory._counting import resolve_token_counter
from langchain_discourse_memory.testing import orphan_tool_messages, sample_conversation

COUNT = resolve_token_counter(None).messages
SYSTEM = SystemMessage("You are a support agent.")


def request_for(messages: list[BaseMessage], model: GenericFakeChatModel | None = None) -> ModelRequest:
    model = model or GenericFakeChatModel(messages=iter(()))
    return ModelRequest(model=model, messages=messages, system_message=SYSTEM, state={"messages": messages})


def capture(middleware: DiscourseCompactionMiddleware, request: ModelRequest) -> ModelRequest:
    seen: list[ModelRequest] = []

    def handler(req: ModelRequest) -> ModelResponse:
        seen.append(req)
        return ModelResponse(result=[AIMessage("ok")])

    response = middleware.wrap_model_call(request, handler)
    assert isinstance(response, ModelResponse) and response.result[0].content == "ok"
    assert len(seen) == 1
    return seen[0]


def test_is_an_agent_middleware_with_both_wrap_hooks() -> None:
    m = DiscourseCompactionMiddleware(keep=("tokens", 500))
    assert isinstance(m, AgentMiddleware)
    assert type(m).wrap_model_call is not AgentMiddleware.wrap_model_call
    assert type(m).awrap_model_call is not AgentMiddleware.awrap_model_call


def test_compacts_messages_and_leaves_request_and_state_alone() -> None:
    conv = sample_conversation(8)[1:]
    request = request_for(conv)
    before = [m.model_copy() for m in conv]
    sent = capture(DiscourseCompactionMiddleware(keep=("tokens", 400)), request)
    assert sent is not request
    assert sent.system_message is SYSTEM
    assert COUNT(sent.messages) <= 400
    assert orphan_tool_messages(sent.messages) == []
    assert sent.messages[0].additional_kwargs.get("lc_source") == NOTE_SOURCE_TAG
    # the original request (and the state it carries) is untouched
    assert request.messages is conv and [m.content for m in conv] == [m.content for m in before]
    assert request.state["messages"] is conv


def test_fitting_request_is_passed_through_as_is() -> None:
    request = request_for(sample_conversation(2)[1:])
    assert capture(DiscourseCompactionMiddleware(keep=("tokens", 10_000)), request) is request


def test_async_hook_matches_sync() -> None:
    conv = sample_conversation(8)[1:]
    mw = DiscourseCompactionMiddleware(keep=("tokens", 400))
    sync_sent = capture(mw, request_for(conv))
    seen: list[ModelRequest] = []

    async def handler(req: ModelRequest) -> ModelResponse:
        seen.append(req)
        return ModelResponse(result=[AIMessage("ok")])

    asyncio.run(mw.awrap_model_call(request_for(conv), handler))
    assert [(type(m), m.content) for m in seen[0].messages] == [(type(m), m.content) for m in sync_sent.messages]


def test_trigger_messages_and_tokens() -> None:
    conv = sample_conversation(8)[1:]
    by_messages = DiscourseCompactionMiddleware(trigger=("messages", 100), keep=("tokens", 400))
    assert capture(by_messages, request_for(conv)).messages is conv  # 32 messages < 100
    by_and = DiscourseCompactionMiddleware(trigger={"messages": 10, "tokens": 10**6}, keep=("tokens", 400))
    assert capture(by_and, request_for(conv)).messages is conv  # AND: tokens not reached
    by_or = DiscourseCompactionMiddleware(trigger=[("tokens", 10**6), ("messages", 10)], keep=("tokens", 400))
    assert COUNT(capture(by_or, request_for(conv)).messages) <= 400  # OR: messages reached


def test_fraction_uses_the_model_profile() -> None:
    conv = sample_conversation(8)[1:]
    model = GenericFakeChatModel(messages=iter(()), profile={"max_input_tokens": 1000})
    sent = capture(DiscourseCompactionMiddleware(keep=("fraction", 0.4)), request_for(conv, model))
    assert COUNT(sent.messages) <= 400


def test_fraction_without_profile_passes_through_with_warning(caplog: pytest.LogCaptureFixture) -> None:
    request = request_for(sample_conversation(8)[1:])
    with caplog.at_level(logging.WARNING, logger="langchain_discourse_memory.middleware"):
        sent = capture(DiscourseCompactionMiddleware(keep=("fraction", 0.4)), request)
    assert sent is request
    assert "max_input_tokens" in caplog.text


def test_budget_below_the_note_frame_passes_through_with_warning(caplog: pytest.LogCaptureFixture) -> None:
    request = request_for(sample_conversation(8)[1:])
    with caplog.at_level(logging.WARNING, logger="langchain_discourse_memory.middleware"):
        sent = capture(DiscourseCompactionMiddleware(keep=("tokens", 5)), request)
    assert sent is request
    assert "too small" in caplog.text and "unchanged" in caplog.text


def test_last_turn_too_big_falls_back_to_compacting_it(caplog: pytest.LogCaptureFixture) -> None:
    conv = sample_conversation(3)[1:] + [HumanMessage("Please summarise everything: " + "ORD-1000 and more. " * 150)]
    with caplog.at_level(logging.WARNING, logger="langchain_discourse_memory.middleware"):
        sent = capture(DiscourseCompactionMiddleware(keep=("tokens", 300)), request_for(conv))
    assert COUNT(sent.messages) <= 300
    assert caplog.text == ""


def test_failing_counter_never_breaks_the_loop(caplog: pytest.LogCaptureFixture) -> None:
    def flaky(messages: list[BaseMessage]) -> int:
        if sum(len(str(m.content)) for m in messages) > 2000:
            raise RuntimeError("tokenizer service down")
        return sum(len(str(m.content)) // 4 for m in messages)

    request = request_for(sample_conversation(8)[1:])
    with caplog.at_level(logging.WARNING, logger="langchain_discourse_memory.middleware"):
        sent = capture(DiscourseCompactionMiddleware(keep=("tokens", 300), token_counter=flaky), request)
    assert sent is request
    assert "tokenizer service down" in caplog.text


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"keep": ("messages", 20)}, "not supported"),
        ({"keep": ("tokens", 0)}, "positive"),
        ({"keep": ("fraction", 1.5)}, r"\(0, 1\]"),
        ({"keep": ("pages", 3)}, "Unsupported"),
        ({"keep": 500}, "tuple"),
        ({"keep": ("tokens", 10), "trigger": ("tokens", True)}, "number"),
        ({"keep": ("tokens", 10), "trigger": {}}, "trigger"),
        ({"keep": ("tokens", 10), "note_role": "tool"}, "note_role"),
    ],
)
def test_bad_configuration_fails_at_construction(kwargs: dict, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        DiscourseCompactionMiddleware(**kwargs)


@settings(max_examples=25, deadline=None)
@given(turns=st.integers(1, 10), keep=st.integers(120, 1200))
def test_property_model_view_fits_or_is_untouched(turns: int, keep: int) -> None:
    conv = sample_conversation(turns)[1:]
    request = request_for(conv)
    sent = capture(DiscourseCompactionMiddleware(keep=("tokens", keep)), request)
    assert orphan_tool_messages(sent.messages) == []
    if sent is request:
        # untouched only when it already fits or nothing can fit (then a warning was logged)
        assert COUNT(conv) <= keep or keep < 100
    else:
        assert COUNT(sent.messages) <= keep


def test_system_prompt_larger_than_keep_passes_through_with_warning(caplog: pytest.LogCaptureFixture) -> None:
    conv = sample_conversation(8)[1:]
    request = ModelRequest(
        model=GenericFakeChatModel(messages=iter(())),
        messages=conv,
        system_message=SystemMessage("policy " * 500),
        state={"messages": conv},
    )
    with caplog.at_level(logging.WARNING, logger="langchain_discourse_memory.middleware"):
        sent = capture(DiscourseCompactionMiddleware(keep=("tokens", 300), count_system_prompt=True), request)
    assert sent is request
    assert "system prompt alone" in caplog.text


def test_threads_get_their_own_core_compactor_and_identical_views() -> None:
    from langchain_core.runnables import RunnableLambda

    conv_a = sample_conversation(8)[1:]
    conv_b = [m.model_copy(update={"content": str(m.content).replace("ORD", "BK")}) for m in sample_conversation(7)[1:]]
    shared = DiscourseCompactionMiddleware(keep=("tokens", 300))
    call = RunnableLambda(lambda req: shared.compact_request(req))
    got: dict[str, list] = {"A": [], "B": []}
    for n in range(8, 29, 4):  # interleave two growing conversations on one middleware
        for thread, conv in (("A", conv_a), ("B", conv_b)):
            sent = call.invoke(request_for(conv[:n]), config={"configurable": {"thread_id": thread}})
            got[thread].append([(type(m), m.content) for m in sent.messages])
    assert set(shared._threads) == {"A", "B"}
    for thread, conv in (("A", conv_a), ("B", conv_b)):
        alone = DiscourseCompactionMiddleware(keep=("tokens", 300))
        expected = [
            [(type(m), m.content) for m in alone.compact_request(request_for(conv[:n])).messages]
            for n in range(8, 29, 4)
        ]
        assert got[thread] == expected

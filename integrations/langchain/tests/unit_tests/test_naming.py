"""One name for the result: every object that compacts exposes the core's `Compaction` behind its
last view as `last_compaction` (and `compact_view` / `view()` return it as `CompactedView.compaction`)."""

from __future__ import annotations

from langchain.agents.middleware.types import ModelRequest, ModelResponse
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage

from discourse_memory import Compaction
from langchain_discourse_memory import (
    ConversationDiscourseMemory,
    DiscourseChatMessageHistory,
    DiscourseCompactionMiddleware,
    compact_view,
)


def conversation(turns: int = 12) -> list[BaseMessage]:
    out: list[BaseMessage] = [SystemMessage("You are a support agent.")]
    for t in range(turns):
        out.append(HumanMessage(f"Order ORD-{1000 + t} for customer C-{7000 + t} has not arrived; "
                                f"it was paid with card ending {4100 + t} on 2025-03-{10 + t}."))
        out.append(AIMessage(f"I checked ORD-{1000 + t}: it left the warehouse W-{30 + t} and arrives Friday."))
    return out


def is_the_view_of(compaction: Compaction | None, sent: list[BaseMessage]) -> bool:
    assert isinstance(compaction, Compaction)
    return compaction.note is not None and any(compaction.note == m.content for m in sent)


def test_compact_view_returns_a_compaction() -> None:
    view = compact_view(conversation(), max_tokens=200)
    assert is_the_view_of(view.compaction, view.messages)


def test_the_history_exposes_its_last_compaction() -> None:
    history = DiscourseChatMessageHistory(max_tokens=200)
    assert history.last_compaction is None
    history.add_messages(conversation())
    sent = history.messages
    assert is_the_view_of(history.last_compaction, sent)


def test_the_memory_exposes_its_last_compaction() -> None:
    memory = ConversationDiscourseMemory(max_token_limit=200, return_messages=True)
    assert memory.last_compaction is None
    for i in range(12):
        memory.save_context({"input": f"Where is order ORD-{1000 + i} (card {4100 + i})?"},
                            {"output": f"ORD-{1000 + i} left warehouse W-{30 + i}; it arrives on 2025-04-{10 + i}."})
    sent = memory.load_memory_variables({})["history"]
    assert is_the_view_of(memory.last_compaction, sent)


def test_the_middleware_exposes_its_last_compaction() -> None:
    middleware = DiscourseCompactionMiddleware(keep=("tokens", 200))
    assert middleware.last_compaction is None
    messages = conversation()
    request = ModelRequest(model=GenericFakeChatModel(messages=iter(())), messages=messages, system_message=None,
                           state={"messages": messages})
    seen: list[ModelRequest] = []

    def handler(req: ModelRequest) -> ModelResponse:
        seen.append(req)
        return ModelResponse(result=[AIMessage("ok")])

    middleware.wrap_model_call(request, handler)
    assert middleware.last_view is not None
    assert middleware.last_compaction is middleware.last_view.compaction
    assert is_the_view_of(middleware.last_compaction, list(seen[0].messages))

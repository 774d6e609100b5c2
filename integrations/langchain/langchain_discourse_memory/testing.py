"""Offline helpers for apps, examples and tests (no test framework needed): `ScriptedToolChatModel`,
a fake chat model that follows a script and accepts `bind_tools`; `check_agent_requests`, which
checks every request a `create_agent` loop sent; `sample_conversation`; `orphan_tool_messages`.
(The chat-history contract tests, which need pytest, live with this package's tests.)"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.outputs import ChatResult
from pydantic import Field

from langchain_discourse_memory._convert import NOTE_SOURCE_TAG, orphan_tool_messages

__all__ = ["ScriptedToolChatModel", "check_agent_requests", "orphan_tool_messages", "sample_conversation"]


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

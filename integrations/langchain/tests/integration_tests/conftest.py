"""Shared fixtures: a scripted, tool-calling fake chat model (real LangChain model class)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import pytest
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage
from langchain_core.outputs import ChatResult
from pydantic import Field


class ScriptedToolChatModel(GenericFakeChatModel):
    """`GenericFakeChatModel` that accepts `bind_tools` and records every input it gets."""

    received: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], *, tool_choice: Any = None, **kwargs: Any) -> ScriptedToolChatModel:
        return self

    def _generate(
        self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any
    ) -> ChatResult:
        self.received.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


@pytest.fixture
def scripted_model() -> Callable[[list[AIMessage | str]], ScriptedToolChatModel]:
    def make(script: list[AIMessage | str]) -> ScriptedToolChatModel:
        return ScriptedToolChatModel(messages=iter(script))

    return make

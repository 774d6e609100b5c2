"""Shared fixtures: a scripted, tool-calling fake chat model (`langchain_discourse_memory.testing`)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from langchain_core.messages import AIMessage
from langchain_discourse_memory.testing import ScriptedToolChatModel


@pytest.fixture
def scripted_model() -> Callable[[list[AIMessage | str]], ScriptedToolChatModel]:
    def make(script: list[AIMessage | str]) -> ScriptedToolChatModel:
        return ScriptedToolChatModel(messages=iter(script))

    return make

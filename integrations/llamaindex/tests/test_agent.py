"""DiscourseMemoryBuffer inside a real FunctionAgent with tools (scripted mock LLM)."""

from __future__ import annotations

import asyncio
import json

from li_helpers import assert_tool_pairs, call_blocks, load_example, view_tokens
from llama_index.core.base.llms.types import MessageRole
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.core.workflow import Context
from llama_index.memory.discourse import DiscourseMemoryBuffer


def test_function_agent_views_fit_keep_pairs_and_survive_ctx_round_trip():
    example = load_example("llamaindex_agent.py")
    limit = 600
    turns = 18
    summary = asyncio.run(example.run(turns=turns, token_limit=limit))
    script = summary["script"]
    memory = summary["memory"]

    # Every LLM input: system prompt, the memory's view, then this run's scratchpad.
    assert len(script.inputs) == 2 * (turns + 1)
    for llm_input in script.inputs:
        assert llm_input[0].role == MessageRole.SYSTEM
        assert_tool_pairs(llm_input[1:])
    # The first call of each run sees only the memory view (the scratchpad is empty).
    for llm_input in script.inputs[0::2]:
        assert llm_input[-1].role == MessageRole.USER
        assert view_tokens(llm_input[1:]) <= limit
    # Pairing was really at stake: later views left some earlier tool calls out.
    last_view = script.inputs[-2][1:]
    calls_made_before = 2 * turns
    assert sum(len(call_blocks(m)) for m in last_view) < calls_made_before

    # The store holds every message: user, assistant call, 2 tool results, answer.
    stored = memory.get_all()
    assert len(stored) == 5 * (turns + 1)
    assert [m.role.value for m in stored[:5]] == ["user", "assistant", "tool", "tool", "assistant"]
    assert len(call_blocks(stored[1])) == 2
    assert view_tokens(stored) > 3 * limit  # compaction was needed

    # ctx.to_dict() -> JSON -> Context.from_dict restored the same memory.
    assert summary["restored_memory_type"] == "DiscourseMemoryBuffer"
    assert summary["restored_history_identical"]
    assert "PKG-" in summary["last_answer"]


def test_ctx_round_trip_restores_settings_and_history():
    example = load_example("llamaindex_agent.py")
    script = example.ScriptedLLM()
    agent = example.build_agent(script)
    memory = DiscourseMemoryBuffer.from_defaults(token_limit=321, note_role="user")

    async def go():
        ctx = Context(agent)
        for i in range(3):
            await agent.run(user_msg=example.user_turn(i), ctx=ctx, memory=memory)
        data = json.loads(json.dumps(ctx.to_dict()))
        restored = Context.from_dict(agent, data)
        return await restored.store.get("memory")

    back = asyncio.run(go())
    assert isinstance(back, DiscourseMemoryBuffer)
    assert back.token_limit == 321 and back.note_role == "user"
    stored = back.get_all()
    assert len(stored) == 15  # 3 runs x (user, call, 2 results, answer)
    assert [m.content for m in stored[0::5]] == [example.user_turn(i) for i in range(3)]
    assert [m.role.value for m in stored[:5]] == ["user", "assistant", "tool", "tool", "assistant"]
    assert [b.tool_kwargs for b in call_blocks(stored[6])] == [
        {"parcel_id": "PKG-5201"},
        {"invoice_id": "INV-61003"},
    ]


def test_reusing_a_context_keeps_the_history_without_passing_memory_again():
    example = load_example("llamaindex_agent.py")
    agent = example.build_agent(example.ScriptedLLM())

    async def go():
        ctx = Context(agent)
        await agent.run(user_msg=example.user_turn(0), ctx=ctx, memory=DiscourseMemoryBuffer.from_defaults())
        await agent.run(user_msg=example.user_turn(1), ctx=ctx)
        return await ctx.store.get("memory")

    live = asyncio.run(go())
    assert [m.content for m in live.get_all()[0::5]] == [example.user_turn(0), example.user_turn(1)]


def test_chat_memory_buffer_is_lost_by_ctx_to_dict_but_ours_is_not():
    """Documents why to_dict matters: LlamaIndex's own buffer cannot be serialised
    (SimpleChatStore's serialiser fails under pydantic 2.14), so the workflow skips it."""
    example = load_example("llamaindex_agent.py")
    agent = example.build_agent(example.ScriptedLLM())

    async def saved_keys(memory):
        ctx = Context(agent)
        await agent.run(user_msg=example.user_turn(0), ctx=ctx, memory=memory)
        return set(ctx.to_dict()["state"]["state_data"]["_data"])

    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = asyncio.run(saved_keys(ChatMemoryBuffer.from_defaults(token_limit=500)))
    ours = asyncio.run(saved_keys(DiscourseMemoryBuffer.from_defaults(token_limit=500)))
    assert "memory" not in theirs
    assert "memory" in ours


def test_function_agent_steps_focus_on_the_users_message(monkeypatch):
    import discourse_memory

    seen = []
    original = discourse_memory.Compactor.compact

    def spy(self, messages, budget, options=None, *, focus=discourse_memory.NEWEST_TURN, **kwargs):
        seen.append(focus)
        return original(self, messages, budget, options, focus=focus, **kwargs)

    monkeypatch.setattr(discourse_memory.Compactor, "compact", spy)
    example = load_example("llamaindex_agent.py")
    agent = example.build_agent(example.ScriptedLLM())
    memory = DiscourseMemoryBuffer.from_defaults(token_limit=300)

    async def go():
        for i in range(4):
            await agent.run(user_msg=example.user_turn(i), memory=memory)

    asyncio.run(go())
    # each run calls aget() (the newest turn) for its first LLM call, and aget(input=user_msg_str)
    # after the tool results, which the buffer passes on as the focus
    assert [f for f in seen if f is not discourse_memory.NEWEST_TURN] == [example.user_turn(i) for i in range(4)]
    assert discourse_memory.NEWEST_TURN in seen


def test_react_agent_runs_on_the_buffer(monkeypatch):
    import re

    from llama_index.core.agent.workflow import ReActAgent
    from llama_index.core.base.llms.types import ChatMessage
    from llama_index.core.llms.mock import MockFunctionCallingLLM
    from llama_index.core.tools import FunctionTool

    example = load_example("llamaindex_agent.py")

    def script(messages, **kwargs):
        text = messages[-1].content or ""
        if "Observation" in text:
            return ChatMessage(role="assistant", content="Thought: I can answer without using any more tools.\n"
                                                         "Answer: " + text[-60:])
        parcel = (re.findall(r"PKG-\d+", text) or ["PKG-0"])[-1]
        return ChatMessage(role="assistant", content="Thought: I need to use a tool to help me answer the question.\n"
                                                     f'Action: track_parcel\nAction Input: {{"parcel_id": "{parcel}"}}')

    views = []
    original = DiscourseMemoryBuffer._view

    def spy(self, history, input, initial_token_count, focus):
        views.append((input, original(self, history, input, initial_token_count, focus)))
        return views[-1][1]

    monkeypatch.setattr(DiscourseMemoryBuffer, "_view", spy)
    agent = ReActAgent(tools=[FunctionTool.from_defaults(example.track_parcel)],
                       llm=MockFunctionCallingLLM(response_generator=script))
    memory = DiscourseMemoryBuffer.from_defaults(token_limit=200)

    async def go():
        for i in range(8):
            assert "on schedule" in str(await agent.run(user_msg=example.user_turn(i), memory=memory))

    asyncio.run(go())
    assert len(memory.get_all()) == 16  # each run stores the user message and the answer
    assert all(view_tokens(view) <= 200 for _, view in views)
    assert view_tokens(memory.get_all()) > 2 * 200 and memory.last_compaction is not None
    assert {example.user_turn(i) for i in range(8)} <= {text for text, _ in views}  # aget(input=...) reached us

"""A real create_agent loop with tools, a checkpointer and the compaction middleware."""

from __future__ import annotations

import asyncio
import json
import logging

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.tools import tool
from langchain_discourse_memory import DiscourseCompactionMiddleware
from langchain_discourse_memory._convert import NOTE_SOURCE_TAG
from langchain_discourse_memory._counting import resolve_token_counter
from langchain_discourse_memory.testing import check_agent_requests, orphan_tool_messages
from langgraph.checkpoint.memory import InMemorySaver

COUNT = resolve_token_counter(None).messages
SYSTEM = "You are the order desk. Use tools to look orders up."
BUDGET = 700


def order_record(order_id: str) -> dict:
    n = int(order_id.split("-")[1])
    return {
        "order_id": order_id,
        "customer": f"cust_{n * 7:05d}",
        "status": "shipped",
        "total": f"${100 + n}.{n % 100:02d}",
        "placed": f"2024-03-{1 + n % 28:02d}",
        "items": [{"sku": f"SKU-{n}-{i}", "qty": i + 1, "note": "standard packaging, no gift wrap"} for i in range(6)],
    }


@tool
def get_order(order_id: str) -> str:
    """Look an order up by id."""
    return json.dumps(order_record(order_id))


@tool
def get_shipping(order_id: str) -> str:
    """Shipping status of an order."""
    return json.dumps(
        {"order_id": order_id, "carrier": "UPS", "tracking": f"1Z{order_id[-4:]}9999", "eta": "2024-04-02"}
    )


def script_for_turn(t: int) -> list[AIMessage]:
    oid = f"ORD-{4100 + t}"
    return [
        AIMessage(
            "",
            tool_calls=[
                {"id": f"call_{t}_a", "name": "get_order", "args": {"order_id": oid}},
                {"id": f"call_{t}_b", "name": "get_shipping", "args": {"order_id": oid}},
            ],
        ),
        AIMessage(f"Order {oid} is shipped with UPS; total {order_record(oid)['total']}."),
    ]


def check_model_inputs(received: list[list[BaseMessage]], budget: int) -> int:
    """Every model call: system prompt first, conversation within budget, tool calls paired.
    Returns how many calls got a compacted view (with a record note)."""
    return check_agent_requests(received, system=SYSTEM, budget=budget, count_tokens=COUNT)


def check_state_is_complete(messages: list[BaseMessage], turns: int) -> None:
    assert len(messages) == turns * 5  # human, AI(2 calls), 2 tool results, AI answer
    assert not any(m.additional_kwargs.get("lc_source") == NOTE_SOURCE_TAG for m in messages)
    for t in range(turns):
        human, call, r1, r2, answer = messages[5 * t : 5 * t + 5]
        oid = f"ORD-{4100 + t}"
        assert isinstance(human, HumanMessage) and human.content == f"Turn {t}: what happened to {oid}?"
        assert [c["id"] for c in call.tool_calls] == [f"call_{t}_a", f"call_{t}_b"]
        assert json.loads(r1.content) == order_record(oid)  # tool output stored unchanged
        assert r2.tool_call_id == f"call_{t}_b"
        assert oid in answer.content


TURNS = 8


def build_agent(model, middleware):
    return create_agent(
        model,
        tools=[get_order, get_shipping],
        system_prompt=SYSTEM,
        middleware=[middleware],
        checkpointer=InMemorySaver(),
    )


def test_agent_loop_compacts_the_model_view_and_keeps_the_full_state(scripted_model) -> None:
    script = [m for t in range(TURNS) for m in script_for_turn(t)]
    model = scripted_model(script)
    agent = build_agent(model, DiscourseCompactionMiddleware(keep=("tokens", BUDGET)))
    config = {"configurable": {"thread_id": "t1"}}
    for t in range(TURNS):
        agent.invoke({"messages": [HumanMessage(f"Turn {t}: what happened to ORD-{4100 + t}?")]}, config)
    assert len(model.received) == 2 * TURNS
    full_sizes = [COUNT(msgs) for msgs in model.received]
    compacted = check_model_inputs(model.received, BUDGET)
    assert compacted >= 3, "the conversation was meant to outgrow the budget"
    state = agent.get_state(config).values["messages"]
    check_state_is_complete(state, TURNS)
    assert COUNT(state) > 2 * BUDGET
    # the last call saw the newest turn verbatim: question, both results
    last = model.received[-1]
    assert last[-3].content == state[-4].content and last[-1].content == state[-2].content
    assert max(full_sizes) <= BUDGET + COUNT([SystemMessage(SYSTEM)])


def test_last_view_dumps_to_an_inspector_page(scripted_model, tmp_path) -> None:
    script = [m for t in range(TURNS) for m in script_for_turn(t)]
    middleware = DiscourseCompactionMiddleware(keep=("tokens", BUDGET))
    agent = build_agent(scripted_model(script), middleware)
    config = {"configurable": {"thread_id": "t2"}}
    for t in range(TURNS):
        agent.invoke({"messages": [HumanMessage(f"Turn {t}: what happened to ORD-{4100 + t}?")]}, config)
    assert middleware.last_view is not None
    page = tmp_path / "view.html"
    page.write_text(middleware.last_view.compaction.to_html())
    html = page.read_text()
    counts = middleware.last_view.compaction.report.counts
    assert f'data-count-omitted="{counts["omitted"]}"' in html or f"data-count-omitted={counts['omitted']}" in html
    assert "ORD-4107" in html


def test_agent_loop_async(scripted_model) -> None:
    turns = 5
    model = scripted_model([m for t in range(turns) for m in script_for_turn(t)])
    agent = build_agent(model, DiscourseCompactionMiddleware(keep=("tokens", BUDGET)))
    config = {"configurable": {"thread_id": "t2"}}

    async def run() -> list[BaseMessage]:
        for t in range(turns):
            await agent.ainvoke({"messages": [HumanMessage(f"Turn {t}: what happened to ORD-{4100 + t}?")]}, config)
        return (await agent.aget_state(config)).values["messages"]

    state = asyncio.run(run())
    assert check_model_inputs(model.received, BUDGET) >= 1
    check_state_is_complete(state, turns)


def test_trigger_leaves_small_views_alone(scripted_model) -> None:
    model = scripted_model([m for t in range(TURNS) for m in script_for_turn(t)])
    middleware = DiscourseCompactionMiddleware(trigger=("tokens", 1500), keep=("tokens", 600))
    agent = build_agent(model, middleware)
    config = {"configurable": {"thread_id": "t3"}}
    for t in range(TURNS):
        agent.invoke({"messages": [HumanMessage(f"Turn {t}: what happened to ORD-{4100 + t}?")]}, config)
    sizes = [COUNT(r[1:]) for r in model.received]
    notes = [any(m.additional_kwargs.get("lc_source") == NOTE_SOURCE_TAG for m in r) for r in model.received]
    for size, has_note in zip(sizes, notes, strict=True):
        if has_note:
            assert size <= 600
        else:
            assert size < 1500  # untouched only while under the trigger
    assert any(notes) and not all(notes)


def test_one_long_tool_loop_in_a_single_turn_still_fits(scripted_model, caplog: pytest.LogCaptureFixture) -> None:
    # The newest turn alone outgrows the budget: the middleware compacts it too
    # (keep_last_turn=False) instead of failing or overflowing.
    steps = 10
    script: list[AIMessage] = [
        AIMessage("", tool_calls=[{"id": f"c{k}", "name": "get_order", "args": {"order_id": f"ORD-{4200 + k}"}}])
        for k in range(steps)
    ] + [AIMessage("All ten orders are shipped.")]
    model = scripted_model(script)
    agent = build_agent(model, DiscourseCompactionMiddleware(keep=("tokens", 500)))
    with caplog.at_level(logging.WARNING, logger="langchain_discourse_memory.middleware"):
        result = agent.invoke(
            {"messages": [HumanMessage("Check orders ORD-4200 to ORD-4209.")]}, {"configurable": {"thread_id": "t4"}}
        )
    assert len(result["messages"]) == 1 + 2 * steps + 1
    check_model_inputs(model.received, 500)
    assert "unchanged" not in caplog.text  # it never had to give up
    # The core relaxed protection to the newest message alone: the newest tool
    # result reaches the model verbatim, paired with its call.
    last_inputs = model.received[-1]
    assert isinstance(last_inputs[-1], ToolMessage) and last_inputs[-1].tool_call_id == "c9"
    assert last_inputs[-1].content == result["messages"][-2].content


def test_count_system_prompt_makes_the_whole_model_input_fit(scripted_model) -> None:
    model = scripted_model([m for t in range(TURNS) for m in script_for_turn(t)])
    agent = build_agent(model, DiscourseCompactionMiddleware(keep=("tokens", BUDGET), count_system_prompt=True))
    config = {"configurable": {"thread_id": "t5"}}
    for t in range(TURNS):
        agent.invoke({"messages": [HumanMessage(f"Turn {t}: what happened to ORD-{4100 + t}?")]}, config)
    for inputs in model.received:
        assert COUNT(inputs) <= BUDGET  # system prompt included
        assert orphan_tool_messages(inputs) == []
    assert check_model_inputs(model.received, BUDGET) >= 3
    check_state_is_complete(agent.get_state(config).values["messages"], TURNS)

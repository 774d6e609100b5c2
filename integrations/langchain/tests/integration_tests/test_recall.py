"""The `recall` tool in real `create_agent` loops, driven by a scripted model that reads its request.

The user asks for the items of the first order the record note names: the note names the tool
result they are in (`#17 get_order(ORD-4103): ...`) but cannot hold all of their values, so some
are in the history and not in the view. The model calls `recall` with the entry's reference and
answers from the tool result."""

from __future__ import annotations

import asyncio
import json
import logging
import re
from collections.abc import Sequence
from typing import Any

import pytest
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langchain_discourse_memory import DiscourseCompactionMiddleware
from langchain_discourse_memory._convert import NOTE_SOURCE_TAG
from langchain_discourse_memory._counting import resolve_token_counter
from langchain_discourse_memory.testing import ScriptedToolChatModel, check_agent_requests
from langgraph.checkpoint.memory import InMemorySaver

COUNT = resolve_token_counter(None).messages
SYSTEM = "You are the order desk. Use tools to look orders up."
BUDGET = 700
TURNS = 8
QUESTION = "List the items of the first order your record names."


def order_record(order_id: str) -> dict:
    n = int(order_id.split("-")[1])
    return {"order_id": order_id, "customer": f"cust_{n * 7:05d}", "status": "shipped",
            "total": f"${100 + n}.{n % 100:02d}", "placed": f"2024-03-{1 + n % 28:02d}",
            "items": [{"sku": f"SKU-{n}-{i}", "qty": i + 1, "lot": f"LOT-{n * 31 + i * 7:06d}",
                       "note": "standard packaging, no gift wrap"} for i in range(6)]}


def items_of(order_id: str) -> list[str]:
    return [value for item in order_record(order_id)["items"] for value in (item["sku"], item["lot"])]


def answer_for(order_id: str, values: Sequence[str]) -> str:
    return f"{order_id}: " + ", ".join(f"{sku} ({lot})" for sku, lot in zip(values[::2], values[1::2])) + "."


@tool
def get_order(order_id: str) -> str:
    """Look an order up by id."""
    return json.dumps(order_record(order_id))


@tool
def get_shipping(order_id: str) -> str:
    """Shipping status of an order."""
    return json.dumps({"order_id": order_id, "carrier": "UPS", "tracking": f"1Z{order_id[-4:]}9999"})


def note_of(messages: Sequence[BaseMessage]) -> str:
    return next((m.text for m in messages if m.additional_kwargs.get("lc_source") == NOTE_SOURCE_TAG), "")


def first_order_entry(messages: Sequence[BaseMessage]) -> str:
    """The note's first entry for an order lookup (`#17 get_order(ORD-4103): lot: ...`), or ''."""
    return next((line for line in note_of(messages).splitlines() if re.match(r"#\d+ get_order\(", line)), "")


class ReadingModel(ScriptedToolChatModel):
    """`QUESTION` -> `recall` with the reference of the note's first order entry; a `recall`
    result -> the items read from it; any other question -> look the order up. `then`, if set,
    replies instead."""

    then: Any = None

    def _generate(self, messages: list[BaseMessage], stop: object = None, run_manager: object = None,
                  **kwargs: object) -> ChatResult:
        self.received.append(list(messages))
        reply = self.then(messages) if self.then is not None else self.reply(messages)
        return ChatResult(generations=[ChatGeneration(message=reply)])

    def reply(self, messages: list[BaseMessage]) -> AIMessage:
        last = messages[-1]
        asked = next(m.text for m in reversed(messages)
                     if isinstance(m, HumanMessage) and m.additional_kwargs.get("lc_source") != NOTE_SOURCE_TAG)
        if isinstance(last, ToolMessage) and last.name == "recall" and asked == QUESTION:
            order = re.search(r'"order_id": "(ORD-\d+)"', last.text)
            items = re.findall(r'"sku": "(SKU-[\d-]+)", "qty": \d+, "lot": "(LOT-\d+)"', last.text)
            return AIMessage(answer_for(order.group(1), [v for i in items for v in i]) if order else "Not found.")
        if isinstance(last, HumanMessage) and asked == QUESTION:
            entry = first_order_entry(messages)
            call = {"id": f"recall_{len(self.received)}", "name": "recall",
                    "args": {"reference": entry.split()[0] if entry else "get_order"}}
            return AIMessage("", tool_calls=[call])
        if isinstance(last, HumanMessage):
            oid, t = re.search(r"ORD-\d+", asked).group(), len(self.received)  # type: ignore[union-attr]
            return AIMessage("", tool_calls=[{"id": f"c{t}_a", "name": "get_order", "args": {"order_id": oid}},
                                             {"id": f"c{t}_b", "name": "get_shipping", "args": {"order_id": oid}}])
        return AIMessage("Done." if isinstance(last, ToolMessage) and last.name == "recall" else "It is shipped.")


def build(middleware: DiscourseCompactionMiddleware) -> tuple[ReadingModel, object]:
    model = ReadingModel(messages=iter(()))
    agent = create_agent(model, tools=[get_order, get_shipping], system_prompt=SYSTEM, middleware=[middleware],
                         checkpointer=InMemorySaver())
    return model, agent


def turns(agent: object, config: dict, n: int = TURNS) -> None:
    for t in range(n):
        agent.invoke({"messages": [HumanMessage(f"Turn {t}: what happened to ORD-{4100 + t}?")]}, config)


def text_of(messages: Sequence[BaseMessage]) -> str:
    return "\n".join(m.text + json.dumps(getattr(m, "tool_calls", [])) for m in messages)


def test_the_agent_recovers_a_value_only_the_record_pointed_to(caplog: pytest.LogCaptureFixture) -> None:
    middleware = DiscourseCompactionMiddleware(keep=("tokens", BUDGET), recall=True)
    model, agent = build(middleware)
    config = {"configurable": {"thread_id": "recall-1"}}
    with caplog.at_level(logging.WARNING, logger="langchain_discourse_memory.middleware"):
        turns(agent, config)
        asked = len(model.received)
        result = agent.invoke({"messages": [HumanMessage(QUESTION)]}, config)
    assert caplog.text == ""  # the middleware never had to give up
    state = result["messages"]
    question_request, after_recall = model.received[asked], model.received[-1]
    # The note names the order's tool result, and the model recalled that reference ...
    entry = first_order_entry(question_request)
    order_id = re.match(r"#\d+ get_order\((ORD-\d+)\)", entry).group(1)  # type: ignore[union-attr]
    call = state[-3].tool_calls[0]
    assert call["name"] == "recall" and call["args"] == {"reference": entry.split()[0]}
    assert "recall #N" in note_of(question_request)  # the note says how
    # ... every item is in the history; some values are not in what the model was shown.
    values = items_of(order_id)
    assert all(v in text_of(state[:-3]) for v in values)
    missing = [v for v in values if v not in text_of(question_request)]
    assert missing, "the test needs values that only the record points to"
    recalled = state[-2]
    assert isinstance(recalled, ToolMessage) and recalled.tool_call_id == call["id"] and recalled.status == "success"
    assert recalled.artifact == {"found": True, "messages": [int(entry.split()[0][1:])]}
    assert all(v in recalled.text for v in missing)
    assert state[-1].content == answer_for(order_id, values)
    # Every request fits, nothing orphaned, every call answered; the recall result is in the
    # last one, with its call, and is not recorded again while it is shown.
    assert check_agent_requests(model.received, system=SYSTEM, budget=BUDGET, count_tokens=COUNT) >= 3
    assert [m.tool_call_id for m in after_recall if isinstance(m, ToolMessage)][-1] == call["id"]
    assert all(v in after_recall[-1].text and v not in note_of(after_recall) for v in values)
    source = int(call["args"]["reference"][1:])
    units = [u for u in middleware.last_view.compaction.report.units if u.message == source]
    assert units and all(u.decision == "deduplicated" for u in units)  # the shown copy is the recalled one


def test_the_tool_is_registered_described_and_its_runtime_hidden() -> None:
    middleware = DiscourseCompactionMiddleware(keep=("tokens", BUDGET), recall=True)
    (recall,) = middleware.tools
    assert recall.name == "recall" and "\n" not in recall.description and "#12" in recall.description
    assert set(recall.tool_call_schema.model_json_schema()["properties"]) == {"reference", "max_tokens"}
    assert DiscourseCompactionMiddleware(keep=("tokens", BUDGET)).tools == []
    model, agent = build(DiscourseCompactionMiddleware(keep=("tokens", BUDGET)))
    turns(agent, {"configurable": {"thread_id": "no-recall"}})
    notes = [note_of(r) for r in model.received if note_of(r)]
    assert notes and not any("recall #" in n for n in notes)  # no tool, no references in the note


def scripted_recall(reference: str) -> list[AIMessage]:
    return [AIMessage("", tool_calls=[{"id": "r1", "name": "recall", "args": {"reference": reference}}]),
            AIMessage("Done.")]


def test_another_threads_reference_and_unknown_ones_get_a_clear_refusal() -> None:
    middleware = DiscourseCompactionMiddleware(keep=("tokens", BUDGET), recall=True)
    model, agent = build(middleware)
    turns(agent, {"configurable": {"thread_id": "A"}})
    tag = re.search(r"record ([0-9a-f]{8})", note_of(model.received[-1])).group(1)  # type: ignore[union-attr]
    other = {"configurable": {"thread_id": "B"}}
    turns(agent, other, 3)
    answers = {}
    for reference in (f"{tag}#2", "#999", "zzqx unobtainium"):
        model.then = lambda messages, r=reference: (
            scripted_recall(r)[0] if isinstance(messages[-1], HumanMessage) else AIMessage("Done."))
        state = agent.invoke({"messages": [HumanMessage("Recall something.")]}, other)["messages"]
        assert isinstance(state[-2], ToolMessage) and state[-2].tool_call_id == "r1"
        answers[reference] = state[-2]
    assert f"record {tag} is not from this conversation" in answers[f"{tag}#2"].text
    assert "no message #999" in answers["#999"].text
    assert all(not m.artifact["found"] for m in answers.values())
    a_history = text_of(agent.get_state({"configurable": {"thread_id": "A"}}).values["messages"])
    assert "ORD-4107" in a_history and all("ORD-4107" not in m.text for m in answers.values())


def test_without_a_view_the_thread_state_answers() -> None:
    # Never compacted (the trigger is never met): the tool resolves against the state's messages.
    middleware = DiscourseCompactionMiddleware(trigger=("tokens", 10**6), keep=("tokens", BUDGET), recall=True)
    model, agent = build(middleware)
    config = {"configurable": {"thread_id": "fresh"}}
    turns(agent, config, 2)
    model.then = lambda messages: (
        scripted_recall("#2")[0] if isinstance(messages[-1], HumanMessage) else AIMessage("Done."))
    state = agent.invoke({"messages": [HumanMessage("Recall #2.")]}, config)["messages"]
    assert middleware.last_view is None
    assert state[-2].artifact == {"found": True, "messages": [2]}
    assert state[-2].content == [{"type": "text", "text": "#2 tool (get_order):\n"},
                                 {"type": "text", "text": json.dumps(order_record("ORD-4100"))}]


def test_async_loop_recovers_the_value_too() -> None:
    middleware = DiscourseCompactionMiddleware(keep=("tokens", BUDGET), recall=True)
    model, agent = build(middleware)
    config = {"configurable": {"thread_id": "async"}}

    async def run() -> list[BaseMessage]:
        for t in range(TURNS):
            await agent.ainvoke({"messages": [HumanMessage(f"Turn {t}: what happened to ORD-{4100 + t}?")]}, config)
        return (await agent.ainvoke({"messages": [HumanMessage(QUESTION)]}, config))["messages"]

    state = asyncio.run(run())
    order_id = re.search(r'"order_id": "(ORD-\d+)"', state[-2].text).group(1)  # type: ignore[union-attr]
    assert state[-2].name == "recall" and state[-1].content == answer_for(order_id, items_of(order_id))
    check_agent_requests(model.received, system=SYSTEM, budget=BUDGET, count_tokens=COUNT)

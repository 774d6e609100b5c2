"""A small ``create_agent`` application persisted by langgraph-checkpoint-redis's
``RedisSaver``, used by ``test_redis_checkpointer.py`` in its own process and run as a
second process (``python checkpointer_app.py next-turn URL THREAD_ID TURN BUDGET``).

The agent is the order desk of ``integrations/langchain/tests/integration_tests/
test_agent_loop.py``: two tools, a scripted model that records every input it gets
(``langchain_discourse_memory.testing.ScriptedToolChatModel``), and
``DiscourseCompactionMiddleware(keep=("tokens", budget))``. Each turn is a question, a model call asking for both tools, the two tool results and an answer.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    messages_to_dict,
)
from langchain_core.tools import tool
from langchain_discourse_memory import DiscourseCompactionMiddleware
from langchain_discourse_memory.testing import ScriptedToolChatModel
from langgraph.checkpoint.redis import RedisSaver

SYSTEM = "You are the order desk. Use tools to look orders up."
MESSAGES_PER_TURN = 5  # human, AI (2 tool calls), 2 tool results, AI answer


def order_record(order_id: str) -> dict[str, Any]:
    n = int(order_id.split("-")[1])
    return {
        "order_id": order_id,
        "customer": f"cust_{n * 7:05d}",
        "status": "shipped",
        "total": f"${100 + n}.{n % 100:02d}",
        "placed": f"2024-03-{1 + n % 28:02d}",
        "items": [{"sku": f"SKU-{n}-{i}", "qty": i + 1, "note": "standard packaging, no gift wrap"} for i in range(6)],
    }


def shipping_record(order_id: str) -> dict[str, Any]:
    return {"order_id": order_id, "carrier": "UPS", "tracking": f"1Z{order_id[-4:]}9999", "eta": "2024-04-02"}


@tool
def get_order(order_id: str) -> str:
    """Look an order up by id."""
    return json.dumps(order_record(order_id))


@tool
def get_shipping(order_id: str) -> str:
    """Shipping status of an order."""
    return json.dumps(shipping_record(order_id))


def order_id(t: int) -> str:
    return f"ORD-{4100 + t}"


def question(t: int) -> str:
    return f"Turn {t}: what happened to {order_id(t)}?"


def script_for_turn(t: int) -> list[AIMessage]:
    oid = order_id(t)
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


def scripted_model(turns: Sequence[int]) -> ScriptedToolChatModel:
    return ScriptedToolChatModel(messages=iter([m for t in turns for m in script_for_turn(t)]))


@contextmanager
def redis_saver(url: str) -> Iterator[RedisSaver]:
    """A ``RedisSaver`` with its own client (closed on exit), indexes created."""
    with RedisSaver.from_conn_string(url) as saver:
        saver.setup()
        yield saver


def build_agent(model: Any, checkpointer: Any, budget: int) -> Any:
    return create_agent(
        model,
        tools=[get_order, get_shipping],
        system_prompt=SYSTEM,
        middleware=[DiscourseCompactionMiddleware(keep=("tokens", budget))],
        checkpointer=checkpointer,
    )


def config(thread_id: str, checkpoint_id: str | None = None) -> dict[str, Any]:
    configurable = {"thread_id": thread_id}
    if checkpoint_id is not None:
        configurable["checkpoint_id"] = checkpoint_id
    return {"configurable": configurable}


def run_turn(agent: Any, thread_id: str, t: int, checkpoint_id: str | None = None) -> list[BaseMessage]:
    """One user turn; with ``checkpoint_id`` it continues from that checkpoint (a fork)."""
    return agent.invoke({"messages": [HumanMessage(question(t))]}, config(thread_id, checkpoint_id))["messages"]


def main(argv: list[str]) -> None:
    command = argv[0]
    if command != "next-turn":
        raise SystemExit(f"unknown command {command!r}")
    url, thread_id, t, budget = argv[1], argv[2], int(argv[3]), int(argv[4])
    model = scripted_model([t])
    with redis_saver(url) as saver:
        agent = build_agent(model, saver, budget)
        before = agent.get_state(config(thread_id))
        run_turn(agent, thread_id, t)
        after = agent.get_state(config(thread_id)).values["messages"]
    print(json.dumps({
        "resumed_checkpoint_id": before.config["configurable"]["checkpoint_id"],
        "before": messages_to_dict(before.values["messages"]),
        "received": [messages_to_dict(inputs) for inputs in model.received],
        "after": messages_to_dict(after),
    }))


if __name__ == "__main__":
    main(sys.argv[1:])

"""A LangChain agent whose model view is compacted, with no LLM and no API key.

Run (from the repository root, after `pip install -e . -e "integrations/langchain[agents]"`):

    python examples/langchain_agent.py

A real `langchain.agents.create_agent` loop with two tools, a checkpointer and
`DiscourseCompactionMiddleware`. The chat model is LangChain's
`GenericFakeChatModel` following a script (`langchain_discourse_memory.testing.
ScriptedToolChatModel` adds `bind_tools`), so
the example runs offline. Each turn the agent looks an order up and answers; the
history soon outgrows the 700-token budget. The script prints, per model call,
how many tokens the agent state holds and how many the model was sent, then the
record note of the last call. The checkpointed state keeps every message.
"""

from __future__ import annotations

import json
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langchain_discourse_memory import DiscourseCompactionMiddleware, count_tokens
from langchain_discourse_memory.testing import ScriptedToolChatModel
from langgraph.checkpoint.memory import InMemorySaver

BUDGET = 700
TURNS = 6


def order(order_id: str) -> dict[str, Any]:
    n = int(order_id.rsplit("-", 1)[1])
    return {
        "order_id": order_id,
        "customer": f"cust_{n:05d}",
        "total": f"${40 + n % 60}.{n % 100:02d}",
        "placed": f"2024-06-{1 + n % 28:02d}",
        "lines": [{"sku": f"SKU-{n}-{i}", "qty": 1 + i, "warehouse": "Leipzig"} for i in range(5)],
    }


@tool
def get_order(order_id: str) -> str:
    """Look an order up by its id."""
    return json.dumps(order(order_id))


@tool
def refund(order_id: str, amount: str) -> str:
    """Refund an amount on an order."""
    return json.dumps({"order_id": order_id, "refunded": amount, "refund_id": f"RF-{order_id[-4:]}"})


def script() -> list[AIMessage]:
    steps: list[AIMessage] = []
    for t in range(TURNS):
        oid = f"ORD-{5200 + t}"
        steps.append(AIMessage("", tool_calls=[{"id": f"c{t}a", "name": "get_order", "args": {"order_id": oid}}]))
        steps.append(
            AIMessage(
                "",
                tool_calls=[
                    {"id": f"c{t}b", "name": "refund", "args": {"order_id": oid, "amount": order(oid)["total"]}}
                ],
            )
        )
        steps.append(AIMessage(f"Refunded {order(oid)['total']} on {oid}."))
    return steps


def main() -> dict[str, Any]:
    count = count_tokens  # offline cl100k_base, the middleware's default
    model = ScriptedToolChatModel(messages=iter(script()))
    agent = create_agent(
        model,
        tools=[get_order, refund],
        system_prompt="You are the refunds desk. Look orders up before refunding.",
        middleware=[DiscourseCompactionMiddleware(keep=("tokens", BUDGET))],
        checkpointer=InMemorySaver(),
    )
    config = {"configurable": {"thread_id": "example"}}
    for t in range(TURNS):
        agent.invoke({"messages": [HumanMessage(f"Please refund order ORD-{5200 + t} in full.")]}, config)
    state = agent.get_state(config).values["messages"]

    print(f"budget: {BUDGET} tokens for the conversation (the system prompt is sent as is)")
    print("call  state: messages  tokens  |  sent: messages  tokens")
    position = {m.id: i for i, m in enumerate(state)}
    for i, sent in enumerate(model.received):
        conversation = sent[1:]  # sent[0] is the system prompt
        so_far = state[: position[conversation[-1].id] + 1]  # the newest message is sent verbatim, same id
        print(f"{i:4d}  {len(so_far):15d}  {count(so_far):6d}  |  {len(conversation):14d}  {count(conversation):6d}")
    note = next((m for m in model.received[-1] if m.additional_kwargs.get("lc_source") == "discourse_memory"), None)
    print(f"\nstate: {len(state)} messages, {count(state)} tokens (nothing removed)")
    print("record note sent with the last call:\n" + (str(note.content) if note else "(none)"))
    return {"state": state, "received": model.received, "budget": BUDGET, "note": note}


if __name__ == "__main__":
    main()

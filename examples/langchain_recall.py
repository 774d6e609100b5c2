"""A LangChain agent that asks for what its compacted view left out, with no LLM and no API key.

Run (from the repository root, after `pip install -e . -e "integrations/langchain[agents]"`):

    python examples/langchain_recall.py

A real `create_agent` loop with `DiscourseCompactionMiddleware(recall=True)`, which registers a
`recall` tool. The chat model is scripted but reads its request as a model would: for an order
question it looks the order up; asked for the lines of the first order the record note names, it
takes that entry's reference (`#12 get_order(ORD-5202): ...`), calls `recall` with it and answers
from the tool result, which holds the order verbatim, values the view had left out included.
The script prints the note, the call and the answer, and which of the answer's values the
model's view did not show.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langchain_discourse_memory import DiscourseCompactionMiddleware
from langchain_discourse_memory.testing import ScriptedToolChatModel
from langgraph.checkpoint.memory import InMemorySaver

BUDGET = 700
TURNS = 6
QUESTION = "List the lines of the first order your record names."


def order(order_id: str) -> dict[str, Any]:
    n = int(order_id.rsplit("-", 1)[1])
    return {"order_id": order_id, "customer": f"cust_{n:05d}", "total": f"${40 + n % 60}.{n % 100:02d}",
            "lines": [{"sku": f"SKU-{n}-{i}", "qty": 1 + i, "batch": f"B{n * 7 + i:06d}"} for i in range(6)]}


@tool
def get_order(order_id: str) -> str:
    """Look an order up by its id."""
    return json.dumps(order(order_id))


def note_of(messages: Sequence[BaseMessage]) -> str:
    return next((m.text for m in messages if m.additional_kwargs.get("lc_source") == "discourse_memory"), "")


def lines_of(text: str) -> str:
    lines = re.findall(r'"sku": "(SKU-[\d-]+)", "qty": (\d+), "batch": "(B\d+)"', text)
    return "; ".join(f"{sku} x{qty} (batch {batch})" for sku, qty, batch in lines)


class ReadingModel(ScriptedToolChatModel):
    """Replies by reading the request (no script needed): see the module docstring."""

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None,
                  **kwargs: Any) -> ChatResult:
        self.received.append(list(messages))
        last = messages[-1]
        if isinstance(last, ToolMessage):
            text = lines_of(last.text) if last.name == "recall" else "Looked it up: it has shipped."
            reply = AIMessage(text or "I could not find it.")
        elif last.text == QUESTION:
            entry = next(line for line in note_of(messages).splitlines() if re.match(r"#\d+ get_order\(", line))
            reply = AIMessage("", tool_calls=[{"id": "recall_1", "name": "recall",
                                               "args": {"reference": entry.split()[0]}}])
        else:
            oid = re.search(r"ORD-\d+", last.text).group()  # type: ignore[union-attr]
            reply = AIMessage("", tool_calls=[{"id": f"c{len(self.received)}", "name": "get_order",
                                               "args": {"order_id": oid}}])
        return ChatResult(generations=[ChatGeneration(message=reply)])


def main() -> dict[str, Any]:
    model = ReadingModel(messages=iter(()))
    middleware = DiscourseCompactionMiddleware(keep=("tokens", BUDGET), recall=True)
    agent = create_agent(model, tools=[get_order], system_prompt="You are the order desk.",
                         middleware=[middleware], checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "desk-1"}}
    for t in range(TURNS):
        agent.invoke({"messages": [HumanMessage(f"Where is order ORD-{5200 + t}?")]}, config)
    asked = len(model.received)
    state = agent.invoke({"messages": [HumanMessage(QUESTION)]}, config)["messages"]
    seen = "\n".join(m.text + json.dumps(getattr(m, "tool_calls", [])) for m in model.received[asked])
    answer = state[-1].text
    unseen = [v for v in re.findall(r"SKU-[\d-]+|B\d{6}", answer) if v not in seen]
    print("record note the model got:\n" + note_of(model.received[asked]))
    print(f"\nthe model called recall({state[-3].tool_calls[0]['args']}) and answered:\n{answer}")
    print(f"\n{len(unseen)} of those values were not in its view: {', '.join(unseen)}")
    return {"state": state, "received": model.received, "asked": asked, "unseen": unseen, "budget": BUDGET}


if __name__ == "__main__":
    main()

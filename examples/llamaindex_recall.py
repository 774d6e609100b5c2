"""A LlamaIndex ``FunctionAgent`` that asks for what its compacted memory left out, offline.

Run (from the repository root, after `pip install -e . -e integrations/llamaindex`):

    python examples/llamaindex_recall.py

The memory is a ``DiscourseMemoryBuffer(recall=True)``; its ``as_recall_tool()`` is one of the
agent's tools. The mock LLM reads its request as a model would: for an order question it looks
the order up; asked for the lines of the first order the record note names, it takes that
entry's reference (``#6 lookup_order(ORD-5201): ...``), calls ``recall`` with it and answers from
the tool result, values the view had left out included. The ``Context`` is reused across runs
(the workflow then rebuilds the memory each run; the tool finds the live one in the context).
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool
from llama_index.core.workflow import Context
from llama_index.memory.discourse import DiscourseMemoryBuffer

TOKEN_LIMIT = 700
TURNS = 6
QUESTION = "List the lines of the first order your record names."


def lookup_order(order_id: str) -> str:
    """Look an order up by its id."""
    n = int(order_id.rsplit("-", 1)[1])
    return json.dumps({"order_id": order_id, "customer": f"cust_{n:05d}", "total": f"${40 + n % 60}.{n % 100:02d}",
                       "lines": [{"sku": f"SKU-{n}-{i}", "qty": 1 + i, "batch": f"B{n * 7 + i:06d}"} for i in range(6)]})


def lines_of(text: str) -> str:
    lines = re.findall(r'"sku": "(SKU-[\d-]+)", "qty": (\d+), "batch": "(B\d+)"', text)
    return "; ".join(f"{sku} x{qty} (batch {batch})" for sku, qty, batch in lines)


class ReadingLLM:
    """The mock LLM's ``response_generator``: replies by reading the request; keeps every input."""

    def __init__(self) -> None:
        self.inputs: list[list[ChatMessage]] = []

    def __call__(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.inputs.append(list(messages))
        last = messages[-1]
        if last.role == MessageRole.TOOL:
            called = {b.tool_call_id: b.tool_name for m in messages for b in m.blocks if isinstance(b, ToolCallBlock)}
            recalled = called.get(last.additional_kwargs.get("tool_call_id")) == "recall"
            return ChatMessage(role="assistant", content=lines_of(last.content or "") if recalled else "It has shipped.")
        if last.content == QUESTION:
            note = next(m.content for m in messages if (m.content or "").startswith("[discourse-memory record"))
            entry = next(line for line in note.splitlines() if re.match(r"#\d+ lookup_order\(", line))
            call = ToolCallBlock(tool_call_id="recall_1", tool_name="recall", tool_kwargs={"reference": entry.split()[0]})
        else:
            oid = re.search(r"ORD-\d+", last.content or "").group()  # type: ignore[union-attr]
            call = ToolCallBlock(tool_call_id=f"c{len(self.inputs)}", tool_name="lookup_order",
                                 tool_kwargs={"order_id": oid})
        return ChatMessage(role="assistant", blocks=[call])


async def run() -> dict[str, Any]:
    llm = ReadingLLM()
    memory = DiscourseMemoryBuffer.from_defaults(token_limit=TOKEN_LIMIT, recall=True)
    agent = FunctionAgent(tools=[FunctionTool.from_defaults(lookup_order), memory.as_recall_tool()],
                          llm=MockFunctionCallingLLM(response_generator=llm), system_prompt="You are the order desk.")
    ctx = Context(agent)
    for t in range(TURNS):
        await agent.run(user_msg=f"Where is order ORD-{5200 + t}?", ctx=ctx, memory=memory if t == 0 else None)
    asked = len(llm.inputs)
    answer = str(await agent.run(user_msg=QUESTION, ctx=ctx))
    seen = "\n".join(m.content or "" for m in llm.inputs[asked])
    unseen = [v for v in re.findall(r"SKU-[\d-]+|B\d{6}", answer) if v not in seen]
    return {"llm": llm, "asked": asked, "answer": answer, "unseen": unseen, "memory": await ctx.store.get("memory")}


def main() -> dict[str, Any]:
    out = asyncio.run(run())
    question, after = out["llm"].inputs[out["asked"]], out["llm"].inputs[out["asked"] + 1]
    note = next(m.content for m in question if (m.content or "").startswith("[discourse-memory record"))
    call = next(b for b in after[-2].blocks if isinstance(b, ToolCallBlock))
    print("record note the model got:\n" + note)
    print(f"\nthe model called recall({call.tool_kwargs}) and answered:\n{out['answer']}")
    print(f"\n{len(out['unseen'])} of those values were not in its view: {', '.join(out['unseen'])}")
    return out


if __name__ == "__main__":
    main()

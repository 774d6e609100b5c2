"""A LlamaIndex ``FunctionAgent`` with tools, on compacting memory, offline.

A scripted function-calling mock LLM (no API key) answers every user message by
calling two tools in parallel (parcel tracking and invoice lookup) and then
summing up their results. Over many turns the history outgrows the memory's
``TOKEN_LIMIT``; the ``DiscourseMemoryBuffer`` compacts it and keeps each
assistant tool call together with its tool results. The agent's context is then
saved with ``ctx.to_dict()``, restored with ``Context.from_dict`` and the
conversation goes on with the restored memory.

Run (from the repository root, after `pip install -e . -e integrations/llamaindex`):

    python examples/llamaindex_agent.py
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from typing import Any

from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool
from llama_index.core.workflow import Context
from llama_index.memory.discourse import DiscourseMemoryBuffer

TOKEN_LIMIT = 700
SYSTEM_PROMPT = "You are a parcel support agent. Use the tools, then answer briefly."


def track_parcel(parcel_id: str) -> str:
    """Current status and route of a parcel."""
    n = int(re.sub(r"\D", "", parcel_id) or 0)
    return (
        f"Parcel {parcel_id}: status IN_TRANSIT, last scan at Hub-{n % 97} on 2024-07-{1 + n % 28:02d} 14:{n % 60:02d}. "
        f"Route: Lisbon -> Madrid -> Lyon. Carrier reference CR{n * 13}. "
        "The parcel is moving on schedule; no customs hold is recorded for this shipment."
    )


def get_invoice(invoice_id: str) -> str:
    """Amount and payment state of an invoice."""
    n = int(re.sub(r"\D", "", invoice_id) or 0)
    return f"Invoice {invoice_id}: amount EUR {n % 500}.{n % 100:02d}, paid by card ending {1000 + n % 9000}."


def user_turn(i: int) -> str:
    return f"Where is parcel PKG-{5200 + i}, and was invoice INV-{61000 + 3 * i} paid? I need this for my records."


class ScriptedLLM:
    """The response script of the mock LLM; records every input it is given."""

    def __init__(self) -> None:
        self.inputs: list[list[ChatMessage]] = []
        self.calls = 0

    def __call__(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.inputs.append(list(messages))
        last = messages[-1]
        if last.role == MessageRole.TOOL:
            results = []
            for m in reversed(messages):
                if m.role != MessageRole.TOOL:
                    break
                results.append(m.content or "")
            return ChatMessage(role="assistant", content="Here is what I found. " + " ".join(reversed(results)))
        text = last.content or ""
        parcel = re.search(r"PKG-\d+", text)
        invoice = re.search(r"INV-\d+", text)
        calls = []
        if parcel:
            self.calls += 1
            calls.append(
                ToolCallBlock(
                    tool_call_id=f"call_{self.calls}",
                    tool_name="track_parcel",
                    tool_kwargs={"parcel_id": parcel.group()},
                )
            )
        if invoice:
            self.calls += 1
            calls.append(
                ToolCallBlock(
                    tool_call_id=f"call_{self.calls}",
                    tool_name="get_invoice",
                    tool_kwargs={"invoice_id": invoice.group()},
                )
            )
        if not calls:
            return ChatMessage(role="assistant", content="How can I help with your parcel?")
        return ChatMessage(role="assistant", blocks=[TextBlock(text="Let me look that up."), *calls])


def build_agent(script: ScriptedLLM) -> FunctionAgent:
    llm = MockFunctionCallingLLM(response_generator=script)
    tools = [FunctionTool.from_defaults(track_parcel), FunctionTool.from_defaults(get_invoice)]
    return FunctionAgent(tools=tools, llm=llm, system_prompt=SYSTEM_PROMPT)


async def run(turns: int = 20, token_limit: int = TOKEN_LIMIT) -> dict[str, Any]:
    """Talk to the agent, save and restore its context, talk again; report what was seen."""
    script = ScriptedLLM()
    agent = build_agent(script)
    memory = DiscourseMemoryBuffer.from_defaults(token_limit=token_limit)
    ctx = Context(agent)
    answers = []
    for i in range(turns):
        answers.append(str(await agent.run(user_msg=user_turn(i), ctx=ctx, memory=memory)))

    # When a Context is reused, the workflow rebuilds its state (this memory included,
    # since it is serialisable) at the start of each run: the live memory is the one
    # in the context's store, not the object first passed as memory=.
    live_memory = await ctx.store.get("memory")
    saved = json.dumps(ctx.to_dict())  # what an application would persist
    restored = Context.from_dict(agent, json.loads(saved))
    restored_memory = await restored.store.get("memory")
    same_history = [m.model_dump(mode="json") for m in restored_memory.get_all()] == [
        m.model_dump(mode="json") for m in live_memory.get_all()
    ]
    answers.append(str(await agent.run(user_msg=user_turn(turns), ctx=restored)))
    final_memory = await restored.store.get("memory")  # the run works on its own copy

    return {
        "turns": turns + 1,
        "token_limit": token_limit,
        "llm_calls": len(script.inputs),
        "stored_messages": len(final_memory.get_all()),
        "restored_memory_type": type(restored_memory).__name__,
        "restored_history_identical": same_history,
        "saved_context_bytes": len(saved),
        "last_answer": answers[-1],
        "script": script,
        "memory": final_memory,
    }


def main() -> None:
    summary = asyncio.run(run())
    summary.pop("script")
    summary.pop("memory")
    print(json.dumps(summary, indent=2))


if __name__ == "__main__":
    main()

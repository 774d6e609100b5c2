"""The ``recall`` tool in real ``FunctionAgent`` / ``ReActAgent`` loops, driven by a scripted LLM
that reads its request: asked for the items of the first order the record note names, it takes
that entry's reference (``#17 lookup_order(ORD-4103): ...``), calls ``recall`` and answers from
the tool result. The note cannot hold every value, so some are only in the history."""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import Sequence
from typing import Any

import pytest
from li_helpers import assert_tool_pairs, count, load_example, text_of, view_tokens
from llama_index.core.agent.workflow import FunctionAgent, ReActAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.memory import Memory
from llama_index.core.tools import FunctionTool
from llama_index.core.workflow import Context
from llama_index.memory.discourse import DiscourseMemoryBlock, DiscourseMemoryBuffer, recall_tool

LIMIT = 700
TURNS = 8
QUESTION = "List the items of the first order your record names."
SYSTEM = "You are the order desk. Use the tools."


def order_record(order_id: str) -> dict:
    n = int(order_id.split("-")[1])
    return {"order_id": order_id, "customer": f"cust_{n * 7:05d}", "total": f"${100 + n}.{n % 100:02d}",
            "items": [{"sku": f"SKU-{n}-{i}", "qty": i + 1, "lot": f"LOT-{n * 31 + i * 7:06d}"} for i in range(6)]}


def lookup_order(order_id: str) -> str:
    """Look an order up by id."""
    return json.dumps(order_record(order_id))


def items_of(order_id: str) -> list[str]:
    return [v for item in order_record(order_id)["items"] for v in (item["sku"], item["lot"])]


def answer_for(order_id: str, values: Sequence[str]) -> str:
    return f"{order_id}: " + ", ".join(f"{s} ({lot})" for s, lot in zip(values[::2], values[1::2])) + "."


def answer_from(text: str) -> str:
    order = re.search(r'"order_id": "(ORD-\d+)"', text)
    items = re.findall(r'"sku": "(SKU-[\d-]+)", "qty": \d+, "lot": "(LOT-\d+)"', text)
    return answer_for(order.group(1), [v for i in items for v in i]) if order else "Not found."


def any_entry(messages: Sequence[ChatMessage]) -> str:
    """The first record-note line, whatever it names."""
    for m in messages:
        for line in (m.content or "").splitlines():
            if re.match(r"#\d+ ", line):
                return line
    return ""


def first_entry(messages: Sequence[ChatMessage]) -> str:
    """The first record-note line naming an order lookup, wherever the note is (a message of
    its own, or inside ``Memory``'s ``<memory>`` system message)."""
    for m in messages:
        for line in (m.content or "").splitlines():
            if re.match(r"#\d+ (lookup_order\(|.*ORD-\d+)", line):
                return line
    return ""


def recall_ids(messages: Sequence[ChatMessage]) -> set[str]:
    return {b.tool_call_id for m in messages for b in m.blocks if isinstance(b, ToolCallBlock) and b.tool_name == "recall"}


class ReadingLLM:
    """``QUESTION`` -> ``recall`` with the reference of the note's first order entry; its result ->
    the items read from it; another question -> look the order up; a lookup result -> "Shipped."."""

    def __init__(self) -> None:
        self.inputs: list[list[ChatMessage]] = []

    def __call__(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.inputs.append(list(messages))
        last = messages[-1]
        if last.role == MessageRole.TOOL:
            if last.additional_kwargs.get("tool_call_id") in recall_ids(messages):
                return ChatMessage(role="assistant", content=answer_from(last.content or ""))
            return ChatMessage(role="assistant", content="Shipped.")
        n = len(self.inputs)
        if last.content == QUESTION:
            call = ToolCallBlock(tool_call_id=f"r{n}", tool_name="recall",
                                 tool_kwargs={"reference": first_entry(messages).split(" ")[0] or "lookup_order"})
            return ChatMessage(role="assistant", blocks=[call])
        order = re.search(r"ORD-\d+", last.content or "")
        call = ToolCallBlock(tool_call_id=f"c{n}", tool_name="lookup_order",
                             tool_kwargs={"order_id": order.group() if order else "ORD-0"})
        return ChatMessage(role="assistant", blocks=[TextBlock(text="Looking it up."), call])


def turn(t: int) -> str:
    return f"Turn {t}: what happened to ORD-{4100 + t}?"


def function_agent(llm: ReadingLLM, *tools: FunctionTool) -> FunctionAgent:
    return FunctionAgent(tools=[FunctionTool.from_defaults(lookup_order), *tools],
                         llm=MockFunctionCallingLLM(response_generator=llm), system_prompt=SYSTEM)


def check_answer(llm: ReadingLLM, asked: int, answer: str) -> tuple[str, list[str]]:
    """The request that got ``QUESTION`` did not show some values of the order its note names
    first; the answer, read from the recall result, has them all. Returns the entry and those."""
    question, after = llm.inputs[asked], llm.inputs[asked + 1]
    entry = first_entry(question)
    order_id = re.search(r"ORD-\d+", entry).group()  # type: ignore[union-attr]
    assert "recall #N" in "\n".join(m.content or "" for m in question)  # the note says how
    values = items_of(order_id)
    missing = [v for v in values if v not in "\n".join(text_of(m) for m in question)]
    assert missing, "the test needs values that only the record points to"
    call, result = after[-2], after[-1]
    assert [(b.tool_name, b.tool_kwargs) for b in call.blocks if isinstance(b, ToolCallBlock)] == [
        ("recall", {"reference": entry.split(" ")[0]})]
    assert result.role == MessageRole.TOOL and all(v in (result.content or "") for v in missing)
    assert "not" not in (result.content or "")[:40]  # a recall, not a refusal
    assert answer == answer_for(order_id, values)
    return entry, missing


def test_function_agent_recovers_values_only_the_record_pointed_to():
    llm = ReadingLLM()
    memory = DiscourseMemoryBuffer.from_defaults(token_limit=LIMIT, recall=True)
    agent = function_agent(llm, memory.as_recall_tool())

    async def go() -> tuple[int, str, DiscourseMemoryBuffer]:
        ctx = Context(agent)  # reused: the workflow rebuilds the memory each run, the tool finds the live one
        for t in range(TURNS):
            await agent.run(user_msg=turn(t), ctx=ctx, memory=memory if t == 0 else None)
        asked = len(llm.inputs)
        answer = str(await agent.run(user_msg=QUESTION, ctx=ctx))
        await agent.run(user_msg=turn(TURNS), ctx=ctx)  # the next run: the recall result is in the memory
        return asked, answer, await ctx.store.get("memory")

    asked, answer, live = asyncio.run(go())
    entry, missing = check_answer(llm, asked, answer)
    # Every request: the system prompt, then the memory's view (within the limit: the first call
    # of each run has no scratchpad yet), then the scratchpad; every call paired with its result.
    for request in llm.inputs:
        assert request[0].role == MessageRole.SYSTEM and request[0].content == SYSTEM
        assert_tool_pairs(request[1:])
    first_calls = [r for r in llm.inputs if r[-1].role == MessageRole.USER]
    assert len(first_calls) == TURNS + 2 and all(view_tokens(r[1:]) <= LIMIT for r in first_calls)
    # From the next run on, the recall call and its result are messages of the memory, counted in
    # its budget like any other (the views above fit) and kept paired (assert_tool_pairs).
    stored = live.get_all()
    assert stored[-6].role == MessageRole.TOOL and stored[-6].additional_kwargs["tool_call_id"] in recall_ids(stored)
    assert all(v in stored[-6].content for v in missing) and live.last_compaction is not None


def test_react_agent_recalls_through_the_same_tool():
    # ReActAgent keeps only user and assistant text in memory: a long support chat, prefilled.
    memory = DiscourseMemoryBuffer.from_defaults(token_limit=400, recall=True)
    for t in range(10):
        oid = f"ORD-{4100 + t}"
        memory.put(ChatMessage(role="user", content=turn(t)))
        memory.put(ChatMessage(role="assistant", content=f"Order {oid}: {lookup_order(oid)}"))
    inputs: list[list[ChatMessage]] = []

    def react(messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        inputs.append(list(messages))
        last = messages[-1].content or ""
        if "Observation:" in last:
            return ChatMessage(role="assistant", content=f"Thought: I can answer.\nAnswer: {answer_from(last)}")
        reference = any_entry(messages).split(" ")[0]
        return ChatMessage(role="assistant", content="Thought: I need the full message.\nAction: recall\n"
                                                     f'Action Input: {{"reference": "{reference}"}}')

    agent = ReActAgent(tools=[memory.as_recall_tool()], llm=MockFunctionCallingLLM(response_generator=react))
    async def go() -> str:
        return str(await agent.run(user_msg=QUESTION, memory=memory))

    history = memory.get_all()
    answer = asyncio.run(go())
    entry = any_entry(inputs[0])
    # the order of the message the entry names (its id may be shown in the view already)
    order_id = re.search(r"ORD-\d+", history[int(entry.split(" ")[0][1:])].content or "").group()  # type: ignore[union-attr]
    missing = [v for v in items_of(order_id) if v not in "\n".join(text_of(m) for m in inputs[0])]
    assert missing and all(v in (inputs[1][-1].content or "") for v in missing)
    assert answer.endswith(answer_for(order_id, items_of(order_id)))


def test_memory_with_the_block_recalls_through_the_tool():
    llm = ReadingLLM()
    block = DiscourseMemoryBlock(token_limit=300, recall=True)
    memory = Memory.from_defaults(session_id="s1", token_limit=900, chat_history_token_ratio=0.4,
                                  token_flush_size=200, memory_blocks=[block])
    agent = function_agent(llm, recall_tool())  # bound to nothing: it finds the block in ctx's Memory

    async def go() -> tuple[int, str]:
        for t in range(TURNS):
            await agent.run(user_msg=turn(t), memory=memory)
        asked = len(llm.inputs)
        return asked, str(await agent.run(user_msg=QUESTION, memory=memory))

    asked, answer = asyncio.run(go())
    assert block.messages, "Memory flushed messages into the block"
    entry, _ = check_answer(llm, asked, answer)
    block_text = next(m.content for m in llm.inputs[asked] if "<DiscourseMemory>" in (m.content or ""))
    assert entry in block_text  # the note came from the block
    assert block.recalled(entry.split(" ")[0]).found


def test_the_tool_is_described_in_one_line_and_hides_the_context():
    tool = DiscourseMemoryBuffer.from_defaults(recall=True).as_recall_tool(max_tokens=300)
    assert tool.metadata.name == "recall" and "\n" not in tool.metadata.description
    assert "#12" in tool.metadata.description and tool.requires_context
    schema = tool.metadata.get_parameters_dict()
    assert set(schema["properties"]) == {"reference", "max_tokens"} and schema["properties"]["max_tokens"]["default"] == 300


class _Store:
    def __init__(self, memory: Any) -> None:
        self.memory = memory

    async def get(self, key: str, default: Any = None) -> Any:
        return self.memory if key == "memory" else default


class _Ctx:  # what the tool reads of a workflow Context
    def __init__(self, memory: Any) -> None:
        self.store = _Store(memory)


def long_buffer(**kwargs: Any) -> DiscourseMemoryBuffer:
    memory = DiscourseMemoryBuffer.from_defaults(token_limit=300, recall=True, **kwargs)
    for t in range(8):
        memory.put(ChatMessage(role="user", content=turn(t)))
        memory.put(ChatMessage(role="assistant", content=lookup_order(f"ORD-{4100 + t}")))
    return memory


def test_buffer_recalled_resolves_against_its_last_view_then_the_whole_history():
    memory = long_buffer()
    newest = len(memory.get_all()) - 1
    assert newest in memory.recalled("ORD-4107 cust_28749").messages  # no view yet: the whole history
    view = memory.get()
    assert "recall #N" in view[0].content and "ORD-4107" in text_of(view[-1])
    found = memory.recalled("ORD-4107 cust_28749")
    assert newest not in found.messages  # the view shows it: a query searches what it left out
    capped = memory.recalled("#0-#15", max_tokens=10**6)
    assert capped == memory.last_compaction.recall("#0-#15", 150) and count(capped.text) < 10**4
    tag = re.search(r"record ([0-9a-f]{8})", view[0].content).group(1)  # type: ignore[union-attr]
    memory.reset()
    memory.put(ChatMessage(role="user", content="A new conversation."))
    stale = memory.recalled(f"{tag}#3")
    assert not stale.found and f"record {tag} is not from this conversation" in stale.text


@pytest.mark.parametrize("live", [True, False])
def test_the_tool_prefers_the_live_memory_of_the_context(live: bool):
    bound, other = long_buffer(), long_buffer(chat_store_key="other")
    other.put(ChatMessage(role="user", content="Only the live memory has this: door code 4471."))
    tool = recall_tool(bound)
    ctx = _Ctx(other if live else None)
    text = asyncio.run(tool.acall(ctx=ctx, reference="#16")).content
    assert ("door code 4471" in text) == live
    assert DiscourseMemoryBuffer.from_dict(json.loads(json.dumps(bound.to_dict()))).recall
    assert "not a discourse memory" in asyncio.run(recall_tool().acall(ctx=_Ctx(None), reference="#1")).content


def test_the_recall_example_runs_and_recovers_what_the_view_left_out(capsys):
    out = load_example("llamaindex_recall.py").main()
    assert out["unseen"] and len(out["answer"].split("; ")) == 6
    for request in out["llm"].inputs:
        assert_tool_pairs(request[1:])
    assert f"{len(out['unseen'])} of those values were not in its view" in capsys.readouterr().out

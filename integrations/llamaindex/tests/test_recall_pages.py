"""Recall pages in a real ``FunctionAgent`` loop, driven by a scripted LLM that reads its request.

The agent reads a 20k-token file; the memory's view keeps a little of it and names its
reference. Asked for a value near the file's end, the LLM recalls that reference and follows
each page's ``(continues: #N@…)`` until the value is there; asked for the file's last lines, it
reads the line count off the first page's header and recalls them by number (``#N:L1591-1600``)."""

from __future__ import annotations

import asyncio
import re
from collections.abc import Sequence
from typing import Any

from li_helpers import assert_tool_pairs, count, text_of, view_tokens
from llama_index.core.agent.workflow import FunctionAgent
from llama_index.core.base.llms.types import ChatMessage, MessageRole, ToolCallBlock
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.tools import FunctionTool
from llama_index.core.workflow import Context
from llama_index.memory.discourse import DiscourseMemoryBuffer

LIMIT = 4000
LINES = 1600
ASKED = 1440  # near the end, before the tail a view keeps of a long output
SYSTEM = "You are a coding agent. Use the tools."
VALUE_QUESTION = "Which config is not owned by ops, and what is its token?"
TAIL_QUESTION = "What are the last ten lines of big.py?"


def token_at(i: int) -> str:
    return f"tok-{i * 7919 % 10**8:08x}"


def big_file() -> str:
    """One config a line; the one at :data:`ASKED` alone is not owned by ops."""
    return "\n".join(f"{i:04d}  config_{i} = {{'host': 'db-{i * 7 % 101}.internal', 'port': {5000 + i}, "
                     f"'owner': '{'billing' if i == ASKED else 'ops'}', 'token': '{token_at(i)}'}}"
                     for i in range(1, LINES + 1))


def read_file(path: str) -> str:
    """Read a file of the repository."""
    return big_file()


class PagingLLM:
    """A question -> recall the file read's reference (the mark ``…#2`` its cut text carries);
    a page -> the answer if it is there, else the next page, or for the tail the lines its
    header counts. It keeps the question as a model keeps its task."""

    def __init__(self) -> None:
        self.inputs: list[list[ChatMessage]] = []
        self.question = ""

    def call(self, name: str, **kwargs: Any) -> ChatMessage:
        block = ToolCallBlock(tool_call_id=f"c{len(self.inputs)}", tool_name=name, tool_kwargs=kwargs)
        return ChatMessage(role="assistant", blocks=[block])

    def __call__(self, messages: Sequence[ChatMessage], **kwargs: Any) -> ChatMessage:
        self.inputs.append(list(messages))
        last = messages[-1]
        if last.role == MessageRole.USER and (last.content or "").startswith("Read"):
            return self.call("read_file", path="big.py")
        if last.role == MessageRole.USER:
            self.question = last.content or ""
            mark = re.search(r"…(#\d+)", "\n".join(m.content or "" for m in messages))
            assert mark, "the view names the file read's reference"
            return self.call("recall", reference=mark.group(1))
        page = last.content or ""
        if not page.startswith("#"):  # the file read itself
            return ChatMessage(role="assistant", content="Read it.")
        if self.question == VALUE_QUESTION:
            found = re.search(r"(config_\d+) = .*'owner': '(?!ops)\w+', 'token': '(tok-\w+)'", page)
            if found:
                return ChatMessage(role="assistant", content=f"{found.group(1)}: {found.group(2)}")
            return self.call("recall", reference=re.search(r"\(continues: (\S+?)\)$", page).group(1))  # type: ignore[union-attr]
        header = page.split("\n", 1)[0]
        if header.endswith(f"-{LINES} of {LINES}]:"):
            return ChatMessage(role="assistant", content=page.split("\n", 1)[1])
        n, total = re.match(r"(#\d+) .*\[lines \d+-\d+ of (\d+)\]:", header).groups()  # type: ignore[union-attr]
        return self.call("recall", reference=f"{n}:L{int(total) - 9}-{total}")


def run(question: str) -> tuple[PagingLLM, str, list[ChatMessage]]:
    llm = PagingLLM()
    memory = DiscourseMemoryBuffer.from_defaults(token_limit=LIMIT, recall=True)
    agent = FunctionAgent(tools=[FunctionTool.from_defaults(read_file), memory.as_recall_tool()],
                          llm=MockFunctionCallingLLM(response_generator=llm), system_prompt=SYSTEM)

    async def go() -> str:
        ctx = Context(agent)
        await agent.run(user_msg="Read big.py.", ctx=ctx, memory=memory, max_iterations=100)  # kept in ctx
        return str(await agent.run(user_msg=question, ctx=ctx, max_iterations=100))

    answer = asyncio.run(go())
    for request in llm.inputs:
        assert request[0].role == MessageRole.SYSTEM and request[0].content == SYSTEM
        assert_tool_pairs(request[1:])
    first_calls = [r for r in llm.inputs if r[-1].role == MessageRole.USER]
    assert all(view_tokens(r[1:]) <= LIMIT for r in first_calls)
    return llm, answer, llm.inputs[-1]


def recalls(messages: Sequence[ChatMessage]) -> list[tuple[str, str]]:
    """``(reference, result)`` of each recall call in ``messages``, in order."""
    calls = {b.tool_call_id: b.tool_kwargs["reference"] for m in messages for b in m.blocks
             if isinstance(b, ToolCallBlock) and b.tool_name == "recall"}
    return [(calls[m.additional_kwargs["tool_call_id"]], m.content or "") for m in messages
            if m.role == MessageRole.TOOL and m.additional_kwargs.get("tool_call_id") in calls]


def test_function_agent_pages_through_a_20k_token_output_to_a_value_near_its_end():
    assert count(big_file()) > 20_000
    llm, answer, last = run(VALUE_QUESTION)
    asked = next(r for r in llm.inputs if r[-1].content == VALUE_QUESTION)
    assert token_at(ASKED) not in "\n".join(text_of(m) for m in asked)  # the view did not show it
    got = recalls(last)
    assert len(got) > 15 and all(ref.startswith("#") for ref, _ in got)
    assert all(ref == re.search(r"\(continues: (\S+?)\)$", prev).group(1)  # type: ignore[union-attr]
               for (ref, _), (_, prev) in zip(got[1:], got))  # each page named the next
    bodies = [page.split("\n", 1)[1].rsplit("\n", 1)[0] for _, page in got]
    assert big_file().startswith("".join(bodies)) and len("".join(bodies)) > 0.85 * len(big_file())
    assert answer.endswith(f"config_{ASKED}: {token_at(ASKED)}")


def test_function_agent_recalls_the_tail_of_a_long_file_read_by_its_line_numbers():
    llm, answer, last = run(TAIL_QUESTION)
    (first_ref, first), (tail_ref, tail) = recalls(last)
    assert re.search(rf"\[lines 1-\d+ of {LINES}\]:", first.split("\n", 1)[0])
    assert tail_ref == f"{first_ref}:L{LINES - 9}-{LINES}"
    expected = "\n".join(big_file().split("\n")[-10:])
    assert tail == f"{first.split(' [', 1)[0]} [lines {LINES - 9}-{LINES} of {LINES}]:\n{expected}"
    assert answer.endswith(expected)

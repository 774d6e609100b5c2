"""Recall pages in a real `create_agent` loop, driven by a scripted model that reads its request.

The agent reads a 20k-token file; the view keeps a little of it and names its reference. Asked
for a value near the file's end, the model recalls that reference and follows each page's
`(continues: #N@…)` until the value is there; asked for the file's last lines, it reads the
line count off the first page's header and recalls them by their numbers (`#N:L1591-1600`)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from langchain_core.tools import tool
from langchain_discourse_memory import DiscourseCompactionMiddleware
from langchain_discourse_memory._counting import resolve_token_counter
from langchain_discourse_memory.testing import ScriptedToolChatModel, check_agent_requests
from langgraph.checkpoint.memory import InMemorySaver

COUNT = resolve_token_counter(None).messages
SYSTEM = "You are a coding agent. Use tools to read files."
BUDGET = 4000
LINES = 1600
ASKED = 1440  # near the end, before the tail a view keeps of a long output
VALUE_QUESTION = "Which config is not owned by ops, and what is its token?"
TAIL_QUESTION = "What are the last ten lines of big.py?"


def token_at(i: int) -> str:
    return f"tok-{i * 7919 % 10**8:08x}"


def big_file() -> str:
    """One config a line; the one at :data:`ASKED` alone is not owned by ops."""
    return "\n".join(f"{i:04d}  config_{i} = {{'host': 'db-{i * 7 % 101}.internal', 'port': {5000 + i}, "
                     f"'owner': '{'billing' if i == ASKED else 'ops'}', 'token': '{token_at(i)}'}}"
                     for i in range(1, LINES + 1))


@tool
def read_file(path: str) -> str:
    """Read a file of the repository."""
    return big_file()


def reference_of_the_read(messages: Sequence[BaseMessage]) -> str:
    """The reference the view gives the file read: the mark its cut text carries (`…#2`) or
    a note entry naming the call."""
    text = "\n".join(m.text for m in messages)
    found = re.search(r"…(#\d+)", text) or re.search(r"^(#\d+) read_file", text, re.M)
    assert found, text[-2000:]
    return found.group(1)


class PagingModel(ScriptedToolChatModel):
    """Reads its request: a question -> recall the file read's reference; a page -> the answer if
    it is there, else the next page (or, for the tail, the lines its header counts). It keeps the
    question as a model keeps its task: a long chain of pages can push it out of the view."""

    question: str = ""

    def _generate(self, messages: list[BaseMessage], stop: object = None, run_manager: object = None,
                  **kwargs: object) -> ChatResult:
        self.received.append(list(messages))
        return ChatResult(generations=[ChatGeneration(message=self.reply(messages))])

    def recall(self, reference: str) -> AIMessage:
        call = {"id": f"r{len(self.received)}", "name": "recall", "args": {"reference": reference}}
        return AIMessage("", tool_calls=[call])

    def reply(self, messages: list[BaseMessage]) -> AIMessage:
        last = messages[-1]
        if isinstance(last, HumanMessage) and last.text.startswith("Read"):
            return AIMessage("", tool_calls=[{"id": "c1", "name": "read_file", "args": {"path": "big.py"}}])
        if isinstance(last, ToolMessage) and last.name == "read_file":
            return AIMessage("Read it.")
        if isinstance(last, HumanMessage):
            self.question = last.text
            return self.recall(reference_of_the_read(messages))
        question = self.question
        assert isinstance(last, ToolMessage) and last.name == "recall"
        page = last.text
        if question == VALUE_QUESTION:
            found = re.search(r"(config_\d+) = .*'owner': '(?!ops)\w+', 'token': '(tok-\w+)'", page)
            if found:
                return AIMessage(f"{found.group(1)}: {found.group(2)}")
            return self.recall(re.search(r"\(continues: (\S+?)\)$", page).group(1))  # type: ignore[union-attr]
        header = page.split("\n", 1)[0]
        if header.endswith(f"-{LINES} of {LINES}]:"):
            return AIMessage(page.split("\n", 1)[1])
        n, total = re.match(r"(#\d+) .*\[lines \d+-\d+ of (\d+)\]:", header).groups()  # type: ignore[union-attr]
        return self.recall(f"{n}:L{int(total) - 9}-{total}")


def run(question: str) -> tuple[PagingModel, list[BaseMessage]]:
    middleware = DiscourseCompactionMiddleware(keep=("tokens", BUDGET), recall=True)
    model = PagingModel(messages=iter(()))
    agent = create_agent(model, tools=[read_file], system_prompt=SYSTEM, middleware=[middleware],
                         checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "pages"}}
    agent.invoke({"messages": [HumanMessage("Read big.py.")]}, config)
    state = agent.invoke({"messages": [HumanMessage(question)]}, config)["messages"]
    check_agent_requests(model.received, system=SYSTEM, budget=BUDGET, count_tokens=COUNT)
    return model, state


def test_the_model_pages_through_a_20k_token_output_to_a_value_near_its_end() -> None:
    assert COUNT([HumanMessage(big_file())]) > 20_000
    model, state = run(VALUE_QUESTION)
    asked = next(r for r in model.received if r[-1].text == VALUE_QUESTION)
    assert token_at(ASKED) not in "\n".join(m.text for m in asked)  # the view did not show it
    recalls = [m for m in state if isinstance(m, ToolMessage) and m.name == "recall"]
    assert len(recalls) > 15 and all(r.status == "success" and r.artifact["found"] for r in recalls)
    assert state[-1].content == f"config_{ASKED}: {token_at(ASKED)}"
    # The pages followed so far are the file's text from its start, byte for byte.
    bodies = [r.text.split("\n", 1)[1].rsplit("\n", 1)[0] for r in recalls]
    assert big_file().startswith("".join(bodies)) and len("".join(bodies)) > 0.85 * len(big_file())


def test_the_model_recalls_the_tail_of_a_long_file_read_by_its_line_numbers() -> None:
    model, state = run(TAIL_QUESTION)
    first, tail = [m for m in state if isinstance(m, ToolMessage) and m.name == "recall"]
    assert re.search(rf"\[lines 1-\d+ of {LINES}\]:", first.text.split("\n", 1)[0])
    call = state[-3].tool_calls[0]
    assert state[-2] is tail and tail.tool_call_id == call["id"]
    assert call["args"]["reference"].endswith(f":L{LINES - 9}-{LINES}")
    assert state[-1].content == "\n".join(big_file().split("\n")[-10:])
    assert tail.artifact["found"]

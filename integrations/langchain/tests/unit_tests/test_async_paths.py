"""Every async path compacts in a worker thread, never on the event loop's, with the sync result:
the middleware's `awrap_model_call` (under `create_agent.ainvoke`, with the thread's config seen),
the history's `aget_messages` / `aview`, `compact_messages` as a runnable, the legacy memory and
the recall tool. Checked by the thread the token counter is called in (no timing; see
`benchmarks/bench_loop_stall.py` for stalls)."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import threading
from collections.abc import Sequence
from typing import Any

from langchain.agents import create_agent
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_discourse_memory import (
    DiscourseChatMessageHistory,
    DiscourseCompactionMiddleware,
    ListChatMessageHistory,
    RecallTool,
    compact_messages,
)
from langchain_discourse_memory.testing import ScriptedToolChatModel, sample_conversation

BUDGET = 400


class Recorder:
    """A LangChain token counter (a function of a list of messages) that records its threads."""

    def __init__(self) -> None:
        self.threads: set[int] = set()

    def __call__(self, messages: Sequence[BaseMessage]) -> int:
        self.threads.add(threading.get_ident())
        return count_tokens_approximately(messages)


def run_on_loop(make: Any) -> tuple[Any, int]:
    """`await make()` on a new event loop; also the loop thread's id."""

    async def main() -> tuple[Any, int]:
        return await make(), threading.get_ident()

    return asyncio.run(main())


def rows(messages: Sequence[BaseMessage]) -> list[tuple[str, Any]]:
    return [(m.type, m.content) for m in messages]


def agent_for(counter: Recorder) -> tuple[Any, ScriptedToolChatModel, DiscourseCompactionMiddleware]:
    model = ScriptedToolChatModel(messages=iter([AIMessage(f"answer {i}") for i in range(4)]))
    middleware = DiscourseCompactionMiddleware(keep=("tokens", BUDGET), token_counter=counter)
    return create_agent(model, tools=[], middleware=[middleware]), model, middleware


def test_ainvoke_compacts_in_a_worker_thread_as_invoke_does() -> None:
    history = sample_conversation(8)[1:] + [HumanMessage("Which order did I ask about first?")]
    counter = Recorder()
    agent, model, middleware = agent_for(counter)
    counter.threads.clear()  # the probes at construction ran here, off any loop
    config = {"configurable": {"thread_id": "t-async"}}
    _, loop_thread = run_on_loop(lambda: agent.ainvoke({"messages": history}, config))
    assert counter.threads and loop_thread not in counter.threads
    assert "t-async" in middleware._threads  # the run's config reached the worker thread
    assert middleware.last_view is not None and len(model.received[0]) < len(history)

    sync_agent, sync_model, _ = agent_for(Recorder())
    sync_agent.invoke({"messages": history}, {"configurable": {"thread_id": "t-sync"}})
    assert rows(model.received[0]) == rows(sync_model.received[0])


def test_history_aget_messages_and_aview_run_in_a_worker_thread() -> None:
    counter = Recorder()
    history = DiscourseChatMessageHistory(ListChatMessageHistory(sample_conversation(8)), max_tokens=BUDGET,
                                          token_counter=counter)
    counter.threads.clear()
    got, loop_thread = run_on_loop(history.aget_messages)
    assert counter.threads and loop_thread not in counter.threads
    assert rows(got) == rows(history.messages) and len(got) < len(history.full_messages)

    counter.threads.clear()
    view, loop_thread = run_on_loop(lambda: history.aview(focus="ORD-1003"))
    assert counter.threads and loop_thread not in counter.threads
    assert rows(view.messages) == rows(history.view(focus="ORD-1003").messages)


def test_compact_messages_runnable_ainvoke_runs_in_a_worker_thread() -> None:
    counter = Recorder()
    reducer = compact_messages(max_tokens=BUDGET, token_counter=counter)
    counter.threads.clear()
    got, loop_thread = run_on_loop(lambda: reducer.ainvoke(sample_conversation(8)))
    assert counter.threads and loop_thread not in counter.threads
    assert rows(got) == rows(reducer.invoke(sample_conversation(8)))


def test_legacy_memory_and_recall_tool_run_in_a_worker_thread() -> None:
    from langchain_discourse_memory import ConversationDiscourseMemory

    counter = Recorder()
    memory = ConversationDiscourseMemory(max_token_limit=BUDGET, token_counter=counter, return_messages=True,
                                         recall=True)
    memory.chat_memory.add_messages(sample_conversation(8))
    counter.threads.clear()
    loaded, loop_thread = run_on_loop(lambda: memory.aload_memory_variables({}))
    assert counter.threads and loop_thread not in counter.threads
    assert rows(loaded["history"]) == rows(memory.load_memory_variables({})["history"])

    seen: set[int] = set()
    source = memory.recalled

    def recalled(reference: str, max_tokens: int = 1000) -> Any:
        seen.add(threading.get_ident())
        return source(reference, max_tokens)

    tool = RecallTool(type("Source", (), {"recalled": staticmethod(recalled)})())
    _, loop_thread = run_on_loop(lambda: tool.ainvoke({"reference": "ORD-1000"}))
    assert seen and loop_thread not in seen


def test_a_fresh_process_imports_spacy_off_the_loop_thread() -> None:
    """The first `aget_messages` and agent `ainvoke` of a process: spaCy's import (the start-up)
    is not done on the loop's thread (the main thread here)."""
    code = """
import sys, threading
seen = {}
class Watch:
    def find_spec(self, name, path=None, target=None):
        if name == 'spacy' and 'spacy' not in seen:
            seen['spacy'] = threading.current_thread().name
        return None
sys.meta_path.insert(0, Watch())
import asyncio
from langchain.agents import create_agent
from langchain_core.messages import AIMessage, HumanMessage
from langchain_discourse_memory import DiscourseChatMessageHistory, DiscourseCompactionMiddleware, ListChatMessageHistory
from langchain_discourse_memory.testing import ScriptedToolChatModel, sample_conversation
history = sample_conversation(8)
store = DiscourseChatMessageHistory(ListChatMessageHistory(history), max_tokens=400)
model = ScriptedToolChatModel(messages=iter([AIMessage('ok')]))
agent = create_agent(model, tools=[], middleware=[DiscourseCompactionMiddleware(keep=('tokens', 400))])
async def main():
    await store.aget_messages()
    await agent.ainvoke({'messages': history[1:] + [HumanMessage('and?')]})
asyncio.run(main())
assert 'spacy' in sys.modules and seen['spacy'] != 'MainThread', seen
print('ok')
"""
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr

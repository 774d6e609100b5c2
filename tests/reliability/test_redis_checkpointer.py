"""``DiscourseCompactionMiddleware`` in a real ``create_agent`` loop whose state is
persisted by langgraph-checkpoint-redis's ``RedisSaver`` (the LangChain 1.x way to keep
agent state in Redis) on a real Redis Stack server (RedisJSON + RediSearch), never a mock.

Every model request fits the budget while the checkpoint in Redis keeps every message
unchanged; a second process resuming the thread sends the model the same compacted
request as the first process would; a ``SIGKILL`` of Redis between turns (the server
fsyncs every write) loses no acknowledged message and changes nothing the model sees.
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import pytest


def _require(module: str, package: str) -> None:
    """Skip without the client packages; in CI (``CI`` set) fail instead: scripts/setup.sh
    installs them, so a CI run must not pass without these tests."""
    try:
        importlib.import_module(module)
    except ImportError:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            raise
        pytest.skip(f"{package} is not installed (pip install {package})", allow_module_level=True)


_require("redis", "redis")
_require("langchain.agents", "langchain")
_require("langgraph.checkpoint.redis", "langgraph-checkpoint-redis")
_require("langchain_discourse_memory", "integrations/langchain")

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    ToolMessage,
    messages_from_dict,
)
from langchain_discourse_memory._convert import NOTE_SOURCE_TAG
from langchain_discourse_memory._counting import resolve_token_counter
from langchain_discourse_memory.testing import check_agent_requests
from langgraph.checkpoint.memory import InMemorySaver

HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("dm_reliability_checkpointer_app", HERE / "checkpointer_app.py")
app = importlib.util.module_from_spec(_spec)  # type: ignore[arg-type]
_spec.loader.exec_module(app)  # type: ignore[union-attr]

COUNT = resolve_token_counter(None).messages  # the middleware's default counter (cl100k_base)
BUDGET = 700


def _thread(tag: str) -> str:
    return f"dm-{tag}-{uuid.uuid4().hex[:10]}"


def _norm(messages: Iterable[BaseMessage], *, ids: bool = False) -> list[dict[str, Any]]:
    """What a message says: role, text, tool calls and results, the compaction-note tag
    (and the message id with ``ids``)."""
    out = []
    for m in messages:
        item: dict[str, Any] = {
            "type": m.type,
            "content": m.content,
            "note": m.additional_kwargs.get("lc_source") == NOTE_SOURCE_TAG,
        }
        if isinstance(m, AIMessage):
            item["tool_calls"] = [(c["id"], c["name"], c["args"]) for c in m.tool_calls]
        if isinstance(m, ToolMessage):
            item["tool_call_id"] = m.tool_call_id
            item["name"] = m.name
        if ids:
            item["id"] = m.id
        out.append(item)
    return out


def _expected(turns: Iterable[int]) -> list[dict[str, Any]]:
    """The full conversation of ``turns``, built from the script and the tools' records
    alone: what the checkpoint must hold."""
    out: list[BaseMessage] = []
    for t in turns:
        call, answer = app.script_for_turn(t)
        oid = app.order_id(t)
        out += [
            HumanMessage(app.question(t)),
            call,
            ToolMessage(json.dumps(app.order_record(oid)), tool_call_id=f"call_{t}_a", name="get_order"),
            ToolMessage(json.dumps(app.shipping_record(oid)), tool_call_id=f"call_{t}_b", name="get_shipping"),
            answer,
        ]
    return _norm(out)


def _stored(url: str, thread_id: str) -> list[BaseMessage]:
    """The thread's messages as a new ``RedisSaver`` with its own client reads them."""
    with app.redis_saver(url) as saver:
        found = saver.get_tuple(app.config(thread_id))
        assert found is not None, f"no checkpoint of thread {thread_id} in Redis"
        return found.checkpoint["channel_values"]["messages"]


def _check_requests(received: Sequence[Sequence[BaseMessage]]) -> int:
    """Every model request: the system prompt first, the conversation within the budget,
    no tool result without its call and no call without its result. Returns how many
    requests were compacted (carry the record note)."""
    return check_agent_requests(received, system=app.SYSTEM, budget=BUDGET, count_tokens=COUNT)


def _second_process(command: list[str]) -> dict[str, Any]:
    proc = subprocess.run([sys.executable, str(HERE / "checkpointer_app.py"), *command],
                          capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


def test_turns_with_tools_fit_the_budget_and_redis_keeps_every_message(redis_stack_server: Any) -> None:
    url, thread, turns = redis_stack_server.url, _thread("loop"), 8
    model = app.scripted_model(range(turns))
    with app.redis_saver(url) as saver:
        agent = app.build_agent(model, saver, BUDGET)
        for t in range(turns):
            result = app.run_turn(agent, thread, t)
            stored = _stored(url, thread)
            # After every turn Redis holds the whole conversation so far, as it was
            # produced (ids included): compaction changed the model's view only.
            assert _norm(stored) == _expected(range(t + 1))
            assert _norm(stored, ids=True) == _norm(result, ids=True)
            assert len({m.id for m in stored}) == len(stored)
        via_agent = agent.get_state(app.config(thread)).values["messages"]
    assert _norm(via_agent, ids=True) == _norm(stored, ids=True)
    assert len(model.received) == 2 * turns
    assert _check_requests(model.received) >= 3, "the conversation was meant to outgrow the budget"
    assert COUNT(stored) > 2 * BUDGET
    # The newest turn reached the model verbatim: its question and both tool results.
    last = model.received[-1]
    assert _norm(last[-4:]) == _norm(stored[-5:-1])


def test_second_process_resumes_the_thread_with_the_same_compacted_request(redis_stack_server: Any) -> None:
    url, thread, turns = redis_stack_server.url, _thread("resume"), 6
    model = app.scripted_model([*range(turns), turns])
    with app.redis_saver(url) as saver:
        agent = app.build_agent(model, saver, BUDGET)
        for t in range(turns):
            app.run_turn(agent, thread, t)
        checkpoint_id = agent.get_state(app.config(thread)).config["configurable"]["checkpoint_id"]
        # Another process, with its own Redis client, saver, agent and middleware, runs
        # the next turn of the thread from what Redis holds.
        there = _second_process(["next-turn", url, thread, str(turns), str(BUDGET)])
        assert there["resumed_checkpoint_id"] == checkpoint_id
        assert _norm(messages_from_dict(there["before"])) == _expected(range(turns))
        # This process runs the same next turn from the same checkpoint (a fork of the
        # thread), with the middleware instance that served the earlier turns.
        seen = len(model.received)
        app.run_turn(agent, thread, turns, checkpoint_id=checkpoint_id)
        here = model.received[seen:]
    there_requests = [messages_from_dict(r) for r in there["received"]]
    assert len(here) == len(there_requests) == 2  # the tool-calling step and the answer
    assert [_norm(r) for r in there_requests] == [_norm(r) for r in here]
    assert _check_requests(there_requests) == 2, "both requests of the next turn were meant to be compacted"
    assert _norm(there_requests[0][-1:]) == _expected([turns])[:1]  # ends with the new question
    assert _norm(messages_from_dict(there["after"])) == _expected(range(turns + 1))
    assert _norm(_stored(url, thread)) == _expected(range(turns + 1))  # the fork is the newest checkpoint


def test_redis_sigkill_between_turns_loses_no_acknowledged_message(private_redis_stack: Any) -> None:
    server, thread = private_redis_stack, _thread("crash")
    first, second, last = range(4), range(4, 6), 6
    model = app.scripted_model([*first, *second])
    with app.redis_saver(server.url) as saver:
        agent = app.build_agent(model, saver, BUDGET)
        for t in first:
            app.run_turn(agent, thread, t)
        acknowledged = _norm(agent.get_state(app.config(thread)).values["messages"], ids=True)
        server.restart(kill=True)
        assert _norm(_stored(server.url, thread), ids=True) == acknowledged
        for t in second:  # the running application goes on: its client reconnects
            app.run_turn(agent, thread, t)
        acknowledged = _norm(agent.get_state(app.config(thread)).values["messages"], ids=True)
        server.restart(kill=True)
    # After the second crash, a new saver and agent (a restarted application) continue.
    resumed_model = app.scripted_model([last])
    with app.redis_saver(server.url) as saver:
        agent = app.build_agent(resumed_model, saver, BUDGET)
        assert _norm(agent.get_state(app.config(thread)).values["messages"], ids=True) == acknowledged
        app.run_turn(agent, thread, last)
    final = _stored(server.url, thread)
    assert _norm(final) == _expected(range(last + 1))
    assert _norm(final[: len(acknowledged)], ids=True) == acknowledged
    assert _check_requests(model.received + resumed_model.received) >= 3
    # The model saw exactly what it sees in the same conversation without Redis and
    # without crashes (LangGraph's InMemorySaver).
    control = app.scripted_model(range(last + 1))
    control_agent = app.build_agent(control, InMemorySaver(), BUDGET)
    for t in range(last + 1):
        app.run_turn(control_agent, "control", t)
    assert [_norm(r) for r in model.received + resumed_model.received] == [_norm(r) for r in control.received]

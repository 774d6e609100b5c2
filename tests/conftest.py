"""Shared helpers for the core tests."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import settings

from discourse_memory import get_token_counter

COUNTER = get_token_counter()
CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")
# The evaluation data, relative to the repository (override with DISCOURSE_MEMORY_DATA).
SHARED_DATA = Path(os.environ.get("DISCOURSE_MEMORY_DATA", Path(__file__).resolve().parents[1] / ".." / "shared" / "data"))


# Property tests explore new examples on every local run; in CI they replay a fixed set (seeded
# by each test's own source), so a rare example cannot turn one run red and the next green.
# A failure found locally is added as an ``@example`` so CI keeps it.
settings.register_profile("ci", derandomize=True, database=None)
if CI:
    settings.load_profile("ci")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "required_in_ci(what): a skip of this test whose reason names `what` (a browser, a model) "
                   "is a failure when CI is set, so a CI run cannot pass without what it needs")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    outcome = yield
    report = outcome.get_result()
    marker = item.get_closest_marker("required_in_ci")
    if CI and report.skipped and marker is not None:
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        if marker.args[0] in reason:
            report.outcome = "failed"
            report.longrepr = f"skipped in CI, where it is required: {reason}"


def view_tokens(messages: list[dict[str, Any]], framing: bool = True) -> int:
    """Tokens of a view sent as a request, counted the documented way, independently of
    the compactor: text content + tool-call names + tool-call arguments, and (``framing``,
    the default rule) what OpenAI's cookbook adds (``num_tokens_from_messages``): 3 a
    message, every other string value it holds (role, name +1, tool_call_id, a call's id
    and type), 3 to prime the reply."""
    total = 3 if framing else 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            total += COUNTER.count(content)
        elif isinstance(content, list):
            for part in content:
                if isinstance(part, str):
                    total += COUNTER.count(part)
                elif isinstance(part, dict) and part.get("type") == "text":
                    total += COUNTER.count(part["text"])
        for call in m.get("tool_calls") or []:
            fn = call["function"]
            args = fn.get("arguments") or ""
            total += COUNTER.count(fn["name"]) + COUNTER.count(args if isinstance(args, str) else json.dumps(args))
            if framing:
                total += COUNTER.count(call.get("id") or "") + COUNTER.count(call.get("type", "function"))
        if framing:
            total += 3 + sum(COUNTER.count(v) + (k == "name") for k, v in m.items()
                             if k not in ("content", "tool_calls") and isinstance(v, str))
    return total


def view_text(messages: list[dict[str, Any]]) -> str:
    out = []
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out.extend(p if isinstance(p, str) else p.get("text", "") for p in content if isinstance(p, (str, dict)))
        for call in m.get("tool_calls") or []:
            out.append(call["function"]["name"])
            out.append(str(call["function"].get("arguments")))
    return "\n".join(out)


def assert_tool_pairs(messages: list[dict[str, Any]]) -> None:
    """Every tool result follows its call; every call has all its results."""
    open_calls: set[str] = set()
    answered: set[str] = set()
    for m in messages:
        for call in m.get("tool_calls") or []:
            open_calls.add(call["id"])
        if m.get("role") == "tool":
            assert m["tool_call_id"] in open_calls, f"orphan tool result {m['tool_call_id']}"
            answered.add(m["tool_call_id"])
    assert open_calls == answered, f"calls without results: {open_calls - answered}"

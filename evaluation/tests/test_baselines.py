"""Baseline methods: budgets, shapes, and the behaviours the bench reports."""

import pytest

from discourse_memory_evaluation.baselines import (
    HEAD_TAIL_SEPARATOR,
    METHODS,
    get_counter,
    head_tail,
    message_tokens,
    resolve_methods,
    transcript,
    view_tokens,
)


@pytest.fixture(scope="module")
def counter():
    return get_counter("cl100k_base")


def chat(n):
    """n user/assistant messages, each with a distinct number in it."""
    return [
        {"role": "user" if i % 2 == 0 else "assistant", "content": f"Message number {i} says the code is K{i:04d}."}
        for i in range(n)
    ]


def tool_run():
    call = lambda i: {  # noqa: E731
        "role": "assistant", "content": None,
        "tool_calls": [{"id": f"c{i}", "type": "function",
                        "function": {"name": "lookup", "arguments": f'{{"id": "R{i}"}}'}}],
    }
    result = lambda i: {"role": "tool", "tool_call_id": f"c{i}", "content": "row " * 40}  # noqa: E731
    return [{"role": "system", "content": "policy " * 30}, {"role": "user", "content": "go"},
            call(1), result(1), call(2), result(2), {"role": "assistant", "content": "done"}]


def test_message_tokens_counts_content_and_tool_calls(counter):
    message = tool_run()[2]
    expected = counter.count("lookup") + counter.count('{"id": "R1"}')
    assert message_tokens(counter, message) == expected
    assert message_tokens(counter, {"role": "user", "content": [{"type": "text", "text": "a b"}]}) == counter.count("a b")


@pytest.mark.parametrize("name", ["trim-last", "llamaindex-buffer"])
def test_suffix_baselines_keep_a_suffix_within_budget(counter, name):
    messages = chat(40)
    budget = view_tokens(counter, messages) // 4
    view = METHODS[name].run(messages, budget, counter)
    assert 0 < len(view) < len(messages)
    assert view == messages[len(messages) - len(view):]  # the newest messages, unchanged
    assert view_tokens(counter, view) <= budget


def test_trim_last_can_leave_an_orphan_tool_result(counter):
    """LangChain trim_messages has no tool-call pairing; the bench counts the orphans."""
    messages = tool_run()
    # room for the last tool result and the final answer, not for the call before them
    budget = message_tokens(counter, messages[-1]) + message_tokens(counter, messages[-2])
    view = METHODS["trim-last"].run(messages, budget, counter)
    assert view == messages[-2:]
    assert view[0]["role"] == "tool"


def test_llamaindex_buffer_does_not_count_tool_arguments(counter):
    messages = tool_run()
    budget = view_tokens(counter, messages) - 1
    view = METHODS["llamaindex-buffer"].run(messages, budget, counter)
    # LlamaIndex counts str(content) only: the tool calls' names and arguments are
    # free for it, so it keeps everything and goes over the budget.
    assert view == messages
    assert view_tokens(counter, view) > budget


def test_head_tail_keeps_both_ends_within_budget(counter):
    text = " ".join(f"w{i}" for i in range(3000))
    out = head_tail(text, 200, counter)
    assert counter.count(out) <= 200
    head, tail = out.split(HEAD_TAIL_SEPARATOR)
    assert text.startswith(head) and text.endswith(tail)
    assert counter.count(head) >= 80 and counter.count(tail) >= 80
    assert head_tail("short text", 200, counter) == "short text"


def test_head_tail_view_is_one_message_of_the_transcript(counter):
    messages = chat(30)
    view = METHODS["head-tail"].run(messages, 100, counter)
    assert len(view) == 1 and view[0]["role"] == "user"
    assert view[0]["content"].startswith("user: Message number 0")
    assert view[0]["content"].endswith(transcript(messages)[-20:])
    assert view_tokens(counter, view) <= 100


def test_resolve_methods_reports_unknown_and_unavailable():
    with pytest.raises(ValueError, match="unknown method.*known: discourse-memory"):
        resolve_methods(["nope"])
    ready, skipped = resolve_methods(["head-tail", "llmlingua2", "llm-summary"])
    assert ready[0].name == "head-tail"
    # whatever is not ready is skipped with its reason, never replaced by something else
    assert {m.name for m in ready[1:]} | {s.split(" ")[0] for s in skipped} == {"llmlingua2", "llm-summary"}
    assert all(" skipped: " in s for s in skipped)


def test_llm_summary_is_skipped_without_a_configured_llm(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    ready, skipped = resolve_methods(["llm-summary"])
    assert ready == []
    assert skipped[0].startswith("llm-summary skipped:")

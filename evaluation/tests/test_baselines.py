"""Baseline methods: budgets, shapes, and the behaviours the bench reports."""

import pytest

from discourse_memory_evaluation.baselines import (
    HEAD_TAIL_SEPARATOR,
    METHODS,
    get_counter,
    head_tail,
    message_tokens,
    reply_tokens,
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
    # (and the message's framing as OpenAI counts it: 3, its role, the call's id and type)
    expected += 3 + counter.count("assistant") + counter.count("c1") + counter.count("function")
    assert message_tokens(counter, message) == expected
    assert message_tokens(counter, {"role": "user", "content": [{"type": "text", "text": "a b"}]}) == \
        counter.count("a b") + 3 + counter.count("user")
    assert view_tokens(counter, [message]) == expected + 3  # (the reply priming, once a request)


@pytest.mark.parametrize("name", ["trim-last", "llamaindex-buffer"])
def test_suffix_baselines_keep_a_suffix_within_budget(counter, name):
    messages = chat(40)
    budget = view_tokens(counter, messages) // 4
    view = METHODS[name].run(messages, budget, counter)
    assert 0 < len(view) < len(messages)
    assert view == messages[len(messages) - len(view):]  # the newest messages, unchanged
    if name == "llamaindex-buffer":  # (it counts the text alone: its behaviour; the bench reports its overshoot)
        assert sum(counter.count(m["content"]) for m in view) <= budget
    else:
        assert view_tokens(counter, view) <= budget


def test_trim_last_can_leave_an_orphan_tool_result(counter):
    """LangChain trim_messages has no tool-call pairing; the bench counts the orphans."""
    messages = tool_run()
    # room for the last tool result and the final answer, not for the call before them
    budget = message_tokens(counter, messages[-1]) + message_tokens(counter, messages[-2]) + reply_tokens(counter)
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


# -- bm25-retrieval ------------------------------------------------------------------


def pets_chat():
    """An old message about the dog among same-sized fillers, then filler, then the question."""
    filler = [f"We talked about the weather on day {i} and it was mild." for i in range(12)]
    messages = [{"role": "user" if i % 2 == 0 else "assistant", "content": text} for i, text in enumerate(filler)]
    messages[3] = {"role": "assistant", "content": "My dog is called Biscuit and he loves long walks."}
    messages.append({"role": "user", "content": "What is the name of my dog?"})
    return messages


def test_bm25_tokens_are_lowercase_words_and_cjk_characters_and_pairs():
    from discourse_memory_evaluation.baselines import bm25_tokens

    # bm25s' English stop words ("the", "of", "is") go; case is folded
    assert bm25_tokens("The NAME of my Dog is Biscuit") == ["name", "my", "dog", "biscuit"]
    assert bm25_tokens("去北京站") == ["去", "北", "京", "站", "去北", "北京", "京站"]
    assert bm25_tokens("订单A12345") == ["订", "单", "订单", "a12345"]


def test_bm25_retrieval_picks_the_matching_old_message(counter):
    messages = pets_chat()
    sizes = [message_tokens(counter, m) for m in messages]
    # the newest half: the question and the filler before it; the rest: room for one more
    budget = 2 * (sizes[-1] + sizes[-2]) + 1
    assert sizes[-1] + sizes[-2] + sizes[-3] > budget // 2  # only two fit in the newest half
    assert budget - sizes[-1] - sizes[-2] >= sizes[3]
    view = METHODS["bm25-retrieval"].run(messages, budget, counter)
    assert view_tokens(counter, view) <= budget
    assert messages[3] in view  # "dog" matches the question; no filler does
    assert view[-2:] == messages[-2:]
    positions = [messages.index(m) for m in view]
    assert positions == sorted(positions)  # original order


def test_bm25_retrieval_respects_the_budget_and_order_on_longer_chats(counter):
    messages = chat(60) + [{"role": "user", "content": "What was the code in message number 7?"}]
    for budget in (40, 150, 400):
        view = METHODS["bm25-retrieval"].run(messages, budget, counter)
        assert view_tokens(counter, view) <= budget
        positions = [messages.index(m) for m in view]
        assert positions == sorted(positions)


def test_bm25_retrieval_works_on_chinese(counter):
    messages = [
        {"role": "user", "content": "我想找一家在王府井附近的烤鸭店。"},
        {"role": "assistant", "content": "推荐您去全聚德烤鸭店，电话010-65112418。"},
        {"role": "user", "content": "那附近有地铁站吗？"},
        {"role": "assistant", "content": "有的，地铁1号线王府井站。"},
        {"role": "user", "content": "今天天气怎么样？"},
        {"role": "assistant", "content": "今天天气晴朗，适合出行。"},
        {"role": "user", "content": "烤鸭店的电话是多少？"},
    ]
    sizes = [message_tokens(counter, m) for m in messages]
    budget = 2 * sizes[-1] + 1 + sizes[1]  # the question, then room for one older message
    view = METHODS["bm25-retrieval"].run(messages, budget, counter)
    assert messages[1] in view  # shares 烤鸭店 and 电话 with the question


def test_bm25_retrieval_does_not_pair_tool_calls(counter):
    """The simple retrieval memory keeps a matching tool result without its call."""
    messages = [
        {"role": "user", "content": "Look up my order."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "get_order", "arguments": '{"id": "X1"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "order X1: parcel tracking number 1Z999AA1"},
        {"role": "assistant", "content": "Your order X1 is on its way, it will arrive soon enough for you."},
        {"role": "user", "content": "What is the parcel tracking number?"},
    ]
    sizes = [message_tokens(counter, m) for m in messages]
    budget = 2 * sizes[-1] + 1 + sizes[2]
    view = METHODS["bm25-retrieval"].run(messages, budget, counter)
    assert messages[2] in view and messages[1] not in view
    from discourse_memory_evaluation.metrics import orphan_tool_messages

    assert orphan_tool_messages(view) == 1


# -- observation-masking ---------------------------------------------------------------


def three_results():
    call = lambda i: {  # noqa: E731
        "role": "assistant", "content": None,
        "tool_calls": [{"id": f"c{i}", "type": "function",
                        "function": {"name": "lookup", "arguments": f'{{"id": "R{i}"}}'}}],
    }
    result = lambda i: {"role": "tool", "tool_call_id": f"c{i}", "content": f"row {i} " * 40}  # noqa: E731
    return [{"role": "system", "content": "You look things up."}, {"role": "user", "content": "go"},
            call(1), result(1), call(2), result(2), call(3), result(3), {"role": "assistant", "content": "done"}]


def test_observation_masking_clears_the_oldest_tool_outputs_first(counter):
    from langchain.agents.middleware.context_editing import DEFAULT_TOOL_PLACEHOLDER

    messages = three_results()
    total = view_tokens(counter, messages)
    saved = message_tokens(counter, messages[3]) - message_tokens(counter, {**messages[3], "content": DEFAULT_TOOL_PLACEHOLDER})
    # one cleared output is enough
    view = METHODS["observation-masking"].run(messages, total - saved, counter)
    assert [m["content"] for m in view if m.get("role") == "tool"] == [
        DEFAULT_TOOL_PLACEHOLDER, messages[5]["content"], messages[7]["content"]]
    assert len(view) == len(messages) and view_tokens(counter, view) <= total - saved
    # one token less: the second-oldest goes too, the newest stays
    view = METHODS["observation-masking"].run(messages, total - saved - 1, counter)
    assert [m["content"] for m in view if m.get("role") == "tool"] == [
        DEFAULT_TOOL_PLACEHOLDER, DEFAULT_TOOL_PLACEHOLDER, messages[7]["content"]]
    assert messages[3]["content"] != DEFAULT_TOOL_PLACEHOLDER  # the input is not edited
    # within the budget: nothing changes
    assert METHODS["observation-masking"].run(messages, total, counter) == messages


def test_observation_masking_then_drops_the_oldest_messages_keeping_pairs(counter):
    from discourse_memory_evaluation.metrics import orphan_tool_messages

    messages = three_results()
    budget = 30
    view = METHODS["observation-masking"].run(messages, budget, counter)
    assert view_tokens(counter, view) <= budget
    assert view[0] == messages[0]  # the system prompt stays while it fits
    assert view[-1] == messages[-1]
    assert orphan_tool_messages(view) == 0
    # the system prompt goes first only when it alone is over the budget
    view = METHODS["observation-masking"].run(messages, message_tokens(counter, messages[0]) - 1, counter)
    assert messages[0] not in view and view[-1] == messages[-1]


def test_observation_masking_on_shell_agent_runs_masks_user_observations(counter):
    from discourse_memory_evaluation.baselines import observation_indices

    action = lambda cmd: {"role": "assistant", "content": f"THOUGHT: look.\n\n```bash\n{cmd}\n```"}  # noqa: E731
    messages = [
        {"role": "system", "content": "You run one bash command per turn."},
        {"role": "user", "content": "Fix the bug in setup.py " * 10},
        action("cat setup.py"), {"role": "user", "content": "<output>\n" + "line of setup.py\n" * 30 + "</output>"},
        action("grep -n bug setup.py"), {"role": "user", "content": "<output>\n" + "12: bug here\n" * 30 + "</output>"},
        {"role": "assistant", "content": "I think I am done."},
        {"role": "user", "content": "Please go on."},  # follows no bash action: not an observation
    ]
    assert observation_indices(messages) == [3, 5]
    budget = view_tokens(counter, messages) - 5
    view = METHODS["observation-masking"].run(messages, budget, counter)
    assert view[3]["content"] == "[cleared]" and view[3]["role"] == "user"
    assert view[5] == messages[5] and view[1] == messages[1] and view[7] == messages[7]
    assert view_tokens(counter, view) <= budget
    # a chat has no observations
    assert observation_indices(chat(10)) == []

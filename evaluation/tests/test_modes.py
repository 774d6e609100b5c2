"""The per-question and next-step modes on small hand-made conversations."""

import json

import pytest

from discourse_memory_evaluation.baselines import get_counter, message_tokens, view_tokens
from discourse_memory_evaluation.datasets import QA, Conversation
from discourse_memory_evaluation.modes import action_literals, ask_items, qa_items, score_item, spread, step_items


@pytest.fixture(scope="module")
def counter():
    return get_counter("cl100k_base")


def test_spread_is_even_and_deterministic():
    assert spread(list(range(10)), 4) == [0, 3, 6, 9]
    assert spread(list(range(3)), 8) == [0, 1, 2]
    assert spread(list(range(5)), 1) == [0]
    assert spread(list(range(5)), None) == [0, 1, 2, 3, 4]


DIALOGUE = [
    {"role": "user", "content": "Caroline: I adopted a puppy named Biscuit last week."},
    {"role": "assistant", "content": "Melanie: Lovely! We went camping at Lake Tahoe in June."},
    {"role": "user", "content": "Caroline: My sister moved to Denver for work."},
]


def dialogue_conv():
    return Conversation(id="d", messages=list(DIALOGUE), qa=[
        QA("What is the name of Caroline's puppy?", "Biscuit", ("D1:1",), 1),
        QA("Trick question?", None, (), 5),  # adversarial: no answer
        QA("Where did Melanie go camping?", "Lake Tahoe", ("D1:2",), 4),
        QA("Where did Caroline's sister move?", "Denver", ("D1:3",), 2),
        QA("Which city is Denver?", "Denver", (), 3),  # the answer is in the question too
    ])


def test_qa_items_append_the_question_and_budget_the_history(counter):
    conv = dialogue_conv()
    items = qa_items(conv, counter, None)
    assert [i.index for i in items] == [0, 2, 3, 4]  # category 5 has no answer
    item = items[0]
    assert item.messages[:-1] == DIALOGUE
    assert item.messages[-1] == {"role": "user", "content": "What is the name of Caroline's puppy?"}
    history = view_tokens(counter, DIALOGUE)
    question = counter.count("What is the name of Caroline's puppy?") + 3 + counter.count("user")  # (with its framing)
    assert item.budget(0.25) == int(0.25 * history) + question
    assert [i.index for i in qa_items(conv, counter, 2)] == [0, 4]  # spread: first and last


def test_qa_score_counts_the_answer_outside_the_question_only(counter):
    items = {i.index: i for i in qa_items(dialogue_conv(), counter, None)}
    puppy, camping, denver_q = items[0], items[2], items[4]
    assert score_item(puppy, puppy.messages)[0] == 1.0
    assert score_item(puppy, puppy.messages[1:]) == (0.0, ["Biscuit"])
    assert score_item(camping, camping.messages)[0] == 1.0  # case ignored: "Lake Tahoe"
    # "Denver" stands in the question: it counts only where the history says it
    assert score_item(denver_q, [DIALOGUE[2], denver_q.messages[-1]])[0] == 1.0
    assert score_item(denver_q, [DIALOGUE[0], denver_q.messages[-1]])[0] == 0.0
    # also inside a transcript that holds the question (head-tail's single message)
    transcript = {"role": "user", "content": "user: Caroline: hi\n\nuser: Which city is Denver?"}
    assert score_item(denver_q, [transcript])[0] == 0.0


def test_qa_mode_full_history_and_suffix_by_hand(counter):
    from discourse_memory_evaluation.bench import BenchConfig, Row
    from discourse_memory_evaluation.modes import run_items

    conv = dialogue_conv()
    config = BenchConfig(budgets=(0.5, 1.0), examples=2)
    rows = run_items(conv, qa_items(conv, counter, None), config, ["full-history", "trim-last"], Row)
    scores = {(r.method, r.fraction, r.item): r.scores["qa_answer"] for r in rows}
    assert all(scores[("full-history", f, i)] == 1.0 for f in (0.5, 1.0) for i in (0, 2, 3, 4))
    # at 100% of the history plus the question everything fits
    assert all(scores[("trim-last", 1.0, i)] == 1.0 for i in (0, 2, 3, 4))
    # at 50%: the newest messages only; Biscuit (the first message) is gone
    assert scores[("trim-last", 0.5, 0)] == 0.0
    assert scores[("trim-last", 0.5, 3)] == 1.0
    lost = next(r for r in rows if (r.method, r.fraction, r.item) == ("trim-last", 0.5, 0)).lost
    assert lost == {"targets": ["Biscuit"]}
    assert {r.mode for r in rows} == {"qa"}


def call(i, name, **kwargs):
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(kwargs)}}]}


TAU = [
    {"role": "system", "content": "You are an airline agent."},
    {"role": "user", "content": "Hi, I am mia_li_3668 and I want to cancel reservation ZFA04Y."},
    call(1, "get_user_details", user_id="mia_li_3668"),
    {"role": "tool", "tool_call_id": "c1", "content": json.dumps({"reservations": ["ZFA04Y", "K1NW8N"]})},
    call(2, "cancel_reservation", reservation_id="ZFA04Y", reason="change_of_plan"),
    {"role": "tool", "tool_call_id": "c2", "content": "ok"},
    {"role": "assistant", "content": "Done. Anything else?"},
    {"role": "user", "content": "Also book flight HAT136, I pay with gift_card_7"},
    call(3, "book", flights=[{"flight_number": "HAT136", "date": "2024-05-20"}], payment_id="gift_card_7", insurance=False),
]


def test_action_literals_by_hand():
    assert action_literals(TAU[4]) == ["ZFA04Y", "change_of_plan"]
    assert action_literals(TAU[8]) == ["HAT136", "2024-05-20", "gift_card_7", "false"]
    shell = {"role": "assistant", "content": "THOUGHT: check.\n\n```bash\nsed -n '120,140p' astropy/modeling/separable.py\n```"}
    assert action_literals(shell) == ["120", "140p", "astropy/modeling/separable.py"]  # the grader splits at commas
    assert action_literals({"role": "assistant", "content": "No command here."}) == []


def test_step_items_count_only_literals_the_history_stated(counter):
    items = step_items(Conversation(id="t", messages=TAU), counter, None)
    # step 2: mia_li_3668 (said by the user); step 4: ZFA04Y (change_of_plan never said);
    # step 8: HAT136 and gift_card_7 (2024-05-20 and false never said)
    assert [(i.index, i.targets) for i in items] == [
        (2, ("mia_li_3668",)), (4, ("ZFA04Y",)), (8, ("HAT136", "gift_card_7"))]
    step = items[2]
    assert step.messages == TAU[:8]
    assert step.budget(0.25) == int(0.25 * view_tokens(counter, TAU[:8]))
    assert [i.index for i in step_items(Conversation(id="t", messages=TAU), counter, 2)] == [2, 8]
    # the view keeps the user's last message: both literals; without it: none
    assert score_item(step, TAU[7:8]) == (1.0, [])
    assert score_item(step, TAU[:7]) == (0.0, ["HAT136", "gift_card_7"])
    assert score_item(step, [{"role": "user", "content": "HAT136"}]) == (0.5, ["gift_card_7"])


SWE = [
    {"role": "system", "content": "Run one bash command per turn."},
    {"role": "user", "content": "<pr_description>Fix separability_matrix in astropy/modeling/separable.py</pr_description>"},
    {"role": "assistant", "content": "THOUGHT: look.\n\n```bash\ngrep -n separability_matrix astropy/modeling/separable.py\n```"},
    {"role": "user", "content": "<output>\n66:def separability_matrix(transform):\n</output>"},
    {"role": "assistant", "content": "THOUGHT: read it.\n\n```bash\nsed -n '60,80p' astropy/modeling/separable.py\n```"},
]


def test_step_items_on_shell_agent_runs(counter):
    items = step_items(Conversation(id="s", messages=SWE), counter, None)
    # step 2: both literals stand in the task statement; step 4: the path does, 60 and 80p do not
    assert [(i.index, i.targets) for i in items] == [
        (2, ("separability_matrix", "astropy/modeling/separable.py")), (4, ("astropy/modeling/separable.py",))]


def test_next_step_rows_by_hand(counter):
    from discourse_memory_evaluation.bench import BenchConfig, Row
    from discourse_memory_evaluation.modes import run_items

    conv = Conversation(id="t", messages=TAU)
    config = BenchConfig(budgets=(0.25,))
    rows = run_items(conv, step_items(conv, counter, None), config, ["full-history", "observation-masking"], Row)
    assert all(r.scores["next_step_support"] == 1.0 for r in rows if r.method == "full-history")
    for r in rows:
        assert r.mode == "next-step" and r.item in (2, 4, 8)
        if r.method == "observation-masking":
            assert r.tokens_out <= r.budget and not r.violation


def _run_with_outputs() -> list[dict]:
    """A tool-calling run whose early outputs name values (and a late one that does too)."""
    out = [{"role": "system", "content": "Help the user."}, {"role": "user", "content": "Hi, I'm mia_li_3668."}]
    results = [
        ("get_user_details", json.dumps({"address1": "975 Sunset Drive", "city": "Austin", "zip": "78701"})),
        ("read_file", "    34\tHORIZON_BUDGETS = 8\n    35\tHORIZON_MIN_TOKENS = 200_000\n    36\ttarget = 'x'"),
        ("get_reservation_details", json.dumps({"reservation_id": "ZFA04Y", "city": "Austin"})),
        ("read_file", "    12\tHORIZON_BUDGETS = 4\n    13\tLATE_VALUE = 'named after 70% of the run'"),
    ]
    for k, (name, result) in enumerate(results):
        out.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{k}", "type": "function", "function": {"name": name, "arguments": "{}"}}]})
        out.append({"role": "tool", "tool_call_id": f"c{k}", "content": result})
    out += [{"role": "assistant", "content": "Done."}, {"role": "user", "content": "Thanks."},
            {"role": "assistant", "content": "You're welcome."}]
    return out


def test_ask_items_ask_for_values_named_once_early_in_the_run(counter):
    run = _run_with_outputs()
    items = ask_items(Conversation(id="a", messages=run), counter, None)
    asked = [(i.index, i.messages[-1]["content"], i.targets) for i in items]
    assert asked == [
        (3, "What was `address1` in the output of get_user_details?", ("975 Sunset Drive",)),
        (3, "What was `zip` in the output of get_user_details?", ("78701",)),
        (5, "What is `HORIZON_MIN_TOKENS` set to?", ("200_000",)),
        (7, "What was `reservation_id` in the output of get_reservation_details?", ("ZFA04Y",)),
    ]
    # Not asked: a name given twice (HORIZON_BUDGETS, "city"), a value of one character
    # ('x'), a value named in the last 30% of the run (LATE_VALUE).
    item = items[0]
    assert item.mode == "ask" and item.messages[:-1] == run and item.exclude == item.messages[-1]["content"]
    assert item.budget(0.25) == int(0.25 * view_tokens(counter, run)) + message_tokens(counter, item.messages[-1])
    assert score_item(item, run) == (1.0, [])
    assert score_item(item, run[:3] + run[4:]) == (0.0, ["975 Sunset Drive"])


def test_ask_items_on_shell_agent_runs(counter):
    run = [
        {"role": "system", "content": "Run one bash command per turn."},
        {"role": "user", "content": "<pr_description>Fix the date widget.</pr_description>"},
        {"role": "assistant", "content": "THOUGHT: read it.\n\n```bash\nnl -ba django/forms/widgets.py\n```"},
        {"role": "user", "content": '<output>\n  1019\t    month_field = "%s_month"\n  1021\t    year_field = "%s_year"\n'
                                    '  1022\t    "template": "select_date.html",\n</output>'},
        {"role": "assistant", "content": "THOUGHT: now the tests.\n\n```bash\npytest tests/forms_tests -q\n```"},
        {"role": "user", "content": "<output>\n12 passed\n</output>"},
        {"role": "assistant", "content": "THOUGHT: done.\n\n```bash\necho done\n```"},
    ]
    asked = [(i.index, i.messages[-1]["content"], i.targets) for i in ask_items(Conversation(id="s", messages=run), counter, None)]
    assert asked == [
        (3, "What is `month_field` set to?", ("%s_month",)),
        (3, "What is `year_field` set to?", ("%s_year",)),
        (3, "What was `template` in the output of `nl`?", ("select_date.html",)),
    ]

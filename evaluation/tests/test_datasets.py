"""Loaders on small synthetic files."""

import json

import pytest

from discourse_memory_evaluation.datasets import DataFormatError, load, load_locomo, load_runs

LOCOMO = [
    {
        "sample_id": "conv-x",
        "conversation": {
            "speaker_a": "Caroline",
            "speaker_b": "Melanie",
            "session_2_date_time": "2:00 pm on 9 May, 2023",
            "session_2": [{"speaker": "Melanie", "dia_id": "D2:1", "text": "Back again."}],
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Caroline", "dia_id": "D1:1", "text": "Hey Mel!"},
                {"speaker": "Melanie", "dia_id": "D1:2", "text": "Look at this.",
                 "blip_caption": "a photo of a sunset"},
            ],
        },
        "qa": [
            {"question": "When?", "answer": 2022, "evidence": ["D1:2"], "category": 2},
            {"question": "Trick?", "evidence": ["D2:1"], "category": 5, "adversarial_answer": "no"},
            {"question": "Where?", "answer": "home", "evidence": "D2:1", "category": 1},
        ],
    }
]

RUNS = [
    {
        "id": "run-1",
        "messages": [
            {"role": "system", "content": "policy"},
            {"role": "user", "content": "cancel ZFA04Y"},
            {"role": "assistant", "content": "None",
             "tool_calls": "[{'id': 'c1', 'type': 'function', 'function': "
                           "{'name': 'cancel', 'arguments': '{\"reservation_id\": \"ZFA04Y\"}'}}]"},
            {"role": "tool", "tool_call_id": "c1", "name": "cancel", "content": "ok"},
            {"role": "assistant", "content": "Done.",
             "tool_calls": [{"id": "c2", "function": {"name": "log", "arguments": {"n": 1}}}]},
        ],
        "gold_actions": [{"name": "cancel", "kwargs": {"reservation_id": "ZFA04Y"}}],
    },
    {"id": "run-2", "messages": [{"role": "user", "content": "hi"}]},
]


@pytest.fixture
def locomo_file(tmp_path):
    path = tmp_path / "locomo_small.json"
    path.write_text(json.dumps(LOCOMO), encoding="utf-8")
    return path


@pytest.fixture
def runs_file(tmp_path):
    path = tmp_path / "runs_small.jsonl"
    path.write_text("\n".join(json.dumps(r) for r in RUNS) + "\n\n", encoding="utf-8")
    return path


def test_locomo_turns_become_messages_in_session_order(locomo_file):
    (conv,) = load_locomo(locomo_file)
    assert conv.id == "conv-x"
    assert conv.dataset == "locomo_small"
    assert conv.messages == [
        {"role": "user", "content": "[1:56 pm on 8 May, 2023]\nCaroline: Hey Mel!"},
        {"role": "assistant", "content": "Melanie: Look at this. [shares a photo: a photo of a sunset]"},
        {"role": "assistant", "content": "[2:00 pm on 9 May, 2023]\nMelanie: Back again."},
    ]
    assert conv.dia_ids == [("D1:1",), ("D1:2",), ("D2:1",)]
    assert conv.turns["D1:2"] == "Look at this. [shares a photo: a photo of a sunset]"
    assert [(q.answer, q.category, q.evidence) for q in conv.qa] == [
        ("2022", 2, ("D1:2",)),
        (None, 5, ("D2:1",)),
        ("home", 1, ("D2:1",)),  # a bare string of evidence is one dia_id
    ]


def test_runs_are_normalised(runs_file):
    first, second = load_runs(runs_file)
    assert first.id == "run-1" and second.id == "run-2"
    call_message = first.messages[2]
    assert call_message["content"] is None
    assert call_message["tool_calls"] == [
        {"id": "c1", "type": "function",
         "function": {"name": "cancel", "arguments": '{"reservation_id": "ZFA04Y"}'}}
    ]
    # non-string arguments are dumped to JSON; a missing "type" is filled in
    assert first.messages[4]["tool_calls"][0]["function"]["arguments"] == '{"n": 1}'
    assert first.messages[4]["tool_calls"][0]["type"] == "function"
    assert first.messages[4]["content"] == "Done."
    assert first.gold_actions == [{"name": "cancel", "kwargs": {"reservation_id": "ZFA04Y"}}]
    assert second.gold_actions == []


def test_load_detects_the_format(locomo_file, runs_file, tmp_path):
    assert load(locomo_file)[0].qa  # LoCoMo
    assert [c.id for c in load(runs_file)] == ["run-1", "run-2"]
    as_list = tmp_path / "runs.json"
    as_list.write_text(json.dumps(RUNS), encoding="utf-8")
    assert [c.id for c in load(as_list)] == ["run-1", "run-2"]
    one_line = tmp_path / "one.jsonl"
    one_line.write_text(json.dumps(RUNS[1]), encoding="utf-8")
    assert [c.id for c in load(one_line)] == ["run-2"]


def test_load_errors_say_what_is_wrong(tmp_path):
    with pytest.raises(FileNotFoundError, match="no such data file"):
        load(tmp_path / "missing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"id": 1, "text": "no messages"}\n', encoding="utf-8")
    with pytest.raises(DataFormatError, match="no 'messages' list"):
        load(bad)
    broken = tmp_path / "broken.jsonl"
    broken.write_text('{"id": 1, "messages": []}\nnot json\n', encoding="utf-8")
    with pytest.raises(DataFormatError, match=r"broken.jsonl:2: not JSON"):
        load(broken)


def test_gold_values_chats_load_and_each_file_has_a_kind(tmp_path, locomo_file, runs_file):
    from discourse_memory_evaluation.datasets import conversation_kind

    path = tmp_path / "zh.jsonl"
    path.write_text(json.dumps(ZH_CHAT, ensure_ascii=False), encoding="utf-8")
    (conv,) = load(path)
    assert conv.gold_values == ["4.5分以上", "篱苑图书馆", "010-84580888", "颐和园"]  # blanks dropped
    assert conversation_kind(conv) == "gold-values"
    first, second = load_runs(runs_file)
    assert conversation_kind(first) == "tool-calls" and conversation_kind(second) == "chat"
    assert conversation_kind(load(locomo_file)[0]) == "qa-dialogue"
    shell = {"id": "s", "messages": [{"role": "user", "content": "task"},
                                     {"role": "assistant", "content": "THOUGHT: x\n\n```bash\nls\n```"}]}
    path.write_text(json.dumps(shell), encoding="utf-8")
    assert conversation_kind(load(path)[0]) == "shell-agent"


ZH_CHAT = {
    "id": "zh-1",
    "messages": [{"role": "user", "content": "推荐一个评分4.5分以上的景点。"},
                 {"role": "assistant", "content": "篱苑图书馆，电话010-84580888。"}],
    "gold_values": ["4.5分以上", "篱苑图书馆", "010-84580888", " ", "颐和园"],
}


def test_bench_scores_the_gold_values_the_history_states_and_a_file_has_the_kind_of_most_runs(tmp_path, runs_file):
    from discourse_memory_evaluation.bench import file_kind, targets

    path = tmp_path / "zh.jsonl"
    path.write_text(json.dumps(ZH_CHAT, ensure_ascii=False), encoding="utf-8")
    assert targets(load(path)[0]).gold == ["4.5分以上", "篱苑图书馆", "010-84580888"]  # 颐和园 is never said
    assert file_kind(load_runs(runs_file)) == "tool-calls"  # a run that made no call does not decide

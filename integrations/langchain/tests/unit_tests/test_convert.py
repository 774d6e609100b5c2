"""LangChain message <-> core dict conversion (no core call: core outputs are written by hand)."""

from __future__ import annotations

import json
from types import SimpleNamespace

import pytest
from langchain_core.messages import AIMessage, ChatMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_discourse_memory._convert import NOTE_SOURCE_TAG, from_core, message_role, to_core_dict


def to_core_dicts(messages):
    return [to_core_dict(m) for m in messages]


def from_core_messages(originals, sent, received, sources, *, note_role):
    """from_core on a hand-written core result (the note's text is the note message's content)."""
    note = next((m["content"] for m, s in zip(received, sources) if s is None), None)
    return from_core(originals, sent, SimpleNamespace(messages=received, sources=sources, note=note), note_role)


def test_each_message_type_becomes_an_openai_dict() -> None:
    msgs = [
        SystemMessage("rules", id="s"),
        SystemMessage("dev rules", additional_kwargs={"__openai_role__": "developer"}),
        HumanMessage("hi", name="ann", id="h"),
        AIMessage("", tool_calls=[{"id": "c1", "name": "lookup", "args": {"q": "ORD-7", "n": 2}}], id="a"),
        ToolMessage("found", tool_call_id="c1", name="lookup", id="t"),
        ChatMessage("from a bot", role="ai"),
    ]
    assert to_core_dicts(msgs) == [
        {"role": "system", "content": "rules"},
        {"role": "developer", "content": "dev rules"},
        {"role": "user", "content": "hi", "name": "ann"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"q": "ORD-7", "n": 2}'}}
            ],
        },
        {"role": "tool", "content": "found", "tool_call_id": "c1", "name": "lookup"},
        {"role": "assistant", "content": "from a bot"},
    ]


def test_list_content_is_passed_as_parts_with_the_tool_calls() -> None:
    blocks = [
        {"type": "text", "text": "Let me look."},
        {"type": "tool_use", "id": "c9", "name": "lookup", "input": {"q": "x"}},
        "and a plain string block",
    ]
    ai = AIMessage(blocks, tool_calls=[{"id": "c9", "name": "lookup", "args": {"q": "x"}}])
    d = to_core_dict(ai)
    assert d["content"] == blocks  # the core reads the text parts and passes the others through in place
    assert [c["id"] for c in d["tool_calls"]] == ["c9"]
    assert json.loads(d["tool_calls"][0]["function"]["arguments"]) == {"q": "x"}


def test_invalid_tool_calls_with_an_id_are_sent_so_their_results_stay_paired() -> None:
    ai = AIMessage("", invalid_tool_calls=[{"id": "bad1", "name": "lookup", "args": "{not json", "error": "x"}])
    assert to_core_dict(ai)["tool_calls"] == [
        {"id": "bad1", "type": "function", "function": {"name": "lookup", "arguments": "{not json"}}
    ]


def test_unchanged_messages_come_back_as_the_same_objects() -> None:
    msgs = [HumanMessage("a", id="1"), AIMessage("b", id="2")]
    sent = to_core_dicts(msgs)
    out = from_core_messages(msgs, sent, [dict(d) for d in sent], (0, 1), note_role="system")
    assert out[0] is msgs[0] and out[1] is msgs[1]


def test_shortened_content_keeps_id_name_and_metadata() -> None:
    original = HumanMessage(
        "a very long message about ORD-7", id="h1", name="ann", additional_kwargs={"x": 1}, response_metadata={"y": 2}
    )
    sent = to_core_dicts([original])
    out = from_core_messages([original], sent, [{"role": "user", "content": "a very…"}], (0,), note_role="system")
    assert out[0] is not original
    assert (out[0].content, out[0].id, out[0].name) == ("a very…", "h1", "ann")
    assert out[0].additional_kwargs == {"x": 1} and out[0].response_metadata == {"y": 2}
    assert original.content == "a very long message about ORD-7"  # the original is not modified


def test_dropped_tool_calls_also_drop_provider_blocks_and_raw_kwargs() -> None:
    ai = AIMessage(
        [
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "c1", "name": "lookup", "input": {}},
            {"type": "reasoning", "reasoning": "keep me"},
        ],
        tool_calls=[{"id": "c1", "name": "lookup", "args": {}}],
        additional_kwargs={"tool_calls": [{"id": "c1"}], "other": True},
        id="a1",
    )
    sent = to_core_dicts([ai])
    # the core returns the parts (non-text ones in place) without the calls
    out = from_core_messages([ai], sent, [{"role": "assistant", "content": ai.content}], (0,), note_role="system")
    got = out[0]
    assert isinstance(got, AIMessage) and got.id == "a1"
    assert got.tool_calls == [] and got.invalid_tool_calls == []
    assert got.additional_kwargs == {"other": True}
    assert got.content == [{"type": "text", "text": "Checking."}, {"type": "reasoning", "reasoning": "keep me"}]


def test_shortened_list_content_takes_the_cores_parts_and_keeps_images() -> None:
    image = {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}}
    first = {"type": "text", "text": "first part", "cache_control": {"type": "ephemeral"}}
    human = HumanMessage([first, image, {"type": "text", "text": "second"}])
    sent = to_core_dicts([human])
    got = [{**first, "text": "first…"}, image]  # the core clipped one part and left the other out
    out = from_core_messages([human], sent, [{"role": "user", "content": got}], (0,), note_role="system")
    assert out[0].content == got
    assert human.content[0]["text"] == "first part"  # the original is not modified


def test_note_becomes_a_tagged_system_or_human_message() -> None:
    msgs = [HumanMessage("q")]
    sent = to_core_dicts(msgs)
    received = [{"role": "system", "content": "[record] ORD-7"}, sent[0]]
    out = from_core_messages(msgs, sent, received, (None, 0), note_role="system")
    assert isinstance(out[0], SystemMessage) and out[0].content == "[record] ORD-7"
    assert out[0].additional_kwargs == {"lc_source": NOTE_SOURCE_TAG}
    out = from_core_messages(
        msgs, sent, [{"role": "user", "content": "[record]"}, sent[0]], (None, 0), note_role="user"
    )
    assert isinstance(out[0], HumanMessage) and out[0].additional_kwargs["lc_source"] == NOTE_SOURCE_TAG


def test_sources_length_mismatch_is_reported() -> None:
    msgs = [HumanMessage("q")]
    with pytest.raises(ValueError):
        from_core_messages(msgs, to_core_dicts(msgs), [], (0,), note_role="system")


def test_non_messages_are_refused_clearly() -> None:
    with pytest.raises(TypeError, match="BaseMessage"):
        message_role({"role": "user", "content": "x"})  # type: ignore[arg-type]


def test_conversion_follows_reassigned_fields() -> None:
    msg = AIMessage("first", tool_calls=[{"id": "c1", "name": "lookup", "args": {"q": 1}}])
    assert to_core_dict(msg)["content"] == "first"
    msg.content = "second"
    msg.tool_calls = [{"id": "c2", "name": "lookup", "args": {"q": 2}, "type": "tool_call"}]
    d = to_core_dict(msg)
    assert d["content"] == "second" and d["tool_calls"][0]["id"] == "c2"


def test_developer_note_role_gives_a_system_message_with_the_openai_role() -> None:
    msgs = [HumanMessage("q")]
    sent = to_core_dicts(msgs)
    out = from_core_messages(msgs, sent, [{"role": "developer", "content": "[record]"}, sent[0]], (None, 0),
                             note_role="developer")
    assert isinstance(out[0], SystemMessage) and message_role(out[0]) == "developer"
    assert out[0].additional_kwargs["lc_source"] == NOTE_SOURCE_TAG

"""ChatMessage <-> core dict conversion, with hand-written expectations."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from llama_index.core.base.llms.types import (
    ChatMessage,
    ImageBlock,
    MessageRole,
    TextBlock,
    ToolCallBlock,
)
from llama_index.core.llms.llm import ToolSelection
from llama_index.memory.discourse._convert import (
    from_compaction,
    to_core_message,
    to_core_messages,
    tool_calls_of,
)


def test_plain_text_and_roles():
    assert to_core_message(ChatMessage(role="user", content="hi there")) == {
        "role": "user",
        "content": "hi there",
    }
    assert to_core_message(ChatMessage(role="system", content="be brief")) == {
        "role": "system",
        "content": "be brief",
    }
    # Cohere/Gemini style assistant roles are assistants for the core.
    assert to_core_message(ChatMessage(role=MessageRole.CHATBOT, content="x"))["role"] == "assistant"
    assert to_core_message(ChatMessage(role=MessageRole.MODEL, content="x"))["role"] == "assistant"


def test_text_blocks_joined_like_chatmessage_content():
    msg = ChatMessage(role="user", blocks=[TextBlock(text="a"), TextBlock(text="b")])
    assert to_core_message(msg)["content"] == "a\nb" == msg.content


def test_message_without_text_has_none_content():
    msg = ChatMessage(
        role="assistant",
        blocks=[ToolCallBlock(tool_call_id="c1", tool_name="f", tool_kwargs={})],
    )
    assert to_core_message(msg)["content"] is None


def test_tool_call_blocks_become_openai_calls():
    msg = ChatMessage(
        role="assistant",
        blocks=[
            TextBlock(text="let me check"),
            ToolCallBlock(tool_call_id="c1", tool_name="lookup", tool_kwargs={"order_id": "A-17"}),
            ToolCallBlock(tool_call_id="c2", tool_name="raw", tool_kwargs='{"q": 1}'),
        ],
    )
    assert to_core_message(msg) == {
        "role": "assistant",
        "content": "let me check",
        "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"order_id": "A-17"}'}},
            {"id": "c2", "type": "function", "function": {"name": "raw", "arguments": '{"q": 1}'}},
        ],
    }


def test_additional_kwargs_tool_calls_in_every_known_shape():
    openai_dict = {"id": "c1", "type": "function", "function": {"name": "a", "arguments": "{}"}}
    openai_obj = SimpleNamespace(id="c2", function=SimpleNamespace(name="b", arguments='{"x": 2}'))
    selection = ToolSelection(tool_id="c3", tool_name="c", tool_kwargs={"y": 3})
    anthropic = {"id": "c4", "name": "d", "input": {"z": 4}}
    msg = ChatMessage(
        role="assistant",
        content="",
        additional_kwargs={"tool_calls": [openai_dict, openai_obj, selection, anthropic, object()]},
    )
    calls = tool_calls_of(msg)
    assert [(c["id"], c["function"]["name"], c["function"]["arguments"]) for c in calls] == [
        ("c1", "a", "{}"),
        ("c2", "b", '{"x": 2}'),
        ("c3", "c", '{"y": 3}'),
        ("c4", "d", '{"z": 4}'),
    ]


def test_same_call_in_blocks_and_kwargs_counted_once():
    msg = ChatMessage(
        role="assistant",
        blocks=[ToolCallBlock(tool_call_id="c1", tool_name="f", tool_kwargs={"a": 1})],
        additional_kwargs={
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}]
        },
    )
    assert len(tool_calls_of(msg)) == 1


def test_tool_result_keeps_its_call_id_and_assistant_does_not():
    tool = ChatMessage(role="tool", content="42", additional_kwargs={"tool_call_id": "c1"})
    assert to_core_message(tool) == {"role": "tool", "content": "42", "tool_call_id": "c1"}
    # FunctionAgent's return_direct message: an assistant message carrying tool_call_id.
    direct = ChatMessage(role="assistant", content="42", additional_kwargs={"tool_call_id": "c1"})
    assert to_core_message(direct) == {"role": "assistant", "content": "42"}


def test_to_core_messages_keeps_order():
    msgs = [ChatMessage(role="user", content=str(i)) for i in range(5)]
    assert [m["content"] for m in to_core_messages(msgs)] == ["0", "1", "2", "3", "4"]


def test_from_compaction_replaces_text_and_keeps_metadata():
    image = ImageBlock(url="https://example.com/cat.png")
    original = ChatMessage(
        role="user",
        blocks=[TextBlock(text="long text here"), image],
        additional_kwargs={"name": "ann", "custom": 7},
    )
    sent = to_core_messages([original])
    out = from_compaction([original], sent, [{"role": "user", "content": "long"}], [0])
    assert len(out) == 1
    got = out[0]
    assert got.role == MessageRole.USER
    assert got.additional_kwargs == {"name": "ann", "custom": 7}
    assert [type(b).__name__ for b in got.blocks] == ["TextBlock", "ImageBlock"]
    assert got.blocks[0].text == "long"
    # The original is untouched.
    assert original.blocks[0].text == "long text here"


def test_from_compaction_unchanged_message_is_an_equal_copy():
    original = ChatMessage(role="assistant", content="same", additional_kwargs={"k": 1})
    sent = to_core_messages([original])
    out = from_compaction([original], sent, [dict(sent[0])], [0])
    assert out[0] == original
    assert out[0] is not original
    out[0].additional_kwargs["k"] = 2
    out[0].blocks.append(TextBlock(text="more"))
    assert original.additional_kwargs == {"k": 1}
    assert len(original.blocks) == 1


def test_from_compaction_dropped_tool_calls_are_removed_everywhere():
    original = ChatMessage(
        role="assistant",
        blocks=[
            TextBlock(text="calling"),
            ToolCallBlock(tool_call_id="c1", tool_name="f", tool_kwargs={}),
        ],
        additional_kwargs={"tool_calls": [{"id": "c1", "function": {"name": "f", "arguments": "{}"}}], "x": 1},
    )
    sent = to_core_messages([original])
    out = from_compaction([original], sent, [{"role": "assistant", "content": "calling"}], [0])
    got = out[0]
    assert [type(b).__name__ for b in got.blocks] == ["TextBlock"]
    assert got.additional_kwargs == {"x": 1}


def test_from_compaction_note_becomes_a_message_with_the_note_role():
    a = ChatMessage(role="user", content="q")
    sent = to_core_messages([a])
    note = {"role": "system", "content": "Left out: INV-7"}
    out = from_compaction([a], sent, [note, dict(sent[0])], [None, 0], note_role="user")
    assert out[0].role == MessageRole.USER
    assert out[0].content == "Left out: INV-7"
    assert out[0].additional_kwargs == {}  # nothing that an LLM API would reject


def test_from_compaction_rejects_mismatched_sources():
    a = ChatMessage(role="user", content="q")
    with pytest.raises(ValueError):
        from_compaction([a], to_core_messages([a]), [{"role": "user", "content": "q"}], [0, 0])


def test_token_counter_for_a_custom_tokenizer_counts_list_length():
    from llama_index.memory.discourse._cache import token_counter_for

    counter = token_counter_for(lambda text: text.split())
    assert counter.count("a b c") == 3
    assert counter.count("") == 0


def test_token_counter_for_the_default_tokenizer_is_the_cores_encoding():
    from llama_index.core.utils import get_tokenizer
    from llama_index.memory.discourse._cache import token_counter_for

    import discourse_memory

    assert token_counter_for(get_tokenizer()) is discourse_memory.get_token_counter("cl100k_base")

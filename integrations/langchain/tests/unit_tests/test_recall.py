"""`RecallTool` over a history, a legacy memory and the core's memory; how a call is resolved."""

from __future__ import annotations

import re
import warnings

import pytest
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_discourse_memory import DiscourseChatMessageHistory, RecallTool
from langchain_discourse_memory.testing import sample_conversation

from discourse_memory import DiscourseMemory

BUDGET = 350  # (about 300 tokens of text and the request's framing)


def note_of(messages) -> str:
    return next(str(m.content) for m in messages if m.additional_kwargs.get("lc_source") == "discourse_memory")


def text_of(messages) -> str:
    return "\n".join(str(m.content) + str(getattr(m, "tool_calls", "")) for m in messages)


def call(reference: str, call_id: str = "call_r") -> dict:
    return {"name": "recall", "args": {"reference": reference}, "id": call_id, "type": "tool_call"}


@pytest.fixture
def history() -> DiscourseChatMessageHistory:
    history = DiscourseChatMessageHistory(max_tokens=BUDGET, recall=True)
    history.add_messages(sample_conversation(8))
    return history


def test_the_tool_gets_back_what_the_view_only_pointed_to(history: DiscourseChatMessageHistory) -> None:
    view = history.messages
    note = note_of(view)
    assert "recall #N" in note
    shown = text_of(view)
    # The references the view hands out: the note's entries, and the mark a message
    # that lost text leaves ("…#12").
    refs = [line.split()[0] for line in note.splitlines() if re.match(r"#\d+ ", line)]
    refs += re.findall(r"…(#\d+)", shown)
    pointed = [(ref, [v for v in re.findall(r"item-\d+-\d+", str(history.full_messages[int(ref[1:])].content))
                      if v not in shown]) for ref in refs]
    ref, missing = next(((r, m) for r, m in pointed if m), (None, []))
    assert missing, pointed  # values only a reference points to
    source = history.full_messages[int(ref[1:])]
    result = RecallTool(history).invoke(call(ref))
    assert isinstance(result, ToolMessage) and result.tool_call_id == "call_r" and result.name == "recall"
    assert result.artifact == {"found": True, "messages": [int(ref[1:])]}
    assert result.content[1] == {"type": "text", "text": source.text}  # the header, then the body verbatim
    assert all(v in result.text for v in missing)


def test_without_recall_the_note_names_no_way_back() -> None:
    history = DiscourseChatMessageHistory(max_tokens=BUDGET)
    history.add_messages(sample_conversation(8))
    assert "recall #" not in note_of(history.messages)


def test_a_query_searches_what_the_last_view_left_out(history: DiscourseChatMessageHistory) -> None:
    newest = len(history.full_messages) - 1
    unviewed = DiscourseChatMessageHistory(max_tokens=BUDGET, recall=True)
    unviewed.add_messages(history.full_messages)
    query = "anything else help today"  # every answer ends so; the view shows only the newest copy
    assert newest in unviewed.recalled(query).messages  # no view yet: the whole history is searched
    view = history.messages
    assert "anything else I can help you with today?" in text_of(view[-1:])
    found = history.recalled(query)
    assert found.found and newest not in found.messages  # shown, so not left out
    left_out = next(v for v in re.findall(r"item-\d+-\d+", text_of(history.full_messages)) if v not in text_of(view))
    found = history.recalled(left_out)
    assert found.found and left_out in found.text


def test_a_recall_returns_at_most_half_the_views_budget(history: DiscourseChatMessageHistory) -> None:
    compaction = history.view().compaction
    found = history.recalled("#0-#20", max_tokens=10**6)
    assert found == compaction.recall("#0-#20", BUDGET // 2) != compaction.recall("#0-#20", 10**6)
    assert "(continues: #" in found.text and history.recalled("#0-#20", 40) == compaction.recall("#0-#20", 40)


def test_another_conversation_gets_no_text_of_the_old_one(history: DiscourseChatMessageHistory) -> None:
    tag = re.search(r"record ([0-9a-f]{8})", note_of(history.messages)).group(1)  # type: ignore[union-attr]
    old = history.recalled("#3")
    history.clear()
    history.add_messages([HumanMessage("A new conversation."), AIMessage("Indeed.")])
    stale = history.recalled(f"{tag}#3")
    assert not stale.found and f"record {tag} is not from this conversation" in stale.text
    assert not history.recalled("#3").found and old.text not in history.recalled("#0-#1").text


def test_the_core_memory_works_with_the_tool_too() -> None:
    memory = DiscourseMemory([{"role": "user", "content": "The door code is 4471."}], recall=True)
    assert RecallTool(memory).invoke({"reference": "#0"}) == [{"type": "text", "text": "#0 user:\n"},
                                                               {"type": "text", "text": "The door code is 4471."}]


def test_the_legacy_memory_has_the_same_tool() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        from langchain_discourse_memory import ConversationDiscourseMemory

        # (a budget whose note lists entries: the reference is read from one)
        memory = ConversationDiscourseMemory(max_token_limit=BUDGET + 100, recall=True, return_messages=True)
    memory.chat_memory.add_messages(sample_conversation(8))
    view = memory.load_memory_variables({})["history"]
    ref = next(line for line in note_of(view).splitlines() if re.match(r"#\d+ ", line)).split()[0]
    result = RecallTool(memory).invoke(call(ref))
    assert result.artifact["found"] and memory.chat_memory.messages[int(ref[1:])].text in result.text


def test_the_description_is_one_line_and_the_schema_what_the_model_fills(history) -> None:
    tool = RecallTool(history)
    assert "\n" not in tool.description and "#12" in tool.description and "#12-#15" in tool.description
    assert set(tool.tool_call_schema.model_json_schema()["properties"]) == {"reference", "max_tokens"}

"""The history cannot be changed or lost behind the library's back: views do not alias
the stored history, and the compaction cache notices messages edited in place.

(Both were bugs found for issue 6: ``DiscourseMemory.view()`` returned shallow copies
whose content-part and ``tool_calls`` lists were the stored history's own, and the
shared ``Compactor`` reused its analysis of a message that was the same dict with the
same ``content`` / ``tool_calls`` objects even after they were edited in place, so the
view kept the old token count and could exceed the budget.)
"""

from __future__ import annotations

import copy
import json

from discourse_memory import Compactor, DiscourseMemory, compact, get_token_counter

COUNTER = get_token_counter()


def _tokens(messages: list[dict]) -> int:
    """The request's tokens as OpenAI's cookbook counts them (the default budget's count):
    text, calls' names and arguments, 3 a message and its other values, 3 to prime the reply."""
    total = 3
    for m in messages:
        total += 3 + sum(COUNTER.count(v) + (k == "name") for k, v in m.items()
                         if k not in ("content", "tool_calls") and isinstance(v, str))
        total += sum(COUNTER.count(c.get("id") or "") + COUNTER.count(c.get("type", "function"))
                     for c in m.get("tool_calls") or [])
        c = m.get("content")
        if isinstance(c, str):
            total += COUNTER.count(c)
        elif isinstance(c, list):
            total += sum(COUNTER.count(p["text"]) for p in c if isinstance(p, dict) and p.get("type") == "text")
        for call in m.get("tool_calls") or []:
            total += COUNTER.count(call["function"]["name"]) + COUNTER.count(call["function"]["arguments"])
    return total


def test_editing_a_view_does_not_change_the_history() -> None:
    history = [
        {"role": "user", "content": [{"type": "text", "text": "Ship order ORD-1 to Lisbon."}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "ship", "arguments": '{"order": "ORD-1"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "shipped"},
        {"role": "user", "content": "Thanks."},
    ]
    memory = DiscourseMemory(history)
    before = copy.deepcopy(memory.messages)
    view = memory.view(1000).messages
    view[0]["content"][0]["text"] = "TAMPERED"
    view[0]["content"].append({"type": "text", "text": "extra"})
    view[1]["tool_calls"][0]["function"]["arguments"] = '{"order": "ORD-666"}'
    assert memory.messages == before, "editing the view rewrote the stored history"


def test_a_message_edited_in_place_is_read_again() -> None:
    msgs = [
        {"role": "user", "content": [{"type": "text", "text": "short"}]},
        {"role": "assistant", "content": "ok"},
        {"role": "user", "content": "next"},
    ]
    assert compact(msgs, 100).tokens_before == 3 + 3 * 4 + 3  # (three one-token texts, each message framed)
    msgs[0]["content"][0]["text"] = "A much longer text now, with many more words than before. " * 20
    result = compact(msgs, 100)
    assert result.tokens_before == _tokens(msgs)
    assert _tokens(result.messages) <= 100, "the view exceeds the budget"


def test_tool_call_arguments_edited_in_place_are_read_again() -> None:
    msgs = [
        {"role": "user", "content": "Look it up."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "found"},
        {"role": "user", "content": "And?"},
    ]
    compact(msgs, 200)
    msgs[1]["tool_calls"][0]["function"]["arguments"] = json.dumps({"q": "word " * 400})
    result = compact(msgs, 200)
    assert result.tokens_before == _tokens(msgs)
    assert _tokens(result.messages) <= 200


def test_editing_a_views_inputs_does_not_change_the_history() -> None:
    """``Compaction.inputs`` (used by ``to_html``) of a memory view is the memory's own
    snapshot list: its dicts are the stored messages, so editing them rewrites the
    history. (Fails today: copy the snapshot, or hand out copies, in ``view()``.)"""
    memory = DiscourseMemory([{"role": "user", "content": [{"type": "text", "text": "original"}]},
                              {"role": "user", "content": "question"}])
    before = copy.deepcopy(memory.messages)
    inputs = memory.view(100).inputs
    inputs[0]["content"][0]["text"] = "TAMPERED"
    assert memory.messages == before, "editing view().inputs rewrote the stored history"


def test_the_same_text_as_a_string_after_a_part_list_is_rendered_as_a_string() -> None:
    # Found by the atheris fuzzer: the cache matched conversations by their texts alone,
    # so a message that came back with the same text as a string instead of a text part
    # reused the analysis of the part, and rendering it raised KeyError('content').
    text = "The order ORD-7 shipped on 2024-05-01 with UPS. " * 3

    def conversation(content: object) -> list[dict]:
        return [{"role": "user", "content": "Where is my order? " * 30},
                {"role": "assistant", "content": content},
                {"role": "user", "content": "ok"}]

    as_parts = conversation([{"type": "text", "text": text}])
    as_string = conversation(text)
    for first, second in ((as_parts, as_string), (as_string, as_parts)):
        compactor = Compactor()
        compactor.compact(first, 150)
        result = compactor.compact(second, 150)
        shown = result.messages[result.sources.index(1)]
        assert type(shown["content"]) is type(second[1]["content"])
        assert _tokens(result.messages) <= 150
        assert result.tokens_before == _tokens(second)

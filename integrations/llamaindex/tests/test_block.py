"""DiscourseMemoryBlock inside LlamaIndex's Memory (SQLite in memory, offline)."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from li_helpers import count, text_of
from llama_index.core.base.llms.types import ChatMessage, MessageRole
from llama_index.core.memory import Memory
from llama_index.core.storage.chat_store.sql import MessageStatus
from llama_index.memory.discourse import DiscourseMemoryBlock


def user_turn(i: int) -> str:
    return (
        f"Booking BK-{7300 + i} for {['Ana', 'Bram', 'Chen', 'Dara'][i % 4]} Okafor, "
        f"room {100 + i}, arriving 2025-0{1 + i % 9}-{10 + i % 18}. Card ends {4000 + i}. "
        "Please make sure the room is quiet and away from the elevator, thank you so much."
    )


def make_memory(block: DiscourseMemoryBlock, session: str, token_limit: int = 600) -> Memory:
    return Memory.from_defaults(
        session_id=session,
        token_limit=token_limit,
        chat_history_token_ratio=0.5,
        token_flush_size=120,
        memory_blocks=[block],
    )


def fill(memory: Memory, turns: int) -> None:
    for i in range(turns):
        memory.put(ChatMessage(role="user", content=user_turn(i)))
        memory.put(ChatMessage(role="assistant", content=f"Done, booking BK-{7300 + i} is noted."))


def test_flushed_messages_literals_reach_the_model():
    block = DiscourseMemoryBlock(token_limit=500)
    memory = make_memory(block, "s-literals", token_limit=1000)
    fill(memory, 20)
    archived = memory.get_all(status=MessageStatus.ARCHIVED)
    active = memory.get_all(status=MessageStatus.ACTIVE)
    assert archived, "the queue must have flushed"
    assert len(archived) + len(active) == 40
    # The block kept every flushed message.
    assert [m.content for m in block.messages] == [m.content for m in archived]

    sent = memory.get()
    assert sent[0].role == MessageRole.SYSTEM
    memory_text = text_of(sent[0])
    assert "<DiscourseMemory>" in memory_text
    active_text = "\n".join(m.content or "" for m in active)
    # The first booking was flushed out of the chat history...
    assert "BK-7300" not in active_text
    # ...and is still available to the model through the block.
    assert "BK-7300" in memory_text
    assert count(memory_text) <= 1000


def test_block_content_fits_its_limit_and_atruncate_shrinks_it():
    block = DiscourseMemoryBlock(token_limit=300)
    memory = make_memory(block, "s-trunc", token_limit=900)
    fill(memory, 30)
    content = asyncio.run(block.aget(session_id="s-trunc"))
    assert 0 < count(content) <= 300
    shorter = asyncio.run(block.atruncate(content, 120))
    assert shorter is not None
    assert 0 < count(shorter) <= count(content) - 120
    assert asyncio.run(block.atruncate(content, count(content))) is None
    assert asyncio.run(block.atruncate(content, 0)) == content


def test_memory_truncates_the_block_instead_of_dropping_it():
    block = DiscourseMemoryBlock(token_limit=700, priority=1)
    memory = make_memory(block, "s-memory", token_limit=1000)
    fill(memory, 30)
    sent = memory.get()
    history = [m for m in sent[1:]]
    block_text = text_of(sent[0])
    assert "<DiscourseMemory>" in block_text, "the block was dropped whole"
    # Memory asked for a cut: history + block would exceed its limit untruncated.
    untruncated = asyncio.run(block.aget(session_id="s-memory"))
    history_tokens = sum(count(m.content) for m in history)
    assert history_tokens + count(untruncated) > 1000
    assert history_tokens + count(block_text) <= 1000 + 30  # template tags are not budgeted by Memory


def test_sessions_are_kept_apart():
    block = DiscourseMemoryBlock(token_limit=400)
    asyncio.run(block.aput([ChatMessage(role="user", content="alpha CODE-1")], session_id="a"))
    asyncio.run(block.aput([ChatMessage(role="user", content="beta CODE-2")], session_id="b"))
    a = asyncio.run(block.aget(session_id="a"))
    b = asyncio.run(block.aget(session_id="b"))
    assert "CODE-1" in a and "CODE-2" not in a
    assert "CODE-2" in b and "CODE-1" not in b


def test_block_rejects_non_positive_limit():
    with pytest.raises(ValueError):
        DiscourseMemoryBlock(token_limit=0)


_words = st.lists(
    st.sampled_from(["Room", "101", "BK-7", "2025-03-04", "quiet", "please", "the", "Okafor.", "late", "checkout"]),
    min_size=1,
    max_size=30,
).map(" ".join)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(texts=st.lists(_words, min_size=1, max_size=12), limit=st.integers(1, 300), cut=st.integers(0, 300))
def test_property_block_text_fits_and_truncation_shrinks(texts, limit, cut):
    block = DiscourseMemoryBlock(token_limit=limit)
    messages = [ChatMessage(role="user" if i % 2 == 0 else "assistant", content=t) for i, t in enumerate(texts)]
    asyncio.run(block.aput(messages, session_id="p"))
    assert len(block.messages) == len(messages)  # every flushed message is kept
    content = asyncio.run(block.aget(session_id="p"))
    assert count(content) <= limit
    truncated = asyncio.run(block.atruncate(content, cut))
    if cut == 0:
        assert truncated == content
    elif truncated is not None:
        assert count(truncated) <= count(content) - cut


def test_block_copies_keep_working():
    import copy

    block = DiscourseMemoryBlock(token_limit=200)
    asyncio.run(block.aput([ChatMessage(role="user", content=user_turn(i)) for i in range(12)]))
    text = asyncio.run(block.aget())
    assert asyncio.run(copy.deepcopy(block).aget()) == text


def test_memorys_input_is_the_blocks_focus(monkeypatch):
    block = DiscourseMemoryBlock(token_limit=300)
    memory = make_memory(block, "s-focus", token_limit=1000)
    fill(memory, 20)
    seen = []
    original = DiscourseMemoryBlock.render_within

    def spy(self, limit, session_id=None, focus=None):
        seen.append((session_id, focus))
        return original(self, limit, session_id, focus)

    monkeypatch.setattr(DiscourseMemoryBlock, "render_within", spy)
    question = "Which room and card did booking BK-7301 have?"
    sent = memory.get(input=question)
    assert seen[0] == ("s-focus", question)
    assert "BK-7301" in text_of(sent[0]) and "4001" in text_of(sent[0])  # the answer, flushed long ago
    seen.clear()
    memory.get()  # no input: the newest user message of the chat history
    assert seen[0] == ("s-focus", user_turn(19))


def test_render_fits_with_its_line_overhead():
    block = DiscourseMemoryBlock(token_limit=250)
    asyncio.run(block.aput([ChatMessage(role="user" if i % 2 == 0 else "assistant", content=user_turn(i))
                            for i in range(30)]))
    for limit in (60, 120, 250):
        text = block.render_within(limit)
        assert count(text) <= limit and text.startswith("[discourse-memory record ")
        if limit >= 120:  # (at 60 the note's frame is most of it, and no entry fits what is left)
            assert 0.8 * limit <= count(text)  # the prefixes are budgeted, not guessed away

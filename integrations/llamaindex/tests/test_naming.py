"""One name for the result: the buffer and the block expose the core's ``Compaction`` behind
their last view as ``last_compaction``."""

from __future__ import annotations

from llama_index.core.base.llms.types import ChatMessage

from discourse_memory import Compaction
from llama_index.memory.discourse import DiscourseMemoryBlock, DiscourseMemoryBuffer


def history(turns: int = 12) -> list[ChatMessage]:
    out = []
    for t in range(turns):
        out.append(ChatMessage(role="user", content=f"Order ORD-{1000 + t} for customer C-{7000 + t} has not "
                                                    f"arrived; paid with card ending {4100 + t} on 2025-03-{10 + t}."))
        out.append(ChatMessage(role="assistant", content=f"ORD-{1000 + t} left warehouse W-{30 + t}; Friday."))
    return out


def test_the_buffer_exposes_its_last_compaction():
    memory = DiscourseMemoryBuffer.from_defaults(chat_history=history(), token_limit=200)
    assert memory.last_compaction is None
    sent = memory.get()
    compaction = memory.last_compaction
    assert isinstance(compaction, Compaction) and compaction.note is not None
    assert any(m.content == compaction.note for m in sent)


def test_the_block_exposes_its_last_compaction():
    block = DiscourseMemoryBlock(token_limit=150)
    assert block.last_compaction is None
    block.messages.extend(history())
    text = block.render_within(150)
    compaction = block.last_compaction
    assert isinstance(compaction, Compaction) and compaction.note is not None
    assert compaction.note.splitlines()[0] in text

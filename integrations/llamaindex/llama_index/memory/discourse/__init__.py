"""LlamaIndex memory backed by discourse-memory: compaction without an LLM.

``DiscourseMemoryBuffer`` replaces ``ChatMemoryBuffer``; ``DiscourseMemoryBlock`` is a
memory block for ``llama_index.core.memory.Memory``.
"""

from llama_index.memory.discourse.block import DiscourseMemoryBlock as DiscourseMemoryBlock
from llama_index.memory.discourse.buffer import DiscourseMemoryBuffer as DiscourseMemoryBuffer

__all__ = ["DiscourseMemoryBlock", "DiscourseMemoryBuffer"]

"""LlamaIndex memory backed by discourse-memory: compaction without an LLM.

``DiscourseMemoryBuffer`` replaces ``ChatMemoryBuffer``; ``DiscourseMemoryBlock`` is a
memory block for ``llama_index.core.memory.Memory``; ``recall_tool`` lets the model get back
what their view left out.
"""

from llama_index.memory.discourse.block import DiscourseMemoryBlock as DiscourseMemoryBlock
from llama_index.memory.discourse.buffer import DiscourseMemoryBuffer as DiscourseMemoryBuffer
from llama_index.memory.discourse.recall import recall_tool as recall_tool

__all__ = ["DiscourseMemoryBlock", "DiscourseMemoryBuffer", "recall_tool"]

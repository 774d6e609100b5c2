"""LlamaIndex memory backed by discourse-memory, compaction without an LLM: ``DiscourseMemoryBuffer``
(a ``ChatMemoryBuffer``), ``DiscourseMemoryBlock`` (for ``Memory``) and their ``recall_tool``."""

from llama_index.memory.discourse.block import DiscourseMemoryBlock as DiscourseMemoryBlock
from llama_index.memory.discourse.buffer import DiscourseMemoryBuffer as DiscourseMemoryBuffer
from llama_index.memory.discourse.recall import recall_tool as recall_tool

__all__ = ["DiscourseMemoryBlock", "DiscourseMemoryBuffer", "recall_tool"]

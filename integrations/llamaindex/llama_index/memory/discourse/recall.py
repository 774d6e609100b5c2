"""``recall_tool``: a ``FunctionTool`` with which the model gets back, verbatim, what the memory's
view left out (the core's ``recall``), for ``FunctionAgent`` and ``ReActAgent``."""

# No ``from __future__ import annotations``: FunctionTool finds its ``ctx: Context`` parameter by annotation.
import asyncio
from typing import Any

from llama_index.core.tools import FunctionTool
from llama_index.core.workflow import Context


__all__ = ["RECALL_DESCRIPTION", "recall_tool"]

RECALL_DESCRIPTION = ("Get back, verbatim, what the record note says was left out: a reference it names (#12 is "
                      "message 12, #12-#15 a run, 1a2b3c4d#12 tagged, …#12 a cut), or a few words to search for. "
                      "A long message comes back a page at a time, ending (continues: #12@5120): pass that "
                      "reference back as it is for the next page. A part of message 12: #12:L120-180 (its "
                      "lines), #12:some words (where they are).")


def _recaller(memory: Any) -> Any:
    """``recalled`` of a ``DiscourseMemoryBuffer``, or of the ``DiscourseMemoryBlock`` of a ``Memory``
    (found by what they do, so this module need not import the classes that import it)."""
    if _is_discourse(memory):
        return memory.recalled
    return next((b.recalled for b in getattr(memory, "memory_blocks", ()) if _is_discourse(b)), None)


def _is_discourse(memory: Any) -> bool:
    return callable(getattr(memory, "recalled", None))


def recall_tool(memory: Any = None, *, name: str = "recall", max_tokens: int = 1000) -> FunctionTool:
    """A ``recall`` tool resolved against the agent's live memory (``ctx.store["memory"]``, which
    the workflow rebuilds when a ``Context`` is reused: a ``DiscourseMemoryBuffer`` or a ``Memory``
    with a ``DiscourseMemoryBlock``), else against ``memory``. Make the memory with ``recall=True``."""

    async def recall(ctx: Context, reference: str, max_tokens: int = max_tokens) -> str:
        found = _recaller(await ctx.store.get("memory", default=None)) or _recaller(memory)
        if found is None:
            return "recall: this agent's memory is not a discourse memory; nothing to recall from."
        return (await asyncio.to_thread(found, reference, max_tokens)).text

    return FunctionTool.from_defaults(async_fn=recall, name=name, description=RECALL_DESCRIPTION)

"""`RecallTool`: the model asks for what a view left out and gets it back verbatim (the core's
`recall`). The middleware registers one (`recall=True`); other loops make one over their memory."""

from __future__ import annotations

import re
from typing import Any, Literal

from langchain_core.tools import BaseTool
from langchain_core.tools.base import ArgsSchema
from pydantic import BaseModel, Field

__all__ = ["RECALL_DESCRIPTION", "RecallArgs", "RecallTool"]

RECALL_DESCRIPTION = ("Get back, verbatim, what the record note says was left out: a reference it names (#12 is "
                      "message 12, #12-#15 a run, 1a2b3c4d#12 tagged, …#12 a cut), or a few words to search for. "
                      "A long message comes back a page at a time, ending (continues: #12@5120): pass that "
                      "reference back as it is for the next page. A part of message 12: #12:L120-180 (its "
                      "lines), #12:some words (where they are).")

_HEADER = re.compile(r"(?:^|\n\n)#\d+ [^\n]*:\n")


def _parts(text: str) -> str | list[dict[str, str]]:
    """`text` with each message header (`#12 user:`) a text block apart from the body after it: the
    core then reads a recalled body like the message it repeats, and drops that older copy."""
    cuts = [0, *(i for m in _HEADER.finditer(text) for i in m.span()), len(text)]
    parts = [{"type": "text", "text": text[a:b]} for a, b in zip(cuts, cuts[1:]) if a < b]
    return parts if len(parts) > 1 else text


class RecallArgs(BaseModel):
    reference: str = Field(description="#12, #12-#15, 1a2b3c4d#12, #12@5120 (a page a recall named), #12:L120-180, "
                                       "#12:some words, or a few words to search the left-out parts for")
    max_tokens: int = Field(1000, gt=0, description="at most this many tokens back")


class RecallTool(BaseTool):
    """`recall` over `source`: a `DiscourseChatMessageHistory` or `ConversationDiscourseMemory` made
    with `recall=True` (their `recalled`), or a core `DiscourseMemory` or `Compaction` (`recall`).
    The `ToolMessage` holds the `Recalled` text (as text blocks, each message's header apart); its
    artifact is `{"found": bool, "messages": [12, ...]}`."""

    name: str = "recall"
    description: str = RECALL_DESCRIPTION
    args_schema: ArgsSchema | None = RecallArgs
    response_format: Literal["content", "content_and_artifact"] = "content_and_artifact"
    source: Any = Field(exclude=True)

    def __init__(self, source: Any, **kwargs: Any) -> None:
        super().__init__(source=source, **kwargs)

    def _run(self, reference: str, max_tokens: int = 1000, run_manager: Any = None,
             **injected: Any) -> tuple[str | list[dict[str, str]], dict[str, Any]]:
        found = (getattr(self.source, "recalled", None) or self.source.recall)(reference, max_tokens, **injected)
        return _parts(found.text), {"found": found.found, "messages": list(found.messages)}

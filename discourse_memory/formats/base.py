"""What every format shares: the internal shape's extra keys, the side table (a
:class:`Layout` per caller message), stand-ins for opaque parts, and the count.

The internal shape is the OpenAI chat dicts the core reads. A caller's message becomes
one or more internal messages (its *pieces*); every text part of a piece carries
``_dm`` (which of the caller's blocks it holds), so the compacted pieces can be mapped
back whatever the core left out. What the OpenAI shape cannot hold (block order, ids,
signatures, ``cache_control``, image payloads, reasoning items) stays in the caller's
message, which the layout points into: the way back copies the caller's blocks and
replaces only their text.

An opaque block (an image, a PDF, a signed ``thinking`` block, an encrypted reasoning
item, an unknown block) is shown to the core as a short *stand-in* text part
(``[image]``) carrying the block's token cost: ``_dm_tokens`` (the cost) and
``_dm_cost`` (the cost less the stand-in's own tokens). The core counts the stand-in's
text, and the per-message overhead adds ``_dm_cost`` for every stand-in a message
still holds (:func:`compose_overhead`), so a view's count is the blocks' cost; the
stand-in is a unit the core keeps or omits whole (it is too short to clip), and the
block goes with it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import InvalidMessageError
from ..messages import clean_text

__all__ = ["MARK", "COST", "TOKENS", "BOUND", "ATTACHMENTS", "Slot", "Layout", "Reader", "stand_in", "text_part",
           "resolve", "count_internal", "compose_overhead", "has_costs", "dumps", "clean_part", "split_attachments"]

MARK = "_dm"
"""On an internal part: the key of the caller's block it holds."""
COST = "_dm_cost"
"""On an internal part: tokens it stands for beyond its own text (added by the overhead)."""
TOKENS = "_dm_tokens"
"""On a stand-in: the tokens of the block it stands for (its text is not sent)."""
BOUND = "_dm_bound"
"""On an internal message: tokens of caller blocks sent with it and only with it (a
Responses reasoning item bound to the item after it), paid whenever it is shown."""

_PRIVATE = (MARK, COST, TOKENS)
ATTACHMENTS = "attachments"
"""Role of the internal message holding a user message's attachments (see
:func:`split_attachments`)."""


def dumps(value: Any) -> str:
    """JSON text of tool arguments, as the core counts a dict of arguments."""
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=repr)


@dataclass(frozen=True, slots=True)
class Slot:
    """One block of a caller's message and where its internal form is.

    ``kind``: ``"text"`` (a text part marked ``key`` in piece ``piece``), ``"opaque"``
    (a stand-in marked ``key``), ``"call"`` (the tool call with id ``key``), ``"result"``
    (the whole piece is a tool result), ``"content"`` (the piece's string content),
    ``"always"`` (costs nothing: kept whenever the message is). ``block``: the index
    in the caller's block list (None: the message's own string content)."""

    kind: str
    piece: int
    key: Any = None
    block: int | None = None


@dataclass
class Layout:
    """The side table's row for one caller message: its pieces and slots."""

    pieces: int
    slots: list[Slot] = field(default_factory=list)
    info: dict[str, Any] = field(default_factory=dict)


class Reader:
    """Turns caller messages into internal pieces, in order (subclasses keep the state
    pairing needs, e.g. legacy function calls). ``counter``: the compactor's count."""

    name = "?"

    def __init__(self, count: Callable[[str], int]) -> None:
        self.count = count
        self.messages: Sequence[Any] = ()
        """All the caller's messages (a reader may look at the next one)."""

    def read(self, message: Any, index: int) -> tuple[list[dict[str, Any]], Layout]:
        raise NotImplementedError

    def state(self) -> Any:
        return None

    def restore(self, state: Any) -> None:
        pass


def text_part(text: str, mark: Any, extra: int = 0) -> dict[str, Any]:
    part: dict[str, Any] = {"type": "text", "text": text, MARK: mark}
    if extra > 0:
        part[COST] = extra
    return part


def stand_in(label: str, tokens: int, mark: Any, count: Callable[[str], int]) -> dict[str, Any]:
    """A stand-in text part for an opaque block costing ``tokens`` (at least 1)."""
    text = f"[{label}]"
    tokens = max(1, int(tokens))
    return {"type": "text", "text": text, MARK: mark, TOKENS: tokens, COST: max(0, tokens - count(text))}


def split_attachments(piece: dict[str, Any], slots: list[Slot], index: int) -> list[dict[str, Any]]:
    """A user message holding text and stand-ins (images, files): each stand-in moves to
    a message of its own (role :data:`ATTACHMENTS`) right after it, and its slot points
    there (``index`` is the user message's piece; the attachments are ``index + 1``
    on). The core then values the text and each attachment apart (a message's extra
    cost is paid when any of it is shown), and the newest user message's attachments
    stay in its protected turn (the last user message and all after it)."""
    parts = piece.get("content")
    if piece.get("role") != "user" or not isinstance(parts, list):
        return []
    media = [p for p in parts if isinstance(p, dict) and TOKENS in p]
    if not media or len(media) == len(parts):
        return []
    piece["content"] = [p for p in parts if not (isinstance(p, dict) and TOKENS in p)]
    where = {p[MARK]: index + 1 + n for n, p in enumerate(media)}
    for n, s in enumerate(slots):
        if s.piece == index and s.kind == "opaque" and s.key in where:
            slots[n] = Slot(s.kind, where[s.key], s.key, s.block)
    return [{"role": ATTACHMENTS, "content": [p]} for p in media]


def clean_part(part: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in part.items() if k not in _PRIVATE}


def _parts(message: Mapping[str, Any] | None) -> list[Any]:
    if message is None:
        return []
    content = message.get("content")
    return content if isinstance(content, list) else []


def resolve(layout: Layout, outs: Sequence[Mapping[str, Any] | None]) -> list[Any]:
    """For each slot of ``layout``: None (left out) or what survives: the new text
    (``text``, ``content``), the output piece's content (``result``), True (``opaque``,
    ``always``), the call dict (``call``)."""
    by_mark: list[dict[Any, Any]] = []
    for out in outs:
        marks = {}
        for p in _parts(out):
            if isinstance(p, dict) and MARK in p:
                marks[p[MARK]] = p
        by_mark.append(marks)
    any_out = any(o is not None for o in outs)
    fates: list[Any] = []
    for s in layout.slots:
        out = outs[s.piece] if s.piece < len(outs) else None
        if s.kind == "always":
            fates.append(True if any_out else None)
        elif out is None:
            fates.append(None)
        elif s.kind == "text":
            p = by_mark[s.piece].get(s.key)
            fates.append(p["text"] if p is not None else None)
        elif s.kind == "opaque":
            fates.append(True if s.key in by_mark[s.piece] else None)
        elif s.kind == "content":
            c = out.get("content")
            if isinstance(c, str):
                fates.append(c or None)
            else:
                p = by_mark[s.piece].get(s.key)
                fates.append(p["text"] if p is not None else None)
        elif s.kind == "call":
            calls = out.get("tool_calls") or []
            fates.append(next((c for c in calls if isinstance(c, dict) and c.get("id") == s.key), None))
        elif s.kind == "result":
            fates.append(out.get("content"))
        else:  # pragma: no cover
            raise AssertionError(s.kind)
    return fates


def count_internal(messages: Sequence[Mapping[str, Any]], count: Callable[[str], int],
                   overhead: Callable[[Mapping[str, Any]], int] | int = 0) -> int:
    """Tokens of internal messages as a view counts them: text parts (a stand-in by the
    tokens of its block), a part's extra cost, tool-call names and arguments, plus the
    caller's own per-message overhead. Text is counted as the core counts it (lone
    surrogates replaced, see :func:`..messages.clean_text`)."""
    def tokens(text: str) -> int:
        return count(clean_text(text))

    total = 0
    for m in messages:
        content = m.get("content")
        if isinstance(content, str):
            total += tokens(content)
        elif isinstance(content, list):
            for p in content:
                if isinstance(p, str):
                    total += tokens(p)
                elif isinstance(p, dict) and p.get("type") == "text" and isinstance(p.get("text"), str):
                    if TOKENS in p:
                        total += int(p[TOKENS])
                    else:
                        total += tokens(p["text"]) + int(p.get(COST, 0))
        for c in m.get("tool_calls") or ():
            fn = c.get("function") if isinstance(c, dict) else None
            if isinstance(fn, dict):
                args = fn.get("arguments")
                args = "" if args is None else args if isinstance(args, str) else dumps(args)
                total += tokens(str(fn.get("name", ""))) + tokens(args)
        total += int(m.get(BOUND, 0))
        total += int(overhead(m)) if callable(overhead) else int(overhead)
    return total


def has_costs(messages: Sequence[Mapping[str, Any]]) -> bool:
    return any(BOUND in m or any(isinstance(p, dict) and COST in p for p in _parts(m)) for m in messages)


def compose_overhead(user: int | Callable[[Mapping[str, Any]], int]) -> Callable[[Mapping[str, Any]], int]:
    """The per-message overhead the core is given: the caller's own (an int or a
    function of the internal message) plus the extra cost of each part the message
    holds (stand-ins, a document's title)."""

    def overhead(message: Mapping[str, Any]) -> int:
        extra = message.get(BOUND, 0)
        for p in _parts(message):
            if isinstance(p, dict):
                extra += p.get(COST, 0)
        return extra + (int(user(message)) if callable(user) else user)

    return overhead


def need(cond: bool, index: int, what: str) -> None:
    if not cond:
        raise InvalidMessageError(f"message {index}: {what}")

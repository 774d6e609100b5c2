"""Recall: the model asks for what a view left out, and gets it back verbatim.

Compaction is a view, not a deletion: every left-out unit is still in the history, and
the note names where it came from (``#12 Melanie: …``). A reference is ``#12`` (message
12 of the conversation, in full), ``#12-#15`` (a run of messages), or either prefixed
with the note's tag (``1a2b3c4d#12``), which binds it to that conversation: a tag that
is not the conversation's gets a clear refusal, never another conversation's text. Any
other text is a query: the left-out units that share its rare words and values best
(BM25, the focus scoring of :mod:`.focus`), in conversation order.

What comes back is plain text for a tool result: each message as ``#12 user (Caroline):``
then its text (a tool call as ``name(arguments)``), cut at ``max_tokens`` with a line
saying how to get the rest.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np

from .columns import Columns
from .errors import InvalidOptionError
from .focus import focus_of_text, relevance
from .language import CJK_CHAR
from .messages import Message
from .units import Unit

__all__ = ["Recalled", "check_max_tokens", "parse_reference", "recall", "recall_messages", "search_messages"]
_REF = re.compile(r"\s*(?:([0-9a-f]{8})\s*)?#(\d{1,9})(?:\s*-\s*#?(\d{1,9}))?\s*")
MAX_MESSAGES = 20
"""A range recalls at most this many messages at once."""


@dataclass(frozen=True)
class Recalled:
    """What a recall returns."""

    text: str
    """For the model: the recalled messages or units, or why there are none."""
    messages: tuple[int, ...]
    """The messages the text comes from."""
    found: bool
    """False when the reference was unknown or stale, or the query matched nothing."""


def parse_reference(text: str) -> tuple[str | None, int, int] | None:
    """``(tag or None, first, last)`` message numbers of a reference, or None for a query."""
    m = _REF.fullmatch(text)
    if m is None:
        return None
    first = int(m.group(2))
    last = int(m.group(3)) if m.group(3) else first
    return m.group(1), min(first, last), max(first, last)


def recall(cols: Columns, ref: str, *, tags: Sequence[str], shown: np.ndarray | None,
           count: Callable[[str], int], max_tokens: int, analyse: Callable[[str], tuple[list[str], list[str]]],
           messages: int | None = None) -> Recalled:
    """Resolve ``ref`` (a reference or a query) against the conversation in ``cols``.

    ``tags``: the note tag of each prefix of the conversation (a tag names the
    conversation up to some message: a reference under it stays valid as the
    conversation grows). ``shown``: per unit, whether the view the reference came from
    showed it (a query searches only what it left out). ``analyse`` gives the content
    words and literals of a text (the query's terms)."""
    if not isinstance(ref, str) or not ref.strip():
        return Recalled("recall needs a reference like #12 or a few words to search for.", (), False)
    parsed = parse_reference(ref)
    n = len(cols) if messages is None else messages
    if parsed is not None:
        tag, first, last = parsed
        if tag is not None:
            known = [i for i, t in enumerate(tags) if t[:8] == tag]
            if not known:
                return Recalled(f"record {tag} is not from this conversation: nothing recalled.", (), False)
            n = known[0] + 1  # the conversation as that note saw it
        if first >= n:
            return Recalled(f"no message #{first}: this conversation has messages #0-#{n - 1}.", (), False)
        last = min(last, n - 1, first + MAX_MESSAGES - 1)
        return _messages(cols, list(range(first, last + 1)), count, max_tokens)
    words, literals = analyse(ref)
    focus = focus_of_text(cols, words, literals, min_strength=0.0)
    if focus is None:
        return Recalled(f"nothing left out matches {ref.strip()!r}.", (), False)
    rel = relevance(cols, focus)
    limit = int(cols.msg_start.view[n])
    rel[limit:] = 0.0  # units of messages the view did not have
    if shown is not None:
        rel[:len(shown)] = np.where(shown, 0.0, rel[:len(shown)])
    best = [int(u) for u in np.argsort(-rel, kind="stable") if rel[u] > 0][:50]
    if not best:
        return Recalled(f"nothing left out matches {ref.strip()!r}.", (), False)
    return _units(cols, best, count, max_tokens)


def _header(cols: Columns, m: Message) -> str:
    speaker = cols.speaker(m.index)
    name = m.raw.get("name") if isinstance(m.raw.get("name"), str) else None
    who = f" ({speaker or name})" if speaker or name else ""
    return f"#{m.index} {m.role}{who}:"


def _message_text(m: Message) -> str:
    parts = [tf.text for tf in m.texts]
    parts += [f"{c.name}({c.arguments})" for c in m.tool_calls]
    return "\n".join(parts)


def _messages(cols: Columns, indices: list[int], count: Callable[[str], int], max_tokens: int) -> Recalled:
    blocks = [f"{_header(cols, cols.messages[i])}\n{_message_text(cols.messages[i])}" for i in indices]
    return _within(blocks, indices, count, max_tokens)


def check_max_tokens(max_tokens: object) -> None:
    """The room a recall is given: a positive int, else :class:`InvalidOptionError`."""
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidOptionError(f"max_tokens must be a positive int, got {max_tokens!r}")


def _verbatim(i: int, m: Message) -> str:
    """Message ``i`` as a recall gives a message that was never analysed (no speaker)."""
    return f"#{i} {m.role}:\n{_message_text(m)}"


def recall_messages(messages: Sequence[Message], first: int, last: int, count: Callable[[str], int],
                    max_tokens: int) -> Recalled:
    """Messages ``first`` to ``last`` of ``messages`` (at most :data:`MAX_MESSAGES`)
    verbatim, with no analysis: a memory's messages beyond its horizon (see :mod:`.horizon`)."""
    if first >= len(messages):
        return Recalled(f"no message #{first}: this conversation has messages #0-#{len(messages) - 1}.", (), False)
    indices = list(range(first, min(last, len(messages) - 1, first + MAX_MESSAGES - 1) + 1))
    return _within([_verbatim(i, messages[i]) for i in indices], indices, count, max_tokens)


_QUERY_WORD = re.compile(r"[^\W\d_]{3,}|" + CJK_CHAR.pattern + r"{2,}|\w*\d\w*")
_CJK_RUN = re.compile(CJK_CHAR.pattern + "+")
SEARCHED = 5
"""A query searching messages beyond a horizon returns at most this many, best first."""


def search_messages(messages: Sequence[Message], among: range, query: str, count: Callable[[str], int],
                    max_tokens: int) -> Recalled:
    """The messages of ``among`` that hold the most of ``query``'s words (a plain, case-blind
    search of their text: they were never analysed), at most :data:`SEARCHED`, verbatim
    in conversation order: what a memory finds beyond its horizon (see :mod:`.horizon`)."""
    words: set[str] = set()
    for w in _QUERY_WORD.findall(query):
        if _CJK_RUN.fullmatch(w):  # no spaces to find words by: its pairs of characters
            words.update(w[i:i + 2] for i in range(len(w) - 1))
        else:
            words.add(w.lower())
    scores: list[tuple[int, int]] = []
    for i in among if words else ():
        text = _message_text(messages[i]).lower()
        hits = sum(1 for w in words if w in text)
        if hits:
            scores.append((-hits, i))
    best = sorted(i for _, i in sorted(scores)[:SEARCHED])
    if not best:
        return Recalled(f"nothing beyond the horizon matches {query.strip()!r}.", (), False)
    return _within([_verbatim(i, messages[i]) for i in best], best, count, max_tokens)


def _units(cols: Columns, best: list[int], count: Callable[[str], int], max_tokens: int) -> Recalled:
    """The best matching units (``best``: best first) that fit ``max_tokens``, shown in
    conversation order, grouped by message; the messages of matches left over are named."""
    units = cols.units
    taken: dict[int, list[int]] = {}
    rest: list[int] = []
    used = 0
    for u in best:
        m = units[u].message
        cost = count(_unit_text(cols, units[u])) + 2 + (0 if m in taken else count(_header(cols, cols.messages[m])) + 2)
        if used + cost > max_tokens - 16 and taken:  # room for the line naming the rest
            if m not in taken and m not in rest:
                rest.append(m)
            continue
        taken.setdefault(m, []).append(u)
        used += cost
    blocks = [f"{_header(cols, cols.messages[m])}\n" + " … ".join(_unit_text(cols, units[u]) for u in sorted(taken[m]))
              for m in sorted(taken)]
    got = _within(blocks, sorted(taken), count, max_tokens)
    if not rest:
        return got
    more = f"\n\n(more matches, not shown to fit: #{', #'.join(map(str, sorted(rest)))})"
    if count(got.text + more) <= max_tokens:
        return Recalled(got.text + more, got.messages, True)
    return got


def _unit_text(cols: Columns, u: Unit) -> str:
    if u.kind != "tool_call":
        return u.text
    return f"{cols.messages[u.message].tool_calls[int(u.field.split('.')[1])].name}({u.text})"


def _within(blocks: list[str], messages: list[int], count: Callable[[str], int], max_tokens: int) -> Recalled:
    """Blocks in order while they fit ``max_tokens``, the last one cut, then a line naming
    the messages not shown (so the model can ask for them): the whole text fits."""
    out: list[str] = []
    shown: list[int] = []
    used = 0
    for k, (block, m) in enumerate(zip(blocks, messages)):
        rest = messages[k + 1:]
        tail = count(_not_shown(rest)) + 2 if rest else 0
        tokens = count(block) + 2
        if used + tokens + tail <= max_tokens:
            out.append(block)
            shown.append(m)
            used += tokens
            continue
        cut_line = f"\n… (cut to fit; recall #{m} with a larger max_tokens for the rest)"
        room = max_tokens - used - tail - count(cut_line) - 2
        if room > 10:
            out.append(_cut(block, room, count) + cut_line)
            shown.append(m)
        else:
            rest = messages[k:]
        if rest:
            out.append(_not_shown(rest))
        break
    text = "\n\n".join(out)
    if count(text) > max_tokens:  # joins can merge tokens differently: the cap holds regardless
        text = _cut(text, max_tokens, count)
    return Recalled(text, tuple(shown), True)


def _not_shown(messages: list[int]) -> str:
    """``(not shown to fit: #2-#5, #9)``."""
    runs: list[str] = []
    start = prev = messages[0]
    for m in messages[1:] + [-2]:
        if m == prev + 1:
            prev = m
            continue
        runs.append(f"#{start}" if start == prev else f"#{start}-#{prev}")
        start = prev = m
    return f"(not shown to fit: {', '.join(runs)})"


def _cut(text: str, tokens: int, count: Callable[[str], int]) -> str:
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix within ``tokens``
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) <= tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]

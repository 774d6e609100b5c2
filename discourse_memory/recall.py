"""Recall: the model asks for what a view left out, and gets it back verbatim.

Compaction is a view, not a deletion: every left-out unit is still in the history, and
the note names where it came from (``#12 Melanie: …``). A reference is ``#12`` (message
12 of the conversation, in full), ``#12-#15`` (a run of messages), or either prefixed
with the note's tag (``1a2b3c4d#12``), which binds it to that conversation: a tag that
is not the conversation's gets a clear refusal, never another conversation's text. Any
other text is a query: the left-out units that share its rare words and values best
(BM25, the focus scoring of :mod:`.focus`), in conversation order.

What comes back is plain text for a tool result: each message as ``#12 user (Caroline):``
then its text (a tool call as ``name(arguments)``), within ``max_tokens``.

A message longer than ``max_tokens`` comes back in pages (:mod:`.pages`): the first, under
a header saying which part it is (``#47 tool (read_file) [lines 1-118 of 1600]:``, or for a
text of one line ``[characters 0-5120 of 80210]``), then a line naming the reference of the
next, as the model passes it back: ``(continues: #47@5120)``. A part of a message is asked for by

- ``#47@5120``: from character 5120 of its text (the text recall shows: its texts joined
  by line breaks, then its tool calls), ``#47@5120-9000``: characters 5120 up to 9000;
- ``#47:L120-180``: its lines 120 to 180 (1-based, inclusive), ``#47:L120-``: from line 120;
- ``#47:connection refused``: where the most of those words are (a phrase in double
  quotes is one), and the other such places are named.

Each is paged the same way, and is stable: it names the same text whatever ``max_tokens``
is. The pages of a message, followed from ``#47``, are exactly its text. The references a
recall names for the model to ask next are also :attr:`Recalled.more`.
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
from .pages import find_words, line_of, line_span, lines_in, page_end
from .units import Unit
from .limits import LIMITS

__all__ = ["Recalled", "Reference", "check_max_tokens", "parse_reference", "recall", "recall_messages",
           "search_messages"]
_REF = re.compile(r"\s*(?:([0-9a-f]{8})\s*)?#(\d{1,9})(?:\s*-\s*#?(\d{1,9}))?\s*")
_PART = re.compile(r"\s*(?:([0-9a-f]{8})\s*)?#(\d{1,9})(?:@(\d{1,12})(?:\s*-\s*(\d{1,12}))?"
                   r"|:\s*[Ll](\d{1,9})(?:\s*-\s*[Ll]?(\d{1,9})?)?|:(.*\S.*))\s*", re.S)
_LOOKS_LIKE = re.compile(r"\s*(?:[0-9a-f]{8}\s*)?#\d+\s*[@:-]")
FORMS = "#12, #12-#15, #12@5120 (from a character), #12:L120-180 (lines) or #12:some words"
"""The reference forms, for the message that refuses a malformed one."""


@dataclass(frozen=True)
class Recalled:
    """What a recall returns."""

    text: str
    """For the model: the recalled messages or units, or why there are none."""
    messages: tuple[int, ...]
    """The messages the text comes from."""
    found: bool
    """False when the reference was unknown or stale, or the query matched nothing."""
    more: tuple[str, ...] = ()
    """The references the text names for the model to ask next, as it can pass them back:
    the next page of a message, the messages not shown to fit, other places words are."""


@dataclass(frozen=True)
class Reference:
    """A parsed reference: messages ``first`` to ``last``, or a part of message ``first``."""

    tag: str | None
    first: int
    last: int
    chars: tuple[int, int | None] | None = None
    """``#12@5120-9000``: characters 5120 up to 9000 (None: to the end)."""
    lines: tuple[int, int | None] | None = None
    """``#12:L120-180``: lines 120 to 180, 1-based and inclusive (None: to the end)."""
    words: str | None = None
    """``#12:connection refused``: where those words are."""

    @property
    def is_part(self) -> bool:
        return self.chars is not None or self.lines is not None or self.words is not None

    @property
    def prefix(self) -> str:
        """How the references a recall names start: ``#12``, tagged if this one was."""
        return f"{self.tag or ''}#{self.first}"


def parse_reference(text: str) -> Reference | None:
    """The reference ``text`` is, or None for a query (see :func:`is_malformed`)."""
    m = _REF.fullmatch(text)
    if m is not None:
        first = int(m.group(2))
        last = int(m.group(3)) if m.group(3) else first
        return Reference(m.group(1), min(first, last), max(first, last))
    m = _PART.fullmatch(text)
    if m is None:
        return None
    tag, i = m.group(1), int(m.group(2))
    if m.group(3) is not None:
        return Reference(tag, i, i, chars=(int(m.group(3)), int(m.group(4)) if m.group(4) else None))
    if m.group(5) is not None:
        return Reference(tag, i, i, lines=(int(m.group(5)), int(m.group(6)) if m.group(6) else None))
    return Reference(tag, i, i, words=m.group(7).strip())


def is_malformed(text: str) -> bool:
    """Whether ``text`` starts like a reference with a part (``#12@``, ``#12-``, ``#12:``)
    but is none: it gets a refusal naming the forms, not a search."""
    return _LOOKS_LIKE.match(text) is not None and parse_reference(text) is None


def _malformed(text: str) -> Recalled:
    return Recalled(f"{text.strip()!r} is not a reference: use {FORMS}.", (), False)


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
    if parsed is None and is_malformed(ref):
        return _malformed(ref)
    n = len(cols) if messages is None else messages
    if parsed is not None:
        tag, first, last = parsed.tag, parsed.first, parsed.last
        if tag is not None:
            known = [i for i, t in enumerate(tags) if t[:8] == tag]
            if not known:
                return Recalled(f"record {tag} is not from this conversation: nothing recalled.", (), False)
            n = known[0] + 1  # the conversation as that note saw it
        if first >= n:
            return Recalled(f"no message #{first}: this conversation has messages #0-#{n - 1}.", (), False)
        if parsed.is_part:
            m = cols.messages[first]
            return _part(_header(cols, m), _message_text(m), parsed, count, max_tokens)
        last = min(last, n - 1, first + LIMITS.recall_messages - 1)
        return _messages(cols, list(range(first, last + 1)), count, max_tokens, tag)
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


def _messages(cols: Columns, indices: list[int], count: Callable[[str], int], max_tokens: int,
              tag: str | None = None) -> Recalled:
    blocks = [(_header(cols, cols.messages[i]), _message_text(cols.messages[i])) for i in indices]
    return _within(blocks, indices, count, max_tokens, tag)


def check_max_tokens(max_tokens: object) -> None:
    """The room a recall is given: a positive int, else :class:`InvalidOptionError`."""
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens < 1:
        raise InvalidOptionError(f"max_tokens must be a positive int, got {max_tokens!r}")


def _verbatim(i: int, m: Message) -> tuple[str, str]:
    """Message ``i`` as a recall gives a message that was never analysed (no speaker)."""
    return f"#{i} {m.role}:", _message_text(m)


def recall_messages(messages: Sequence[Message], ref: Reference, count: Callable[[str], int],
                    max_tokens: int) -> Recalled:
    """Messages ``ref.first`` to ``ref.last`` of ``messages`` (at most :data:`LIMITS.recall_messages`),
    or the part of one it names, verbatim, with no analysis: a memory's messages beyond its
    horizon (see :mod:`.horizon`)."""
    first = ref.first
    if first >= len(messages):
        return Recalled(f"no message #{first}: this conversation has messages #0-#{len(messages) - 1}.", (), False)
    if ref.is_part:
        return _part(*_verbatim(first, messages[first]), ref, count, max_tokens)
    indices = list(range(first, min(ref.last, len(messages) - 1, first + LIMITS.recall_messages - 1) + 1))
    return _within([_verbatim(i, messages[i]) for i in indices], indices, count, max_tokens, ref.tag)


_QUERY_WORD = re.compile(r"[^\W\d_]{3,}|" + CJK_CHAR.pattern + r"{2,}|\w*\d\w*")
_CJK_RUN = re.compile(CJK_CHAR.pattern + "+")


def search_messages(messages: Sequence[Message], among: range, query: str, count: Callable[[str], int],
                    max_tokens: int) -> Recalled:
    """The messages of ``among`` that hold the most of ``query``'s words (a plain, case-blind
    search of their text: they were never analysed), at most :data:`LIMITS.searched`, verbatim
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
    best = sorted(i for _, i in sorted(scores)[:LIMITS.searched])
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
    blocks = [(_header(cols, cols.messages[m]), " … ".join(_unit_text(cols, units[u]) for u in sorted(taken[m])))
              for m in sorted(taken)]
    got = _within(blocks, sorted(taken), count, max_tokens, paged=False)
    if not rest:
        return got
    more = f"\n\n(more matches, not shown to fit: #{', #'.join(map(str, sorted(rest)))})"
    if count(got.text + more) <= max_tokens:
        return Recalled(got.text + more, got.messages, True, got.more + tuple(f"#{m}" for m in sorted(rest)))
    return got


def _unit_text(cols: Columns, u: Unit) -> str:
    if u.kind != "tool_call":
        return u.text
    return f"{cols.messages[u.message].tool_calls[int(u.field.split('.')[1])].name}({u.text})"


def _within(blocks: list[tuple[str, str]], messages: list[int], count: Callable[[str], int], max_tokens: int,
            tag: str | None = None, paged: bool = True) -> Recalled:
    """Blocks (header, body) in order while they fit ``max_tokens``; the first that does not
    is given its first page (``paged``; else cut, naming its message), then a line names the
    messages not shown (so the model can ask for them): the whole text fits."""
    out: list[str] = []
    shown: list[int] = []
    more: list[str] = []
    used = 0
    for k, ((header, body), m) in enumerate(zip(blocks, messages)):
        rest = messages[k + 1:]
        tail = count(_not_shown(rest, tag)) + 2 if rest else 0
        block = f"{header}\n{body}"
        tokens = count(block) + 2
        if used + tokens + tail <= max_tokens:
            out.append(block)
            shown.append(m)
            used += tokens
            continue
        room = max_tokens - used - tail - 2
        if paged:
            page = _page(header, body, Reference(tag, m, m), 0, len(body), count, room)
            if page is not None:
                out.append(page.text)
                more.extend(page.more)
                shown.append(m)
            elif k == 0:  # no room for a page: the cap holds, the text is cut
                out.append(_cut(block, max(room, 1), count))
                shown.append(m)
            else:
                rest = messages[k:]
        else:
            cut_line = f"\n… (cut to fit; recall {tag or ''}#{m} for the whole message)"
            room -= count(cut_line)
            if room > 10:
                out.append(_cut(block, room, count) + cut_line)
                more.append(f"{tag or ''}#{m}")
                shown.append(m)
            else:
                rest = messages[k:]
        if rest:
            out.append(_not_shown(rest, tag))
            more.extend(_runs(rest, tag))
        break
    text = "\n\n".join(out)
    if count(text) > max_tokens:  # joins can merge tokens differently: the cap holds regardless
        text = _cut(text, max_tokens, count)
    return Recalled(text, tuple(shown), True, tuple(more))


@dataclass(frozen=True)
class _Paged:
    text: str
    more: tuple[str, ...]


def _page(header: str, body: str, ref: Reference, start: int, stop: int, count: Callable[[str], int],
          max_tokens: int, also: Sequence[int] = ()) -> _Paged | None:
    """The page of ``body[start:stop]`` that starts at ``start``, under ``header`` with where it
    is, then the references of the next page (if it does not reach ``stop``) and of ``also``
    (other places words were found), all within ``max_tokens``; None if no page fits."""
    lines = lines_in(body)
    p = ref.prefix
    also_refs = tuple(f"{p}@{a}" for a in also[:LIMITS.also_named])

    def build(end: int) -> _Paged:
        at = (f"lines {line_of(body, start)}-{line_of(body, max(start, end - 1))} of {lines}" if lines > 1
              else f"characters {start}-{end} of {len(body)}")
        where = f"{header[:-1]} [{at}]:"
        nxt = () if end >= stop else (f"{p}@{end}" + (f"-{stop}" if stop < len(body) else ""),)
        names = [f"continues: {nxt[0]}"] if nxt else []
        if also_refs:
            extra = f" and {len(also) - len(also_refs)} more places" if len(also) > len(also_refs) else ""
            names.append("also found at: " + ", ".join(also_refs) + extra)
        trailer = f"\n({'; '.join(names)})" if names else ""
        return _Paged(f"{where}\n{body[start:end]}{trailer}", nxt + also_refs)

    frame = count(build(start).text) + 4  # the header and trailer with an empty page
    room = max_tokens - frame
    for _ in range(4):  # a page's tokens can merge with its frame's: shrink until it fits
        if room < LIMITS.page_min_tokens:
            return None
        end = page_end(body, start, stop, room, count)
        got = build(end)
        over = count(got.text) - max_tokens
        if over <= 0:
            return got
        room -= over + 2
    return None


def _part(header: str, body: str, ref: Reference, count: Callable[[str], int], max_tokens: int) -> Recalled:
    """The part of one message ``ref`` names (characters, lines or words), paged."""
    n = len(body)
    also: Sequence[int] = ()
    if ref.chars is not None:
        start, stop = ref.chars[0], n if ref.chars[1] is None else min(ref.chars[1], n)
        if start >= n or start >= stop:
            return Recalled(f"#{ref.first} has characters 0-{n}: nothing at {ref.chars[0]}"
                            f"{'' if ref.chars[1] is None else f'-{ref.chars[1]}'}.", (), False)
    elif ref.lines is not None:
        span = line_span(body, *ref.lines)
        if span is None:
            return Recalled(f"#{ref.first} has lines 1-{lines_in(body)}: no line {ref.lines[0]}.", (), False)
        start, stop = span
    else:
        found = find_words(body, ref.words or "")
        if found is None:
            return Recalled(f"no {ref.words!r} in #{ref.first}: recall #{ref.first} to read it from the start.",
                            (), False)
        start, stop, also = found.at[0], n, found.at[1:]
    page = _page(header, body, ref, start, stop, count, max_tokens, also)
    if page is None:
        text = _cut(f"{header}\n{body[start:stop]}", max_tokens, count)
        return Recalled(text, (ref.first,), True)
    return Recalled(page.text, (ref.first,), True, page.more)


def _runs(messages: list[int], tag: str | None = None) -> list[str]:
    """``#2-#5``, ``#9``: runs of consecutive message numbers as references."""
    runs: list[str] = []
    start = prev = messages[0]
    for m in messages[1:] + [-2]:
        if m == prev + 1:
            prev = m
            continue
        runs.append(f"{tag or ''}#{start}" if start == prev else f"{tag or ''}#{start}-#{prev}")
        start = prev = m
    return runs


def _not_shown(messages: list[int], tag: str | None = None) -> str:
    """``(not shown to fit: #2-#5, #9)``."""
    return f"(not shown to fit: {', '.join(_runs(messages, tag))})"


def _cut(text: str, tokens: int, count: Callable[[str], int]) -> str:
    lo, hi = 0, len(text)
    while lo < hi:  # the longest prefix within ``tokens``
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) <= tokens:
            lo = mid
        else:
            hi = mid - 1
    return text[:lo]

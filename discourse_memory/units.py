"""Units: the pieces of a conversation, each with a stable identity and its literals.

``Analyzer`` turns messages into units and measures them (tokens of the whole
unit, and of its clipped head). The work for a text is cached by the text
itself, so a memory that gains one message only analyses that message.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from operator import itemgetter
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Callable, NamedTuple

import numpy as np

from .gc_pause import gc_paused, is_bulk
from .json_units import read_offset, unescaped
from .keys import content_key
from . import lang
from .language import CJK_CHAR, detect_language, wide_script_share
from .limits import LIMITS
from .literals import Literal, find_literals, find_names_by_pattern, names_win
from .messages import Message
from .nlp import get_pipeline, wait_for_warm_up
from .segment import Piece, call_words, segment_texts
from .text_marks import TextMarks, marks_of
from .tokens import TokenCounter, TokenTable, head_of

if TYPE_CHECKING:
    from .analysis_cache import SharedAnalyses

__all__ = ["Analyzer", "Field", "MeasuredPiece", "Unit", "CLIP_MARK", "clip_cost", "clipped_text"]

CLIP_MARK = " …"
_TABLE_SEP_LINE = re.compile(r"\n[ \t]*(?:\|[ \t]*)?:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*(?:\|[ \t]*)?(?=\n|$)")
# The analysis cache is bounded by texts and by pieces (~1.5 KB each with their
# literals): a long-running process keeps at most ~150 MB of it.
_TEXT_CACHE_LIMIT = 50_000
_PIECE_CACHE_LIMIT = 100_000
_WIDE = frozenset({"code", "table_row"})  # kinds whose clipped head keeps twice the tokens
WIDE_SCRIPT_SHARE = 0.3
"""A piece at least this share of whose first characters are Han, kana or Hangul keeps
twice the tokens in its clipped head too: such a character is a token or more, so twelve
tokens are six characters of a Chinese sentence where in English they are eight
words; and it is clipped only when longer than that head by half (see ``_head``)."""


def _wide_script(body: str) -> bool:
    return wide_script_share(body[:200]) >= WIDE_SCRIPT_SHARE


def field_getter(tuple_type: type, name: str) -> itemgetter:
    """An ``itemgetter`` for the field ``name`` of a named tuple type (for C-level maps
    over tens of thousands of pieces)."""
    return itemgetter(tuple_type._fields.index(name))  # type: ignore[attr-defined]


_KIND, _START, _END = (field_getter(Piece, name) for name in ("kind", "start", "end"))


class Unit(NamedTuple):
    """A source-span unit of a conversation.

    The span is exact: slicing the message's ``field`` text at ``start:end`` gives
    ``text`` (for a tool call, its arguments). Immutable; a named tuple rather than a
    frozen dataclass because a long history makes tens of thousands of them, and a
    tuple is built three times as fast.
    """

    id: str
    """``<key>#<occurrence>``: stable across processes and machines."""
    kind: str
    """heading, list_item, field, table_row, code, sentence, line, tool_call."""
    message: int
    field: str
    """``content``, ``content.<part>`` or ``tool_calls.<index>`` (the call's arguments)."""
    start: int
    end: int
    text: str
    key: str
    """BLAKE2b of the normalised text: equal for verbatim repeats."""
    occurrence: int
    """How many earlier units of the conversation have the same key."""
    literals: tuple[Literal, ...]
    depth: int = 0
    tokens: int = 0
    """Tokens of the unit with the whitespace before it (with a tiktoken counter, read
    from one encoding of its whole text: :class:`~discourse_memory.tokens.TokenTable`)."""
    head_end: int = 0
    """Where a clip cuts (character index into ``text``); ``len(text)`` if never clipped."""
    clip_tokens: int = 0
    """Tokens of the clipped rendering (whitespace before + head + clip mark), estimated
    the same way."""
    gap: str = ""
    """The source text between the previous unit and this one."""
    info: int = 0
    """Distinct content words plus literals: how much the unit says."""
    words: tuple[str, ...] = ()
    """Distinct content words (lower case)."""
    literal_texts: tuple[str, ...] = ()
    """Distinct literal texts, in order (a tool call's name first: it is a literal of the
    call though not of its arguments text)."""
    head_literal_texts: tuple[str, ...] = ()
    """Distinct texts of the literals that a clip keeps."""
    suffix: str = ""
    """Source text shown right after the unit when it is shown (a table header's separator row)."""


class MeasuredPiece(NamedTuple):
    """A piece with its measures, before it is placed in a conversation (a named tuple:
    built once per piece of a long history)."""

    piece: Piece
    gap: str
    tokens: int
    head_end: int
    clip_tokens: int
    literal_texts: tuple[str, ...]
    head_literal_texts: tuple[str, ...]
    suffix: str = ""


class Analyzer:
    """Segments, extracts literals and measures texts, with a bounded cache by text."""

    def __init__(self, counter: TokenCounter, *, pipeline: str | None = None,
                 clip_tokens: int = 12, shared: SharedAnalyses | None = None) -> None:
        self.counter = counter
        self.pipeline = pipeline
        self.clip_tokens = clip_tokens
        self.shared = shared
        """A store other workers share (see :mod:`.analysis_cache`), read for what this
        process has not analysed yet."""
        self._cache: OrderedDict[str, tuple[MeasuredPiece, ...]] = OrderedDict()
        self._marks: dict[str, TextMarks] = {}
        """The marks of cached texts whose analysis came with them (read from the shared store,
        or found to be written there), dropped with the text's analysis."""
        self._cached_pieces = 0
        self._lock = threading.Lock()

    def _measure(self, text: str, pieces: tuple[Piece, ...],
                 memo: dict[tuple[Any, ...], tuple[Any, ...]]) -> tuple[MeasuredPiece, ...]:
        """Tokens of each piece, where a clip cuts it and what the clip costs, counting
        each apart (counters without a :class:`TokenTable`)."""
        out = []
        prev = 0
        count = self.counter.count
        for i, p in enumerate(pieces):
            gap = text[prev:p.start]
            body = text[p.start:p.end]
            suffix = _suffix(text, pieces, i)
            # Repeated pieces (same gap before them, same literals: a sentence's names
            # depend on its paragraph) measure the same.
            memo_key = (p.kind, gap, body, suffix, p.literals)
            done = memo.get(memo_key)
            if done is None:
                tokens = count(gap + body + suffix)
                head = self._head(body, p.kind)
                if head < len(body):
                    clip = _clip_tokens(count, gap, body, head, p.kind, suffix)
                    if clip >= tokens - 3:
                        head, clip = len(body), tokens
                    elif p.literals:
                        head, clip = _clip_of_whole_values(p.literals, head, clip, tokens, count, gap, body, p.kind,
                                                           suffix)
                else:
                    clip = tokens
                texts = p.literal_texts
                head_texts = _texts_before(p.literals, head, body)
                done = memo[memo_key] = (tokens, head, clip, texts, head_texts)
            tokens, head, clip, texts, head_texts = done
            out.append(MeasuredPiece(p, gap, tokens, head, clip, texts, head_texts, suffix))
            prev = p.end + len(suffix)
        return tuple(out)

    def _measure_table(self, texts: list[str], pieces: list[tuple[Piece, ...]],
                       table: TokenTable) -> list[tuple[MeasuredPiece, ...] | None]:
        """``_measure`` of each text from one encoding of it (see :class:`TokenTable`)
        instead of encoding each piece, its head and its clipped rendering apart; the
        spans of all texts are counted at once. ``None`` for a text without a map."""
        owner_list = [i for i, pcs in enumerate(pieces) if table.mapped[i] for _ in pcs]
        flat = [p for i, pcs in enumerate(pieces) if table.mapped[i] for p in pcs]
        owner = np.asarray(owner_list, dtype=np.int64)
        kinds = list(map(_KIND, flat))
        start = np.fromiter(map(_START, flat), np.int64, len(flat))
        stop = np.fromiter(map(_END, flat), np.int64, len(flat))
        # A table's separator row goes with its header row (shown when it is).
        suffixes = [""] * len(flat)
        for k in [k for k, kind in enumerate(kinds) if kind == "table_row"]:
            text = texts[owner_list[k]]
            nxt = int(start[k + 1]) if k + 1 < len(flat) and owner_list[k + 1] == owner_list[k] else len(text)
            suffixes[k] = _separator_row(text, int(stop[k]), nxt)
        end = stop + np.fromiter(map(len, suffixes), np.int64, len(flat)) if "table_row" in kinds else stop
        # Each piece's tokens run from the previous piece's end (the gap before it is its own).
        prev = np.zeros(len(flat), dtype=np.int64)
        prev[1:] = end[:-1]
        prev[1:][owner[1:] != owner[:-1]] = 0
        tokens = table.counts(owner, prev, end)
        size = stop - start
        plain = [t.isascii() for t in texts]  # (no Han, kana or Hangul in it: no piece of it is wide)
        wide = [kind in _WIDE or not plain[o] and _wide_script(texts[o][a:b]) for kind, o, a, b in
                zip(kinds, owner_list, start.tolist(), stop.tolist())]
        limit = self.clip_tokens * np.where(np.fromiter(wide, bool, len(flat)), 2, 1)
        head = size.copy()
        # Too short to be worth clipping: twice the head in characters (a CJK character is
        # about a token, so there the bar is in tokens: half again the head).
        script = np.fromiter((w and k not in _WIDE for w, k in zip(wide, kinds)), bool, len(flat))
        long = np.flatnonzero(size > np.where(script, limit * 3 // 2, limit * 2))
        if len(long):
            head[long] = table.heads(owner[long], start[long], stop[long], limit[long])
        clip = tokens.copy()
        cut = np.flatnonzero(head < size)
        if len(cut):
            kept = np.empty(len(cut), dtype=np.int64)
            marked = np.full(len(cut), self.counter.count(CLIP_MARK), dtype=np.int64)
            for j, k in enumerate(cut.tolist()):
                text, a, h = texts[owner_list[k]], int(start[k]), int(head[k])
                body_head = text[a:a + h].rstrip()
                kept[j] = len(body_head)
                if kinds[k] == "code":
                    body = text[a:int(stop[k])]
                    marked[j] = self.counter.count(_clipped(body, h, "code")[len(body_head):])
            o = owner[cut]
            c = table.counts(o, prev[cut], start[cut] + kept) + marked
            c += np.where(end[cut] > stop[cut], table.counts(o, stop[cut], end[cut]), 0)
            whole = c >= tokens[cut] - 3
            clip[cut] = np.where(whole, tokens[cut], c)
            head[cut] = np.where(whole, size[cut], head[cut])
            for k in cut[~whole].tolist():
                if flat[k].literals:
                    text, a = texts[owner_list[k]], int(start[k])
                    head[k], clip[k] = _clip_of_whole_values(
                        flat[k].literals, int(head[k]), int(clip[k]), int(tokens[k]), self.counter.count,
                        text[int(prev[k]):a], text[a:int(stop[k])], kinds[k], suffixes[k])
        tokens_l, head_l, clip_l, start_l, prev_l = tokens.tolist(), head.tolist(), clip.tolist(), start.tolist(), prev.tolist()
        out: list[tuple[MeasuredPiece, ...] | None] = [None] * len(texts)
        k = 0
        for i, pcs in enumerate(pieces):
            if not table.mapped[i]:
                continue
            text = texts[i]
            rows = []
            for p in pcs:
                texts_of = p.literal_texts
                h = head_l[k]
                heads = texts_of if not texts_of or h == p.end - p.start \
                    else _texts_before(p.literals, h, text[p.start:p.end])
                rows.append(MeasuredPiece(p, text[prev_l[k]:start_l[k]], tokens_l[k], h, clip_l[k], texts_of, heads,
                                          suffixes[k]))
                k += 1
            out[i] = tuple(rows)
        return out

    def _measure_maps(self, texts: list[str], pieces: list[tuple[Piece, ...]],
                      table: TokenTable) -> list[tuple[MeasuredPiece, ...] | None]:
        """:meth:`_measure_table` piece by piece, through each text's :class:`TokenMap`
        (the same counts and heads as the table's): for a turn's few pieces, a few Python
        steps each instead of some sixty numpy calls for all of them."""
        count = self.counter.count
        mark = count(CLIP_MARK)
        out: list[tuple[MeasuredPiece, ...] | None] = [None] * len(texts)
        for i, (text, pcs) in enumerate(zip(texts, pieces)):
            tmap = table.map(i)
            if tmap is None:
                continue
            plain = text.isascii()
            rows = []
            prev = 0
            for j, p in enumerate(pcs):
                kind, start, stop = p.kind, p.start, p.end
                suffix = _separator_row(text, stop, pcs[j + 1].start if j + 1 < len(pcs) else len(text)) \
                    if kind == "table_row" else ""
                end = stop + len(suffix)
                tokens = tmap.count(prev, end)
                size = stop - start
                wide = kind in _WIDE or not plain and _wide_script(text[start:stop])
                limit = self.clip_tokens * (2 if wide else 1)
                head = size
                if size > (limit * 3 // 2 if wide and kind not in _WIDE else limit * 2):
                    head = tmap.head(start, stop, limit)
                clip = tokens
                if head < size:
                    kept = len(text[start:start + head].rstrip())
                    marked = mark if kind != "code" else count(
                        _clipped(text[start:stop], head, "code")[kept:])
                    c = tmap.count(prev, start + kept) + marked + (tmap.count(stop, end) if end > stop else 0)
                    if c >= tokens - 3:
                        head = size
                    else:
                        clip = c
                        if p.literals:
                            head, clip = _clip_of_whole_values(p.literals, head, clip, tokens, count,
                                                               text[prev:start], text[start:stop], kind, suffix)
                texts_of = p.literal_texts
                heads = texts_of if not texts_of or head == size else _texts_before(p.literals, head, text[start:stop])
                rows.append(MeasuredPiece(p, text[prev:start], tokens, head, clip, texts_of, heads, suffix))
                prev = end
            out[i] = tuple(rows)
        return out

    def _head(self, body: str, kind: str) -> int:
        script = kind not in _WIDE and _wide_script(body)
        limit = self.clip_tokens * (2 if kind in _WIDE or script else 1)
        if len(body) <= (limit * 3 // 2 if script else limit * 2):  # too short to be worth clipping
            return len(body)
        return head_of(self.counter, body, limit)

    def _analysed_here(self, text: str) -> tuple[MeasuredPiece, ...]:
        """``text``'s measured pieces made in this process, not cached: a shared entry whose
        pieces fail their checks when first built (see :class:`.analysis_codec.DecodedPieces`)."""
        wait_for_warm_up(self.pipeline)
        return self._made([text])[text]

    def _made(self, missing: list[str]) -> dict[str, tuple[MeasuredPiece, ...]]:
        """The measured pieces of ``missing``, made here."""
        with gc_paused(is_bulk(missing)):
            segmented = segment_texts(missing, get_pipeline(self.pipeline))
            memo: dict[tuple[Any, ...], tuple[Any, ...]] = {}
            # One encoding per text (tiktoken counters) instead of one per piece and head.
            token_table = getattr(self.counter, "token_table", None)
            if token_table is not None:
                table = token_table(missing)
                small = sum(map(len, segmented)) <= LIMITS.small_pieces
                done = (self._measure_maps if small else self._measure_table)(missing, segmented, table)
                return {t: v if v is not None else self._measure(t, pcs, memo)
                        for t, pcs, v in zip(missing, segmented, done)}
            return {t: self._measure(t, pcs, memo) for t, pcs in zip(missing, segmented)}

    def analyse(self, texts: list[str]) -> list[tuple[MeasuredPiece, ...]]:
        """Measured pieces of each text (cached)."""
        with self._lock:
            found = {t: self._cache.get(t) for t in set(texts)}
            missing = [t for t, v in found.items() if v is None]
        shared = self.shared
        if missing and shared is not None:
            # One round trip for the texts this process has not seen; what it lacks is made here.
            loaded, marked = shared.load(missing, self._analysed_here)
            if loaded:
                found.update(loaded)
                self._keep(loaded, marked)
                missing = [t for t in missing if t not in loaded]
            if missing:
                wait_for_warm_up(self.pipeline)  # (the compactor did not: the store might have held all)
        if missing:
            measured = self._made(missing)
            marked = {}
            if shared is not None:
                # (the marks go with the analyses: a worker that reads them does not find them again)
                marked = {t: marks_of(t, [mp.piece for mp in pcs]) for t, pcs in measured.items()}
                shared.save(measured, marked)
            found.update(measured)
            self._keep(measured, marked)
        with self._lock:
            for t in found:
                if t in self._cache:
                    self._cache.move_to_end(t)
        return [found[t] for t in texts]  # type: ignore[misc]

    def _keep(self, analysed: dict[str, tuple[MeasuredPiece, ...]], marked: dict[str, TextMarks]) -> None:
        """Cache these analyses (and those of their marks given), dropping the least recently
        used past the limits."""
        with self._lock:
            for t, v in analysed.items():
                if t not in self._cache:
                    self._cache[t] = v
                    self._cached_pieces += len(v)
                    got = marked.get(t)
                    if got is not None:
                        self._marks[t] = got
            while len(self._cache) > _TEXT_CACHE_LIMIT or self._cached_pieces > _PIECE_CACHE_LIMIT:
                t, v = self._cache.popitem(last=False)
                self._cached_pieces -= len(v)
                self._marks.pop(t, None)

    def fields(self, messages: list[Message]) -> list[list[Field]]:
        """The fields of each of ``messages`` with their analysed units (not yet numbered):
        texts in order, then one field per tool call (a unit of kind ``tool_call``)."""
        texts = [tf.text for m in messages for tf in m.texts]
        analysed = iter(self.analyse(texts))
        marks = self._marks
        count = self.counter.count
        out: list[list[Field]] = []
        calls: dict[tuple[str, str], tuple[Any, ...]] = {}  # agents repeat calls (polling, retries)
        for m in messages:
            fields = [Field(m.index, tf.field, tf.text, next(analysed), marks.get(tf.text)) for tf in m.texts]
            for c, call in enumerate(m.tool_calls):
                done = calls.get((call.name, call.arguments))
                if done is None:
                    readable = unescaped(call.arguments)
                    lits = find_literals(readable)
                    lits += find_names_by_pattern(readable, [(x.start, x.end) for x in lits])
                    if CJK_CHAR.search(readable):  # a Chinese or Japanese argument: its names, as in prose
                        lits = names_win(lits, lang.find_names(readable, detect_language(readable)))
                    lits.sort(key=lambda x: (x.start, x.end))
                    done = calls[call.name, call.arguments] = (
                        content_key(f"{call.name}\x00{call.arguments}"), tuple(lits),
                        count(call.name) + count(call.arguments),
                        tuple(dict.fromkeys([call.name, *(x.text for x in lits)])), readable, call_words(readable),
                    )
                key, literals, n, literal_texts, readable, words = done
                template = Unit(
                    id="", kind="tool_call", message=m.index, field=f"tool_calls.{c}",
                    start=0, end=len(call.arguments), text=readable, key=key, occurrence=0,
                    literals=literals, tokens=n, head_end=len(call.arguments), clip_tokens=n,
                    info=len(literals), words=words, literal_texts=literal_texts,
                )
                fields.append(Field(m.index, template.field, call.arguments, (template,)))
            out.append(fields)
        return out


_new = tuple.__new__


class Field(NamedTuple):
    """One field of one message with its analysed units, numbered later: each unit is
    built (:meth:`unit`) only when it is looked at, since a long history has tens of
    thousands and a view shows a few."""

    message: int
    field: str
    text: str
    units: tuple[MeasuredPiece, ...] | tuple[Unit] | Sequence[MeasuredPiece]
    """The measured pieces of a text (a tuple, or pieces read from a shared cache, built when
    looked at: :class:`.analysis_codec.DecodedPieces`), or the one unit of a tool call (numbered 0)."""
    marks: TextMarks | None = None
    """A text's marks (:mod:`.text_marks`), when its analysis came with them (else found
    from its pieces where they are needed)."""

    def unit(self, j: int, occurrence: int) -> Unit:
        """Unit ``j`` of this field, the ``occurrence``-th of its key in the conversation."""
        u = self.units[j]
        if isinstance(u, Unit):
            return u._replace(id=f"{u.key}#{occurrence}", occurrence=occurrence)
        (kind, start, end, key, literals, depth, info, words, _, _), gap, tokens, head_end, clip_tokens, \
            literal_texts, head_literal_texts, suffix = u
        # (tuple.__new__, not Unit(...): the generated __new__ is one more Python call per unit,
        # and a restored memory's first view builds thousands)
        return _new(Unit, (f"{key}#{occurrence}", kind, self.message, self.field, start, end, self.text[start:end],
                           key, occurrence, literals, depth, tokens, head_end, clip_tokens, gap, info, words,
                           literal_texts, head_literal_texts, suffix))

    def unit_literals(self, j: int) -> tuple[Literal, ...]:
        """Unit ``j``'s literals, without building the unit (:meth:`unit`)."""
        u = self.units[j]
        if isinstance(u, Unit):
            return u.literals
        return u.piece.literals

    def unit_text(self, j: int) -> str:
        """Unit ``j``'s text, without building the unit (:meth:`unit`), nor its piece where
        the pieces can read its span (``analysis_codec.DecodedPieces.span``)."""
        span = getattr(self.units, "span", None)
        if span is not None:
            _, start, end, _, _ = span(j)
            return self.text[start:end]
        u = self.units[j]
        if isinstance(u, Unit):
            return u.text
        return self.text[u.piece.start:u.piece.end]


def _clipped(body: str, head: int, kind: str) -> str:
    """The rendering of a clipped unit: its head, a mark, and a closed fence for code."""
    text = body[:head].rstrip()
    if kind == "code":
        newline = body.find("\n")
        first = (body if newline == -1 else body[:newline]).strip()
        fence = first[: len(first) - len(first.lstrip("`~"))] or "```"
        return f"{text}\n…\n{fence}"
    return text + CLIP_MARK


def clipped_text(unit: Unit, head_end: int | None = None) -> str:
    """How a clipped unit reads: its head (to ``head_end``, default its own cut), a mark,
    and a closed fence for code."""
    return _clipped(unit.text, unit.head_end if head_end is None else head_end, unit.kind)


def clip_cost(unit: Unit, head_end: int, count: Callable[[str], int]) -> int:
    """Tokens of ``unit`` shown clipped at ``head_end`` (with the whitespace before it)."""
    return _clip_tokens(count, unit.gap, unit.text, head_end, unit.kind, unit.suffix)


_WORDY = re.compile(r"[^\W\d_]")


def before_values(literals: tuple[Literal, ...], head: int, text: str) -> int:
    """``head`` moved back to the start of a value it would cut: half an address or a phone
    number reads as a whole one ("the phone is 010-67796688, the address is …", not "…the
    address is 12 Panjiayuan"): a value is clipped whole or not at all."""
    for lit in literals:  # (in order of their starts: the first cut one is the earliest)
        if lit.start >= head:
            break  # (none after it can be cut: a 1 MB line states 130,000 values)
        if head < lit.end and text[lit.start:lit.end] == lit.text:
            if lit.kind == "datetime":  # a date is a whole value: "The current time is 2024-05-15 …"
                found = find_literals(text[lit.start:head])
                if found and found[0].kind == "date" and found[0].start == 0:
                    return lit.start + found[0].end
            cut = lit.start
            while cut > 0 and text[cut - 1] in _OPENERS:  # no quote or bracket left open: "investigate …"
                cut -= 1
            return cut
    return head


_OPENERS = frozenset("`\"'([{ \t")


def _no_half_values(literals: tuple[Literal, ...], head: int, body: str) -> int:
    """A piece's head (:func:`before_values`); a head left with no word or less than half of
    itself is none: the piece is shown whole or left out, its values listed (a clip that
    says nothing is worse)."""
    moved = before_values(literals, head, body)
    if moved == head:
        return head
    # Less than half the head left ("[1:51 pm on …" of a date line) says too little as well.
    return moved if moved * 2 >= head and _WORDY.search(body, 0, moved) else len(body)


def _clip_of_whole_values(literals: tuple[Literal, ...], head: int, clip: int, tokens: int,
                          count: Callable[[str], int], gap: str, body: str, kind: str, suffix: str) -> tuple[int, int]:
    """A piece's head and clip cost (``head``, ``clip``; ``tokens`` whole) once its head cuts
    no value (:func:`_no_half_values`): recounted only where the head moved."""
    moved = _no_half_values(literals, head, body)
    if moved == head:
        return head, clip
    if moved == len(body):
        return moved, tokens
    return moved, _clip_tokens(count, gap, body, moved, kind, suffix)


def head_literal_texts(unit: Unit, head_end: int) -> tuple[str, ...]:
    """Distinct texts of the literals a clip at ``head_end`` shows."""
    return _texts_before(unit.literals, head_end, unit.text)


def _suffix(text: str, pieces: tuple[Piece, ...], i: int) -> str:
    """A table's separator row belongs with its header row: shown when it is."""
    p = pieces[i]
    if p.kind != "table_row":
        return ""
    return _separator_row(text, p.end, pieces[i + 1].start if i + 1 < len(pieces) else len(text))


def _separator_row(text: str, end: int, limit: int) -> str:
    """The table separator row right after a row ending at ``end`` (before ``limit``), or ''."""
    sep = _TABLE_SEP_LINE.match(text, end, limit)
    return sep.group() if sep else ""


def _clip_tokens(count: Callable[[str], int], gap: str, body: str, head: int, kind: str, suffix: str) -> int:
    """Tokens a unit costs shown clipped at ``head``."""
    return count(gap + _clipped(body, head, kind) + suffix)


def _texts_before(literals: tuple[Literal, ...], end: int, text: str) -> tuple[str, ...]:
    """Distinct texts of the literals that end by ``end`` (those a clip of ``text`` there
    shows). A JSON text's literals stand where they do in it as it reads (its ``\\u``
    escapes read as characters: see :func:`.json_units.unescaped`), its clip where it does
    as written: a literal that is not where it stands as written is measured against
    the clip's place as it reads (:func:`.json_units.read_offset`)."""
    read_end = None
    out = []
    for lit in literals:
        if lit.start >= end:
            # In order of their starts: none from here ends by ``end``, nor by its place
            # as it reads, which is never after it (read_offset(text, end) <= end).
            break
        if text[lit.start:lit.end] == lit.text:
            if lit.end <= end:
                out.append(lit.text)
            continue
        if read_end is None:
            read_end = read_offset(text, end)
        if lit.end <= read_end:
            out.append(lit.text)
    return tuple(dict.fromkeys(out))

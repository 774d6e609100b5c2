"""One text's analysis (its measured pieces) as bytes a shared cache can hold, and back.

The bytes come from a store other processes write (see :mod:`.analysis_cache`), so they
are never trusted: no pickle, a versioned header, a digest that binds the entry to the
key it was written under (an entry copied to another key, a truncated or bit-flipped one
fails it), and a decoder that checks every field's type and range against the text it
is the analysis of. Whatever fails comes back as ``None`` (recomputed), never an error.

Layout: the envelope of :mod:`.cache_entry` (``MAGIC``, the format's version; a BLAKE2b-128
digest of (cache key, body); the body zlib-compressed: a 4-byte length, a JSON array of the entry's
strings (content keys, words, literal texts and kinds, each once), then little-endian
integer columns (at the width that holds them, read as int64; pieces as rows of numbers indexing the strings; checked with a few array
operations, not a Python statement per number), then the text's marks (:mod:`.text_marks`:
literal texts as indices of the literals' own strings, tag lines as pieces). What follows
from the text and a row (a piece's gap, suffix, literal texts in order and their kinds) is not
stored but rebuilt, so it cannot disagree.

Every number is checked when the entry is read, the entries of a view's texts together
(:func:`decode_many`: a few array operations for all of them, one that fails refused alone);
the pieces themselves are built when first looked at (:class:`DecodedPieces`): a fresh
worker's first view reads every text of its history and builds fewer than half of their pieces.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import accumulate, repeat
from operator import itemgetter
from typing import Any, overload

import numpy as np

from .cache_entry import Strings, seal, unseal
from .literals import Literal, first_kinds
from .segment import Piece
from .text_marks import TextMarks, marks_of
from .units import MeasuredPiece

__all__ = ["FORMAT", "DecodedPieces", "decode", "decode_many", "encode"]

MAGIC = b"DMA\x02"
FORMAT = 2
"""The layout's version (in ``MAGIC``): a reader of another version sees a miss."""
_KINDS = ("heading", "list_item", "field", "table_row", "code", "sentence", "line", "tool_call")
_KIND_CODE = {k: i for i, k in enumerate(_KINDS)}
PERSON = b"dm-analysis"
"""The digest's personalisation (:mod:`.cache_entry`): an entry of another format never passes."""


_HEAD = 9  # chars, pieces, words, literals, heads, tokens of the whole text (-1: not given), mid, tags, tag lines
_COLS = 13  # per piece: kind start end key depth info tokens head clip suffix_len n_words n_lits n_heads


def encode(key: str, text: str, pieces: tuple[MeasuredPiece, ...], secret: bytes = b"", tokens: int = -1,
           marks: TextMarks | None = None) -> bytes:
    """The entry for ``text``'s ``pieces`` (and its ``tokens`` as a whole, -1: not given; its
    ``marks``, found from the pieces if not given) under cache key ``key``."""
    if marks is None:
        marks = marks_of(text, [mp.piece for mp in pieces])
    strings: dict[str, int] = {}
    s = strings.setdefault
    for t in (*marks.mid, *marks.tags):  # (the marks' texts first: a reader splits those alone, see decode_many)
        s(t, len(strings))
    rows: list[int] = []
    words: list[int] = []
    lits: list[int] = []
    heads: list[int] = []
    for mp in pieces:
        p = mp.piece
        for w in p.words:
            words.append(s(w, len(strings)))
        for lit in p.literals:
            lits.extend((s(lit.text, len(strings)), s(lit.kind, len(strings)), lit.start, lit.end))
        texts = p.literal_texts
        # The head's literals are a subset of the piece's, in order: positions (-1: all of them).
        if mp.head_literal_texts == texts:
            n_heads = -1
        else:
            n_heads = len(mp.head_literal_texts)
            heads.extend(texts.index(t) for t in mp.head_literal_texts)
        rows.extend((_KIND_CODE[p.kind], p.start, p.end, s(p.key, len(strings)), p.depth, p.info, mp.tokens,
                     mp.head_end, mp.clip_tokens, len(mp.suffix), len(p.words), len(p.literals), n_heads))
    mid, tags = [strings[t] for t in marks.mid], [strings[t] for t in marks.tags]  # (literal texts: strings already)
    ints = np.asarray([len(text), len(pieces), len(words), len(lits) // 4, len(heads), tokens, len(mid), len(tags),
                       len(marks.tag_lines), *rows, *words, *lits, *heads, *mid, *tags, *marks.tag_lines],
                      dtype="<i8")
    return seal(MAGIC, PERSON, key, strings, ints, secret, 6)


def decode(key: str, text: str, blob: Any, secret: bytes = b"",
           ) -> tuple[DecodedPieces, int, TextMarks] | None:
    """The pieces an entry holds for ``text`` under ``key``, the text's tokens (-1: not
    given) and its marks; None for anything that is not a well-formed entry of this format
    written for this key (and ``secret``)."""
    return decode_many([(key, text, blob)], secret)[0]


def decode_many(entries: Sequence[tuple[str, str, Any]], secret: bytes = b"",
                ) -> list[tuple[DecodedPieces, int, TextMarks] | None]:
    """:func:`decode` of each ``(key, text, blob)``, their numbers checked together (a few
    array operations for all the texts of a view, not for each: a fresh worker's first view
    reads a hundred entries and more); one that fails is refused alone."""
    out: list[tuple[DecodedPieces, int, TextMarks] | None] = [None] * len(entries)
    opened = []
    for i, (key, text, blob) in enumerate(entries):
        got = unseal(MAGIC, PERSON, key, blob, secret, lazy=True)
        if got is None:
            continue
        strings, ints = got
        if len(ints) < _HEAD:
            continue
        head = ints[:_HEAD].tolist()
        n_chars, n_pieces, n_words, n_lits, n_heads, n_tokens, n_mid, n_tags, n_lines = head
        if n_chars != len(text) or min(n_pieces, n_words, n_lits, n_heads, n_tokens + 1, n_mid, n_tags, n_lines) < 0 \
                or len(ints) != _HEAD + _COLS * n_pieces + n_words + 4 * n_lits + n_heads + n_mid + n_tags + n_lines:
            continue
        opened.append((i, text, strings, ints, head))
    try:
        good = _checked(opened, _rows_hold(opened))
        good = _checked(good, _parts_hold(good))
    except (ValueError, TypeError, IndexError, KeyError):
        # (not expected: the checks index safely; then each entry alone, one failing is refused alone)
        if len(opened) == 1:
            return out
        for o in opened:
            out[o[0]] = decode_many([entries[o[0]]], secret)[0]
        return out
    for i, text, strings, ints, head in good:
        n_pieces, n_words, n_lits, n_heads, n_mid, n_tags = head[1], head[2], head[3], head[4], head[6], head[7]
        at = _HEAD + _COLS * n_pieces
        rows = ints[_HEAD:at].reshape(n_pieces, _COLS)
        words = ints[at:at + n_words]
        at += n_words
        lits = ints[at:at + 4 * n_lits].reshape(n_lits, 4)
        at += 4 * n_lits
        heads = ints[at:at + n_heads]
        at += n_heads
        marked = ints[at:at + n_mid + n_tags].tolist()
        # (a text's marks are its first strings, as written here: the rest are split when a
        # piece is built, which a first view does for a few of a hundred texts)
        listed = strings.first(max(marked) + 1) if marked and type(strings) is Strings else strings
        mark_texts = [listed[x] for x in marked]
        lines = ints[at + n_mid + n_tags:].tolist()
        out[i] = (DecodedPieces(text, strings, rows, lits, words, heads), head[5],
                  TextMarks(tuple(mark_texts[:n_mid]), tuple(mark_texts[n_mid:]), tuple(lines)))
    return out


def _checked(opened: list[Any], ok: np.ndarray) -> list[Any]:
    """The entries of ``opened`` that ``ok`` keeps."""
    return [o for o, k in zip(opened, ok.tolist()) if k]


def _rows_hold(opened: list[Any]) -> np.ndarray:
    """Per opened entry, whether its pieces' rows keep every rule (within the text, indices in
    range, counts that add up to the header's): after it, its parts line up with its rows."""
    n = len(opened)
    if not n:
        return np.zeros(0, dtype=bool)
    heads = np.stack([o[3][:_HEAD] for o in opened])  # (the headers as arrays: not a list of lists converted)
    n_chars, n_pieces, n_words, n_lits, n_heads = heads[:, 0], heads[:, 1], heads[:, 2], heads[:, 3], heads[:, 4]
    n_strings = np.array([len(o[2]) for o in opened], dtype=np.int64)
    rows = np.concatenate([o[3][_HEAD:_HEAD + _COLS * int(o[4][1])] for o in opened]).reshape(-1, _COLS)
    eid = np.repeat(np.arange(n), n_pieces)
    kind, start, end, key, _, _, _, head, _, suffix, w_n, l_n, h_n = rows.T
    size = end - start
    chars = n_chars[eid]
    # (columns 3-11 OR-ed: negative where one of them is, as for the literals in _parts_hold)
    bad = ((kind < 0) | (kind >= len(_KINDS)) | (start < 0) | (np.bitwise_or.reduce(rows[:, 3:12].T) < 0)
           | (h_n < -1)
           | (key >= n_strings[eid]) | (end > chars) | (suffix > chars) | (size < 0) | (end + suffix > chars)
           | (head > size))
    ok = np.bincount(eid, weights=bad, minlength=n) == 0
    for counts, total in ((w_n, n_words), (l_n, n_lits), (np.maximum(h_n, 0), n_heads)):
        ok &= np.bincount(eid, weights=counts, minlength=n) == total
    return ok


def _parts_hold(opened: list[Any]) -> np.ndarray:
    """Per opened entry whose rows hold, whether its words, literals, heads, marks and tag
    lines do: every string index in range, a literal within its piece, a head one of its
    piece's distinct values, a mark one of the entry's literal texts, a tag line one of its pieces."""
    n = len(opened)
    if not n:
        return np.zeros(0, dtype=bool)
    heads = np.stack([o[3][:_HEAD] for o in opened])  # (the headers as arrays: not a list of lists converted)
    n_pieces, n_words, n_lits, n_heads = heads[:, 1], heads[:, 2], heads[:, 3], heads[:, 4]
    n_marked, n_lines = heads[:, 6] + heads[:, 7], heads[:, 8]
    n_strings = np.array([len(o[2]) for o in opened], dtype=np.int64)
    str_at = np.cumsum(n_strings) - n_strings  # (each entry's strings, laid end to end)
    ids = np.arange(n)

    def part(offset: Any, length: Any) -> np.ndarray:
        return np.concatenate([o[3][a:a + m] for o, a, m in zip(opened, offset.tolist(), length.tolist())]) \
            if n else np.zeros(0, dtype=np.int64)

    at = _HEAD + _COLS * n_pieces
    rows = np.concatenate([o[3][_HEAD:a] for o, a in zip(opened, at.tolist())]).reshape(-1, _COLS)
    words = part(at, n_words)
    lits = part(at + n_words, 4 * n_lits).reshape(-1, 4)
    at_heads = at + n_words + 4 * n_lits
    head_idx = part(at_heads, n_heads)
    marked = part(at_heads + n_heads, n_marked)
    lines = part(at_heads + n_heads + n_marked, n_lines)
    word_of, lit_of, head_of = np.repeat(ids, n_words), np.repeat(ids, n_lits), np.repeat(ids, n_heads)
    mark_of, line_of = np.repeat(ids, n_marked), np.repeat(ids, n_lines)

    def bad_in(flags: np.ndarray, owner: np.ndarray) -> np.ndarray:
        return np.bincount(owner, weights=flags, minlength=n) > 0

    failed = bad_in((words < 0) | (words >= n_strings[word_of]), word_of)
    # (the rows' counts add up: a literal's piece is the row it falls in, entry after entry)
    size = rows[:, 2] - rows[:, 1]
    l_n, h_n = rows[:, 11], np.maximum(rows[:, 12], 0)
    names, kinds, lstart, lend = lits.T
    # (a number is negative where its sign bit is set: the four columns' OR has it if one has;
    # ``(lits < 0).any(axis=1)`` was a reduction over rows of four, 9x the time)
    failed |= bad_in(((names | kinds | lstart | lend) < 0) | (names >= n_strings[lit_of])
                     | (kinds >= n_strings[lit_of]) | (lend < lstart) | (lend > np.repeat(size, l_n)), lit_of)
    # A head names one of its piece's distinct literal texts (the pieces are built later, and an
    # entry must fail whole): counted for the pieces that list heads of their own (a few in
    # ten; sorting every literal of a view's texts was a third of this check).
    # (a name out of range, refused above, is clipped here so that it stays in its piece)
    room = int(n_strings.max()) + 1
    piece_of = np.repeat(np.arange(len(rows), dtype=np.int64), l_n)
    listed = (h_n > 0)[piece_of]
    pairs = np.sort(piece_of[listed] * room + np.clip(names[listed], 0, room - 1))
    first = np.ones(len(pairs), dtype=bool)
    np.not_equal(pairs[1:], pairs[:-1], out=first[1:])
    distinct = np.bincount(pairs[first] // room, minlength=len(rows))
    failed |= bad_in((head_idx < 0) | (head_idx >= np.repeat(distinct, h_n)), head_of)
    # A mark is one of its entry's literal texts.
    is_literal = np.zeros(int(n_strings.sum()), dtype=bool)
    in_range = (names >= 0) & (names < n_strings[lit_of])
    is_literal[(str_at[lit_of] + names)[in_range]] = True
    mark_ok = (marked >= 0) & (marked < n_strings[mark_of])
    mark_ok[mark_ok] = is_literal[(str_at[mark_of] + marked)[mark_ok]]
    failed |= bad_in(~mark_ok, mark_of)
    failed |= bad_in((lines < 0) | (lines >= n_pieces[line_of]), line_of)
    return ~failed


_new = tuple.__new__


def _listed(strings: list[str] | Strings) -> list[str]:
    """An entry's strings as a list (split if they were not)."""
    return strings.listed() if type(strings) is Strings else strings  # type: ignore[return-value]


class DecodedPieces(Sequence[MeasuredPiece]):
    """A text's measured pieces as a checked entry holds them, each built when first looked
    at: a first view through the shared cache decodes every text of the history (thousands
    of pieces, tens of thousands of literals and words) and reads fewer than half of them.
    Equal to the tuple of the same pieces; :meth:`measures` gives what the columns take of
    every piece without building one."""

    __slots__ = ("_text", "_strings", "_rows", "_lits", "_words", "_heads", "_built", "_table", "_row_list")

    def __init__(self, text: str, strings: list[str] | Strings, rows: np.ndarray, lits: np.ndarray, words: np.ndarray,
                 heads: np.ndarray) -> None:
        self._text, self._strings, self._rows, self._lits, self._words, self._heads = \
            text, strings, rows, lits, words, heads
        self._built: list[MeasuredPiece | None] = [None] * len(rows)
        self._table: tuple[Any, ...] | None = None
        self._row_list: list[list[int]] | None = None  # (the rows as lists, once: span and _lists)

    def __len__(self) -> int:
        return len(self._built)

    @overload
    def __getitem__(self, j: int) -> MeasuredPiece: ...

    @overload
    def __getitem__(self, j: slice) -> tuple[MeasuredPiece, ...]: ...

    def __getitem__(self, j: int | slice) -> MeasuredPiece | tuple[MeasuredPiece, ...]:
        if isinstance(j, slice):
            return tuple([self[i] for i in range(*j.indices(len(self._built)))])
        got = self._built[j]  # (an IndexError past the end, as a tuple's)
        if got is None:
            got = self._built[j] = self._piece(j % len(self._built))
        return got

    def __iter__(self) -> Iterator[MeasuredPiece]:
        for j in range(len(self._built)):
            yield self[j]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (tuple, DecodedPieces)):
            return tuple(self) == tuple(other)
        return NotImplemented

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"DecodedPieces({tuple(self)!r})"

    def measures(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Per piece, its kind's number (of ``columns.UNIT_KINDS``), tokens, clip cost, head's
        end and size in characters."""
        r = self._rows
        return r[:, 0], r[:, 6], r[:, 8], r[:, 7], r[:, 2] - r[:, 1]

    def span(self, j: int) -> tuple[str, int, int, int, int]:
        """Piece ``j``'s kind, start and end, where its gap starts and where its suffix ends,
        without building it (a first view's render shows hundreds of units read from the cache,
        and reads the gaps of hundreds it leaves out; the gap is empty where the spans overlap)."""
        j %= len(self._built)
        rows = self._row_list
        if rows is None:
            if j == 0:  # (as _first: the entry is not converted for its first piece)
                k, a, b, suf = self._rows[0, [0, 1, 2, 9]].tolist()
                return _KINDS[k], a, b, 0, b + suf
            # (its rows only: the literals, words and heads are converted if a piece is built)
            rows = self._row_list = self._rows.tolist()
        k, a, b = rows[j][:3]
        prev = 0 if j == 0 else rows[j - 1][2] + rows[j - 1][9]
        return _KINDS[k], a, b, prev, b + rows[j][9]

    def head_end(self, j: int) -> int:
        """Piece ``j``'s head's end, without building it (a first view's render writes the
        clipped units it shows from their spans and heads: building one reads its text's
        literals and words)."""
        j %= len(self._built)
        got = self._built[j]
        if got is not None:
            return got.head_end
        rows = self._row_list
        if rows is None:
            rows = self._row_list = self._rows.tolist()
        return rows[j][7]

    def opening_span(self) -> tuple[int, int, int]:
        """The first piece's start, end and how many literals it states, without building them
        (a date line is short: most texts' first pieces are not read further, see :meth:`opening`)."""
        got = self._built[0] if self._built else None
        if got is not None:
            p = got.piece
            return p.start, p.end, len(p.literals)
        a, b, n = self._rows[0, [1, 2, 11]].tolist()
        return a, b, n

    def opening(self) -> tuple[int, int, tuple[Literal, ...]]:
        """The first piece's start, end and literals, without building it: the columns read a
        label and a date line off the first piece of every text, and a view builds few of them."""
        got = self._built[0] if self._built else None
        if got is not None:
            p = got.piece
            return p.start, p.end, p.literals
        _, a, b = self._rows[0, :3].tolist()
        nl = int(self._rows[0, 11])
        lits = self._lits[:nl].tolist()
        strings = self._strings
        # (the first piece's strings are among the entry's first, as written: only those split)
        get = (strings.first(max(max(x[0], x[1]) for x in lits) + 1) if lits and type(strings) is Strings
               else strings).__getitem__
        return a, b, tuple([_new(Literal, (get(name), get(kind), start, end)) for name, kind, start, end in lits])

    def _lists(self) -> tuple[Any, ...]:
        """The entry's numbers as lists, and where each piece's literals, words and heads start
        (made once, on the first piece looked at: a first view looks at a piece of every text,
        and at a quarter of all pieces)."""
        table = self._table
        if table is None:
            rows, lits = self._rows, self._lits
            table_l = self._row_list
            if table_l is None:
                table_l = self._row_list = rows.tolist()
            # (a head count of -1 is "all the literals": none of the heads' own)
            starts = [list(accumulate(map(itemgetter(10), table_l), initial=0)),
                      list(accumulate(map(itemgetter(11), table_l), initial=0)),
                      list(accumulate(map(max, map(itemgetter(12), table_l), repeat(0)), initial=0))]
            table = self._table = (table_l, lits.tolist(), self._words.tolist(), self._heads.tolist(), *starts)
        return table

    def _piece(self, j: int) -> MeasuredPiece:
        if j == 0 and self._table is None:
            return self._first()
        rows, lits, words, heads, word_at, lit_at, head_at = self._table or self._lists()
        row = rows[j]
        k, a, b, key_i, d, inf, t, hd, c, suf, nw, nl, nh = row
        get = _listed(self._strings).__getitem__
        # (most pieces state no value or one: those need no dict of first kinds)
        if nl == 0:
            lit_t = texts = kind_t = ()
        elif nl == 1:
            name, kind, start, end = lits[lit_at[j]]
            lit = _new(Literal, (get(name), get(kind), start, end))
            lit_t, texts, kind_t = (lit,), (lit.text,), (lit.kind,)
        else:
            li = lit_at[j]
            lit_t = tuple([_new(Literal, (get(name), get(kind), start, end)) for name, kind, start, end in lits[li:li + nl]])
            first = first_kinds(lit_t)
            texts, kind_t = tuple(first), tuple(first.values())
        if nh < 0:
            head_texts = texts
        else:
            h = head_at[j]
            head_texts = tuple([texts[x] for x in heads[h:h + nh]])
        w = word_at[j]
        text = self._text
        piece = _new(Piece, (_KINDS[k], a, b, get(key_i), lit_t, d, inf, tuple(map(get, words[w:w + nw])), texts,
                             kind_t))
        # (the gap before a piece is the text from the last piece's end: empty if they overlap)
        prev = 0 if j == 0 else rows[j - 1][2] + rows[j - 1][9]
        return _new(MeasuredPiece, (piece, text[prev:a], t, hd, c, texts, head_texts, text[b:b + suf]))

    def _first(self) -> MeasuredPiece:
        """The first piece, its numbers sliced from the entry's arrays: the columns look at the
        first piece of every text (its label and date line), and a view at the others of some
        (:meth:`_lists` is for those: converting a whole entry is most of the cost of its
        first piece)."""
        row, = self._rows[:1].tolist()
        k, a, b, key_i, d, inf, t, hd, c, suf, nw, nl, nh = row
        get = _listed(self._strings).__getitem__
        lit_t = tuple([_new(Literal, (get(name), get(kind), start, end)) for name, kind, start, end in self._lits[:nl].tolist()])
        first = first_kinds(lit_t)
        texts, kind_t = tuple(first), tuple(first.values())
        head_texts = texts if nh < 0 else tuple([texts[x] for x in self._heads[:nh].tolist()])
        text = self._text
        piece = _new(Piece, (_KINDS[k], a, b, get(key_i), lit_t, d, inf, tuple(map(get, self._words[:nw].tolist())), texts,
                             kind_t))
        return _new(MeasuredPiece, (piece, text[:a], t, hd, c, texts, head_texts, text[b:b + suf]))

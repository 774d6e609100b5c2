"""One text's analysis (its measured pieces) as bytes a shared cache can hold, and back.

The bytes come from a store other processes write (see :mod:`.analysis_cache`), so they
are never trusted: no pickle, a versioned header, a digest that binds the entry to the
key it was written under (an entry copied to another key, a truncated or bit-flipped one
fails it), and a decoder that checks every field's type and range against the text it
is the analysis of. Whatever fails comes back as ``None`` (recomputed), never an error.

Layout: the envelope of :mod:`.cache_entry` (``MAGIC``, the format's version; a BLAKE2b-128
digest of (cache key, body); the body two DEFLATE streams, :func:`.cache_entry.unseal_split`),
each of strings (NUL-ended) then little-endian integer columns (at the width that holds them,
read as int64; checked with a few array operations, not a Python statement per number). The
first stream holds what a view reads of every text: a header, the pieces as rows of numbers,
the literals as rows of numbers indexing the strings, then the text's marks (:mod:`.text_marks`:
literal texts as indices of the literals' own strings, tag lines as pieces), and as strings
the marks' texts and the first piece's literals' texts and kinds. The second holds the
pieces' words and heads and the other strings (content keys, words, literal texts), read when
a piece of the text is first built: a fresh worker's first view opens a hundred entries and
builds pieces of a few (issue 49). What follows from the text and a row (a piece's gap,
suffix, literal texts in order and their kinds) is not stored but rebuilt, so it cannot
disagree.

Every number of the first stream is checked when the entry is read, the entries of a view's
texts together (:func:`decode_many`: a few array operations for all of them, one that fails
refused alone); the second stream's when it is read (:func:`_later_holds`), and a text whose
second stream fails is analysed here then; the pieces themselves are built when first looked
at (:class:`DecodedPieces`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from itertools import accumulate, repeat
from operator import itemgetter
from typing import Any, overload

import numpy as np

from .cache_entry import Later, seal, unseal_split
from .literals import Literal, first_kinds
from .segment import Piece
from .text_marks import TextMarks, marks_of
from .units import MeasuredPiece

__all__ = ["FORMAT", "DecodedPieces", "decode", "decode_many", "encode"]

MAGIC = b"DMA\x03"
FORMAT = 3
"""The layout's version (in ``MAGIC``): a reader of another version sees a miss."""
_KINDS = ("heading", "list_item", "field", "table_row", "code", "sentence", "line", "tool_call")
_KIND_CODE = {k: i for i, k in enumerate(_KINDS)}
PERSON = b"dm-analysis"
"""The digest's personalisation (:mod:`.cache_entry`): an entry of another format never passes."""


_HEAD = 10  # chars, pieces, words, literals, heads, tokens of the whole text (-1: not given), mid, tags, tag lines,
# strings (of both streams)
_COLS = 13  # per piece: kind start end key depth info tokens head clip suffix_len n_words n_lits n_heads


def encode(key: str, text: str, pieces: tuple[MeasuredPiece, ...], secret: bytes = b"", tokens: int = -1,
           marks: TextMarks | None = None) -> bytes:
    """The entry for ``text``'s ``pieces`` (and its ``tokens`` as a whole, -1: not given; its
    ``marks``, found from the pieces if not given) under cache key ``key``."""
    if marks is None:
        marks = marks_of(text, [mp.piece for mp in pieces])
    strings: dict[str, int] = {}
    s = strings.setdefault
    # (the marks' texts and the first piece's literals first: the first stream holds those, the
    # second the rest, read when a piece is built; see decode_many)
    for t in (*marks.mid, *marks.tags):
        s(t, len(strings))
    for lit in pieces[0].piece.literals if pieces else ():
        s(lit.text, len(strings))
        s(lit.kind, len(strings))
    n_first = len(strings)
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
                       len(marks.tag_lines), len(strings), *rows, *lits, *mid, *tags, *marks.tag_lines], dtype="<i8")
    listed = list(strings)
    return seal(MAGIC, PERSON, key, listed[:n_first], ints, secret, 6,
                later=(listed[n_first:], np.asarray([*words, *heads], dtype="<i8")))


def decode(key: str, text: str, blob: Any, secret: bytes = b"",
           redo: Callable[[str], tuple[MeasuredPiece, ...]] | None = None,
           ) -> tuple[DecodedPieces, int, TextMarks] | None:
    """The pieces an entry holds for ``text`` under ``key``, the text's tokens (-1: not
    given) and its marks; None for anything that is not a well-formed entry of this format
    written for this key (and ``secret``). ``redo``: see :func:`decode_many`."""
    return decode_many([(key, text, blob)], secret, redo)[0]


def decode_many(entries: Sequence[tuple[str, str, Any]], secret: bytes = b"",
                redo: Callable[[str], tuple[MeasuredPiece, ...]] | None = None,
                ) -> list[tuple[DecodedPieces, int, TextMarks] | None]:
    """:func:`decode` of each ``(key, text, blob)``, their numbers checked together (a few
    array operations for all the texts of a view, not for each: a fresh worker's first view
    reads a hundred entries and more); one that fails is refused alone. An entry's second
    stream (its pieces' words, heads and strings) is read and checked when a piece of it is
    first built; if it fails then, the pieces are ``redo`` of the text (its analysis made
    here)."""
    out: list[tuple[DecodedPieces, int, TextMarks] | None] = [None] * len(entries)
    opened = []
    for i, (key, text, blob) in enumerate(entries):
        got = unseal_split(MAGIC, PERSON, key, blob, secret)
        if got is None:
            continue
        strings, ints, later = got
        if len(ints) < _HEAD:
            continue
        head = ints[:_HEAD].tolist()
        n_chars, n_pieces, n_words, n_lits, n_heads, n_tokens, n_mid, n_tags, n_lines, n_strings = head
        if n_chars != len(text) or min(n_pieces, n_words, n_lits, n_heads, n_tokens + 1, n_mid, n_tags, n_lines) < 0 \
                or n_strings < len(strings) \
                or len(ints) != _HEAD + _COLS * n_pieces + 4 * n_lits + n_mid + n_tags + n_lines:
            continue
        opened.append((i, text, strings, ints, head, later))
    try:
        good = _checked(opened, _rows_hold(opened))
        good = _checked(good, _parts_hold(good))
    except (ValueError, TypeError, IndexError, KeyError):
        # (not expected: the checks index safely; then each entry alone, one failing is refused alone)
        if len(opened) == 1:
            return out
        for o in opened:
            out[o[0]] = decode_many([entries[o[0]]], secret, redo)[0]
        return out
    for i, text, strings, ints, head, later in good:
        n_pieces, n_lits, n_mid, n_tags = head[1], head[3], head[6], head[7]
        at = _HEAD + _COLS * n_pieces
        rows = ints[_HEAD:at].reshape(n_pieces, _COLS)
        lits = ints[at:at + 4 * n_lits].reshape(n_lits, 4)
        at += 4 * n_lits
        # (a text's marks are among its first stream's strings, as written: checked there)
        mark_texts = [strings[x] for x in ints[at:at + n_mid + n_tags].tolist()]
        lines = ints[at + n_mid + n_tags:].tolist()
        out[i] = (DecodedPieces(text, strings, rows, lits, later, (head[9], head[2], head[4]), redo), head[5],
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
    n_strings = heads[:, 9]
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
    """Per opened entry whose rows hold, whether its literals, marks and tag lines do: every
    string index in range, a literal within its piece, the first piece's literals and the
    marks among the first stream's strings, a mark one of the entry's literal texts, a tag
    line one of its pieces (the words and heads are checked when the second stream is read,
    :func:`_later_holds`)."""
    n = len(opened)
    if not n:
        return np.zeros(0, dtype=bool)
    heads = np.stack([o[3][:_HEAD] for o in opened])  # (the headers as arrays: not a list of lists converted)
    n_pieces, n_lits = heads[:, 1], heads[:, 3]
    n_marked, n_lines, n_strings = heads[:, 6] + heads[:, 7], heads[:, 8], heads[:, 9]
    n_first = np.array([len(o[2]) for o in opened], dtype=np.int64)
    ids = np.arange(n)

    def part(offset: Any, length: Any) -> np.ndarray:
        return np.concatenate([o[3][a:a + m] for o, a, m in zip(opened, offset.tolist(), length.tolist())])

    at = _HEAD + _COLS * n_pieces
    rows = np.concatenate([o[3][_HEAD:a] for o, a in zip(opened, at.tolist())]).reshape(-1, _COLS)
    lits = part(at, 4 * n_lits).reshape(-1, 4)
    marked = part(at + 4 * n_lits, n_marked)
    lines = part(at + 4 * n_lits + n_marked, n_lines)
    lit_of, mark_of, line_of = np.repeat(ids, n_lits), np.repeat(ids, n_marked), np.repeat(ids, n_lines)

    def bad_in(flags: np.ndarray, owner: np.ndarray) -> np.ndarray:
        return np.bincount(owner, weights=flags, minlength=n) > 0

    # (the rows' counts add up: a literal's piece is the row it falls in, entry after entry)
    size = rows[:, 2] - rows[:, 1]
    l_n = rows[:, 11]
    names, kinds, lstart, lend = lits.T
    # (a number is negative where its sign bit is set: the four columns' OR has it if one has;
    # ``(lits < 0).any(axis=1)`` was a reduction over rows of four, 9x the time)
    failed = bad_in(((names | kinds | lstart | lend) < 0) | (names >= n_strings[lit_of])
                    | (kinds >= n_strings[lit_of]) | (lend < lstart) | (lend > np.repeat(size, l_n)), lit_of)
    # The first piece's literals are read before any piece is built (a label, a date line):
    # their strings are the first stream's.
    firsts = np.zeros(len(rows), dtype=bool)
    firsts[(np.cumsum(n_pieces) - n_pieces)[n_pieces > 0]] = True
    in_first = np.repeat(firsts, l_n)
    failed |= bad_in(in_first & ((names >= n_first[lit_of]) | (kinds >= n_first[lit_of])), lit_of)
    # A mark is one of its entry's literal texts, and among the first stream's strings: only the
    # literals among those can be one, so the table is as long as the first streams' strings (of
    # the header's count of strings, a forged 10^15 asked for a table of 909 TiB: a MemoryError).
    first_at = np.cumsum(n_first) - n_first  # (each entry's first strings, laid end to end)
    is_literal = np.zeros(int(n_first.sum()), dtype=bool)
    is_literal[(first_at[lit_of] + names)[(names >= 0) & (names < n_first[lit_of])]] = True
    mark_ok = (marked >= 0) & (marked < n_first[mark_of])
    mark_ok[mark_ok] = is_literal[(first_at[mark_of] + marked)[mark_ok]]
    failed |= bad_in(~mark_ok, mark_of)
    failed |= bad_in((lines < 0) | (lines >= n_pieces[line_of]), line_of)
    return ~failed


def _later_holds(rows: np.ndarray, lits: np.ndarray, words: np.ndarray, heads: np.ndarray, n_strings: int) -> bool:
    """Whether an entry's second stream's words and heads keep every rule (its rows and
    literals checked): a word one of the strings, a head one of its piece's distinct values."""
    if len(words) and (int(words.min()) < 0 or int(words.max()) >= n_strings):
        return False
    if not len(heads):
        return True
    # (a head names one of its piece's distinct literal texts; counted for the pieces that list
    # heads of their own, a few in ten)
    l_n, h_n = rows[:, 11], np.maximum(rows[:, 12], 0)
    piece_of = np.repeat(np.arange(len(rows), dtype=np.int64), l_n)
    listed = (h_n > 0)[piece_of]
    room = n_strings + 1
    pairs = np.unique(piece_of[listed] * room + lits[listed, 0])
    distinct = np.bincount(pairs // room, minlength=len(rows))
    return bool(((heads >= 0) & (heads < np.repeat(distinct, h_n))).all())


_new = tuple.__new__


class DecodedPieces(Sequence[MeasuredPiece]):
    """A text's measured pieces as a checked entry holds them, each built when first looked
    at: a first view through the shared cache decodes every text of the history (thousands
    of pieces, tens of thousands of literals and words) and reads fewer than half of them.
    Equal to the tuple of the same pieces; :meth:`measures` gives what the columns take of
    every piece without building one. The entry's second stream (its words, heads and most of
    its strings) is read when the first piece is built; one that fails then (only a writer
    without the store's secret can sign one) gives way to ``redo`` of the text (its analysis
    made here), or, where that disagrees with the rows the view has read, to pieces of the
    rows alone: never an error."""

    __slots__ = ("_text", "_strings", "_rows", "_lits", "_later", "_counts", "_redo", "_words", "_heads", "_local",
                 "_built", "_table", "_row_list")

    def __init__(self, text: str, strings: list[str], rows: np.ndarray, lits: np.ndarray, later: Later | None,
                 counts: tuple[int, int, int], redo: Callable[[str], tuple[MeasuredPiece, ...]] | None = None) -> None:
        self._text, self._strings, self._rows, self._lits, self._later, self._counts, self._redo = \
            text, strings, rows, lits, later, counts, redo
        self._words = self._heads = np.zeros(0, dtype=np.int64)
        self._local: tuple[MeasuredPiece, ...] | None = None
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
                k, a, b, *_, suf = self._rows[0, :10].tolist()
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
        first = self._rows[0].tolist()  # (a row as a list: a fancy index was eight times its cost)
        return first[1], first[2], first[11]

    def opening(self) -> tuple[int, int, tuple[Literal, ...]]:
        """The first piece's start, end and literals, without building it: the columns read a
        label and a date line off the first piece of every text, and a view builds few of them."""
        got = self._built[0] if self._built else None
        if got is not None:
            p = got.piece
            return p.start, p.end, p.literals
        first = self._rows[0].tolist()
        a, b, nl = first[1], first[2], first[11]
        lits = self._lits[:nl].tolist()
        get = self._strings.__getitem__  # (the first piece's strings are the first stream's: checked)
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

    def _open_later(self) -> None:
        """Read the second stream; if it fails its checks, the pieces are the text's analysis
        made here (or of the rows alone, see the class)."""
        later, self._later = self._later, None
        n_strings, n_words, n_heads = self._counts
        got = later.open() if later is not None else None
        if got is not None:
            strings, ints = got
            if len(self._strings) + len(strings) == n_strings and len(ints) == n_words + n_heads \
                    and _later_holds(self._rows, self._lits, ints[:n_words], ints[n_words:], n_strings):
                self._strings = self._strings + strings
                self._words, self._heads = ints[:n_words], ints[n_words:]
                return
        local = self._redo(self._text) if self._redo is not None else ()
        rows = self._rows
        # (the rows the columns read, but for the key and the heads' count, which they take from the pieces)
        if len(local) == len(rows) and [
                (_KIND_CODE[mp.piece.kind], mp.piece.start, mp.piece.end, mp.piece.depth, mp.piece.info, mp.tokens,
                 mp.head_end, mp.clip_tokens, len(mp.suffix), len(mp.piece.words), len(mp.piece.literals))
                for mp in local] == list(map(tuple, rows[:, [0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11]].tolist())):
            self._local = local
            return
        text, prev, bare = self._text, 0, []
        for k, a, b, _, d, inf, t, hd, c, suf, _, _, _ in rows.tolist():
            piece = _new(Piece, (_KINDS[k], a, b, "", (), d, inf, (), (), ()))
            bare.append(_new(MeasuredPiece, (piece, text[prev:a], t, hd, c, (), (), text[b:b + suf])))
            prev = b + suf
        self._local = tuple(bare)

    def _piece(self, j: int) -> MeasuredPiece:
        if self._later is not None:
            self._open_later()
        if self._local is not None:
            return self._local[j]
        if j == 0 and self._table is None:
            return self._first()
        rows, lits, words, heads, word_at, lit_at, head_at = self._table or self._lists()
        row = rows[j]
        k, a, b, key_i, d, inf, t, hd, c, suf, nw, nl, nh = row
        get = self._strings.__getitem__
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
        get = self._strings.__getitem__
        lit_t = tuple([_new(Literal, (get(name), get(kind), start, end)) for name, kind, start, end in self._lits[:nl].tolist()])
        first = first_kinds(lit_t)
        texts, kind_t = tuple(first), tuple(first.values())
        head_texts = texts if nh < 0 else tuple([texts[x] for x in self._heads[:nh].tolist()])
        text = self._text
        piece = _new(Piece, (_KINDS[k], a, b, get(key_i), lit_t, d, inf, tuple(map(get, self._words[:nw].tolist())), texts,
                             kind_t))
        return _new(MeasuredPiece, (piece, text[:a], t, hd, c, texts, head_texts, text[b:b + suf]))

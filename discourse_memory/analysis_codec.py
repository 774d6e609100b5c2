"""One text's analysis (its measured pieces) as bytes a shared cache can hold, and back.

The bytes come from a store other processes write (see :mod:`.analysis_cache`), so they
are never trusted: no pickle, a versioned header, a digest that binds the entry to the
key it was written under (an entry copied to another key, a truncated or bit-flipped one
fails it), and a decoder that checks every field's type and range against the text it
is the analysis of. Whatever fails comes back as ``None`` (recomputed), never an error.

Layout: the envelope of :mod:`.cache_entry` (``MAGIC``, the format's version; a BLAKE2b-128
digest of (cache key, body); the body zlib-compressed: a 4-byte length, a JSON array of the entry's
strings (content keys, words, literal texts and kinds, each once), then little-endian
int64 columns (pieces as rows of numbers indexing the strings; checked with a few array
operations, not a Python statement per number), then the text's marks (:mod:`.text_marks`:
literal texts as indices of the literals' own strings, tag lines as pieces). What follows
from the text and a row (a piece's gap, suffix, literal texts in order and their kinds) is not
stored but rebuilt, so it cannot disagree.

Every number is checked when the entry is read; the pieces themselves are built when first
looked at (:class:`DecodedPieces`): a fresh worker's first view reads every text of its history
and builds fewer than half of their pieces.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import accumulate, repeat
from operator import itemgetter
from typing import Any, overload

import numpy as np

from .cache_entry import seal, unseal
from .literals import Literal, first_kinds
from .segment import Piece
from .text_marks import TextMarks, marks_of
from .units import MeasuredPiece

__all__ = ["FORMAT", "DecodedPieces", "decode", "encode"]

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
    opened = unseal(MAGIC, PERSON, key, blob, secret)
    if opened is None:
        return None
    try:
        return _pieces(text, *opened)
    except (ValueError, TypeError, IndexError, KeyError, RecursionError):
        return None


def _pieces(text: str, strings: list[str], ints: np.ndarray,
            ) -> tuple[DecodedPieces, int, TextMarks] | None:
    """The measured pieces of a decoded body, the text's tokens and marks, every number
    checked against the text and the strings (None if one fails)."""
    if len(ints) < _HEAD:
        return None
    n_chars, n_pieces, n_words, n_lits, n_heads, n_tokens, n_mid, n_tags, n_lines = ints[:_HEAD].tolist()
    if n_chars != len(text) or min(n_pieces, n_words, n_lits, n_heads, n_tokens + 1, n_mid, n_tags, n_lines) < 0 \
            or len(ints) != _HEAD + _COLS * n_pieces + n_words + 4 * n_lits + n_heads + n_mid + n_tags + n_lines:
        return None
    at = _HEAD + _COLS * n_pieces
    rows = ints[_HEAD:at].reshape(n_pieces, _COLS)
    words = ints[at:at + n_words]
    lits = ints[at + n_words:at + n_words + 4 * n_lits].reshape(n_lits, 4)
    at += n_words + 4 * n_lits
    heads = ints[at:at + n_heads]
    at += n_heads
    marked = ints[at:at + n_mid + n_tags]  # (indices of strings that must be literal texts of this entry)
    lines = ints[at + n_mid + n_tags:]
    kind, start, end, key, depth, info, tokens, head, clip, suffix, w_n, l_n, h_n = rows.T
    n_strings = len(strings)
    size = end - start
    if n_pieces:
        # (each column's least and greatest in two calls, then the rules on those: a rule per
        # column as an array each was most of an entry's checks)
        lo, hi = rows.min(axis=0).tolist(), rows.max(axis=0).tolist()
        if not (lo[0] >= 0 and hi[0] < len(_KINDS) and lo[1] >= 0 and min(lo[3:12]) >= 0 and lo[12] >= -1
                and hi[3] < n_strings and hi[2] <= n_chars and hi[9] <= n_chars and int(size.min()) >= 0
                and int((end + suffix).max()) <= n_chars
                and int((head - size).max()) <= 0 and int(w_n.sum()) == n_words and int(l_n.sum()) == n_lits
                and int(np.maximum(h_n, 0).sum()) == n_heads):
            return None
    if n_pieces == 0 and n_words + n_lits + n_heads:
        return None
    if n_words and not (int(words.min()) >= 0 and int(words.max()) < n_strings):
        return None
    if n_lits:
        names, lkinds, lstart, lend = lits.T
        lo, hi = lits.min(axis=0).tolist(), lits.max(axis=0).tolist()
        if not (min(lo) >= 0 and max(hi[0], hi[1]) < n_strings and int((lend - lstart).min()) >= 0
                and int((lend - np.repeat(size, l_n)).max()) <= 0):
            return None
    if n_heads and int(heads.min()) < 0:
        return None
    if n_mid + n_tags:
        if not (n_lits and int(marked.min()) >= 0 and int(marked.max()) < n_strings):
            return None
        is_literal = np.zeros(n_strings, dtype=bool)
        is_literal[lits[:, 0]] = True  # (in range: checked above)
        if not is_literal[marked].all():
            return None
    if n_lines and not (int(lines.min()) >= 0 and int(lines.max()) < n_pieces):
        return None
    if n_heads:
        # (a head's literal is one of its piece's distinct literal texts: checked for all pieces
        # here, since the pieces are built only when looked at, and an entry must fail whole)
        n_texts = np.zeros(n_pieces, dtype=np.int64)
        if n_lits:
            pairs = np.sort(np.repeat(np.arange(n_pieces, dtype=np.int64), l_n) * n_strings + lits[:, 0])
            first = np.ones(len(pairs), dtype=bool)
            np.not_equal(pairs[1:], pairs[:-1], out=first[1:])
            distinct = pairs[first]
            n_texts = np.bincount(distinct // n_strings, minlength=n_pieces)
        if int((heads - np.repeat(n_texts, np.maximum(h_n, 0))).max()) >= 0:
            return None
    mark_texts = list(map(strings.__getitem__, marked.tolist()))
    return (DecodedPieces(text, strings, rows, lits, words, heads), n_tokens,
            TextMarks(tuple(mark_texts[:n_mid]), tuple(mark_texts[n_mid:]), tuple(lines.tolist())))


_new = tuple.__new__


class DecodedPieces(Sequence[MeasuredPiece]):
    """A text's measured pieces as a checked entry holds them, each built when first looked
    at: a first view through the shared cache decodes every text of the history (thousands
    of pieces, tens of thousands of literals and words) and reads fewer than half of them.
    Equal to the tuple of the same pieces; :meth:`measures` gives what the columns take of
    every piece without building one."""

    __slots__ = ("_text", "_strings", "_rows", "_lits", "_words", "_heads", "_built", "_table")

    def __init__(self, text: str, strings: list[str], rows: np.ndarray, lits: np.ndarray, words: np.ndarray,
                 heads: np.ndarray) -> None:
        self._text, self._strings, self._rows, self._lits, self._words, self._heads = \
            text, strings, rows, lits, words, heads
        self._built: list[MeasuredPiece | None] = [None] * len(rows)
        self._table: tuple[Any, ...] | None = None

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

    def _lists(self) -> tuple[Any, ...]:
        """The entry's rows as lists, its literals and words built (in bulk, C-level maps: the
        first piece looked at in a text is most often one of many), and where each piece's
        literals, words and heads start (made once, on the first piece looked at)."""
        table = self._table
        if table is None:
            rows, lits = self._rows, self._lits
            get = self._strings.__getitem__
            table_l = rows.tolist()
            # (a head count of -1 is "all the literals": none of the heads' own)
            starts = [list(accumulate(map(itemgetter(10), table_l), initial=0)),
                      list(accumulate(map(itemgetter(11), table_l), initial=0)),
                      list(accumulate(map(max, map(itemgetter(12), table_l), repeat(0)), initial=0))]
            literals = list(map(_new, repeat(Literal), zip(map(get, lits[:, 0].tolist()), map(get, lits[:, 1].tolist()),
                                                           lits[:, 2].tolist(), lits[:, 3].tolist())))
            table = self._table = (table_l, literals, list(map(get, self._words.tolist())), self._heads.tolist(),
                                   *starts)
        return table

    def _piece(self, j: int) -> MeasuredPiece:
        rows, literals, words, heads, word_at, lit_at, head_at = self._table or self._lists()
        row = rows[j]
        k, a, b, key_i, d, inf, t, hd, c, suf, nw, nl, nh = row
        # (most pieces state no value or one: those need no dict of first kinds)
        if nl == 0:
            lit_t = texts = kind_t = ()
        elif nl == 1:
            lit = literals[lit_at[j]]
            lit_t, texts, kind_t = (lit,), (lit.text,), (lit.kind,)
        else:
            li = lit_at[j]
            lit_t = tuple(literals[li:li + nl])
            first = first_kinds(lit_t)
            texts, kind_t = tuple(first), tuple(first.values())
        if nh < 0:
            head_texts = texts
        else:
            h = head_at[j]
            head_texts = tuple([texts[x] for x in heads[h:h + nh]])
        w = word_at[j]
        text = self._text
        piece = _new(Piece, (_KINDS[k], a, b, self._strings[key_i], lit_t, d, inf, tuple(words[w:w + nw]), texts, kind_t))
        # (the gap before a piece is the text from the last piece's end: empty if they overlap)
        prev = 0 if j == 0 else rows[j - 1][2] + rows[j - 1][9]
        return _new(MeasuredPiece, (piece, text[prev:a], t, hd, c, texts, head_texts, text[b:b + suf]))

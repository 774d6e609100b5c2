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
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .cache_entry import seal, unseal
from .literals import Literal, first_kinds
from .segment import Piece
from .text_marks import TextMarks, marks_of
from .units import MeasuredPiece

__all__ = ["FORMAT", "decode", "encode"]

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
           ) -> tuple[tuple[MeasuredPiece, ...], int, TextMarks] | None:
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
            ) -> tuple[tuple[MeasuredPiece, ...], int, TextMarks] | None:
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
    get, new = strings.__getitem__, tuple.__new__
    # (the named tuples are built with tuple.__new__: their generated __new__ is a Python
    # call per piece, and a first view decodes thousands of pieces)
    literals = [new(Literal, row) for row in zip(map(get, lits[:, 0].tolist()), map(get, lits[:, 1].tolist()),
                                                  lits[:, 2].tolist(), lits[:, 3].tolist())]
    all_words = list(map(get, words.tolist()))
    heads_l = heads.tolist()
    out = []
    append = out.append
    prev = w = li = h = 0
    for k, a, b, key_i, d, inf, t, hd, c, suf, nw, nl, nh in rows.tolist():
        # (most pieces state no value or one: those need no dict of first kinds)
        if nl == 0:
            lit_t = texts = kind_t = ()
        elif nl == 1:
            lit = literals[li]
            lit_t, texts, kind_t = (lit,), (lit.text,), (lit.kind,)
        else:
            lit_t = tuple(literals[li:li + nl])
            kinds = first_kinds(lit_t)
            texts, kind_t = tuple(kinds), tuple(kinds.values())
        li += nl
        if nh < 0:
            head_texts = texts
        else:
            at_heads = heads_l[h:h + nh]
            h += nh
            if at_heads and max(at_heads) >= len(texts):
                return None
            head_texts = tuple([texts[j] for j in at_heads])
        piece = new(Piece, (_KINDS[k], a, b, strings[key_i], lit_t, d, inf, tuple(all_words[w:w + nw]) if nw else (),
                            texts, kind_t))
        w += nw
        # (the gap before a piece is the text from the last piece's end: empty if they overlap)
        append(new(MeasuredPiece, (piece, text[prev:a], t, hd, c, texts, head_texts, text[b:b + suf])))
        prev = b + suf
    mark_texts = list(map(strings.__getitem__, marked.tolist()))
    return tuple(out), n_tokens, TextMarks(tuple(mark_texts[:n_mid]), tuple(mark_texts[n_mid:]), tuple(lines.tolist()))

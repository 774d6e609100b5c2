"""spaCy docs read as plain arrays: token offsets, sentence starts, stop words.

Walking a ``Doc`` in Python builds a ``Token`` object per token, which costs more than
everything else the segmenter does; ``Doc.to_array`` over many docs at once does not.
Sentence starts are the doc's own when its pipeline set them (a parser, a senter);
otherwise spaCy's rule-based ``Sentencizer`` rule is applied to the arrays (the same
rule with the same punctuation, checked against spaCy's component in the tests).
"""

from __future__ import annotations

from bisect import bisect_right
from collections import Counter
from dataclasses import dataclass
from itertools import chain
from typing import Any

import numpy as np

from .lang import marks
from .limits import LIMITS

__all__ = ["DocTokens", "doc_texts", "prime_cache"]


OPENERS = ('"', "'", "“", "‘", "«", "(", "[", *marks.OPENING_QUOTES, marks.OPEN_PAREN)
"""Marks that open a quote or an aside: they start the sentence of the word they touch."""
_OPENERS: np.ndarray | None = None
_OPENER_SET: frozenset[int] = frozenset()  # (the same hashes, for rows read in Python)


def _punct_hashes() -> np.ndarray:
    from spacy.pipeline.sentencizer import Sentencizer
    from spacy.strings import hash_string

    return np.array(sorted(hash_string(c) for c in Sentencizer.default_punct_chars), dtype=np.uint64)


_PUNCT: np.ndarray | None = None
_PUNCT_SET: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class DocTokens:
    """The tokens of one doc: ``text[starts[k]:starts[k] + lengths[k]]`` is token ``k``."""

    text: str
    starts: list[int]
    lengths: list[int]
    sentence_starts: list[int]
    """Indices of the tokens that start a sentence (0 first, when there are tokens)."""
    stops: list[bool]
    """Stop-word flags."""
    cased: list[int]
    """Indices of the alphabetic tokens of two or more characters that are not all lower
    case: the only ones that can be capitalised words."""

    def token(self, k: int) -> str:
        s = self.starts[k]
        return self.text[s:s + self.lengths[k]]

    def starts_with_letter(self, k: int) -> bool:
        s = self.starts[k]
        return self.text[s:s + 1].isalpha()

    def sentences(self) -> list[tuple[int, int]]:
        """Character spans of the sentences (as ``Doc.sents``)."""
        bounds = [*self.sentence_starts, len(self.starts)]
        return [(self.starts[a], self.starts[b - 1] + self.lengths[b - 1]) for a, b in zip(bounds, bounds[1:])]

    @classmethod
    def of(cls, doc: Any, text: str | None = None) -> "DocTokens":
        """The tokens of ``doc``, whose text is ``text`` if given (``Doc.text`` joins
        every token's text again). Cached on the doc."""
        cached = doc.user_data.get("dm_tokens")
        if cached is None:
            cached = cls.of_many([doc], [doc.text if text is None else text])[0]
        return cached

    @classmethod
    def of_many(cls, docs: list[Any], texts: list[str]) -> list["DocTokens"]:
        """``of`` for many docs at once: one array conversion for all of them (numpy
        calls per doc would cost more than the tokens)."""
        attrs = _attrs()
        sizes = np.array([len(d) for d in docs], dtype=np.int64)
        arrays = [d.to_array(attrs) for d, n in zip(docs, sizes) if n]
        raw = np.concatenate(arrays) if arrays else np.zeros((0, len(attrs)), dtype=np.uint64)
        out = _build(raw, sizes, texts)
        for doc, tokens in zip(docs, out):
            doc.user_data["dm_tokens"] = tokens
        return out

    @classmethod
    def of_texts(cls, tokenizer: Any, texts: list[str], per_doc: int | None = None) -> list["DocTokens"]:
        """``of_many`` of ``texts`` tokenized by a tokenizer alone, several texts per ``Doc``
        (up to ``per_doc``, by default ``LIMITS.per_doc``, texts and ``LIMITS.doc_chars`` characters; a
        longer text alone): spaCy's per-doc costs (creating it, reading its arrays)
        outweigh the tokens of a short text. The texts are joined by a blank line, which
        the tokenizer splits off as a whitespace token of its own (it tokenizes each run
        between whitespace apart), so each text gets the tokens it gets alone; tokens go
        back to their text by character offset, the separators are dropped. Texts must not
        start or end with whitespace (the segmenter strips them). The tokenizer's cache is
        primed with the texts' words first (:func:`prime_cache`)."""
        attrs = _attrs()
        # Each doc's offsets are shifted to one coordinate over all the joined texts, so
        # tokens are assigned to texts in one pass at the end.
        arrays: list[np.ndarray] = []
        shifts: list[int] = []
        sizes: list[int] = []
        base = 0
        prime_cache(tokenizer, texts)
        for joined in doc_texts(texts, per_doc):
            doc = tokenizer(joined)
            if len(doc):
                arrays.append(doc.to_array(attrs))
                shifts.append(base)
                sizes.append(len(doc))
            base += len(joined) + len(_SEPARATOR)
        if not arrays:
            return _build(np.zeros((0, len(attrs)), dtype=np.uint64), np.zeros(len(texts), dtype=np.int64), texts)
        if sum(sizes) <= LIMITS.small_doc_rows:  # (a chat turn: its rows placed in their texts in Python)
            return _place_rows(arrays, shifts, texts)
        return _place_arrays(arrays, shifts, sizes, texts)


_SEPARATOR = "\n\n"


def prime_cache(tokenizer: Any, texts: list[str]) -> None:
    """Put the words repeated in ``texts`` (runs between whitespace, which spaCy's
    tokenizer splits apart and caches by text) through ``tokenizer`` in docs of their own.

    Once a doc meets a special case ("don't", "e.g.", "Mr."), spaCy caches none of the
    words that follow in that doc, so in chat prose most words were split afresh at every
    occurrence. Tokenized here first, away from special cases, they are cached, and each
    text's own doc then reads them from the cache. The cache holds what tokenizing the
    word alone gives, which is what it gets in any doc, so the tokens are unchanged
    (``tests/test_doc_tokens.py``). Whole special cases are left to the texts' docs."""
    rules = getattr(tokenizer, "rules", None)
    if rules is None or len(texts) < LIMITS.prime_min_texts:
        return  # a chat turn's few texts fill a doc or two: nothing to gain
    # A word met once is tokenized once either way: only repeated words gain.
    counts = Counter(chain.from_iterable(map(str.split, texts)))
    words = [w for w, n in counts.items() if n > 1 and w not in rules]
    plain = [w for w in words if "'" not in w and "’" not in w and "." not in w]
    suspects = [w for w in words if "'" in w or "’" in w or "." in w]
    for group, size in ((plain, LIMITS.prime_per_doc), (suspects, LIMITS.suspect_per_doc)):
        for i in range(0, len(group), size):
            tokenizer(" ".join(group[i:i + size]))


def doc_texts(texts: list[str], per_doc: int | None = None) -> list[str]:
    """The texts :meth:`DocTokens.of_texts` hands the tokenizer: ``texts`` in order, up
    to ``per_doc`` (``LIMITS.per_doc``) of them and ``LIMITS.doc_chars`` characters joined per doc."""
    per_doc = per_doc or LIMITS.per_doc
    out: list[str] = []
    group: list[str] = []
    chars = 0
    for k, text in enumerate(texts):
        group.append(text)
        chars += len(text) + len(_SEPARATOR)
        nxt = len(texts[k + 1]) if k + 1 < len(texts) else -1
        if nxt < 0 or len(group) >= per_doc or chars + nxt > LIMITS.doc_chars:
            out.append(_SEPARATOR.join(group))
            group, chars = [], 0
    return out


_ATTRS: tuple[int, ...] = ()


def _attrs() -> list[int]:
    """The columns read from each doc (spaCy is imported on first use, not with the library)."""
    global _ATTRS
    if not _ATTRS:
        from spacy.attrs import (
            IDX,
            IS_ALPHA,
            IS_LOWER,
            IS_PUNCT,
            IS_STOP,
            LENGTH,
            ORTH,
            SENT_START,
        )

        _ATTRS = (IDX, LENGTH, SENT_START, IS_STOP, ORTH, IS_PUNCT, IS_ALPHA, IS_LOWER)
    return list(_ATTRS)


def prime_spacy() -> None:
    """Import the parts of spaCy read here (see :func:`.nlp.warm_up`)."""
    global _PUNCT, _PUNCT_SET
    _attrs()
    if _PUNCT is None:
        _PUNCT = _punct_hashes()
        _PUNCT_SET = frozenset(_PUNCT.tolist())


def _build(raw: np.ndarray, sizes: np.ndarray, texts: list[str], small: bool | None = None) -> list[DocTokens]:
    """``DocTokens`` of consecutive docs whose ``_attrs()`` rows are stacked in ``raw``
    (``small``: row by row, :func:`_build_rows`; by default when there are few rows)."""
    if _PUNCT is None:
        prime_spacy()
    if small if small is not None else len(raw) <= LIMITS.small_doc_rows:
        return _build_rows(raw.tolist(), sizes.tolist(), texts)
    # Membership in the few punctuation hashes by binary search (np.isin sorts the column).
    orth = raw[:, 4]
    at = np.minimum(np.searchsorted(_PUNCT, orth), len(_PUNCT) - 1)
    in_punct = _PUNCT[at] == orth
    table = raw.astype(np.int64)
    bounds = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    nonempty = sizes > 0
    first = bounds[:-1][nonempty]

    sent = table[:, 2]
    # A doc whose pipeline set sentence starts has one on some token after its first.
    annotated = np.zeros(len(sizes), dtype=bool)
    if len(table):
        set_after_first = (sent != 0).astype(np.int64)
        set_after_first[first] = 0
        annotated[nonempty] = np.add.reduceat(set_after_first, first) > 0
    starts_mask = sent == 1
    rule = _sentencizer_starts(table[:, 5].astype(bool), in_punct, bounds)
    rule = _openers_start(rule, table[:, 0], table[:, 1], orth, bounds, texts)
    rule = _no_glued_starts(rule, table[:, 0], table[:, 1], in_punct, bounds)
    use_rule = ~annotated[np.repeat(np.arange(len(sizes)), sizes)]
    starts_mask[use_rule] = rule[use_rule]
    starts_mask[first] = True

    idx, length = table[:, 0].tolist(), table[:, 1].tolist()
    stops = table[:, 3].astype(bool).tolist()
    sent_idx = np.flatnonzero(starts_mask)
    sent_cuts = np.searchsorted(sent_idx, bounds).tolist()
    sent_list = _within_doc(sent_idx, bounds)
    cased_idx = np.flatnonzero((table[:, 6] != 0) & (table[:, 7] == 0) & (table[:, 1] > 1))
    cased_cuts = np.searchsorted(cased_idx, bounds).tolist()
    cased_list = _within_doc(cased_idx, bounds)
    cuts = bounds.tolist()
    out = []
    for i, text in enumerate(texts):
        a, b = cuts[i], cuts[i + 1]
        out.append(DocTokens(text, idx[a:b], length[a:b], sent_list[sent_cuts[i]:sent_cuts[i + 1]], stops[a:b],
                             cased_list[cased_cuts[i]:cased_cuts[i + 1]]))
    return out


def _within_doc(rows: np.ndarray, bounds: np.ndarray) -> list[int]:
    """Rows of the stacked docs as token indices within their own doc."""
    doc = np.searchsorted(bounds, rows, side="right") - 1
    return (rows - bounds[doc]).tolist()


def _opener_hashes() -> np.ndarray:
    """The sorted hashes of :data:`OPENERS` (made on first use: spaCy is imported then)."""
    global _OPENERS, _OPENER_SET
    if _OPENERS is None:
        from spacy.strings import hash_string

        _OPENERS = np.array(sorted(hash_string(c) for c in OPENERS), dtype=np.uint64)
        _OPENER_SET = frozenset(_OPENERS.tolist())
    return _OPENERS


def _openers_start(starts: np.ndarray, idx: np.ndarray, length: np.ndarray, orth: np.ndarray,
                   bounds: np.ndarray, texts: list[str]) -> np.ndarray:
    """An opening quote or bracket glued to the word that starts a sentence, with space
    before it, belongs to that sentence (spaCy's rule leaves ``"`` of ``end. "Quote``
    at the end of the previous one). Glued to a line break, it opens nothing."""
    openers = _opener_hashes()
    cand = np.flatnonzero(starts)
    cand = cand[cand > 0]
    if not len(cand):
        return starts
    prev = cand - 1
    doc_first = bounds[np.searchsorted(bounds, cand, side="right") - 1]
    at = np.minimum(np.searchsorted(openers, orth[prev]), len(openers) - 1)
    glued = (idx[prev] + length[prev] == idx[cand]) & (length[prev] == 1)
    spaced = np.ones(len(cand), dtype=bool)
    inner = prev > doc_first
    spaced[inner] = idx[prev[inner] - 1] + length[prev[inner] - 1] < idx[prev[inner]]
    move = (openers[at] == orth[prev]) & glued & spaced & (prev > doc_first)
    if move.any():  # (the few marks that would move: a whitespace token is no word)
        docs = np.searchsorted(bounds, cand, side="right") - 1
        for k in np.flatnonzero(move).tolist():
            if texts[docs[k]][idx[cand[k]]:idx[cand[k]] + 1].isspace():
                move[k] = False
    if move.any():
        starts = starts.copy()
        starts[cand[move]] = False
        starts[prev[move]] = True
    return starts


def _no_glued_starts(starts: np.ndarray, idx: np.ndarray, length: np.ndarray, in_punct: np.ndarray,
                     bounds: np.ndarray) -> np.ndarray:
    """A mark with no space on either side ends no sentence: the tokenizer splits
    ``models.E015`` and ``app.Stock`` at their dot, and spaCy's rule cut
    ``app.Stock: (models.E015) 'ordering' refers to …`` into ``Stock: (models.`` and
    ``E015) 'ordering' …``."""
    cand = np.flatnonzero(starts)
    prev = cand - 1
    doc_first = bounds[np.searchsorted(bounds, cand, side="right") - 1]
    ok = prev > doc_first  # a mark with a token before it in its own doc
    cand, prev = cand[ok], prev[ok]
    if not len(cand):
        return starts
    glued = (idx[prev] + length[prev] == idx[cand]) & (idx[prev - 1] + length[prev - 1] == idx[prev]) \
        & in_punct[prev].astype(bool)
    if glued.any():
        starts = starts.copy()
        starts[cand[glued]] = False
    return starts


def _sentencizer_starts(is_punct: np.ndarray, in_punct: np.ndarray, bounds: np.ndarray) -> np.ndarray:
    """spaCy's ``Sentencizer`` rule over concatenated docs: a token that is neither
    punctuation nor a sentence-final mark starts a sentence when such a mark appeared
    since the previous such token of its doc (or since the doc's start). Docs' first
    tokens are marked by the caller."""
    n = len(is_punct)
    out = np.zeros(n, dtype=bool)
    if not n:
        return out
    marks = in_punct.astype(np.int64)
    after = np.cumsum(marks)  # marks up to and including each token
    before = after - marks
    words = np.flatnonzero(~is_punct & ~in_punct)
    if not len(words):
        return out
    doc_of = np.searchsorted(bounds, words, side="right") - 1
    prev = np.concatenate([[0], words[:-1]])
    same_doc = np.concatenate([[False], doc_of[1:] == doc_of[:-1]])
    reference = np.where(same_doc, after[prev], before[bounds[doc_of]])
    out[words[before[words] > reference]] = True
    return out


def _place_arrays(arrays: list[np.ndarray], shifts: list[int], sizes: list[int], texts: list[str]) -> list[DocTokens]:
    """:meth:`DocTokens.of_texts`'s placing of the docs' rows (``arrays``, ``sizes`` rows each,
    each doc's text starting at ``shifts`` in the joined texts) in their texts: a row's
    offset made its text's, the separators' rows dropped."""
    raw = np.concatenate(arrays)
    idx = raw[:, 0].astype(np.int64) + np.repeat(np.array(shifts, dtype=np.int64), sizes)
    lengths = np.array([len(t) for t in texts], dtype=np.int64)
    offsets = np.concatenate([[0], np.cumsum(lengths + len(_SEPARATOR))[:-1]])
    owner = np.searchsorted(offsets, idx, side="right") - 1
    inside = idx < offsets[owner] + lengths[owner]
    raw, owner = raw[inside], owner[inside]
    raw[:, 0] = (idx[inside] - offsets[owner]).astype(np.uint64)
    return _build(raw, np.bincount(owner, minlength=len(texts)).astype(np.int64), texts)


def _place_rows(arrays: list[np.ndarray], shifts: list[int], texts: list[str]) -> list[DocTokens]:
    """:func:`_place_arrays`, row by row (and the rows read by :func:`_build_rows`)."""
    offsets = []
    at = 0
    for text in texts:
        offsets.append(at)
        at += len(text) + len(_SEPARATOR)
    placed: list[list[int]] = []
    sizes = [0] * len(texts)
    for array, shift in zip(arrays, shifts):
        for row in array.tolist():
            idx = row[0] + shift
            owner = bisect_right(offsets, idx) - 1
            if idx < offsets[owner] + len(texts[owner]):
                row[0] = idx - offsets[owner]
                placed.append(row)
                sizes[owner] += 1
    return _build_rows(placed, sizes, texts)


def _build_rows(rows: list[list[int]], sizes: list[int], texts: list[str]) -> list[DocTokens]:
    """:func:`_build` of the same rows as lists, doc by doc, a token at a time: the same
    rules (``tests/test_doc_tokens.py`` compares the two)."""
    if _PUNCT is None:
        prime_spacy()
    _opener_hashes()
    punct, openers = _PUNCT_SET, _OPENER_SET
    out = []
    at = 0
    for text, size in zip(texts, sizes):
        doc = rows[at:at + size]
        at += size
        idx = [r[0] for r in doc]
        length = [r[1] for r in doc]
        marks = [r[4] in punct for r in doc]
        n = len(doc)
        if any(r[2] != 0 for r in doc[1:]):  # the pipeline set sentence starts: its own
            starts = [r[2] == 1 for r in doc]
        else:
            starts = _rule_starts(doc, idx, length, marks, openers, text)
        if n:
            starts[0] = True
        out.append(DocTokens(text, idx, length, [k for k in range(n) if starts[k]], [r[3] != 0 for r in doc],
                             [k for k, r in enumerate(doc) if r[6] != 0 and r[7] == 0 and r[1] > 1]))
    return out


def _rule_starts(doc: list[list[int]], idx: list[int], length: list[int], marks: list[bool],
                 openers: frozenset[int], text: str) -> list[bool]:
    """One doc's sentence starts by the rules of :func:`_sentencizer_starts`,
    :func:`_openers_start` and :func:`_no_glued_starts`, in that order."""
    n = len(doc)
    starts = [False] * n
    since = 0  # sentence-final marks since the last word (or the doc's start)
    for k, r in enumerate(doc):
        if marks[k]:
            since += 1
        elif not r[5]:  # a word: neither punctuation nor a mark
            starts[k] = since > 0
            since = 0
    # An opener glued to the first word of a sentence, with space before it, starts it.
    moves = [k for k in range(2, n) if starts[k] and length[k - 1] == 1 and doc[k - 1][4] in openers
             and idx[k - 1] + 1 == idx[k] and idx[k - 2] + length[k - 2] < idx[k - 1]
             and not text[idx[k]:idx[k] + 1].isspace()]
    for k in moves:  # (all cleared, then all set: as the arrays' way assigns them)
        starts[k] = False
    for k in moves:
        starts[k - 1] = True
    # A mark with no space on either side ends no sentence.
    glued = [k for k in range(2, n) if starts[k] and marks[k - 1] and idx[k - 1] + length[k - 1] == idx[k]
             and idx[k - 2] + length[k - 2] == idx[k - 1]]
    for k in glued:
        starts[k] = False
    return starts

"""Split a text into pieces (units before they are placed in a conversation).

``text -> blocks -> pieces``: blocks come from :mod:`.blocks`; prose paragraphs
are split into sentences by spaCy, paragraphs that are not prose (logs, code
without fences, tool output) and unified diffs into lines. Each piece carries its literals.
"""

from __future__ import annotations

import re
from typing import Any, NamedTuple

from .blocks import is_prose_line, split_blocks
from .doc_tokens import DocTokens
from .json_units import json_members
from .keys import content_key
from .literals import (
    Literal,
    Spans,
    find_literals,
    find_names_by_pattern,
    find_token_names,
    first_kinds,
)
from .nlp import MAX_PROSE_CHARS

__all__ = ["Piece", "segment_texts"]

_CONTENT_WORD = re.compile(r"[A-Za-z]{4,}")
_MULTI_SENTENCE = re.compile(r"[.!?][\"')\]]?\s+[A-Z\"'(\[]")
_STOP = frozenset(
    "that this with have from they their there what when which would could should about "
    "been were will your just really also like know think sounds thanks thank great good "
    "awesome amazing wow glad love nice cool yeah sure okay feel feels much very into "
    "than then them some more most even well here".split()
)
# Pieces that are read as language (names found on spaCy tokens).
_NLP_KINDS = frozenset({"heading", "list_item", "field", "table_row", "sentence"})


class Piece(NamedTuple):
    """One unit of one text: ``text[start:end]``. (A named tuple, not a frozen dataclass:
    a long history makes tens of thousands, and a tuple is built twice as fast.)"""

    kind: str
    start: int
    end: int
    key: str
    literals: tuple[Literal, ...]
    depth: int = 0
    info: int = 0
    """Distinct content words plus literals: how much the piece says."""
    words: tuple[str, ...] = ()
    """Its distinct content words (lower case), for weighting rare words higher."""
    literal_texts: tuple[str, ...] = ()
    """Its distinct literal texts, in order of first appearance."""
    literal_kinds: tuple[str, ...] = ()
    """The kind of each of ``literal_texts`` where it first appears."""


def _paragraph_mode(text: str, start: int, end: int) -> str:
    """'prose' (split into sentences) or 'lines'."""
    if end - start > MAX_PROSE_CHARS:
        return "lines"
    segment = text[start:end]
    lines = segment.split("\n")
    prose = sum(1 for line in lines if is_prose_line(line))
    return "prose" if prose * 2 > len(lines) else "lines"


def _is_prose_sentences(line: str) -> bool:
    """A line of more than one sentence of running text."""
    return len(line) > 60 and _MULTI_SENTENCE.search(line) is not None and is_prose_line(line)


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def _piece(text: str, kind: str, start: int, end: int, names: list[Literal] | None,
           depth: int = 0, memo: dict[Any, tuple[Any, ...]] | None = None, own_names: bool = False) -> Piece:
    """``own_names``: ``names`` were found on this very text (not on a paragraph around
    it), so the text alone decides them."""
    body = text[start:end]
    # Chats repeat paragraphs and lines (quotes, re-sent instructions, tool output):
    # what a piece says depends only on its kind, text and names.
    memo_key = (kind, body, True if own_names else None if names is None else tuple(names))
    done = memo.get(memo_key) if memo is not None else None
    if done is None:
        found = find_literals(body)
        taken = [(lit.start, lit.end) for lit in found]
        if names is None:
            names = find_names_by_pattern(body, taken)
        if kind == "field":  # the key is a label, not a name
            colon = body.find(":")
            names = [n for n in names if n.start > colon]
        if names:  # (the pattern's literals come in order, without overlaps)
            free = Spans(taken).free
            found.extend(n for n in names if free(n.start, n.end))
            found.sort(key=lambda lit: (lit.start, lit.end))
        if body.isascii():
            words = tuple(sorted(set(_CONTENT_WORD.findall(body.lower())) - _STOP))
        else:  # lower() may turn a non-ASCII letter into ASCII ones
            words = tuple(sorted({w.lower() for w in _CONTENT_WORD.findall(body)} - _STOP))
        kinds = first_kinds(found)
        done = (content_key(body), tuple(found), len(words) + len(found), words, tuple(kinds), tuple(kinds.values()))
        if memo is not None:
            memo[memo_key] = done
    key, literals, info, words, texts, kinds = done
    return Piece(kind, start, end, key, literals, depth, info, words, texts, kinds)


def segment_texts(texts: list[str], nlp: Any) -> list[tuple[Piece, ...]]:
    """Pieces of each text, in order. spaCy runs once over all prose, batched."""
    plans: list[list[tuple[str, int, int, int]]] = []
    jobs: list[tuple[int, int]] = []  # (text index, plan index) needing the pipeline
    job_texts: list[str] = []
    for ti, text in enumerate(texts):
        plan: list[tuple[str, int, int, int]] = []
        members = json_members(text)
        if members is not None:  # a JSON document: its members are fields (names by pattern)
            plans.append([("field", s, e, depth) for s, e, depth in members])
            continue
        for block in split_blocks(text):
            kind, start, end = block.kind, block.start, block.end
            if kind == "diff" or kind == "paragraph" and _paragraph_mode(text, start, end) == "lines":
                pos = start
                for line in text[start:end].split("\n"):
                    s, e = _strip_span(text, pos, pos + len(line))
                    if e > s and kind != "diff" and _is_prose_sentences(line):
                        # Running text among lines (a chat turn under its date line): sentences.
                        jobs.append((ti, len(plan)))
                        job_texts.append(text[s:e])
                        plan.append(("prose", s, e, 0))
                    elif e > s:
                        plan.append(("line", s, e, 0))
                    pos += len(line) + 1
                continue
            if kind == "paragraph":
                kind = "prose"
            s, e = _strip_span(text, start, end)
            if e <= s:
                continue
            if kind == "list_item":
                s = start  # keep the indent: it is part of the item's source
            if kind in _NLP_KINDS or kind == "prose":
                if e - s <= MAX_PROSE_CHARS:
                    jobs.append((ti, len(plan)))
                    job_texts.append(text[s:e])
            plan.append((kind, s, e, block.depth))
        plans.append(plan)

    # Each distinct text needing the pipeline is parsed once. A blank pipeline is its
    # tokenizer alone, with no entities: the texts go through it several per Doc.
    unique = list(dict.fromkeys(job_texts))
    if nlp.pipe_names:
        parsed = list(nlp.pipe(unique, batch_size=256))
        ents = [[(e.start_char, e.end_char, e.label_.lower()) for e in d.ents] for d in parsed]
        analysed = list(zip(DocTokens.of_many(parsed, unique), ents))
        del parsed
        by_text = dict(zip(unique, analysed))
    else:
        by_text = {t: (toks, []) for t, toks in zip(unique, DocTokens.of_texts(nlp.tokenizer, unique))}
    docs = {job: by_text[t] for job, t in zip(jobs, job_texts)}
    names_of: dict[str, list[Literal]] = {}  # a repeated paragraph is analysed once
    memo: dict[Any, tuple[Any, ...]] = {}

    def names(job: tuple[DocTokens, Any]) -> list[Literal]:
        toks, doc_ents = job
        found = names_of.get(toks.text)
        if found is None:
            found = names_of[toks.text] = find_token_names(toks, ents=doc_ents)
        return found

    out: list[tuple[Piece, ...]] = []
    for ti, (text, plan) in enumerate(zip(texts, plans)):
        pieces: list[Piece] = []
        for pi, (kind, s, e, depth) in enumerate(plan):
            doc = docs.get((ti, pi))
            if kind == "prose":
                if doc is None:
                    pieces.append(_piece(text, "sentence", s, e, None, memo=memo))
                    continue
                all_names = names(doc)
                for sent_start, sent_end in doc[0].sentences():
                    ss, se = _strip_span(text, s + sent_start, s + sent_end)
                    if se <= ss:
                        continue
                    lo, hi = ss - s, se - s
                    sentence_names = [
                        Literal(n.text, n.kind, n.start - lo, n.end - lo)
                        for n in all_names
                        if lo <= n.start and n.end <= hi
                    ]
                    pieces.append(_piece(text, "sentence", ss, se, sentence_names, memo=memo))
                continue
            if doc is None:
                pieces.append(_piece(text, kind, s, e, None, depth, memo=memo))
            else:  # the job's text is this piece's: its names depend on that text alone
                pieces.append(_piece(text, kind, s, e, names(doc), depth, memo=memo, own_names=True))
        out.append(tuple(pieces))
    return out

"""Split a text into pieces (units before they are placed in a conversation).

``text -> blocks -> pieces``: blocks come from :mod:`.blocks`; prose paragraphs
are split into sentences, paragraphs that are not prose (logs, code without fences,
tool output) and unified diffs into lines. Each piece carries its literals and content
words.

Each text is read in its language (:func:`~discourse_memory.language.detect_language`,
or the caller's ``language``): prose in a spaced language goes through spaCy's blank
pipeline for it (the given pipeline when it is of that language), Chinese and Japanese
prose is split at their sentence marks (full stops, full-width ``!?;``: :mod:`.lang.marks`)
with no tokenizer, and their content words are Han character pairs and katakana words
(less the function characters of the language packs, :mod:`.lang`).
"""

from __future__ import annotations

import functools
import re
from typing import Any, NamedTuple

from .blocks import is_prose_line, split_blocks
from .doc_tokens import DocTokens
from .labels import date_prefix
from .json_units import LINE as JSON_LINE, json_members, unescaped
from .keys import content_key
from .language import CJK, CJK_CHAR, detect_language, normalise_language
from . import lang as packs
from .lang import find_names as pack_names, marks
from .limits import LIMITS
from .literals import (
    Literal,
    Spans,
    digit_shape,
    names_win,
    find_literals,
    find_names_by_pattern,
    find_token_names,
    first_kinds,
)
from .nlp import MAX_PROSE_CHARS, get_pipeline

__all__ = ["Piece", "call_words", "han_words", "segment_texts"]

_CONTENT_WORD = re.compile(r"[A-Za-z]{3,}")
_MULTI_SENTENCE = re.compile(r"[.!?][\"')\]]?\s+[A-Z\"'(\[]")
_STOP = frozenset(
    "that this with have from they their there what when which would could should about "
    "been were will your just really also like know think sounds thanks thank great good "
    "awesome amazing wow glad love nice cool yeah sure okay feel feels much very into "
    "than then them some more most even well here "
    # words of three letters that carry no content, and auxiliaries of any length
    "the and for you are was but not had has her his him she its our out all any can may who why how "
    "did get got let say too now yes yep hey wow its it's i'm i've you'd one two off own per via etc "
    "does doing done being having gets getting gonna wanna lot lots bit much many such "
    # a chat's greetings and goodbyes ("Thanks! Take care!", "Cheers! Talk soon.")
    "bye goodbye cheers soon care hello haha congrats congratulations ".split()
)
# Content words of other spaced languages: letters of any script, less the language's
# stop words (spaCy's list); Korean words are shorter.
_LETTER_WORD = re.compile(r"[^\W\d_]{4,}")
_SHORT_LETTER_WORD = re.compile(r"[^\W\d_]{2,}")
# CJK content words: each pair of adjacent Han characters that holds no particle, pronoun
# or other function character (written Chinese and Japanese have no spaces to find words
# by; the pairs of a name or a dish recur where it recurs), and katakana words.
_HAN_RUN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]{2,}")
_KATAKANA_WORD = re.compile(r"[\u30a1-\u30fa\u30fc]{2,}")
# (the function characters and courtesy pairs are the language packs': discourse_memory.lang)
# Sentence ends in CJK prose: a run of end marks and the closing quotes after it.
_CJK_SENTENCE_END = re.compile("[" + marks.END_MARKS + "!?" + marks.CLAUSE_END + marks.HALF_STOPS + "]+["
                               + marks.CLOSING_QUOTES + "”’" + marks.CLOSE_PAREN + ")" + marks.CLOSING_BRACKETS + "]*")
# Pieces that are read as language (names found on spaCy tokens). A table's cells are not
# sentences: their names are found by pattern (the first cell's "Alice Smith" is no
# sentence opener), without the tokenizer, which took most of the time of a long table;
# a statistical pipeline still reads rows for its entities.
_NLP_KINDS = frozenset({"heading", "list_item", "field", "sentence"})
MAX_READ_ITEMS = 1_000
"""A text with more list items than this has them read by pattern, not tokenized."""
_MODEL_KINDS = _NLP_KINDS | {"table_row"}


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


def _paragraph_mode(text: str, start: int, end: int) -> tuple[str, list[bool] | None]:
    """'prose' (split into sentences) or 'lines', with whether each line reads as prose
    (:func:`.blocks.is_prose_line`; None when the paragraph is too long to read them):
    the lines of a paragraph read as lines are asked again, one by one."""
    if end - start > MAX_PROSE_CHARS:
        return "lines", None
    segment = text[start:end]
    lines = segment.split("\n")
    flags = list(map(is_prose_line, lines))
    return ("prose" if flags.count(True) * 2 > len(lines) else "lines"), flags


def _is_prose_sentences(line: str, prose: bool | None = None) -> bool:
    """A line of more than one sentence of running text (``prose``: whether it reads as
    prose, when known)."""
    return len(line) > 60 and _MULTI_SENTENCE.search(line) is not None and (
        is_prose_line(line) if prose is None else prose)


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    # (str.strip's whitespace is str.isspace's; a character at a time was quadratic in
    # effect on a list indented thousands of spaces deep)
    if start < end and (text[start].isspace() or text[end - 1].isspace()):
        segment = text[start:end]
        body = segment.strip()
        if not body:
            return start, start
        start += len(segment) - len(segment.lstrip())
        end = start + len(body)
    return start, end


def call_words(text: str) -> tuple[str, ...]:
    """The content words of a tool call's arguments (read as English, and as Chinese or
    Japanese where they hold Han characters): a call's command or query says what it is
    about, as a sentence does (``get_token_counter`` states "token" and "counter")."""
    return _words(text, "zh" if CJK_CHAR.search(text) else "en")  # (every CJK language reads alike)


def han_words(text: str) -> set[str]:
    """The CJK content words of ``text``: each pair of adjacent Han characters with no
    function character in it, courtesy pairs aside (the language packs' ``function_chars``
    and ``stop_pairs``: an address's question gives the word "address")."""
    function, stop_pairs = _function_words(packs.generation())
    words: set[str] = set()
    for run in _HAN_RUN.findall(text):
        words.update(run[i:i + 2] for i in range(len(run) - 1)
                     if run[i] not in function and run[i + 1] not in function
                     and run[i:i + 2] not in stop_pairs)
    return words


@functools.lru_cache(maxsize=2)
def _function_words(_generation: int) -> tuple[frozenset[str], frozenset[str]]:
    """The function characters and courtesy pairs of every registered pack."""
    every = packs.packs()
    return frozenset("".join(p.function_chars for p in every)), frozenset().union(*(p.stop_pairs for p in every))


def _cjk_words(body: str) -> set[str]:
    words = {w.lower() for w in _CONTENT_WORD.findall(body)} - _STOP
    words |= han_words(body)
    words.update(_KATAKANA_WORD.findall(body))
    return words


def _stop_words(language: str) -> frozenset[str]:
    found = _STOP_WORDS.get(language)
    if found is None:
        try:
            found = frozenset(get_pipeline(_pipeline_name(language)).Defaults.stop_words)
        except Exception:  # noqa: BLE001 - a language spaCy cannot load has no list
            found = frozenset()
        _STOP_WORDS[language] = found
    return found


_STOP_WORDS: dict[str, frozenset[str]] = {}


def _words(body: str, language: str) -> tuple[str, ...]:
    """The distinct content words of ``body`` (lower case), read as ``language``."""
    if language == "en":
        if body.isascii():
            return tuple(sorted(set(_CONTENT_WORD.findall(body.lower())) - _STOP))
        # lower() may turn a non-ASCII letter into ASCII ones
        return tuple(sorted({w.lower() for w in _CONTENT_WORD.findall(body)} - _STOP))
    if language in CJK:
        return tuple(sorted(_cjk_words(body)))
    pattern = _SHORT_LETTER_WORD if language == "ko" else _LETTER_WORD
    return tuple(sorted({w.lower() for w in pattern.findall(body)} - _stop_words(language) - _STOP))


def _piece(text: str, kind: str, start: int, end: int, names: list[Literal] | None,
           depth: int = 0, memo: dict[Any, tuple[Any, ...]] | None = None, own_names: bool = False,
           language: str = "en") -> Piece:
    """``own_names``: ``names`` were found on this very text (not on a paragraph around
    it), so the text alone decides them."""
    body = text[start:end]
    # Chats repeat paragraphs and lines (quotes, re-sent instructions, tool output):
    # what a piece says depends only on its kind, text, language and names.
    memo_key = (kind, body, language, True if own_names else None if names is None else tuple(names))
    done = memo.get(memo_key) if memo is not None else None
    if done is None:
        # A generated list ("- item 7 value 21", "- item 8 value 24", ...) repeats a shape:
        # its literals and names by pattern, and its content words, are the shape's (see
        # literals.digit_shape), found once.
        shape_key = shape = None
        if names is None and memo is not None and language not in CJK and len(body) <= LIMITS.shape_chars:
            shape_key = (kind, digit_shape(body), language)
            shape = memo.get(shape_key)
        if shape is not None:
            found = [Literal(body[s:e], k, s, e) for k, s, e in shape[0]]
            words = shape[1]
        else:
            found, words = _analysed(body, kind, names, language)
            if shape_key is not None:
                memo[shape_key] = (tuple((lit.kind, lit.start, lit.end) for lit in found), words)
        kinds = first_kinds(found)
        done = (content_key(body), tuple(found), len(words) + len(found), words, tuple(kinds), tuple(kinds.values()))
        if memo is not None:
            memo[memo_key] = done
    key, literals, info, words, texts, kinds = done
    return Piece(kind, start, end, key, literals, depth, info, words, texts, kinds)


def _analysed(body: str, kind: str, names: list[Literal] | None, language: str,
              ) -> tuple[list[Literal], tuple[str, ...]]:
    """A piece's literals (names among them) and content words."""
    found = find_literals(body, language)
    if language in CJK:
        # A name holds the numbers and Latin words in it (a Chinese hotel's name may hold
        # a number and a Latin brand): its span wins over the pattern's literals inside it.
        if names is None:
            names = pack_names(body, language)
        if kind == "field":
            colon = body.find(":")
            names = [n for n in names if n.start > colon]
        if names:
            found = names_win(found, names)
    else:
        taken = [(lit.start, lit.end) for lit in found]
        if names is None:
            names = find_names_by_pattern(body, taken, language)
        if kind == "field":  # the key is a label, not a name
            colon = body.find(":")
            names = [n for n in names if n.start > colon]
        if names:  # (the pattern's literals come in order, without overlaps)
            free = Spans(taken).free
            found.extend(n for n in names if free(n.start, n.end))
            found.sort(key=lambda lit: (lit.start, lit.end))
    return found, _words(body, language)


def _pipeline_name(language: str) -> str:
    """The blank spaCy pipeline that reads ``language`` (Korean needs a tokenizer spaCy
    does not install; it is read, as other scripts are, by the multi-language one)."""
    return "blank:xx" if language in ("ko", "xx") else f"blank:{language}"


def _cjk_sentences(text: str) -> list[tuple[int, int]]:
    """Sentence spans of CJK prose: each ends after its run of end marks."""
    out = []
    start = 0
    for m in _CJK_SENTENCE_END.finditer(text):
        out.append((start, m.end()))
        start = m.end()
    if start < len(text):
        out.append((start, len(text)))
    return out


class _CJKJob(NamedTuple):
    """A CJK text's sentences and names (what a spaCy doc gives a spaced language)."""

    text: str
    spans: list[tuple[int, int]]

    def sentences(self) -> list[tuple[int, int]]:
        return self.spans


def segment_texts(texts: list[str], nlp: Any, language: str | None = None) -> list[tuple[Piece, ...]]:
    """Pieces of each text, in order. spaCy runs once over all prose of each language,
    batched. ``language``: the texts' language code (``"de"``, ``"zh"``, ...); by
    default each text's own is detected. ``nlp`` reads the texts of its language; others
    go through spaCy's blank pipeline for theirs."""
    if language is None:
        languages = [detect_language(t) for t in texts]
    else:
        languages = [normalise_language(language)] * len(texts)
    nlp_kinds = _MODEL_KINDS if nlp.pipe_names else _NLP_KINDS
    plans: list[list[tuple[str, int, int, int]]] = []
    jobs: list[tuple[int, int]] = []  # (text index, plan index) needing the pipeline
    job_texts: list[str] = []
    readable: dict[int, str] = {}  # a JSON document's text as it reads (see json_units.unescaped)
    # A list item's indent is not given to the tokenizer, whose affix rules were quadratic
    # in a run of spaces (a list 3,000 levels deep); its names are moved back by it.
    shifts: dict[tuple[int, int], int] = {}
    for ti, text in enumerate(texts):
        plan: list[tuple[str, int, int, int]] = []
        members = json_members(text)
        if members is not None and "\\" in text:
            # Its values are read as they read (an escaped "\u5317\u4eac" is the Han text it
            # stands for, in the language it is written in; json_units.unescaped), each unit's span on its own,
            # as the record reads the unit (record.item_for): the same length, so spans hold.
            parts, at = [], 0
            for s, e, _ in members:
                parts += [text[at:s], unescaped(text[s:e])]
                at = e
            readable[ti] = "".join(parts) + text[at:]
            if language is None:
                languages[ti] = detect_language(readable[ti])
        if members is not None:  # a JSON document: its members are fields (names by pattern)
            plans.append([("line", s, e, 0) if depth == JSON_LINE else ("field", s, e, depth)
                          for s, e, depth in members])  # (a long string's lines are lines)
            continue
        source, skip = text, 0
        dated = date_prefix(text)
        if dated >= 0:
            # "[1:10 pm on 27 March, 2023] Audrey: Hi!": the session's date line, as when it
            # stands on a line of its own; the turn is read past it (blanked to keep offsets).
            s, e = _strip_span(text, 0, dated)
            plan.append(("line", s, e, 0))
            skip = dated
            source = " " * skip + text[skip:]
        blocks = split_blocks(source)
        # A generated list (thousands of items in one message) is read as a table's rows
        # are: names by pattern, without the tokenizer, which took most of its time.
        many_items = sum(1 for b in blocks if b.kind == "list_item") > MAX_READ_ITEMS
        for block in blocks:
            kind, start, end = block.kind, block.start, block.end
            flags: list[bool] | None = None
            mode = ""
            if kind == "paragraph":
                mode, flags = _paragraph_mode(source, start, end)
            if kind == "diff" or kind == "paragraph" and mode == "lines":
                pos = start
                for i, line in enumerate(source[start:end].split("\n")):
                    s, e = _strip_span(source, pos, pos + len(line))
                    if e > s and kind != "diff" and _is_prose_sentences(line, None if flags is None else flags[i]):
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
            s, e = _strip_span(source, start, end)
            if e <= s:
                continue
            read = s  # the pipeline reads the item from its marker on (see _shifted)
            if kind == "list_item":
                s = max(start, skip)  # keep the indent: it is part of the item's source
            if kind in nlp_kinds or kind == "prose":
                if e - read <= MAX_PROSE_CHARS and not (many_items and kind == "list_item"):
                    jobs.append((ti, len(plan)))
                    job_texts.append(source[read:e])
                    if read > s:
                        shifts[ti, len(plan)] = read - s
            plan.append((kind, s, e, block.depth))
        plans.append(plan)

    # Each distinct text needing the pipeline is parsed once per language. A blank
    # pipeline is its tokenizer alone, with no entities: the texts go through it several
    # per Doc. CJK prose needs no tokenizer.
    by_language: dict[str, list[str]] = {}
    for (ti, _), t in zip(jobs, job_texts):
        by_language.setdefault(languages[ti], []).append(t)
    analysed: dict[tuple[str, str], Any] = {}
    for lang, lang_texts in by_language.items():
        unique = list(dict.fromkeys(lang_texts))
        if lang in CJK:
            for t in unique:
                analysed[lang, t] = (_CJKJob(t, _cjk_sentences(t)), None)
            continue
        pipeline = nlp if lang == getattr(nlp, "lang", "en") else get_pipeline(_pipeline_name(lang))
        if pipeline.pipe_names:
            parsed = list(pipeline.pipe(unique, batch_size=256))
            ents = [[(e.start_char, e.end_char, e.label_.lower()) for e in d.ents] for d in parsed]
            analysed.update(((lang, t), v) for t, v in zip(unique, zip(DocTokens.of_many(parsed, unique), ents)))
            del parsed
        else:
            analysed.update(((lang, t), (toks, [])) for t, toks in zip(unique, DocTokens.of_texts(pipeline.tokenizer,
                                                                                                  unique)))
    docs = {job: analysed[languages[job[0]], t] for job, t in zip(jobs, job_texts)}
    names_of: dict[tuple[str, str], list[Literal]] = {}  # a repeated paragraph is analysed once
    memo: dict[Any, tuple[Any, ...]] = {}

    def names(job: tuple[Any, Any], lang: str) -> list[Literal]:
        toks, doc_ents = job
        found = names_of.get((lang, toks.text))
        if found is None:
            if lang in CJK:
                found = pack_names(toks.text, lang)
            else:
                found = find_token_names(toks, ents=doc_ents, language=lang)
            names_of[lang, toks.text] = found
        return found

    out: list[tuple[Piece, ...]] = []
    for ti, (text, plan) in enumerate(zip(texts, plans)):
        lang = languages[ti]
        text = readable.get(ti, text)
        pieces: list[Piece] = []
        for pi, (kind, s, e, depth) in enumerate(plan):
            doc = docs.get((ti, pi))
            if kind == "prose":
                if doc is None:
                    pieces.append(_piece(text, "sentence", s, e, None, memo=memo, language=lang))
                    continue
                all_names = names(doc, lang)
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
                    pieces.append(_piece(text, "sentence", ss, se, sentence_names, memo=memo, language=lang))
                continue
            if doc is None:
                pieces.append(_piece(text, kind, s, e, None, depth, memo=memo, language=lang))
            else:  # the job's text is this piece's: its names depend on that text alone
                found = names(doc, lang)
                shift = shifts.get((ti, pi))
                if shift:
                    found = [Literal(n.text, n.kind, n.start + shift, n.end + shift) for n in found]
                pieces.append(_piece(text, kind, s, e, found, depth, memo=memo, own_names=True, language=lang))
        out.append(tuple(pieces))
    return out

"""Tokens read from spaCy docs as arrays: the same sentences as spaCy's Sentencizer,
a model's own sentence starts respected, and the same names as walking the Doc."""

from __future__ import annotations

import functools
from dataclasses import replace

from unittest.mock import patch

import spacy
from hypothesis import example, given, settings
from hypothesis import strategies as st

from discourse_memory import doc_tokens
from discourse_memory.doc_tokens import DocTokens
from discourse_memory.literals import find_names, find_token_names
from discourse_memory.nlp import get_pipeline
from discourse_memory.sample import sample_conversation

_REFERENCE = spacy.blank("en")
_REFERENCE.add_pipe("sentencizer")

# Words, sentence-final marks (ASCII and others the Sentencizer knows), other
# punctuation, markers, whitespace, abbreviations the tokenizer keeps whole.
PARTS = ["Mia", "said", "the", "The", "Deploy", "deploy", "Bob", "New", "York", "I", "ok", "U.S.", "Dr.",
         "May", "12", "v1.2", ".", "!", "?", "...", "?!", "。", "؟", "।", ",", ";", "(", ")", "\"", "'",
         "-", "*", "##", "**", ">", "\n", "\n\n", "  ", "\t", "e.g.", "3p.m.", "🙂", "—"]


def _text(parts: list[str], seps: list[bool]) -> str:
    return "".join(p + (" " if s else "") for p, s in zip(parts, seps))


texts = st.builds(_text, st.lists(st.sampled_from(PARTS), max_size=30), st.lists(st.booleans(), min_size=30, max_size=30))


def _reference_sentences(text: str) -> list[tuple[int, int]]:
    """spaCy's Sentencizer, with two changes: a sentence-final mark with no space on
    either side ends no sentence (``models.E015``, which the tokenizer splits at its dot);
    an opening quote or bracket that has space before it and touches the next sentence's
    first word starts that sentence."""
    doc = _REFERENCE(text)
    marks = set(_REFERENCE.get_pipe("sentencizer").punct_chars)
    starts = [s.start for s in doc.sents]
    kept = [starts[0]] if starts else []
    for i in starts[1:]:
        mark, before, first = doc[i - 1], doc[i - 2] if i >= 2 else None, doc[i]
        glued = before is not None and i - 1 > 0 and mark.text in marks \
            and mark.idx + len(mark) == first.idx and before.idx + len(before) == mark.idx
        if not glued:
            kept.append(i)
    ends = kept[1:] + [len(doc)]
    spans = [(doc[a].idx, doc[b - 1].idx + len(doc[b - 1])) for a, b in zip(kept, ends)]
    for k in range(1, len(spans)):
        (a, b), (c, d) = spans[k - 1], spans[k]
        opener = text[b - 1:b]
        if (opener in doc_tokens.OPENERS and b - 1 > a and text[b - 2].isspace() and c == b
                and c < len(text) and not text[c].isspace()):
            spans[k - 1] = (a, a + len(text[a:b - 1].rstrip()))
            spans[k] = (b - 1, d)
    return spans


def _reference_doc(text: str):
    """``_REFERENCE``'s doc of ``text`` with the sentence starts of ``_reference_sentences``."""
    doc = _REFERENCE(text)
    starts = {a for a, _ in _reference_sentences(text)}
    for token in doc[1:]:
        token.is_sent_start = token.idx in starts
    return doc


@settings(max_examples=400, deadline=None)
@given(texts)
@example("Mia. (\n")  # (an opener glued to a line break opens no sentence: found at random)
def test_sentences_are_the_sentencizers(text: str) -> None:
    doc = get_pipeline().tokenizer(text)
    assert DocTokens.of(doc, text).sentences() == _reference_sentences(text)


@settings(max_examples=100, deadline=None)
@given(st.lists(texts, max_size=8))
def test_many_docs_at_once_match_one_at_a_time(batch: list[str]) -> None:
    nlp = get_pipeline()
    together = DocTokens.of_many([nlp.tokenizer(t) for t in batch], batch)
    alone = [DocTokens.of(nlp.tokenizer(t), t) for t in batch]
    assert together == alone


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(texts, st.integers(1, 60)), max_size=14))
def test_texts_tokenized_several_per_doc_match_one_doc_each(batch: list[tuple[str, int]]) -> None:
    # Short texts share a doc, long ones (repeated up to 60 times) go alone: either way
    # each text gets exactly the tokens, flags and sentences it gets in a doc of its own.
    nlp = get_pipeline()
    alone_texts = [(text * times).strip() for text, times in batch]
    alone_texts = [t for t in alone_texts if t]
    shared = DocTokens.of_texts(nlp.tokenizer, alone_texts)
    assert shared == [DocTokens.of(nlp.tokenizer(t), t) for t in alone_texts]


# Two tokenizers that never share a cache: one only ever sees each text alone, the other
# only through ``of_texts``, which primes its cache with the texts' words first.
_ALONE = spacy.blank("en").tokenizer
_PRIMED = spacy.blank("en").tokenizer
SPECIAL_PARTS = PARTS + ["don't", "Don't", "can't", "(don't)", "dont", "cant", "im", "I'm", "it's", "'s", "’s",
                         "Mr.", "(Mr.", "etc.", "a.m.", "vs.", ":)", "<3", ":-(", "n't", "gonna", "5km", "$5",
                         "10:30", "https://x.io/a.b", "e.g.,", "U.S.A.", "o'clock", "rock'n'roll", "'90s"]
special_texts = st.builds(_text, st.lists(st.sampled_from(SPECIAL_PARTS), max_size=30),
                          st.lists(st.booleans(), min_size=30, max_size=30))


@settings(max_examples=150, deadline=None)
@given(st.lists(special_texts, max_size=12))
def test_priming_the_tokenizer_cache_changes_no_token(batch: list[str]) -> None:
    # spaCy caches a word's tokens only until a doc meets a special case; of_texts primes
    # the cache with each distinct word in docs of their own. A cached word must get what
    # tokenizing it in place gives, however the two caches were filled.
    batch = [t.strip() for t in batch if t.strip()]
    with patch.object(doc_tokens, "LIMITS", replace(doc_tokens.LIMITS, prime_min_texts=1)):  # prime small batches too
        primed = DocTokens.of_texts(_PRIMED, batch)
    assert primed == [DocTokens.of(_ALONE(t), t) for t in batch]


def test_priming_changes_no_token_of_real_messages() -> None:
    texts = [m["content"].strip() for m in sample_conversation(60, seed=11)
             if isinstance(m.get("content"), str) and m["content"].strip()]
    assert len(texts) >= doc_tokens.LIMITS.prime_min_texts
    fresh_primed, fresh_alone = spacy.blank("en").tokenizer, spacy.blank("en").tokenizer
    assert DocTokens.of_texts(fresh_primed, texts) == [DocTokens.of(fresh_alone(t), t) for t in texts]


def test_sentences_of_real_messages_are_the_sentencizers() -> None:
    nlp = get_pipeline()
    for m in sample_conversation(20, seed=3):
        text = m.get("content")
        if isinstance(text, str) and text.strip():
            assert DocTokens.of(nlp.tokenizer(text), text).sentences() == _reference_sentences(text)


def _both_ways(docs: list, texts: list[str]) -> tuple[list[DocTokens], list[DocTokens]]:
    """The rows of ``docs`` read the arrays' way and row by row (``doc_tokens._build``'s two ways)."""
    import numpy as np

    attrs = doc_tokens._attrs()
    sizes = np.array([len(d) for d in docs], dtype=np.int64)
    arrays = [d.to_array(attrs) for d in docs if len(d)]
    raw = np.concatenate(arrays) if arrays else np.zeros((0, len(attrs)), dtype=np.uint64)
    return (doc_tokens._build(raw.copy(), sizes, texts, small=False),
            doc_tokens._build(raw.copy(), sizes, texts, small=True))


@settings(max_examples=300, deadline=None)
@given(st.lists(special_texts, max_size=6))
@example(['Mia. (Bob) said "Hi." «Ok» (\n', "x.Y. Z"])
@example(["Mia. (\nBob", "Go. (Now)"])  # (an opener glued to a line break opens nothing)
def test_rows_read_one_by_one_give_the_arrays_tokens(batch: list[str]) -> None:
    # A few dozen tokens are read row by row in Python; many, as arrays: the same tokens, flags and sentences,
    # for docs of the rule (a blank tokenizer) and docs whose pipeline set their own sentence starts.
    nlp = get_pipeline()
    arrays, rows = _both_ways([nlp.tokenizer(t) for t in batch], batch)
    assert rows == arrays
    annotated = [_REFERENCE(t) for t in batch]
    arrays, rows = _both_ways(annotated, batch)
    assert rows == arrays


@settings(max_examples=150, deadline=None)
@given(st.lists(texts.map(str.strip).filter(bool), max_size=10))
def test_texts_placed_row_by_row_match_the_arrays_placing(batch: list[str]) -> None:
    # of_texts places a doc's rows in the texts joined into it; a few dozen rows are placed in Python: the same.
    attrs = doc_tokens._attrs()
    arrays, shifts, sizes, base = [], [], [], 0
    for joined in doc_tokens.doc_texts(batch, 3):
        doc = get_pipeline().tokenizer(joined)
        if len(doc):
            arrays.append(doc.to_array(attrs))
            shifts.append(base)
            sizes.append(len(doc))
        base += len(joined) + len(doc_tokens._SEPARATOR)
    if arrays:
        rows = doc_tokens._place_rows([a.copy() for a in arrays], shifts, batch)
        assert rows == doc_tokens._place_arrays([a.copy() for a in arrays], shifts, sizes, batch)
        assert rows == [DocTokens.of(get_pipeline().tokenizer(t), t) for t in batch]


def test_rows_read_one_by_one_give_the_arrays_tokens_of_real_messages() -> None:
    nlp = get_pipeline()
    texts = [m["content"] for m in sample_conversation(30, seed=5) if isinstance(m.get("content"), str)]
    arrays, rows = _both_ways([nlp.tokenizer(t) for t in texts], texts)
    assert rows == arrays


def test_a_pipelines_own_sentence_starts_are_kept() -> None:
    # As a parser would: "one two three four" split after "two", though no punctuation says so.
    doc = get_pipeline().tokenizer("one two three four")
    for i, token in enumerate(doc):
        token.is_sent_start = i in (0, 2)
    assert DocTokens.of(doc).sentences() == [(0, 7), (8, 18)]


@settings(max_examples=300, deadline=None)
@given(texts)
def test_names_match_a_doc_with_spacys_sentences(text: str) -> None:
    # The rule-based path (blank tokenizer, starts computed here) and a Doc annotated by
    # spaCy's own Sentencizer, with the two changes of ``_reference_sentences``, give the
    # same names ('Go.e.g."Mia Mia': no sentence starts at '"Mia', its mark is glued).
    via_rule = find_token_names(DocTokens.of(get_pipeline().tokenizer(text), text))
    via_component = find_names(_reference_doc(text))
    assert via_rule == via_component


_WORDS = st.lists(st.sampled_from(list("ab1.,;:!?)]}'\"%$…-_/") + ["km", "'s", "n't", "...", "°C"]),
                  max_size=16).map("".join)


@functools.cache
def _suffix_search():
    return spacy.blank("en").tokenizer.suffix_search


@settings(max_examples=300, deadline=None)
@given(_WORDS)
def test_a_short_words_suffix_is_spacys(word: str) -> None:
    # (words up to twice the window long, every real word, are searched whole)
    from discourse_memory.nlp import tail_suffix_search

    search = _suffix_search()
    bounded = tail_suffix_search(search, window=32)
    for w in (word, "x" * 30 + word):
        if len(w) <= 64:
            got, want = bounded(w), search(w)
            assert (got and got.span()) == (want and want.span())


@settings(max_examples=100, deadline=None)
@given(_WORDS.filter(lambda w: len(w) <= 24))
def test_a_long_words_short_suffix_is_spacys(tail: str) -> None:
    # (in a long word only the last ``window`` characters are searched: a suffix up to the
    # window found where spaCy finds it, lookbehinds included)
    from discourse_memory.nlp import tail_suffix_search

    search = _suffix_search()
    word = "q" * 500 + "7" + tail
    got, want = tail_suffix_search(search, window=32)(word), search(word)
    assert (got and got.span()) == (want and want.span())


def test_a_word_of_nested_brackets_is_tokenized_whole() -> None:
    # (12,000 characters of '{"a":' ... '}' took spaCy 13 s: each stripped suffix searched
    # the whole word; the pipeline's tokens still cover the word, bracket by bracket)
    text = "The body: " + '{"a":' * 3000 + "1" + "}" * 3000
    toks = DocTokens.of_texts(get_pipeline().tokenizer, [text])[0]
    assert toks.text == text
    assert len(toks.starts) > 3000

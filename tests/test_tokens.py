"""Offline token counting."""

from dataclasses import replace
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discourse_memory import EncodingUnavailableError, get_token_counter
from discourse_memory.tokens import head_of


def test_default_counts_offline_like_cl100k():
    c = get_token_counter()
    # cl100k_base splits "hello world" into "hello", " world".
    assert c.count("hello world") == 2
    assert c.count("") == 0


def test_unknown_encoding_lists_known_ones():
    with pytest.raises(EncodingUnavailableError) as info:
        get_token_counter("no_such_encoding")
    assert "cl100k_base" in str(info.value)


def test_unavailable_encoding_fails_fast_without_network(monkeypatch, tmp_path):
    import time

    import discourse_memory.tokens as tokens

    monkeypatch.setattr(tokens, "_local_cache_dirs", lambda: [tmp_path])
    tokens._COUNTERS.pop("p50k_base", None)
    t = time.perf_counter()
    with pytest.raises(EncodingUnavailableError) as info:
        get_token_counter("p50k_base")
    assert time.perf_counter() - t < 5
    assert "never downloads" in str(info.value)


def test_callable_counter_and_bad_return():
    c = get_token_counter(lambda s: len(s.split()))
    assert c.count("a b c") == 3
    bad = get_token_counter(lambda s: "3")
    with pytest.raises(TypeError):
        bad.count("x")
    with pytest.raises(TypeError):
        get_token_counter(3.5)


@pytest.mark.parametrize("spec", [None, "words"])
def test_head_fits_and_ends_on_a_word(spec):
    c = get_token_counter(None if spec is None else (lambda s: len(s.split())))
    text = "The quick brown fox jumps over the lazy dog near the riverbank today"
    for limit in (1, 3, 6):
        i = c.head(text, limit)
        assert c.count(text[:i]) <= limit
        assert i == len(text) or text[i] == " "


_PIECES = ["alpha", "Beta", "42", "v1.2.3", "x/y/z.py", "  ", "\n", "a" * 300, "ÿ" * 50, "🙂", "OPS-1", "the",
           ",", ".", "-" * 40, "7" * 90]


@pytest.mark.parametrize("spec", [None, "words"])
@settings(max_examples=300, deadline=None)
@given(text=st.lists(st.sampled_from(_PIECES), max_size=80).map(" ".join), limit=st.integers(1, 40))
def test_head_of_reads_a_prefix_but_cuts_where_head_does(spec, text, limit):
    # head_of reads only a prefix of a long text; the cut must be the one the whole
    # text gives, and must fit.
    c = get_token_counter(None if spec is None else (lambda s: len(s.split())))
    cut = head_of(c, text, limit)
    assert cut == c.head(text, limit)
    assert c.count(text[:cut]) <= limit


# -- TokenMap: one encoding of a whole text, spans counted from it ------------------

_MAP_TEXT = st.lists(
    st.one_of(st.sampled_from(_PIECES + [" ", "\n\n", "é", "中文", "👨‍👩‍👧", "\u200b", "\u202e"]),
              st.characters(blacklist_categories=("Cs",))),
    max_size=40,
).map("".join)


def _map(text):
    return get_token_counter().token_maps([text])[0]


@settings(max_examples=300, deadline=None)
@given(text=_MAP_TEXT, data=st.data())
def test_token_map_counts_spans_of_the_whole_encoding(text, data):
    c = get_token_counter()
    tmap = _map(text)
    n = len(text)
    assert len(tmap.starts) == c.count(text) == len(tmap.spaced)
    assert tmap.starts == sorted(tmap.starts) and all(0 <= s <= max(n - 1, 0) for s in tmap.starts)
    assert tmap.count(0, n) == c.count(text)
    k = data.draw(st.integers(0, n))
    # Overlap counting: a token across the cut counts on both sides, nothing is lost.
    if 0 < k < n:
        assert c.count(text) <= tmap.count(0, k) + tmap.count(k, n) <= c.count(text) + 1
    a = data.draw(st.integers(0, n))
    b = data.draw(st.integers(a, n))
    limit = data.draw(st.integers(1, 8))
    h = tmap.head(a, b, limit)
    assert 0 <= h <= b - a
    if h < b - a and h > 0:
        assert tmap.count(a, a + h) <= limit


def test_token_map_is_none_for_unpaired_surrogates_and_analysis_still_works():
    from discourse_memory import compact

    assert _map("ok \ud800 then") is None
    text = "Deploy \ud800 v1.2.3 to eu-west-1. " * 40
    view = compact([{"role": "user", "content": text}, {"role": "user", "content": "And now?"}], 120)
    assert view.tokens_after <= 120 and view.report.counts["clipped"] + view.report.counts["omitted"] > 0


def test_token_map_estimates_match_exact_counts_on_the_sample():
    # The analysis ranks units by these estimates; what it renders is counted exactly.
    from discourse_memory.sample import sample_conversation
    from discourse_memory.units import Analyzer, _clip_tokens

    c = get_token_counter()
    texts = list(dict.fromkeys(m["content"] for m in sample_conversation() if isinstance(m.get("content"), str)))
    pieces = [(t, mp) for t, mps in zip(texts, Analyzer(c).analyse(texts)) for mp in mps]
    diffs = [mp.tokens - c.count(mp.gap + t[mp.piece.start:mp.piece.end] + mp.suffix) for t, mp in pieces]
    clips = [mp.clip_tokens - _clip_tokens(c.count, mp.gap, t[mp.piece.start:mp.piece.end], mp.head_end,
                                           mp.piece.kind, mp.suffix)
             for t, mp in pieces if mp.head_end < mp.piece.end - mp.piece.start]
    assert len(pieces) > 100 and clips
    assert sum(d == 0 for d in diffs) >= 0.9 * len(diffs) and max(map(abs, diffs)) <= 3
    assert sum(d == 0 for d in clips) >= 0.9 * len(clips) and max(map(abs, clips)) <= 3


def test_a_text_measures_the_same_alone_and_in_a_batch():
    # Measures are a function of the text alone: a warm memory (texts analysed one by one)
    # and a cold one (all at once) must rank the same units the same way.
    from discourse_memory.units import Analyzer

    c = get_token_counter()
    texts = ["Intro.\n\n- item one is here\n- item two, v2.0.1\n\nThe end. The very end of it all, really.",
             "Intro.\n\n- item one is here\n\n| a | b |\n|---|---|\n| 1 | 2 |", "中文 text. 🙂 more text here, and more."]
    together = Analyzer(c).analyse(texts)
    alone = [Analyzer(c).analyse([t])[0] for t in texts]
    assert together == alone


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(_MAP_TEXT, min_size=1, max_size=6), data=st.data())
def test_token_table_answers_as_each_texts_token_map(texts, data):
    # The analysis counts and cuts the spans of all texts at once from one table; it must
    # give what each text's own map gives (a broken coordinate shift or a token of the
    # next text counted in would show here).
    import numpy as np

    texts = texts + ["ok \ud800 then"]  # a text without a map: the others must not shift
    table = get_token_counter().token_table(texts)
    assert table.mapped == [True] * (len(texts) - 1) + [False]
    spans = []
    for i, text in enumerate(texts[:-1]):
        for _ in range(3):
            a = data.draw(st.integers(0, len(text)))
            b = data.draw(st.integers(a, len(text)))
            spans.append((i, a, b, data.draw(st.integers(0, 8))))
    idx, a, b, limit = (np.array(col, dtype=np.int64) for col in zip(*spans))
    maps = [_map(t) for t in texts[:-1]]
    assert table.counts(idx, a, b).tolist() == [maps[i].count(s, e) for i, s, e, _ in spans]
    assert table.counts(idx, b, b).tolist() == [0] * len(spans)
    assert table.heads(idx, a, b, limit).tolist() == [maps[i].head(s, e, n) for i, s, e, n in spans]


_LINE_TEXT = st.lists(st.text(alphabet="ab Z9'/-)(.\r\t 中文é#:;_$\u00a0\u3000🙂xyzTHE", max_size=40), min_size=1, max_size=30)


def _encoding_or_skip(name: str):
    from discourse_memory import EncodingUnavailableError
    from discourse_memory.tokens import _load_encoding

    try:
        return _load_encoding(name)
    except EncodingUnavailableError:  # o200k_base is read from llama-index's bundled copy
        pytest.skip(f"{name} is not available offline here")


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=300, deadline=None)
@given(lines=_LINE_TEXT, joints=st.lists(st.sampled_from(["\n", "; ", ";  ", "; \n", ";\n"]), min_size=29, max_size=29))
def test_a_long_text_counted_by_its_lines_counts_as_the_whole(name, lines, joints):
    # The record note is counted line by line and entry by entry (each piece's count cached
    # across plans): only right if no piece of the encoding's split runs across a line break
    # into the next line, nor from a semicolon into the space after it.
    import discourse_memory.tokens as tokens

    enc = _encoding_or_skip(name)
    assert enc._pat_str in tokens._LINE_ADDITIVE  # (else the test below would count whole)
    text = lines[0] + "".join(j + line for j, line in zip(joints, lines[1:]))
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tokens, "LIMITS", replace(tokens.LIMITS, by_lines_min=0))
        assert tokens.TiktokenCounter(enc, name).count_by_lines(text) == len(enc.encode_ordinary(text))


def test_an_encoding_of_another_split_is_counted_whole():
    import discourse_memory.tokens as tokens

    real = tokens._load_encoding("cl100k_base")
    seen: list[str] = []

    class Other:  # the same tokens, split another way: no line-by-line shortcut may be taken
        _pat_str = r"\S+|\s+"
        name = "other"

        def encode_ordinary(self, text):
            seen.append(text)
            return real.encode_ordinary(text)

    text = "\n".join(f"#{i} user: order ORD-{i} shipped to Oslo" for i in range(200))
    assert tokens.TiktokenCounter(Other()).count_by_lines(text) == len(real.encode_ordinary(text))
    assert seen == [text]


@pytest.mark.parametrize("name", ["cl100k_base", "o200k_base"])
@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.text(alphabet="ab Z9'/-)(.\n\t 中文#:;_$🙂xyz", max_size=30), min_size=1, max_size=30),
       short=st.booleans())
def test_lines_counted_one_by_one_count_as_their_text(name, lines, short):
    # A note is counted from sums kept per line (lines that open with white space or "/",
    # or are empty, run into the line before; a line may hold line breaks of its own): the
    # same count as the joined text's, long or short, counted twice (the second time from
    # the kept sums).
    import discourse_memory.tokens as tokens

    enc = _encoding_or_skip(name)
    counter = tokens.TiktokenCounter(enc, name)
    text = "\n".join(lines)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(tokens, "LIMITS", replace(tokens.LIMITS, by_lines_min=10**9 if short else 0))
        assert tokens.count_lines(counter, lines) == counter.count_by_lines(text) == len(enc.encode_ordinary(text))
        assert tokens.count_lines(counter, lines) == len(enc.encode_ordinary(text))


def test_lines_of_a_counter_without_a_split_are_counted_joined():
    from discourse_memory.tokens import count_lines

    seen: list[str] = []
    counter = get_token_counter(lambda text: seen.append(text) or len(text.split()))
    assert count_lines(counter, ["#1 user: a b", "  c", "[end]"]) == 6
    assert seen == ["#1 user: a b\n  c\n[end]"]
    assert count_lines(counter, []) == 0

"""Offline token counting."""

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

"""Segmentation into units, against hand-written expectations."""

import json
from pathlib import Path

import pytest

from discourse_memory.nlp import get_pipeline
from discourse_memory.segment import segment_texts

CASES = json.loads((Path(__file__).parent / "fixtures" / "segmentation.json").read_text())


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_units_match_fixture(case):
    text = case["text"]
    (pieces,) = segment_texts([text], get_pipeline())
    got = [[p.kind, text[p.start:p.end]] for p in pieces]
    assert got == case["units"]


def test_spans_slice_back_to_the_unit_and_are_ordered():
    text = "\n\n".join(c["text"] for c in CASES)
    (pieces,) = segment_texts([text], get_pipeline())
    ends = [p.end for p in pieces]
    starts = [p.start for p in pieces]
    assert starts == sorted(starts)
    assert all(s < e for s, e in zip(starts, ends))
    assert all(ends[i] <= starts[i + 1] for i in range(len(pieces) - 1))
    for p in pieces:
        body = text[p.start:p.end]
        for lit in p.literals:
            assert body[lit.start:lit.end] == lit.text


def test_content_key_ignores_whitespace_and_is_stable():
    from discourse_memory.keys import content_key

    assert content_key("a  b\n c") == content_key("a b c")
    # A fixed value: BLAKE2b-64 of b"hello world", computed independently of this code
    # (hashlib.blake2b(b"hello world", digest_size=8).hexdigest()).
    import hashlib

    assert content_key(" hello   world ") == hashlib.blake2b(b"hello world", digest_size=8).hexdigest()

"""Segmentation into units, against hand-written expectations."""

import difflib
import json
from pathlib import Path

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from discourse_memory.blocks import split_blocks
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


def test_a_repeated_sentence_keeps_the_names_of_its_own_paragraph():
    # "Mia" after a marker is a name only where the paragraph also uses it mid-sentence;
    # analysing both texts in one batch must not carry one's literals over to the other.
    from discourse_memory.tokens import get_token_counter
    from discourse_memory.units import Analyzer

    named = "** Mia left early. Later Mia called."
    unnamed = "** Mia left early. Nothing else happened."
    for first in Analyzer(get_token_counter()).analyse([named, unnamed]):
        for mp in first:
            assert mp.literal_texts == tuple(dict.fromkeys(lit.text for lit in mp.piece.literals))
    a, b = Analyzer(get_token_counter()).analyse([named, unnamed])
    assert "Mia" in a[0].literal_texts and "Mia" not in b[0].literal_texts


_DIFF_LINE = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=30)


@settings(max_examples=200, deadline=None)
@given(st.lists(_DIFF_LINE, max_size=12), st.lists(_DIFF_LINE, max_size=12), st.integers(0, 3))
def test_a_unified_diff_from_difflib_is_one_block_split_into_lines(old, new, context):
    # The diff comes from the standard library, not from this code: every line of it,
    # headers and hunks, belongs to one diff block, and the text around it does not.
    diff = "\n".join(difflib.unified_diff(old, new, "a/pool.py", "b/pool.py", n=context, lineterm=""))
    assume(diff)
    text = "The patch:\n\n" + diff + "\nThat is the whole change."
    blocks = split_blocks(text)
    diffs = [b for b in blocks if b.kind == "diff"]
    assert len(diffs) == 1
    lines = diff.split("\n")
    while not lines[-1].strip():  # trailing blank context lines count as blank lines
        lines.pop()
    assert text[diffs[0].start:diffs[0].end] == "\n".join(lines)
    assert [text[b.start:b.end] for b in blocks if b.kind != "diff"] == ["The patch:", "That is the whole change."]
    (pieces,) = segment_texts([text], get_pipeline())
    inside = [p for p in pieces if diffs[0].start <= p.start < diffs[0].end]
    assert {p.kind for p in inside} == {"line"}
    assert [text[p.start:p.end] for p in inside] == [line.strip() for line in lines if line.strip()]


@pytest.mark.parametrize("text, words", [
    ("Thanks! Cheers, bye!", ()),  # a goodbye states nothing: rare as "bye" is, it was a content word
    ("Take care, see you soon!", ("see", "take")),
    ("Cheers, congrats on the new job!", ("job", "new")),
    ("I care for my grandmother's garden.", ("garden", "grandmother")),  # (weak as it is there too)
])
def test_greetings_and_goodbyes_are_no_content_words(text, words):
    from discourse_memory.segment import _words

    assert _words(text, "en") == words


def test_a_dotted_name_ends_no_sentence():
    # The tokenizer splits "models.E015" at its dot; spaCy's rule then cut the error line of
    # a PR description into "Stock: (models." and "E015) 'ordering' refers to …".
    text = "ERRORS:\napp.Stock: (models.E015) 'ordering' refers to the nonexistent field. Then it failed."
    units = [text[p.start:p.end] for p in segment_texts([text], get_pipeline())[0]]
    assert "app.Stock: (models.E015) 'ordering' refers to the nonexistent field." in units, units
    assert "Then it failed." in units, units


def test_pieces_of_one_shape_are_analysed_as_each_alone(monkeypatch):
    # A generated list's items share their shape (digits 1-9 read as 1) and are analysed once per shape: each
    # piece must be what analysing its own text gives (literals, names, words), whatever its digits.
    import random

    from discourse_memory import segment

    rng = random.Random(5)
    words = ["item", "value", "Alice Smith", "v2.3.1", "$12.50", "2024-05-01", "OPS-12", "at", "10:30", "Paris",
             "/etc/app.yaml", "x_1", "3.5GB", "is", "Step", ":", "99%", "gw-01", "# Note", "call 030 1234567"]
    lines = []
    for i in range(1000):  # each line, the line with other digits 1-9, and with its zeros made 1-9 (another shape)
        line = f"- {' '.join(rng.choice(words) for _ in range(rng.randint(1, 6)))} {rng.randint(0, 10 ** rng.randint(1, 6))}"
        lines += [line, "".join(rng.choice("123456789") if c in "123456789" else c for c in line),
                  "".join(rng.choice("123456789") if c == "0" else c for c in line)]
    texts = ["\n".join(lines), "\n".join(lines[:50]).replace("- ", "")]
    nlp = get_pipeline()
    shared = segment_texts(texts, nlp)
    monkeypatch.setattr(segment, "digit_shape", lambda body: body)  # each shape is its own text
    alone = segment_texts(texts, nlp)
    assert shared == alone

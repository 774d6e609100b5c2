"""The grading extractor on hard cases; expected values written by hand."""

import ast
from pathlib import Path

import pytest

from discourse_memory_evaluation.grader import (
    extract_literals,
    sentence_openings,
    split_sentences,
)

EVALUATION = Path(__file__).resolve().parents[1] / "discourse_memory_evaluation"


@pytest.mark.parametrize(
    "text, expected",
    [
        # capitalised words: not at the start of a text, line, sentence or list item
        ("Flying from New York to Seattle.", ["New", "York", "Seattle"]),
        ("Seattle is rainy. Paris is not.\nLondon too", []),
        ("1. Trip to Paris\n2) Next Tuesday", ["Paris", "Tuesday"]),
        ('"Great" said Bob, (Then) Alice', ["Bob", "Then", "Alice"]),
        ("Caroline: Hey Mel, to Seattle", ["Mel", "Seattle"]),
        ('{"city": "Austin", "name": {"first": "Mia"}}', ["Austin", "Mia"]),
        ("<returncode>0</returncode>", []),
        ("I'm fine, and JFK to SEA", ["JFK", "SEA"]),
        # digit-bearing tokens; single digits are not graded
        ("Pay $30 or 3.5% at 10:30 on HAT136, see D1:3; 2 bags", ["$30", "3.5%", "10:30", "HAT136", "D1:3"]),
        ("items 1, 2 and 3.", []),
        # dates
        ("on 2024-05-20, or 05/20/2024", ["2024-05-20", "05/20/2024"]),
        ("met on 8 May, 2023 and May 20th", ["8 May, 2023", "May 20th"]),
        ("due May 20, 2024.", ["May 20, 2024"]),
        # URLs, e-mails, paths (trailing punctuation is not part of them)
        ("See https://example.com/a/b?x=1. Or write to mia.li3818@example.com.",
         ["https://example.com/a/b?x=1", "mia.li3818@example.com"]),
        ("edit astropy/modeling/separable.py and setup.py, then ./run.sh",
         ["astropy/modeling/separable.py", "setup.py", "./run.sh"]),
        ("cd /usr/lib/python3 and ~/notes", ["/usr/lib/python3", "~/notes"]),
        ("advice and/or team/player in src/app/ or django/db/models", ["src/app/", "django/db/models"]),
        ("open docs/index.md", ["docs/index.md"]),
        # identifiers
        ("call separability_matrix and _cstack in __init__", ["separability_matrix", "_cstack", "__init__"]),
        ("getUserDetails returns a CompoundModel via np.array", ["getUserDetails", "CompoundModel", "np.array"]),
        # JSON text: keys and values come out clean
        ('{"user_id":"mia_li_3668","amount": 100}', ["user_id", "mia_li_3668", "100"]),
    ],
)
def test_extract_literals(text, expected):
    assert extract_literals(text) == expected


def test_duplicates_are_kept_in_order():
    assert extract_literals("HAT136 then HAT039 then HAT136") == ["HAT136", "HAT039", "HAT136"]


def test_split_sentences_keeps_list_markers_and_abbreviations():
    text = "Hi! I'm Dr. Smith. 1. Trip: one-way.\n\n  e.g. this one\nEnd"
    assert split_sentences(text) == ["Hi!", "I'm Dr. Smith.", "1. Trip: one-way.", "e.g. this one", "End"]


def test_sentence_openings_are_five_words_and_need_a_word_character():
    text = "The quick brown fox jumps over the dog. Short one.\n```\n---\n"
    assert sentence_openings(text) == ["The quick brown fox jumps", "Short one."]


def test_grader_is_independent_of_the_compactor():
    """The grader and the metrics must not import the core (it cannot grade itself)."""
    for name in ("grader.py", "metrics.py"):
        tree = ast.parse((EVALUATION / name).read_text(encoding="utf-8"))
        imported = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                imported.update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                imported.add(("." * node.level) + (node.module or ""))
        offenders = {m for m in imported if m == "discourse_memory" or m.startswith(("discourse_memory.", ".."))}
        assert not offenders, f"{name} imports {offenders}"


@pytest.mark.parametrize("word", ["a" * 100_000, "ab1" * 30_000, "/" + "1" * 100_000, "a." * 50_000, "a-" * 50_000])
def test_extraction_is_linear_on_long_words(word):
    """A long token without spaces (a base64 blob, minified code) must not backtrack
    catastrophically: well under a second for 100 kB."""
    import time

    start = time.perf_counter()
    extract_literals(word)
    assert time.perf_counter() - start < 1.0

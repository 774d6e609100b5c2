"""A text's pieces measured piece by piece (a turn's few, through each text's token map) and as
arrays (a batch's many, through the token table): the same tokens, heads and clip costs."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from discourse_memory import get_token_counter
from discourse_memory.nlp import get_pipeline
from discourse_memory.sample import sample_conversation
from discourse_memory.segment import segment_texts
from discourse_memory.units import Analyzer

# Prose, lines, tables (a header's separator row goes with it), code (its clip closes the fence), lists, JSON,
# values a clip must not cut (a date, an address), wide scripts, and pieces long enough to clip.
PARTS = ["The deploy of svc-12 to v1.2.3 failed at 2026-11-21 14:05 with 503.", "Mia said hi.", "\n", "\n\n",
         "| a | b |\n|---|---|\n| 1 | 2 |\n", "```python\ndef f(x):\n    return x * 2  # doubled\n```\n",
         "- item one with a long tail of words that keeps going well past a dozen tokens\n", "key: value 42\n",
         '{"user_id": "mia_li_3668", "reservation_id": "NM1VX1"}', "北京市朝阳区建国路88号的酒店电话是010-84580888。",
         "ERROR 2024-05-01T10:00:00Z worker-7 crashed: /usr/lib/app/main.py line 42\n", "# Heading\n",
         "Caroline: Thanks! See you at 5 pm on 8 May, 2023 at 12 Panjiayuan Road, Beijing.", "x" * 90, " "]


def _both(texts: list[str]) -> None:
    counter = get_token_counter()
    analyzer = Analyzer(counter)
    pieces = segment_texts(texts, get_pipeline())
    table = counter.token_table(texts)
    assert analyzer._measure_maps(texts, pieces, table) == analyzer._measure_table(texts, pieces, table)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.lists(st.sampled_from(PARTS), min_size=1, max_size=8).map("".join), min_size=1, max_size=4))
def test_pieces_measured_one_by_one_match_the_arrays(texts: list[str]) -> None:
    _both(texts)


def test_pieces_of_real_messages_measured_one_by_one_match_the_arrays() -> None:
    texts = [m["content"] for m in sample_conversation(12, seed=5) if isinstance(m.get("content"), str)]
    _both(texts)
    for text in texts[:40]:
        _both([text])

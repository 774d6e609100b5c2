"""What a long-running process keeps is bounded: the spaCy vocabulary (every distinct
word ever seen) and the analysis cache, and neither bound changes a result."""

from __future__ import annotations

from dataclasses import replace

from discourse_memory import compact, nlp, units
from discourse_memory.tokens import get_token_counter


def _one_off_words(run: int, n: int = 400) -> str:
    return "\n".join(f"- Ticket T{run}x{i} for host-{run}-{i}.example.org was filed by Ana." for i in range(n))


def _conversation(run: int) -> list[dict[str, str]]:
    return [{"role": "user", "content": _one_off_words(run)},
            {"role": "assistant", "content": "Filed."},
            {"role": "user", "content": "What is open?"}]


def test_the_vocabulary_is_replaced_when_it_grows_past_its_bound(monkeypatch) -> None:
    monkeypatch.setattr(nlp, "_PIPELINES", {})
    monkeypatch.setattr(nlp, "LIMITS", replace(nlp.LIMITS, vocabulary=3_000))
    fresh = compact(_conversation(5), 300, token_counter=get_token_counter())
    sizes, pipelines = [], set()
    for run in range(8):
        result = compact(_conversation(run), 300)
        pipeline = nlp.get_pipeline()
        pipelines.add(id(pipeline))
        sizes.append(len(pipeline.vocab.strings))
        if run == 5:
            assert result.messages == fresh.messages  # a reloaded pipeline gives the same view
    # ~800 new strings per run: without the bound it would reach ~7,700.
    assert max(sizes) <= 3_000 + 1_000
    assert len(pipelines) > 1


def test_the_analysis_cache_is_bounded_by_pieces(monkeypatch) -> None:
    monkeypatch.setattr(units, "_PIECE_CACHE_LIMIT", 1_000)
    analyzer = units.Analyzer(get_token_counter())
    for run in range(6):
        first = analyzer.analyse([_one_off_words(run)])  # 400 pieces each
        assert analyzer._cached_pieces <= 1_000
        assert analyzer.analyse([_one_off_words(run)]) == first
    # The evicted text is analysed again, with the same result.
    again = units.Analyzer(get_token_counter()).analyse([_one_off_words(0)])
    assert analyzer.analyse([_one_off_words(0)]) == again

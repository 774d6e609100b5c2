"""What a turn keeps from the last one instead of reading every message of a long history
again: each kept sum or array must equal what counting afresh gives, to the bit, however
the messages come (one at a time or in batches) and whatever the options."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest

from discourse_memory.columns import Columns
from discourse_memory.fit.rank import _overheads
from discourse_memory.messages import validate_messages
from discourse_memory.record.examples import ExamplesMemo, prompt_units, talk_counts
from discourse_memory.tokens import get_token_counter
from discourse_memory.units import Analyzer

COUNTER = get_token_counter()


def _history(n: int) -> list[dict]:
    out: list[dict] = [{"role": "system", "content": "You are careful."}]
    for i in range(n):
        out.append({"role": "user", "content": f"Caroline: step {i}, set retries to {i % 7} in /etc/app{i}.yaml."})
        out.append({"role": "assistant", "content": f"Done with step {i}." * (1 + i % 3)})
    return out


@pytest.mark.parametrize("batches", [[1] * 9, [5, 1, 1, 30, 1], [40]])
def test_history_tokens_is_the_sum_of_the_costs(batches: list[int]) -> None:
    msgs = _history(sum(batches))
    cols, analyzer, at = Columns(COUNTER.count), Analyzer(COUNTER), 0
    assert cols.history_tokens() == 0
    for size in batches:
        batch = validate_messages(msgs[at:at + size], start=at)
        cols.extend(batch, analyzer.fields(batch))
        at += size
        assert cols.history_tokens() == int(cols.msg_cost.view.sum()) > 0
        assert isinstance(cols.history_tokens(), int)


def _fresh(cols: Columns, recall: bool, frames: np.ndarray | None) -> np.ndarray:
    out = cols.msg_label_cost.view.copy()
    if recall:
        out += np.array([COUNTER.count(f"#{i}") for i in range(len(cols))], dtype=np.float64)
    if frames is not None:
        out += frames
    return out


@pytest.mark.parametrize("recall", [False, True])
@pytest.mark.parametrize("framed", [False, True])
def test_overheads_kept_equal_counted_afresh(recall: bool, framed: bool) -> None:
    """``rank._overheads``: a message's label, reference and framing, extended by the new
    messages only; the same floats as adding the three arrays up on every view. A new
    counter or framing rule counts them afresh."""
    msgs = _history(30)
    cols, analyzer, at = Columns(COUNTER.count), Analyzer(COUNTER), 0
    rule = object()
    for size in (1, 4, 1, 20, 1, 1, 33):
        batch = validate_messages(msgs[at:at + size], start=at)
        cols.extend(batch, analyzer.fields(batch))
        at += size
        frames = (np.arange(len(cols), dtype=np.float64) % 5) * 0.25 + 3.0 if framed else None
        options = SimpleNamespace(recall=recall, message_overhead=rule if framed else None)
        scene = SimpleNamespace(cols=cols, options=options, count=COUNTER.count, frames=frames)
        got = _overheads(scene)
        assert got.tobytes() == _fresh(cols, recall, frames).tobytes()
        assert not got.flags.writeable  # (shared from view to view)
    # another framing rule: its frames, not the kept ones
    frames = np.full(len(cols), 7.0)
    scene = SimpleNamespace(cols=cols, options=SimpleNamespace(recall=recall, message_overhead=object()),
                            count=COUNTER.count, frames=frames)
    assert _overheads(scene).tobytes() == _fresh(cols, recall, frames).tobytes()


def test_a_callers_own_overhead_is_counted_on_each_view() -> None:
    """A caller's int or function (no framing rule: ``frames`` is None) is asked again."""
    cols = Columns(COUNTER.count)
    batch = validate_messages(_history(3))
    cols.extend(batch, Analyzer(COUNTER).fields(batch))
    asked: list[int] = []

    def overhead(raw: dict) -> int:
        asked.append(1)
        return 4

    options = SimpleNamespace(recall=False, message_overhead=overhead, overhead=overhead)
    scene = SimpleNamespace(cols=cols, options=options, count=COUNTER.count, frames=None)
    for _ in range(2):
        assert _overheads(scene).tolist() == (cols.msg_label_cost.view + 4.0).tolist()
    assert len(asked) == 2 * len(cols)


@pytest.mark.parametrize("head", [False, True])
def test_kept_unit_sums_equal_summed_afresh(head: bool) -> None:
    """``Columns.per_unit_sum(kept=True)`` adds the new units' sums to those it kept while
    the literals' values stay; a changed value (a literal now worth nothing, a signed zero,
    a NaN) sums every row again. The same floats as summing afresh, to the bit."""
    msgs = _history(40)
    cols, analyzer, at = Columns(COUNTER.count), Analyzer(COUNTER), 0
    rng = np.random.default_rng(3)
    weights = rng.random(10_000) * 3.0
    for step, size in enumerate((1, 3, 1, 1, 30, 1, 20, 1, 1, 23)):
        batch = validate_messages(msgs[at:at + size], start=at)
        cols.extend(batch, analyzer.fields(batch))
        at += size
        values = weights[:len(cols.lit_text)].copy()
        if step in (4, 7):  # a literal's value changed since the last call
            values[step % len(values)] = 0.0 if step == 4 else -0.0
        if step == 8:
            values[0] = np.nan
        got = cols.per_unit_sum(values, head=head, kept=True)
        fresh = cols.per_unit_sum(values, head=head)
        assert got.tobytes() == fresh.tobytes()


def _prompted_history(n: int) -> list[dict]:
    """Talk, with a system prompt and examples (tagged and under a heading) whose values
    the talk states too, so that prompt units and talk units share literals."""
    out: list[dict] = [{"role": "system", "content": "Reply in /etc/app3.yaml form. Retries default to 4."}]
    for i in range(n):
        text = f"Step {i}: set retries to {i % 7} in /etc/app{i % 5}.yaml."
        if i % 4 == 1:
            text += f"\n<example>\nset retries to {i % 3} in /etc/app{i % 6}.yaml\n</example>\nThen OPS-{i % 9}."
        if i % 6 == 2:
            text += f"\n\n## Examples\n\nUse /etc/app{i % 4}.yaml with OPS-{i % 5}.\n\n## Next\n\nOPS-{i % 7} is open."
        out.append({"role": "user", "content": text})
        out.append({"role": "assistant", "content": f"Done: OPS-{i % 9} in /etc/app{i % 5}.yaml."})
    return out


def test_kept_talk_counts_equal_counted_afresh() -> None:
    """``record.examples.talk_counts``: the counts of the units outside every prompt, kept
    and extended by the new units on each append; the same floats as a count of every unit.
    An old unit's place in a prompt changed (here forced): counted afresh."""
    msgs = _prompted_history(40)
    cols, analyzer, at = Columns(COUNTER.count), Analyzer(COUNTER), 0
    for step, size in enumerate((1, 2, 1, 1, 9, 1, 20, 1, 1, 44)):
        batch = validate_messages(msgs[at:at + size], start=at)
        cols.extend(batch, analyzer.fields(batch))
        at += size
        if step == 7:
            memo = cols.memo(ExamplesMemo)
            assert memo.talk is not None
            flipped = memo.talk[0].copy()
            flipped[0] = not flipped[0]
            memo.talk = (flipped, memo.talk[1] + 5.0)
        got = talk_counts(cols)
        fresh = cols.literal_counts(~prompt_units(cols))
        assert got.tobytes() == fresh.tobytes()
        assert talk_counts(cols) is got  # (asked twice a view: kept, not counted again)
    assert prompt_units(cols).any() and (~prompt_units(cols)).any()
    assert (cols.literal_counts(prompt_units(cols)) > 0).any()


def _quoted_history(n: int) -> list[dict]:
    out: list[dict] = [{"role": "system", "content": "You are careful."}]
    for i in range(n):
        out.append({"role": "user", "content": f'Set the name to "retry_{i}" in app{i}.py, please.'})
        out.append({"role": "assistant", "content": f'I wrote "), (" and "on step {i}" and "; y{i}(" there.'})
    return out


@pytest.mark.parametrize("batches", [[1] * 12, [5, 1, 1, 20, 1], [28]])
def test_kept_code_glue_equals_found_afresh(batches: list[int]) -> None:
    """``record.noise.not_values``: the quoted literals that are code glue, read at the new
    literals only and kept; the same mask as a fresh conversation's, and every quoted
    literal's own answer."""
    from discourse_memory.record.noise import NoiseMemo, _code_glue, not_values

    msgs = _quoted_history(sum(batches))
    cols, analyzer, at = Columns(COUNTER.count), Analyzer(COUNTER), 0
    glued = 0
    for size in batches:
        batch = validate_messages(msgs[at:at + size], start=at)
        cols.extend(batch, analyzer.fields(batch))
        at += size
        kept = not_values(cols, np.zeros(len(cols.lit_text), dtype=bool))
        fresh_cols, fresh_an = Columns(COUNTER.count), Analyzer(COUNTER)
        whole = validate_messages(msgs[:at])
        fresh_cols.extend(whole, fresh_an.fields(whole))
        assert fresh_cols.lit_text == cols.lit_text
        assert np.array_equal(kept, not_values(fresh_cols, np.zeros(len(cols.lit_text), dtype=bool)))
        quoted = cols.kind_code("quoted")
        found = [i for i in (np.flatnonzero(cols.lit_kind.view == quoted).tolist() if quoted >= 0 else [])
                 if _code_glue(cols.lit_text[i])]
        assert cols.memo(NoiseMemo).glue_hits == found and kept[found].all()
        glued = len(found)
    assert glued  # (the history has code glue to find)


def _late_speakers_history(n: int) -> list[dict]:
    """Messages with no speaker labels, then a transcript's (``Caroline:``, ``Melanie:``)
    calling each other by short names (``Caro``, ``Mell``), written before and after."""
    out: list[dict] = [{"role": "user", "content": "Ask Caro and Mell about the Paris trip, said Dana."}]
    for i in range(n):
        out.append({"role": "assistant", "content": f"Noted step {i}, Caro will call Mell at {i % 9} pm."})
        if i >= n // 2:
            out.append({"role": "user", "content": f"Caroline: Thanks, Mell! Step {i} is done in Oslo."})
            out.append({"role": "user", "content": f"Melanie: Wow, Caro, step {i} looks great."})
    return out


@pytest.mark.parametrize("batches", [[1] * 14, [3, 1, 1, 12, 1], [30]])
def test_kept_short_speaker_names_equal_found_afresh(batches: list[int]) -> None:
    """``record.noise._short_speaker_names``: read at the new literals only, none while the
    conversation has no speaker label, all again when one appears; the same literals as
    a fresh conversation's."""
    from discourse_memory.record.noise import _short_speaker_names

    msgs = _late_speakers_history(sum(batches))
    cols, analyzer, at = Columns(COUNTER.count), Analyzer(COUNTER), 0
    found: list[str] = []
    for size in batches:
        batch = validate_messages(msgs[at:at + size], start=at)
        cols.extend(batch, analyzer.fields(batch))
        at += size
        kept = list(_short_speaker_names(cols))
        fresh_cols, fresh_an = Columns(COUNTER.count), Analyzer(COUNTER)
        whole = validate_messages(msgs[:at])
        fresh_cols.extend(whole, fresh_an.fields(whole))
        assert fresh_cols.lit_text == cols.lit_text
        assert kept == _short_speaker_names(fresh_cols)
        found = [cols.lit_text[i] for i in kept]
    assert {"Caro", "Mell"} <= set(found)  # (found once the speakers appear, in earlier messages too)

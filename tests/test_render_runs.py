"""``render.render_field`` visits only the shown units: the same text as a walk over every
unit (the reference below, the walk it replaced), on real messages under random decisions
and cuts, read from the shared cache and built."""

from __future__ import annotations

import json
import random

import pytest

from discourse_memory import DiscourseMemory
from discourse_memory.plan import CLIPPED, DEDUPLICATED, KEPT, OMITTED, PLACEHOLDER
from discourse_memory.render import _indent, render_field
from discourse_memory.sample import sample_conversation
from discourse_memory.units import clipped_text

from .conftest import SHARED_DATA
from .test_analysis_cache import DictCache


def _reference(text, units, decisions, heads, ref="", speaker=None):  # type: ignore[no-untyped-def]
    """Every unit walked in turn, omitted ones too (render_field until stop 58)."""
    if all(d == KEPT for d in decisions):
        return text
    first_mark = [ref]

    def mark() -> str:
        out = PLACEHOLDER + first_mark[0]
        first_mark[0] = ""
        return out

    parts: list[str] = []
    gap_lines = omitted_run = marked = False
    label = None
    for j, d in enumerate(decisions):
        u = units[j]
        if d != KEPT and d != CLIPPED:
            if not parts and label is None and speaker and u.text.startswith(speaker + ":"):
                label = speaker + ": "
            omitted_run = True
            gap_lines = gap_lines or (bool(parts) and "\n" in u.gap)
            continue
        body = u.text if d == KEPT else clipped_text(u, heads.get(j, u.head_end))
        if d == CLIPPED and first_mark[0] and u.kind != "code" and body.endswith(PLACEHOLDER):
            body = body[:-len(PLACEHOLDER)] + mark()
        line = "\n" + _indent(u.gap) if omitted_run and (gap_lines or "\n" in u.gap) else None
        if not parts:
            parts.append(((label or "") + mark() + (line or " ") + body) if omitted_run else body)
        elif omitted_run:
            parts.append(((line or " ") if marked else (f"\n{mark()}" + line if line else f" {mark()} ")) + body)
        else:
            parts.append((u.gap or (" " if marked else "")) + body)
        parts.append(u.suffix)
        marked = d == CLIPPED and u.kind != "code"
        omitted_run = gap_lines = False
    if omitted_run and parts and not marked:
        parts.append(f"\n{mark()}" if gap_lines else f" {mark()}")
    return "".join(parts).strip()


def _histories() -> list[list[dict]]:
    out = [sample_conversation(4)]
    for name in ("swe_dev.jsonl", "tau_airline_dev.jsonl"):
        path = SHARED_DATA / "agents" / name
        if path.exists():
            out.append(json.loads(path.read_text().splitlines()[0])["messages"][:40])
    return out


@pytest.mark.parametrize("history", _histories())
def test_a_field_renders_as_a_walk_over_every_unit(history):
    cache = DictCache()
    warm = DiscourseMemory(history, cache=cache)
    warm.view(2000)
    fresh = DiscourseMemory.from_dict(warm.to_dict(), cache=cache)
    fresh.view(2000)
    rng = random.Random(58)
    checked = 0
    for cols in (warm._compactor._cols, fresh._compactor._cols):
        for m in cols.messages:
            s, e = int(cols.msg_start.view[m.index]), int(cols.msg_start.view[m.index + 1])
            texts = {tf.field: tf.text for tf in m.texts}
            for name, units in cols.units.by_field(s, e):
                if name not in texts or not len(units) or units.kind(0) == "tool_call":
                    continue
                # (rendered from the units as read first: a unit read from the cache and not built
                # yet is written from its numbers; then built, to compare)
                cases = []
                for weights in ((1, 0, 0, 0), (8, 1, 1, 1), (3, 1, 2, 0), (1, 1, 1, 1), (1, 6, 0, 1), (0, 1, 1, 0)):
                    ds = rng.choices([KEPT, OMITTED, CLIPPED, DEDUPLICATED], weights=weights, k=len(units))
                    heads = {j: rng.randrange(len(units.text(j)) + 1) for j in range(len(units))
                             if ds[j] == CLIPPED and rng.random() < 0.3}
                    for ref, speaker in (("", None), ("#3", cols.speaker(m.index)), ("", "user")):
                        cases.append((ds, heads, ref, speaker, render_field(texts[name], units, ds, heads, ref, speaker)))
                built = list(units)
                for ds, heads, ref, speaker, got in cases:
                    want = _reference(texts[name], built, ds, heads, ref, speaker)
                    assert got == want, (m.index, name, ds)
                    assert render_field(texts[name], units, ds, heads, ref, speaker) == want, (m.index, name, ds)
                    assert render_field(texts[name], built, ds, heads, ref, speaker) == want, (m.index, name, ds)
                    checked += 1
    assert checked > 100


def test_a_speaker_label_in_an_omitted_unit_is_kept_and_a_run_over_lines_opens_a_line():
    text = ("Caroline: I went to the LGBTQ support group yesterday.\n"
            "It was powerful.\nThe talks were moving. I signed up for more.")
    history = [{"role": "user", "content": text}, {"role": "assistant", "content": "Good to hear. " * 40},
               {"role": "user", "content": "What next?"}]
    memory = DiscourseMemory(history)
    memory.view(60)
    cols = memory._compactor._cols
    s, e = int(cols.msg_start.view[0]), int(cols.msg_start.view[1])
    (name, units), = list(cols.units.by_field(s, e))
    built = list(units)
    n = len(built)
    assert n >= 3
    for ds in ([OMITTED] + [KEPT] * (n - 1), [KEPT] + [OMITTED] * (n - 2) + [KEPT], [KEPT] + [OMITTED] * (n - 1),
               [OMITTED] * n, [CLIPPED] + [OMITTED] * (n - 1)):
        for speaker in (None, "Caroline"):
            assert render_field(text, units, ds, {}, "#0", speaker) == _reference(text, built, ds, {}, "#0", speaker)
    labelled = render_field(text, units, [OMITTED] + [KEPT] * (n - 1), {}, "", "Caroline")
    assert labelled.startswith("Caroline: " + PLACEHOLDER), labelled


@pytest.mark.parametrize("history", _histories())
def test_a_units_text_and_heads_end_read_from_the_cache_are_those_of_the_unit_built(history):
    # (read before any unit is built: the record joins items from the text, the render clips
    # from the head's end, neither building the unit)
    from discourse_memory.analysis_codec import DecodedPieces

    cache = DictCache()
    warm = DiscourseMemory(history, cache=cache)
    warm.view(2000)
    fresh = DiscourseMemory.from_dict(warm.to_dict(), cache=cache)
    fresh.view(2000)
    cols = fresh._compactor._cols
    units = cols.units
    texts = [units.text(i) for i in range(len(units))]
    heads = []
    decoded = 0
    for m in cols.messages:
        s, e = int(cols.msg_start.view[m.index]), int(cols.msg_start.view[m.index + 1])
        for _, field_units in units.by_field(s, e):
            decoded += isinstance(field_units._field.units, DecodedPieces)
            heads += [field_units.head_end(j) for j in range(len(field_units))]
    built = list(units)
    assert decoded
    assert texts == [u.text for u in built]
    assert heads == [u.head_end for u in built]

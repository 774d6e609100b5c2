"""A text read from the shared cache renders as the same text built (render.render_field
writes a unit shown whole from its span, read off the cache entry without building it:
field_units._FieldUnits.shown)."""

from __future__ import annotations

import json
import random

import pytest

from discourse_memory import DiscourseMemory
from discourse_memory.analysis_codec import DecodedPieces
from discourse_memory.plan import CLIPPED, KEPT, OMITTED
from discourse_memory.render import render_field
from discourse_memory.sample import sample_conversation

from .conftest import SHARED_DATA
from .test_analysis_cache import DictCache


def _histories() -> list[list[dict]]:
    out = [sample_conversation(4)]
    path = SHARED_DATA / "agents" / "swe_dev.jsonl"
    if path.exists():
        out.append(json.loads(path.read_text().splitlines()[0])["messages"][:40])
    return out


@pytest.mark.parametrize("history", _histories())
def test_units_shown_whole_render_as_the_same_string_read_from_the_cache_or_built(history):
    cache = DictCache()
    warm = DiscourseMemory(history, cache=cache)
    warm.view(2000)
    fresh = DiscourseMemory.from_dict(warm.to_dict(), cache=cache)
    fresh.view(2000)
    cols = fresh._compactor._cols
    rng = random.Random(7)
    decoded = 0
    for m in cols.messages:
        s, e = int(cols.msg_start.view[m.index]), int(cols.msg_start.view[m.index + 1])
        texts = {tf.field: tf.text for tf in m.texts}
        for name, units in cols.units.by_field(s, e):
            if name not in texts or not len(units) or units.kind(0) == "tool_call":
                continue
            decoded += isinstance(units._field.units, DecodedPieces)
            built = list(units)
            for weights in ((1, 0, 0), (8, 1, 1), (3, 1, 2), (1, 1, 1)):
                ds = rng.choices([KEPT, OMITTED, CLIPPED], weights=weights, k=len(units))
                for ref, speaker in (("", None), ("#3", cols.speaker(m.index))):
                    assert render_field(texts[name], units, ds, {}, ref, speaker) \
                        == render_field(texts[name], built, ds, {}, ref, speaker), (m.index, name, ds)
    assert decoded, "no text was read from the cache"

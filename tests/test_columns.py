"""A conversation's units are built on demand from its fields: the view must give the same
units, numbered the same way, as building them all at once."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discourse_memory.columns import Columns
from discourse_memory.messages import validate_messages
from discourse_memory.tokens import get_token_counter
from discourse_memory.units import Analyzer, Unit

COUNTER = get_token_counter()
REPEATED = "The pool size is 50. Dana owns OPS-4411."


def _conversation() -> list[dict]:
    call = {"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": json.dumps({"id": "OPS-4411"})}}
    return [
        {"role": "system", "content": "You are careful."},
        {"role": "user", "content": REPEATED + "\n\n- item one\n- item two"},
        {"role": "assistant", "content": "", "tool_calls": [call, {**call, "id": "c2"}]},
        {"role": "tool", "tool_call_id": "c1", "content": '{"owner": "Dana", "size": 50}'},
        {"role": "tool", "tool_call_id": "c2", "content": '{"owner": "Dana", "size": 50}'},
        {"role": "user", "content": [{"type": "text", "text": REPEATED}, {"type": "image_url", "image_url": {"url": "x"}},
                                     "Second part, v1.2.3."]},
        {"role": "assistant", "content": REPEATED},
    ]


def _eager(messages: list[dict]) -> list:
    """Every unit built at once, numbered by counting each key's earlier units."""
    seen: dict[str, int] = {}
    out = []
    for fields in Analyzer(COUNTER).fields(validate_messages(messages)):
        for f in fields:
            for j, u in enumerate(f.units):
                key = u.key if isinstance(u, Unit) else u.piece.key
                occurrence = seen.get(key, 0)
                seen[key] = occurrence + 1
                out.append(f.unit(j, occurrence))
    return out


def _columns(messages: list[dict], cut: int) -> Columns:
    """Columns grown in two batches, split before message ``cut``."""
    validated = validate_messages(messages)
    analyzer = Analyzer(COUNTER)
    cols = Columns(COUNTER.count)
    for batch in (validated[:cut], validated[cut:]):
        cols.extend(batch, analyzer.fields(batch))
    return cols


@pytest.mark.parametrize("cut", range(8))
def test_units_on_demand_equal_units_built_at_once(cut: int) -> None:
    messages = _conversation()
    eager = _eager(messages)
    units = _columns(messages, cut).units
    assert len(units) == len(eager)
    assert list(units) == eager
    assert [units[i] for i in range(len(eager))] == eager
    assert units[-1] == eager[-1]
    assert units[2:9] == eager[2:9] and units[5:5] == [] and units[::3] == eager[::3]
    # Repeats are numbered in order across the two batches.
    assert [u.id.split("#")[1] for u in units if u.text == "The pool size is 50."] == ["0", "1", "2"]
    with pytest.raises(IndexError):
        units[len(eager)]


@pytest.mark.parametrize("cut", [0, 3])
def test_units_by_field_are_the_units_of_each_field_in_order(cut: int) -> None:
    # The renderer reads a message's units field by field, each built when looked at.
    messages = _conversation()
    eager = _eager(messages)
    cols = _columns(messages, cut)
    units = cols.units.replaced({1: eager[1]._replace(head_end=3)})
    starts = cols.msg_start.view.tolist()
    for m in range(len(messages)):
        s, e = starts[m], starts[m + 1]
        got = [(name, list(us), us[-1] if len(us) else None, len(us[1:]))
               for name, us in units.by_field(s, e)]
        assert [u for _, us, _, _ in got for u in us] == list(units[s:e])
        assert all(u.field == name for name, us, _, _ in got for u in us)
        assert all(last == us[-1] and n == len(us) - 1 for _, us, last, n in got if us)
    assert units[1].head_end == 3
    with pytest.raises(IndexError):
        next(iter(units.by_field(0, 2)))[1][5]


@pytest.mark.parametrize("cut", [0, 3])
def test_a_fields_unit_gap_and_text_read_alone_are_its_built_units(cut: int) -> None:
    # The renderer reads the gaps and texts of the units a view leaves out without building them.
    cols = _columns(_conversation(), cut)
    units = cols.units.replaced({1: cols.units[1]._replace(text="other", gap="\n ")})
    starts = cols.msg_start.view.tolist()
    for m in range(len(starts) - 1):
        for _, us in units.by_field(starts[m], starts[m + 1]):
            assert [us.gap(j) for j in range(len(us))] == [u.gap for u in us]
            assert [us.text(j) for j in range(len(us))] == [u.text for u in us]
            with pytest.raises(IndexError):
                us.gap(len(us))
    assert units[1].text == "other" and units[1].gap == "\n "


@pytest.mark.parametrize("cut", range(8))
def test_a_units_text_read_alone_is_its_built_units_text(cut: int) -> None:
    units = _columns(_conversation(), cut).units
    assert [units.text(i) for i in range(len(units))] == [u.text for u in units]
    changed = units.replaced({1: units[1]._replace(text="other")})
    assert changed.text(1) == "other" and changed.text(2) == units[2].text
    for bad in (-1, len(units)):
        with pytest.raises(IndexError):
            units.text(bad)


def test_the_units_of_one_length_are_read_once_and_a_longer_conversation_gets_its_own() -> None:
    validated = validate_messages(_conversation())
    analyzer = Analyzer(COUNTER)
    cols = Columns(COUNTER.count)
    cols.extend(validated[:4], analyzer.fields(validated[:4]))
    before = cols.units
    assert cols.units is before
    cols.extend(validated[4:], analyzer.fields(validated[4:]))
    after = cols.units
    assert after is not before and len(after) > len(before) and list(after)[:len(before)] == list(before)


def test_a_view_keeps_its_length_and_replacements_as_the_conversation_grows() -> None:
    messages = _conversation()
    validated = validate_messages(messages)
    analyzer = Analyzer(COUNTER)
    cols = Columns(COUNTER.count)
    cols.extend(validated[:4], analyzer.fields(validated[:4]))
    before = cols.units
    n = len(before)
    changed = before.replaced({1: before[1]._replace(head_end=3)})
    cols.extend(validated[4:], analyzer.fields(validated[4:]))
    assert len(before) == n == len(changed) < len(cols.units)
    assert changed[1].head_end == 3 and before[1].head_end != 3
    assert list(changed)[2:] == list(before)[2:]


@settings(max_examples=40, deadline=None)
@given(st.lists(st.sampled_from(["", REPEATED, "- a\n- b", "x: 1\ny: 2", "One. Two. One."]), min_size=1, max_size=12),
       st.integers(0, 12))
def test_any_split_into_batches_numbers_units_as_one_batch(texts: list[str], cut: int) -> None:
    messages = [{"role": "user" if i % 2 else "assistant", "content": t} for i, t in enumerate(texts)]
    assert list(_columns(messages, min(cut, len(messages))).units) == _eager(messages)


def test_marks_read_with_an_analysis_make_the_columns_that_finding_them_makes() -> None:
    # (a shared cache hands a text's marks with its analysis: text_marks.py; the columns must
    # not tell them from marks found from the pieces, nor a tool call's from its arguments)
    from discourse_memory.text_marks import marks_of

    messages = _conversation() + [
        {"role": "user", "content": "Then Dana met Mia Li.\n\n<output>\nsee <pr_description> above\n</output>\nexit 0\n"}]
    validated = validate_messages(messages)
    fields = Analyzer(COUNTER).fields(validated)
    assert all(f.marks is None for fs in fields for f in fs)  # (no shared cache: found by the columns)
    marked = [[f if f.units and isinstance(f.units[0], Unit) else f._replace(
        marks=marks_of(f.text, [mp.piece for mp in f.units])) for f in fs] for fs in fields]
    found, given_ = Columns(COUNTER.count), Columns(COUNTER.count)
    found.extend(validated, fields)
    given_.extend(validated, marked)
    for name in ("lit_mid", "lit_tags", "u_tag_line"):
        assert getattr(found, name).view.tolist() == getattr(given_, name).view.tolist(), name
    assert found.lit_mid.view.any() and found.lit_tags.view.any() and found.u_tag_line.view.any()

"""The record's per-value reads that take a shortcut: each against its plain definition (the
shortcut exists for speed only and must give the same answers)."""

from __future__ import annotations

import re
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from discourse_memory import DiscourseMemory
from discourse_memory.fit import rank
from discourse_memory.record.items import UnitItems, first_statements
from discourse_memory.record.keys import _COLON, _JSON_KEY_BEFORE, _LABEL_BEFORE, _LABEL_THEN, _joined, _key
from discourse_memory import traces
from discourse_memory.record.limits import LIMITS
from discourse_memory.record.lines import _BANNER, _banner_before, _line_start, _word_char, code_line
from discourse_memory.record.text import _BREAKS, _SPACES, sanitize
from discourse_memory.units import Unit

# code_line's word test as it was written before (a hyphen joins a name): the reference its
# faster form is held to
_WORD_CHAR = re.compile(r"[\w-]")


def _plain_sanitize(text: str) -> str:
    return _SPACES.sub(" ", _BREAKS.sub(" ", text)).strip()


def test_the_only_printable_whitespace_is_the_space_and_no_break_is_printable() -> None:
    # (what sanitize's shortcut for printable text rests on, for every code point)
    for code in range(sys.maxunicode + 1):
        c = chr(code)
        if c.isprintable():
            assert not (c.isspace() or _SPACES.fullmatch(c)) or c == " ", hex(code)
            assert not _BREAKS.fullmatch(c), hex(code)


def test_word_char_is_the_patterns_class_for_every_code_point() -> None:
    for code in range(sys.maxunicode + 1):
        c = chr(code)
        assert _word_char(c) == (_WORD_CHAR.match(c) is not None), hex(code)


_PIECES = [" ", "  ", "\t", "\n", "\r\n", "\u2028", "\x00", "\xa0", "\u3000", "a", "Zürich", "-", "_", "v2.3", ":",
           "\uff1a", "**", "- ", "on", "at", "from", "until", "by", '"key"', "'k'", "x1", "東京", "\x85", ","]
texts = st.lists(st.sampled_from(_PIECES), max_size=30).map("".join)


@settings(max_examples=400, deadline=None)
@given(texts)
def test_sanitize_matches_its_two_substitutions(text: str) -> None:
    assert sanitize(text) == _plain_sanitize(text)


@settings(max_examples=400, deadline=None)
@given(texts, st.integers(0, 200))
def test_keys_look_before_a_value_only_rules_out_what_no_pattern_matches(text: str, at: int) -> None:
    start = min(at, len(text))
    near = text[max(0, start - 12):start]
    if _JSON_KEY_BEFORE.search(text, max(0, start - 60), start) or _LABEL_BEFORE.search(text, max(0, start - 60), start):
        assert _COLON.search(near)
    if _LABEL_THEN.search(text, max(0, start - 90), start):
        assert _joined(text, start)


def test_a_label_then_a_joining_word_still_keys_the_value_after_it() -> None:
    text = "- Departure: 10:00 PM EST on May 20, 2024"
    assert _key(_unit(text), text.index("May"), len(text)) == "Departure"
    spaced = "- Departure: 10:00 PM EST until" + " " * 50 + "May 20"
    assert _key(_unit(spaced), spaced.index("May"), len(spaced)) == "Departure"


def _unit(text: str) -> Unit:
    return Unit(id="u#0", kind="list_item", message=0, field="content", start=0, end=len(text), text=text, key="k",
                occurrence=0, literals=())


def _plain_code_line(text: str, start: int, end: int) -> tuple[int, int]:
    """code_line as it was written first: a pattern match per character at the window's ends."""
    lo, whole = _line_start(text, start)
    hi = text.find("\n", end, end + LIMITS.line_scan)
    hi = min(len(text), end + LIMITS.line_scan) if hi < 0 else hi
    while lo < start and text[lo] in " \t":
        lo += 1
    while hi > end and text[hi - 1] in " \t\r":
        hi -= 1
    head, tail = _BANNER.match(text, lo, start), _banner_before(text, end, hi)
    if head is not None and tail is not None:
        lo, hi = head.end(), tail
    chars = LIMITS.line_chars
    if hi - lo <= chars or (hi - lo <= 4 * chars and len(_plain_sanitize(text[lo:hi])) <= chars):
        return lo, hi
    number = traces.line_number().match(text, lo, start) if whole else None
    if number is not None:
        lo = number.end()
        while lo < start and text[lo] in " \t":
            lo += 1
    room = max(chars - (end - start), 0)
    a = max(lo, start - room // 3)
    b = min(hi, end + room - (start - a))
    a = max(lo, min(a, b - chars))
    while lo < a < start and _WORD_CHAR.match(text, a - 1) and _WORD_CHAR.match(text, a):
        a += 1
    while end < b < hi and _WORD_CHAR.match(text, b - 1) and _WORD_CHAR.match(text, b):
        b -= 1
    return a, b


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(["run", "payments-gw", "x_y", "é", " ", "  ", "=", "(", "42", "\t", "Ünïcode",
                                 "\n", "12: ", "=====", "东京"]), min_size=1, max_size=80).map("".join),
       st.integers(0, 400), st.integers(0, 12))
def test_code_line_is_its_plain_definition(text: str, at: int, width: int) -> None:
    start = min(at, len(text))
    end = min(len(text), start + width)
    assert code_line(text, start, end) == _plain_code_line(text, start, end)


def test_a_units_items_read_in_any_order_are_each_values_item_read_alone() -> None:
    # UnitItems reads what is the same for every value of a unit once: the items must not
    # depend on which value was asked first.
    msgs = [
        {"role": "user", "content": "Deploy svc-12 to v2.3.1 on 2026-10-08; ticket OPS-4412 tracks it."},
        {"role": "assistant", "content": "- Flight HAT192 from MIA to EWR on 2024-05-24\n- Departure: 10:00 PM EST "
                                         "on May 20, 2024\n- **Total Price**: $189"},
        {"role": "user", "content": "42: x = compute(17, 'a b')  # line 17 of /etc/app/config.yaml\n"
                                    "tests/test_x.py:1312: AssertionError 3 != 4\n" + "pods 239 ms 674 " * 20},
        {"role": "assistant", "content": "Done."},
    ]
    got: dict[str, object] = {}
    orig = rank._items

    def spy(scene, *args):  # type: ignore[no-untyped-def]
        got["cols"], got["units"] = scene.cols, args[-2]
        return orig(scene, *args)

    rank._items = spy
    try:
        DiscourseMemory(msgs).view(80)
    finally:
        rank._items = orig
    cols, units = got["cols"], got["units"]
    starts, u_msg = cols.msg_start.view, cols.u_msg.view
    checked = 0
    for u in range(len(units)):
        unit = units[u]
        first = bool(starts[u_msg[u]] == u)
        lits = list(dict.fromkeys(cols.lit_ids[x.text] for x in unit.literals if x.text in cols.lit_ids))
        alone = [UnitItems(cols, u, unit, first).item(lit) for lit in lits]
        together = UnitItems(cols, u, unit, first, first_statements(unit))
        backwards = [together.item(lit) for lit in reversed(lits)][::-1]
        assert backwards == alone
        checked += len(lits)
    assert checked > 20
    assert re.search(r"\d", " ".join(str(u.text) for u in units))


def test_an_item_widened_by_its_slots_is_the_item_replaced() -> None:
    from dataclasses import FrozenInstanceError, fields, replace

    import pytest

    from discourse_memory.record import Item, widened

    values = {"literal": 1, "unit": 2, "message": 3, "text": "x", "span": (1, 2), "covers": (1,), "header": True,
              "key": "k", "value": "v", "row": "r", "group": 5}
    assert set(values) == {f.name for f in fields(Item)}  # (a field added to Item must be set by widened too)
    item = Item(**values)  # type: ignore[arg-type]
    wide = widened(item, (1, 7, 9))
    assert wide == replace(item, covers=(1, 7, 9))
    assert hash(wide) == hash(replace(item, covers=(1, 7, 9)))
    assert all(getattr(wide, name) == (value if name != "covers" else (1, 7, 9)) for name, value in values.items())
    with pytest.raises(FrozenInstanceError):
        wide.text = "y"  # type: ignore[misc]


def test_items_built_column_by_column_are_the_items() -> None:
    """``built_items`` (a settable twin of Item's slots, its class then made Item) gives Items
    equal to those ``Item(...)`` makes, of the same type, hash and repr, and as frozen."""
    from dataclasses import FrozenInstanceError, astuple, fields

    import pytest

    from discourse_memory.record import Item, built_items
    from discourse_memory.record.entries import _Building

    assert _Building.__slots__ == Item.__slots__ == tuple(f.name for f in fields(Item))
    rows = [(1, 2, 3, "x", (1, 2), (1,), True, "k", "v", "r", 5),
            (7, 0, 0, "7 ms", None, (7, 9, 11), False, None, "", None, -1)]
    built = built_items(*map(list, zip(*rows)))
    assert [type(it) for it in built] == [Item, Item]
    assert built == [Item(*row) for row in rows]  # type: ignore[arg-type]
    assert [repr(it) for it in built] == [repr(Item(*row)) for row in rows]  # type: ignore[arg-type]
    assert [hash(it) for it in built] == [hash(Item(*row)) for row in rows]  # type: ignore[arg-type]
    assert [astuple(it) for it in built] == rows
    assert built_items([], [], [], [], [], [], [], [], [], [], []) == []
    with pytest.raises(FrozenInstanceError):
        built[0].text = "y"  # type: ignore[misc]

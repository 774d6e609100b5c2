"""A conversation's columns read from the shared cache (shared_columns.py) are the columns it
builds without it, array for array; an entry that breaks a rule, or does not continue the
conversation, is not read, and the columns are built instead."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from discourse_memory import Compactor, DiscourseMemory, cache_entry, shared_columns
from discourse_memory.columns import Columns
from discourse_memory.limits import LIMITS
from discourse_memory.fit.signals import _outputs, found_scans, listing_messages, reading_messages
from discourse_memory.outline import found_heads, list_heads
from discourse_memory.record.examples import comment_units, example_units, harness_units
from discourse_memory.record.examples import found_scans as found_prompt_scans
from discourse_memory.record.noise import lowercase_words

from .conftest import SHARED_DATA
from .test_analysis_cache import SECRET, DictCache, _bytes, _is_cols, _resigned

ARRAYS = ["msg_start", "msg_cost", "msg_label_cost", "msg_session", "u_msg", "u_kind", "u_tokens", "u_clip",
          "u_clippable", "u_head_share", "u_key", "lit_ptr", "lit_idx", "head_ptr", "head_idx", "word_ptr", "word_idx",
          "word_df", "key_total", "key_newest", "lit_kind", "lit_df", "lit_last_msg", "lit_mid", "lit_tags",
          "u_tag_line"]
LISTS = ["word_text", "lit_text", "key_text", "lit_kind_names", "kind_name_row", "msg_date", "_occurrences", "_labels",
         "_firsts"]
DICTS = ["word_ids", "lit_ids", "key_ids", "_number_labels", "_label_uses", "_lit_kind_codes"]


def _run(name: str, line: int = 0) -> list[dict]:
    path = SHARED_DATA / name
    if not path.exists():
        pytest.skip(f"{path} is not there")
    return json.loads(path.read_text().splitlines()[line])["messages"]


def _same_columns(got: Columns, want: Columns) -> None:
    for name in ARRAYS:
        a, b = getattr(got, name).view, getattr(want, name).view
        assert a.dtype == b.dtype and np.array_equal(a, b), name
    for name in LISTS + DICTS:
        a, b = getattr(got, name), getattr(want, name)
        assert a == b and (not isinstance(a, dict) or list(a.items()) == list(b.items())), name
    assert len(got.units) == len(want.units)
    assert list(got.units) == list(want.units)
    # and the first-view scans the shared segments seeded
    assert list(lowercase_words(got).items()) == list(lowercase_words(want).items())
    assert np.array_equal(list_heads(got), list_heads(want))
    assert np.array_equal(listing_messages(got, _outputs(got)), listing_messages(want, _outputs(want)))
    assert np.array_equal(reading_messages(got, _outputs(got)), reading_messages(want, _outputs(want)))
    (got_ex, got_out), (want_ex, want_out) = example_units(got), example_units(want)
    assert np.array_equal(got_ex, want_ex) and list(got_out.items()) == list(want_out.items())
    assert np.array_equal(harness_units(got), harness_units(want))
    assert np.array_equal(comment_units(got), comment_units(want))


def _columns(msgs: list[dict], cache: DictCache | None) -> tuple[Columns, int]:
    compactor = Compactor(cache=cache)
    took: list[int] = []
    if compactor._shared_cols is not None:
        real = compactor._shared_cols.take

        def spy(*args):  # type: ignore[no-untyped-def]
            took.append(real(*args))
            return took[-1]

        compactor._shared_cols.take = spy  # type: ignore[method-assign]
    compactor._columns(msgs)
    return compactor._cols, (took[0] if took else 0)


def _segments(n: int) -> list[tuple[int, int]]:
    return cache_entry.segments(n, LIMITS.shared_segment, LIMITS.shared_group)


def _written(msgs: list[dict], budget_share: float = 0.25) -> DictCache:
    cache = DictCache()
    memory = DiscourseMemory(msgs, cache=cache)
    memory.view(max(1, int(Compactor().count_messages(msgs) * budget_share)))
    return cache


@pytest.mark.parametrize("name,line", [("agents/swe_dev.jsonl", 0), ("agents/tau_airline_dev.jsonl", 1),
                                       ("multilingual/crosswoz_dev.jsonl", 0)])
def test_columns_read_from_the_cache_are_the_columns_built(name, line):
    msgs = _run(name, line)
    cache = _written(msgs)
    assert len([k for k in cache.data if _is_cols(k)]) == len(_segments(len(msgs)))
    got, took = _columns(msgs, cache)
    assert took == len(msgs) // LIMITS.shared_segment * LIMITS.shared_segment
    # (seeded: the scans a writer's views made; an agent run's views make them all)
    assert found_heads(got)[1] == took and all(len(x) in (0, took) for x in found_scans(got))
    if name.startswith("agents/"):
        assert [len(x) for x in found_scans(got)] == [took, took]
        assert found_prompt_scans(got).seen == took
    want, _ = _columns(msgs, None)
    _same_columns(got, want)
    # and a conversation that goes on past them: its new messages built on the shared ones
    more = msgs + [{"role": "user", "content": "Flight HAT110 on 2024-05-17, booking ZFA04Y: confirm?"}]
    got, _ = _columns(more, cache)
    _same_columns(got, _columns(more, None)[0])


@pytest.mark.parametrize("step,group", [(1, 1), (1, 3), (2, 2), (4, 4), (4, 1)])
def test_the_segments_cover_a_conversation_from_its_first_message_and_their_end_names_them(step, group):
    named: dict[int, int] = {}  # end -> start, over every length of conversation
    for n in range(0, 200):
        got = cache_entry.segments(n, step, group)
        assert [a for a, _ in got] == [0, *(b for _, b in got)][:len(got)]  # (contiguous, from the first message)
        assert (got[-1][1] if got else 0) == n // step * step  # (to the last whole short segment)
        assert all(b - a in (step, step * group) for a, b in got)
        assert all(a % (step * group) == 0 for a, b in got if b - a == step * group)
        for a, b in got:
            assert named.setdefault(b, a) == a  # (one segment per end, whatever the length)


def test_a_warm_worker_merges_its_short_segments_into_a_settled_one():
    """A worker that took a conversation's turns one by one wrote the short segments' entries
    as turns completed them, then the settled segment's that merges them (its vocabularies
    numbered from its own first message, not from the last it wrote): a fresh worker reads
    the settled segments and the short ones after them, columns equal to those it builds."""
    msgs = _run("agents/swe_dev.jsonl", 1)
    big = LIMITS.shared_segment * LIMITS.shared_group
    n = len(msgs) // big * big + LIMITS.shared_segment + 1
    assert n <= len(msgs) and n > 2 * big
    msgs = msgs[:n]
    cache = DictCache()
    memory = DiscourseMemory(msgs[:2], cache=cache)
    for m in msgs[2:]:
        memory.append(m)
        memory.view(max(1, Compactor().count_messages(msgs) // 4))
    ends = sorted(int(k.split(":u")[1].split(":")[0]) for k in cache.data if _is_cols(k))
    # (the short segments' entries it wrote before a settled one replaced them in the plan stay)
    assert {b for _, b in _segments(n)} <= set(ends)
    assert any(b % big for b in ends if b < n // big * big)
    got, took = _columns(msgs, cache)
    assert took == n // LIMITS.shared_segment * LIMITS.shared_segment
    _same_columns(got, _columns(msgs, None)[0])
    # with its settled segments' entries alone (the short ones of before gone)
    for k in [k for k in cache.data if _is_cols(k) and int(k.split(":u")[1].split(":")[0]) not in
              {b for _, b in _segments(n)}]:
        del cache.data[k]
    got, took = _columns(msgs, cache)
    assert took == n // LIMITS.shared_segment * LIMITS.shared_segment
    _same_columns(got, _columns(msgs, None)[0])


def test_a_resigned_column_entry_that_breaks_a_rule_is_refused():
    msgs = _run("agents/tau_airline_dev.jsonl", 0)
    cache = _written(msgs)
    want, _ = _columns(msgs, None)
    expected = _bytes(DiscourseMemory(msgs).view(500))
    keys = sorted((int(k.split(":u")[1].split(":")[0]), k) for k in cache.data if _is_cols(k))
    b, key = keys[len(keys) // 2]
    a = dict((end, start) for start, end in _segments(len(msgs)))[b]
    head = shared_columns._HEAD  # (the header's numbers, then each message's units)
    n_msgs = b - a
    unit = head + n_msgs  # the first unit's numbers: key, literals, heads, words
    cols = shared_columns._COLS
    edits = {
        "a message with a unit more": lambda x: x.__setitem__(head, x[head] + 1),
        "a key below 0": lambda x: x.__setitem__(unit, -5),
        "a key out of the vocabulary": lambda x: x.__setitem__(unit, 10**9),
        "more literals than it has": lambda x: x.__setitem__(unit + 1, x[unit + 1] + 1),
        "a vocabulary that starts elsewhere": lambda x: x.__setitem__(6, x[6] + 1),
        "a literal out of the vocabulary": lambda x: x.__setitem__(unit + cols * int(x[2]) if x[3] else unit, 10**9),
        "a lower-case word counted more than its texts hold": lambda x: x.__setitem__(-1 - int(x[14]) * int(x[2])
                                                                                        - (int(x[15]) + int(x[16])) * n_msgs
                                                                                        - int(x[18] + 2 * x[19] + x[20] + x[21]), 10**9),
        "another segment's": lambda x: x.__setitem__(1, b + 1),
        "a flag neither 0 nor 1": lambda x: x.__setitem__(14, 2),
        "prompt scans' flag neither 0 nor 1": lambda x: x.__setitem__(17, 2),
        "prompt scans' units without the flag": lambda x: (x.__setitem__(17, 0), x.__setitem__(20, x[20] + 1)),
    }
    original = cache.data[key]
    for what, edit in edits.items():
        cache.data[key] = _resigned(shared_columns, key, original, edit)
        got, took = _columns(msgs, cache)
        # (the segments before it are read, not it nor those after it; a count checked against the
        # conversation's texts, with the run, refuses the run)
        assert took == (0 if what.startswith("a lower-case word") else a), what
        _same_columns(got, want)
        assert _bytes(DiscourseMemory(msgs, cache=cache).view(500)) == expected, what
    cache.data[key] = original
    assert _columns(msgs, cache)[1] == len(msgs) // LIMITS.shared_segment * LIMITS.shared_segment


@pytest.mark.parametrize("what", ["an example unit past its segment", "an example unit below 0",
                                  "a literal outside an example out of the vocabulary", "a harness unit twice"])
def test_prompt_scans_that_break_a_rule_are_made_instead(what):
    msgs = _run("agents/swe_dev.jsonl", 1)
    cache = _written(msgs)
    want, _ = _columns(msgs, None)
    expected = _bytes(DiscourseMemory(msgs).view(800))
    head = shared_columns._HEAD
    found = []
    for key, blob in cache.data.items():  # (an entry with example units, literals outside them and harness units)
        if _is_cols(key):
            ints = cache_entry.unseal(shared_columns.MAGIC, shared_columns.PERSON, key, blob, SECRET)[1]
            if ints[17] and ints[18] and ints[19] and ints[20] > 1:
                found.append(key)
    assert found
    key = found[0]

    def edit(x):  # type: ignore[no-untyped-def]
        n_ex, n_out = int(x[18]), int(x[19])
        ex = len(x) - int(x[18] + 2 * x[19] + x[20] + x[21])  # where the prompt scans start
        out, har = ex + n_ex, ex + n_ex + 2 * n_out
        if what == "an example unit past its segment":
            x[ex + n_ex - 1] = x[2]
        elif what == "an example unit below 0":
            x[ex] = -1
        elif what == "a literal outside an example out of the vocabulary":
            x[out + 1] = 10**9
        else:
            x[har + 1] = x[har]

    cache.data[key] = _resigned(shared_columns, key, cache.data[key], edit)
    got, took = _columns(msgs, cache)
    assert took == len(msgs) // LIMITS.shared_segment * LIMITS.shared_segment  # (the columns are read)
    _same_columns(got, want)
    assert _bytes(DiscourseMemory(msgs, cache=cache).view(800)) == expected


def test_a_column_entry_is_read_only_by_its_own_conversation():
    msgs = _run("agents/swe_dev.jsonl", 1)
    cache = _written(msgs)
    other = [dict(m) for m in msgs]
    other[2]["content"] = (other[2].get("content") or "") + " (edited)"
    got, took = _columns(other, cache)
    assert took == 0
    _same_columns(got, _columns(other, None)[0])
    # A missing segment: those before it are read, the rest built.
    keys = sorted((int(k.split(":u")[1].split(":")[0]), k) for k in cache.data if _is_cols(k))
    del cache.data[keys[2][1]]
    got, took = _columns(msgs, cache)
    assert took == dict((end, start) for start, end in _segments(len(msgs)))[keys[2][0]]
    _same_columns(got, _columns(msgs, None)[0])


def test_a_failing_store_is_a_miss():
    msgs = _run("agents/tau_airline_dev.jsonl", 0)
    cache = _written(msgs)

    class Failing(DictCache):
        def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
            if any(_is_cols(k) for k in keys):
                raise ConnectionError("down")
            return super().get_many(keys)

        def set_many(self, items: Mapping[str, bytes]) -> None:
            raise ConnectionError("down")

    failing = Failing()
    failing.data = cache.data
    got, took = _columns(msgs, failing)
    assert took == 0
    _same_columns(got, _columns(msgs, None)[0])


def _memos(cols: Columns) -> tuple:
    """The scans of questions, titles, the literals' noise and the words' stems, as a view left
    them, and the verdicts read (of the lines a view read: those of the plain memory's)."""
    from discourse_memory.focus import found_stems
    from discourse_memory.fit.rank import found_titles
    from discourse_memory.record.noise import found_literal_scans
    from discourse_memory.replies import found_question_units

    from discourse_memory.fit.signals import found_verdicts

    return (list(found_question_units(cols)), list(found_titles(cols)), found_literal_scans(cols),
            found_stems(cols), found_verdicts(cols))


@pytest.mark.parametrize("what", ["a question unit past its message", "a question unit below -1",
                                  "a title past its segment", "a title that is no heading",
                                  "titles whose steps overflow",
                                  "encoded literals out of order", "a capitals class of 3",
                                  "code glue past the new literals", "code glue that is not a quoted literal",
                                  "a stem number out of range", "stems numbered out of order",
                                  "a verdict's line past its segment", "a verdict neither 0 nor 1"])
def test_more_scans_that_break_a_rule_are_made_instead(what, monkeypatch):
    msgs = _run("agents/swe_dev.jsonl", 1)
    budget = 800
    cache = _written(msgs)
    want, _ = _columns(msgs, None)
    plain = DiscourseMemory(msgs)
    expected = _bytes(plain.view(budget))
    head, n_cols = shared_columns._HEAD, shared_columns._COLS
    entries = {}
    for key, blob in cache.data.items():
        if _is_cols(key):
            ints = cache_entry.unseal(shared_columns.MAGIC, shared_columns.PERSON, key, blob, SECRET)[1]
            entries[int(ints[0])] = key
    second = "glue" in what or "verdict" in what
    key = entries[16 if second else 0]  # (the first entry: titles, encoded, capitals; the second: glue, verdicts)
    heading = list(want.units[u].kind == "heading" for u in range(len(want.units)))
    quoted = want.kind_code("quoted")

    def edit(x):  # type: ignore[no-untyped-def]
        a, b, n_units, n_l, l0 = int(x[0]), int(x[1]), int(x[2]), int(x[9]), int(x[8])
        q = head + (b - a) + n_cols * n_units + int(x[3] + x[4] + x[5]) + n_l + int(x[12])
        t = q + int(x[22]) * (b - a)
        e, n_t = t + int(x[24]), int(x[24])
        c = e + int(x[26])
        g = c + 2 * int(x[27])
        s = g + int(x[28])
        v = s + int(x[29]) * int(x[11])
        assert x[22] and x[29] and (x[28] and x[32] > 1 if second else n_t > 1 and x[26] > 1 and x[27])
        if what == "a question unit past its message":
            x[q + (b - a) - 1] = 10**6
        elif what == "a question unit below -1":
            x[q] = -2
        elif what == "a title past its segment":
            x[t + n_t - 1] = n_units
        elif what == "titles whose steps overflow":  # (np.diff's steps wrapped to "rising": then an IndexError)
            assert n_t >= 4
            x[t + 1], x[t + 2] = 7 * 10**18, -6 * 10**18
        elif what == "a title that is no heading":
            x[t] = next(u for u in range(int(x[t + 1])) if not heading[a + u])
        elif what == "encoded literals out of order":
            x[e + 1] = x[e]
        elif what == "a capitals class of 3":
            x[c + 1] = 3
        elif what == "code glue past the new literals":
            x[g + int(x[28]) - 1] = n_l
        elif what == "code glue that is not a quoted literal":
            x[g] = next(r for r in range(int(x[g + 1]) if x[28] > 1 else n_l) if want.lit_kind.view[l0 + r] != quoted)
        elif what == "a verdict's line past its segment":
            x[v + 2 * int(x[32]) - 2] = 10**6
        elif what == "a verdict neither 0 nor 1":
            x[v + 1] = 2
        elif what == "a stem number out of range":
            x[s] = 10**6
        else:
            x[s] = 1

    cache.data[key] = _resigned(shared_columns, key, cache.data[key], edit)
    runs = []
    real = shared_columns.decode_run
    monkeypatch.setattr(shared_columns, "decode_run", lambda *a: runs.append(real(*a)) or runs[-1])
    got, took = _columns(msgs, cache)
    assert took == len(msgs) // LIMITS.shared_segment * LIMITS.shared_segment  # (the columns are read)
    _same_columns(got, want)
    read = runs[0].verdicts  # (the run's verdicts: none of the broken entry's)
    assert read is None or (bool(np.isin(read[:, 1], (0, 1)).all()) and int(read[:, 0].max()) < len(want.units))
    fresh = DiscourseMemory(msgs, cache=cache)
    assert _bytes(fresh.view(budget)) == expected
    got_memos, want_memos = _memos(fresh._compactor._cols), _memos(plain._compactor._cols)
    assert got_memos[:4] == want_memos[:4]
    assert all(got_memos[4].get(u) == hit for u, hit in want_memos[4].items())


def _numbered_by_sorting(ids: np.ndarray, before: int, new: int) -> bool:
    """The rule of ``shared_columns._numbered`` as it was written before stop 60 (a sort of the
    new numbers): the one-pass check must refuse exactly what this refused."""
    if not len(ids):
        return new == 0
    if int(ids.min()) < 0 or int(ids.max()) >= before + new:
        return False
    values, first = np.unique(ids[ids >= before], return_index=True)
    return len(values) == new and bool((np.diff(first) > 0).all())


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 5), st.integers(0, 5), st.data())
def test_stems_numbered_is_checked_as_by_sorting(before, new, data):
    # (half the draws a well-numbered list, each new number first appearing in order among old
    # ones, then perhaps one number changed; the rest any list of numbers around the range)
    if data.draw(st.booleans()):
        ids = data.draw(st.lists(st.integers(0, max(before - 1, 0)), max_size=6)) if before else []
        for v in range(before, before + new):
            ids.insert(data.draw(st.integers(len(ids) // 2, len(ids))), v)
        if ids and data.draw(st.booleans()):
            ids[data.draw(st.integers(0, len(ids) - 1))] = data.draw(st.integers(-1, before + new))
    else:
        ids = data.draw(st.lists(st.integers(-1, before + new), max_size=8))
    got = np.asarray(ids, dtype=np.int64)
    assert shared_columns._numbered(got, before, new) == _numbered_by_sorting(got, before, new)

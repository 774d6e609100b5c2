"""The shared analysis cache: a view through it, cold, warm or with bad entries, is the view
made without it, byte for byte; a bad entry or a failing store is a miss, never an error."""

from __future__ import annotations

import dataclasses
import json
import logging
import zlib
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discourse_memory import AnalysisCache, Compactor, DiscourseMemory, InvalidOptionError, RedisAnalysisCache
from discourse_memory import analysis_codec, cache_entry, shared_columns, shared_counts
from discourse_memory.analysis_cache import bind
from discourse_memory.fit import shared_rows
from discourse_memory.limits import LIMITS
from discourse_memory.text_marks import marks_of

from .conftest import SHARED_DATA
from .test_properties import conversations

SECRET = b"workers-share-this"


class DictCache:
    """The smallest store: a dict (docs/workers.md has it too)."""

    def __init__(self, secret: bytes = SECRET) -> None:
        self.data: dict[str, bytes] = {}
        self.secret = secret
        self.reads = 0

    def get_many(self, keys: Sequence[str]) -> list[bytes | None]:
        self.reads += 1
        return [self.data.get(k) for k in keys]

    def set_many(self, items: Mapping[str, bytes]) -> None:
        self.data.update(items)


def _swe_run(i: int) -> tuple[list[dict], int]:
    """Run ``i`` of ``swe_dev.jsonl`` and a budget of a quarter of its tokens (skipped where
    the data is not there)."""
    path = SHARED_DATA / "agents" / "swe_dev.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is not there")
    msgs = json.loads(path.read_text().splitlines()[i])["messages"]
    return msgs, Compactor().count_messages(msgs) // 4


def _bytes(view) -> tuple[str, str, int]:  # type: ignore[no-untyped-def]
    return json.dumps(view.messages, sort_keys=True, ensure_ascii=False), view.note or "", view.tokens_after


def _resigned(fmt, key: str, blob: bytes, edit, later: bool = False) -> bytes:  # type: ignore[no-untyped-def]
    """``blob``, an entry of format ``fmt`` (``analysis_codec`` or ``shared_rows``), with its int
    columns edited by ``edit`` and signed again (a writer that knows the secret); an analysis
    entry's first stream's numbers, or with ``later`` its second's."""
    if fmt is not analysis_codec:
        strings, ints = cache_entry.unseal(fmt.MAGIC, fmt.PERSON, key, blob, SECRET)  # type: ignore[misc]
        ints = ints.copy()
        edit(ints)
        return cache_entry.seal(fmt.MAGIC, fmt.PERSON, key, strings, ints, SECRET)
    strings, ints, rest = _analysis(key, blob)
    edited = (rest[1] if later else ints).copy()
    edit(edited)
    return cache_entry.seal(fmt.MAGIC, fmt.PERSON, key, strings, ints if later else edited, SECRET,
                            later=(rest[0], edited if later else rest[1]))


def _analysis(key: str, blob: bytes) -> tuple[list[str], np.ndarray, tuple[list[str], np.ndarray]]:
    """An analysis entry's first stream's strings and numbers, and its second stream's."""
    strings, ints, later = cache_entry.unseal_split(analysis_codec.MAGIC, analysis_codec.PERSON, key, blob,
                                                    SECRET)  # type: ignore[misc]
    rest = later.open()
    assert rest is not None
    return strings, ints, rest


def _bad_later(key: str, blob: bytes, how: int) -> bytes:
    """An analysis entry whose first stream holds and whose second does not, signed (by a
    writer with the secret, as one without it signs for a store without a secret): garbage,
    not DEFLATE's; DEFLATE of garbage; a word past the strings; a head (or a word) below 0; a
    string short."""
    strings, ints, (b_strings, b_ints) = _analysis(key, blob)
    n_words, n_strings = int(ints[2]), int(ints[9])
    first = cache_entry.deflate(cache_entry._raw(strings, ints))
    if how == 0:
        second = b"\x00garbage"
    elif how == 1:
        second = cache_entry.deflate(b"\xff" * 40)
    elif how in (2, 3):
        b_ints = b_ints.copy()
        if len(b_ints) == 0:
            b_ints = np.array([-1])
        elif how == 2 and n_words:
            b_ints[0] = n_strings
        else:
            b_ints[-1] = -1 if how == 3 else 10**6
        second = cache_entry.deflate(cache_entry._raw(b_strings, b_ints))
    else:
        second = cache_entry.deflate(cache_entry._raw(b_strings[:-1] if b_strings else ["x"], b_ints))
    body = np.array([len(first)], dtype="<u4").tobytes() + first + second
    return analysis_codec.MAGIC + cache_entry.digest(analysis_codec.PERSON, key, body, SECRET) + body


def _forged(fmt, key: str, blob: bytes) -> bytes:  # type: ignore[no-untyped-def]
    """``blob`` signed by a writer without the secret."""
    body = blob[len(fmt.MAGIC) + cache_entry.DIGEST:]
    return fmt.MAGIC + cache_entry.digest(fmt.PERSON, key, body, b"") + body


def _covers_end(ints: np.ndarray) -> int:
    """Where a row entry's covers end (its messages' speakers follow them, then its labels)."""
    n_rows, cols = int(ints[2]), shared_rows._COLS
    shown = int(np.maximum(ints[4 + cols - 1:4 + cols * n_rows:cols], 0).sum())
    return 4 + cols * n_rows + shown + int(ints[3])


def _labels_start(ints: np.ndarray) -> int:
    """Where a row entry's labels start: after its covers and its messages' speakers."""
    return _covers_end(ints) + int(ints[1] - ints[0])


def _is_rows(key: str) -> bool:
    return ":r" in key  # a conversation's row entry (fit/shared_rows.py), not a text's analysis


def _is_cols(key: str) -> bool:
    return ":u" in key  # a conversation's column entry (shared_columns.py)


def _is_counts(key: str) -> bool:
    return ":k" in key  # a conversation's entry of rendered texts' counts (shared_counts.py)


def _damaged(blob: bytes, mode: str, data: st.DataObject) -> bytes:
    """``blob`` with a bit flipped (``mode`` "flip") or cut short ("truncate") where ``data`` draws:
    what a store's or a wire's accident makes of an entry."""
    if mode == "flip":
        at = data.draw(st.integers(0, len(blob) - 1), label="flip at")
        return blob[:at] + bytes([blob[at] ^ 0x40]) + blob[at + 1:]
    return blob[:data.draw(st.integers(0, len(blob) - 1), label="cut at")]


def _tamper(cache: DictCache, mode: str, data: st.DataObject) -> None:
    keys = sorted(cache.data)
    for i, key in enumerate(keys):
        blob = cache.data[key]
        if (_is_rows(key) or _is_cols(key) or _is_counts(key)) and mode in ("forged", "resigned_out_of_range"):
            fmt = shared_rows if _is_rows(key) else shared_columns if _is_cols(key) else shared_counts
            if mode == "forged":
                cache.data[key] = _forged(fmt, key, blob)
            else:  # every number of every row past the header out of range, or one of them
                at = data.draw(st.integers(4, max(4, len(zlib.decompress(blob[20:], -zlib.MAX_WBITS)) // 8)), label="row number")
                value = data.draw(st.sampled_from([-3, 10**9]), label="value")
                cache.data[key] = _resigned(fmt, key, blob, lambda ints: ints.__setitem__(
                    slice(min(at, len(ints) - 1), None if value < 0 else min(at, len(ints) - 1) + 1), value))
            continue
        if mode in ("flip", "truncate"):
            cache.data[key] = _damaged(blob, mode, data)
        elif mode == "forged":  # written by someone without the secret
            cache.data[key] = _forged(analysis_codec, key, blob)
        elif mode == "stale":  # another text's (or another setting's) entry under this key
            cache.data[key] = cache.data[keys[(i + 1) % len(keys)]] if len(keys) > 1 else b""
        elif mode == "garbage":
            cache.data[key] = data.draw(st.sampled_from([b"", b"DMA\x01", b"\x00" * 40, "text", 7, blob + b"x"]),
                                        label="garbage")
        elif mode == "missing":
            if i % 2:
                del cache.data[key]
        elif mode == "bad_later" and not (_is_rows(key) or _is_cols(key) or _is_counts(key)):
            # (an analysis whose pieces fail their checks only when one is built)
            cache.data[key] = _bad_later(key, blob, data.draw(st.integers(0, 4), label="how"))
        elif mode == "resigned_out_of_range":  # every number from one on (a piece's, a literal's, a mark's) below 0
            n = len(_analysis(key, blob)[1])
            at = data.draw(st.integers(6, n - 1), label="analysis number")
            cache.data[key] = _resigned(analysis_codec, key, blob, lambda ints: ints.__setitem__(slice(at, None), -3))


def _segments(n: int) -> list[tuple[int, int]]:
    """The entries of a conversation of ``n`` messages: their messages ``(a, b)``."""
    return cache_entry.segments(n, LIMITS.shared_segment, LIMITS.shared_group)


def _view_or_error(memory: DiscourseMemory, budget: int) -> Any:
    """``memory``'s view at ``budget`` as bytes, or the error it raised (a budget below the
    protected part: a view through a store must raise the same as one without)."""
    try:
        return _bytes(memory.view(budget))
    except Exception as exc:
        return (type(exc).__name__, str(exc), -1)


def _plain_view(msgs: list[dict], share: float) -> tuple[DiscourseMemory, int, Any]:
    """A memory of ``msgs`` without a store, a budget of ``share`` of their tokens, and the
    memory's view at it (:func:`_view_or_error`)."""
    plain = DiscourseMemory(msgs)
    budget = max(1, int(plain._compactor.count_messages(msgs) * share))
    return plain, budget, _view_or_error(plain, budget)


MODES = ["cold", "warm", "flip", "truncate", "forged", "stale", "garbage", "missing", "resigned_out_of_range",
         "bad_later"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(msgs=conversations(), share=st.floats(0.05, 1.2), mode=st.sampled_from(MODES), data=st.data())
def test_a_view_through_the_cache_is_the_view_without_it(msgs, share, mode, data):
    plain, budget, expected = _plain_view(msgs, share)
    cache = DictCache()
    # The writer served the conversation up to some message (the reader has the rest as new
    # messages: their rows are its own to compute), and wrote its row entry at every view.
    cut = data.draw(st.integers(1, len(msgs)), label="writer's messages")
    with pytest.MonkeyPatch.context() as mp:
        segment = data.draw(st.sampled_from([1, 2, LIMITS.shared_segment]), label="segment")
        # (and segments of settled history of 1, 2 or 4 segments: cache_entry.segments)
        group = data.draw(st.sampled_from([1, 2, LIMITS.shared_group]), label="group")
        limits = dataclasses.replace(LIMITS, shared_segment=segment, shared_group=group)
        mp.setattr(shared_rows, "LIMITS", limits)
        mp.setattr(shared_columns, "LIMITS", limits)
        mp.setattr(shared_counts, "LIMITS", limits)
        writer = DiscourseMemory(msgs[:cut], cache=cache)
        if mode != "cold":
            for n in sorted({cut, *data.draw(st.lists(st.integers(1, cut), max_size=2), label="earlier views")}):
                try:
                    writer.view(budget) if n == cut else DiscourseMemory(msgs[:n], cache=cache).view(budget)
                except Exception:
                    pass
            _tamper(cache, mode, data)
        got = _view_or_error(DiscourseMemory.from_dict(plain.to_dict(), cache=cache), budget)
    assert got == expected


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(msgs=conversations(), share=st.floats(0.05, 0.5), mode=st.sampled_from(MODES[1:]), data=st.data())
def test_a_view_through_a_row_entry_is_the_view_without_it(msgs, share, mode, data):
    """As above, with budgets that compact (so that rows are read, and written)."""
    test_a_view_through_the_cache_is_the_view_without_it.hypothesis.inner_test(msgs, share, mode, data)


def test_a_real_run_through_the_cache_is_read_in_one_round_trip(monkeypatch):
    msgs, budget = _swe_run(0)
    cache = DictCache()
    expected = _bytes(DiscourseMemory(msgs).view(budget))
    assert _bytes(DiscourseMemory(msgs, cache=cache).view(budget)) == expected
    texts = {m["content"] for m in msgs if m.get("content")}
    assert len([k for k in cache.data if not _is_rows(k) and not _is_cols(k) and not _is_counts(k)]) == len(texts)
    # and the rows of its segments of messages that the view read, one entry each
    assert 1 <= len([k for k in cache.data if _is_rows(k)]) <= len(msgs) // LIMITS.shared_segment
    # and the columns of every segment
    assert len([k for k in cache.data if _is_cols(k)]) == len(_segments(len(msgs)))
    # and the counts of what it rendered, one entry for its segment of sixteen
    assert len([k for k in cache.data if _is_counts(k)]) == 1
    cache.reads = 0

    def analysed_here(*args, **kwargs):  # type: ignore[no-untyped-def]
        raise AssertionError("a text was analysed though the store holds it")

    from discourse_memory.fit import candidates

    tail = len(msgs) // LIMITS.shared_segment * LIMITS.shared_segment  # (past the last whole segment: made here)
    unit_items = candidates.UnitItems  # (made for a unit when a row of it is first read)

    def row_read_here(cols, index, unit, *args, **kwargs):  # type: ignore[no-untyped-def]
        assert unit.message >= tail, "a row's item was made though the store holds it"
        return unit_items(cols, index, unit, *args, **kwargs)

    from discourse_memory.columns import Columns

    extend = Columns.extend

    def built_here(cols, messages, fields):  # type: ignore[no-untyped-def]
        assert not messages or messages[0].index >= tail, "a message's columns were built though the store holds them"
        return extend(cols, messages, fields)

    monkeypatch.setattr("discourse_memory.units.segment_texts", analysed_here)
    monkeypatch.setattr(candidates, "UnitItems", row_read_here)
    monkeypatch.setattr(Columns, "extend", built_here)
    warm = DiscourseMemory(msgs, cache=cache)
    assert _bytes(warm.view(budget)) == expected
    assert cache.reads == 1  # one read for the whole conversation: its analyses, rows, columns and counts


def test_a_conversation_a_few_messages_on_reads_the_rows_of_its_start():
    msgs, budget = _swe_run(1)
    cache = DictCache()
    DiscourseMemory(msgs[:-6], cache=cache).view(budget)  # another worker, six messages ago
    assert [k for k in cache.data if _is_rows(k)]
    made: list[int] = []
    real = shared_rows.decode_many

    def spy(*args, **kwargs):  # type: ignore[no-untyped-def]
        got = real(*args, **kwargs)
        made.extend(got)
        return got

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(shared_rows, "decode_many", spy)
        got = _bytes(DiscourseMemory(msgs, cache=cache).view(budget))
    assert got == _bytes(DiscourseMemory(msgs).view(budget))
    assert made and min(made) > 0  # the entries of the first messages were read, every one
    # A conversation that left the cached one before its end reads nothing of it.
    other = [dict(m) for m in msgs]
    other[2]["content"] = (other[2].get("content") or "") + " (edited)"
    made.clear()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(shared_rows, "decode_many", spy)
        assert _bytes(DiscourseMemory(other, cache=cache).view(budget)) == _bytes(DiscourseMemory(other).view(budget))
    assert not made


def test_a_warm_worker_writes_its_rows_seldom_and_bounded():
    path = SHARED_DATA / "agents" / "tau_airline_dev.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is not there")
    msgs = json.loads(path.read_text().splitlines()[0])["messages"]

    class Counting(DictCache):
        writes = 0

        def set_many(self, items):  # type: ignore[no-untyped-def]
            self.writes += any(_is_rows(k) for k in items)
            super().set_many(items)

    cache = Counting()
    memory = DiscourseMemory(msgs[:10], cache=cache)
    views = 0
    for m in msgs[10:]:
        memory.append(m)
        try:
            memory.view(600)
        except Exception:
            continue
        views += 1
    rows = {k: v for k, v in cache.data.items() if _is_rows(k)}
    assert views > 5 and cache.writes < views  # (not one a turn)
    assert len(rows) <= len(msgs) // LIMITS.shared_segment  # one entry per segment of messages, at most
    assert all(len(v) <= LIMITS.shared_entry_bytes for v in rows.values())


def test_a_resigned_row_entry_that_breaks_a_rule_is_refused():
    path = SHARED_DATA / "agents" / "tau_airline_dev.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is not there")
    msgs = json.loads(path.read_text().splitlines()[0])["messages"]
    cache = DictCache()
    memory = DiscourseMemory(msgs, cache=cache)
    memory.view(500)
    cols = memory._compactor._cols

    def fresh_cols():  # type: ignore[no-untyped-def]
        compactor = DiscourseMemory(msgs)._compactor
        compactor._columns(msgs)
        return compactor._cols

    key, blob = max(((k, v) for k, v in cache.data.items() if _is_rows(k)), key=lambda kv: len(kv[1]))
    b = int(key.split(":r")[1].split(":")[0])
    start = {end: begin for begin, end in _segments(len(msgs))}
    a = start[b]
    assert shared_rows.decode(key, blob, fresh_cols(), a, b, SECRET) > 0
    for edit in (lambda x: x.__setitem__(4, 10**9),  # a row past the segment's
                 lambda x: x.__setitem__(4, -1),  # a row before it
                 lambda x: x.__setitem__(4 + 3, x[4 + 3] + 1),  # an item's unit not its row's
                 lambda x: x.__setitem__(4 + 5, 10**6),  # a string index out of range
                 lambda x: x.__setitem__(4 + 14, 9),  # a listing class that does not exist
                 lambda x: x.__setitem__(1, b + 1),  # another segment's
                 lambda x: x.__setitem__(2, x[2] + 1),  # more rows than it has
                 lambda x: x.__setitem__(_covers_end(x) - 1, 10**9)):  # a covered literal out of range
        assert shared_rows.decode(key, _resigned(shared_rows, key, blob, edit), fresh_cols(), a, b, SECRET) == -1
    # Checked together, a bad entry is refused alone: the others are read.
    good = sorted(((int(k.split(":r")[1].split(":")[0]), k, v) for k, v in cache.data.items() if _is_rows(k)))
    for edit in (lambda x: x.__setitem__(3, x[3] + 1), lambda x: x.__setitem__(_covers_end(x) - 1, 10**9),
                 lambda x: x.__setitem__(4 + 8, x[4 + 8] + 1)):  # covers: a count, a value, an item's count
        batch = [(k, v, start[e], e) for e, k, v in good]
        bad_at = len(batch) // 2
        k0, v0, a0, b0 = batch[bad_at]
        batch[bad_at] = (k0, _resigned(shared_rows, k0, v0, edit), a0, b0)
        got = shared_rows.decode_many(fresh_cols(), batch, SECRET)
        alone = [shared_rows.decode(k, v, fresh_cols(), x, y, SECRET) for k, v, x, y in batch]
        assert got == alone and got[bad_at] == -1 and sum(g > 0 for g in got) >= len(got) - 1
    assert shared_rows.decode(key, blob, cols, a, b, b"other secret") == -1
    assert shared_rows.decode(key.replace(":r", ":r1"), blob, cols, a, b, SECRET) == -1
    assert shared_rows.decode(key, blob, cols, a + 1, b, SECRET) == -1


def test_every_analysis_of_the_data_round_trips():
    compactor = Compactor()
    texts = ["", "x", "Owner: Dana\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n```\ncode\n```", "东京很好。我去过三次！"]
    for name in ("agents/tau_airline_dev.jsonl", "multilingual/crosswoz_dev.jsonl"):
        path = SHARED_DATA / name
        if path.exists():
            for line in path.read_text().splitlines()[:2]:
                texts += [m["content"] for m in json.loads(line)["messages"] if isinstance(m.get("content"), str)]
    for text, pieces in zip(texts, compactor.analyzer.analyse(texts)):
        blob = analysis_codec.encode("k", text, pieces, SECRET, compactor.counter.count(text))
        marks = marks_of(text, [mp.piece for mp in pieces])
        assert analysis_codec.decode("k", text, blob, SECRET) == (pieces, compactor.counter.count(text), marks)
        assert analysis_codec.decode("other key", text, blob, SECRET) is None
        assert analysis_codec.decode("k", text + " ", blob, SECRET) is None  # (the digest holds; the length does not)
        # A piece's span read without building it (a first view's render) is the built piece's.
        fresh, built = (analysis_codec.decode("k", text, blob, SECRET)[0] for _ in range(2))
        list(built)
        for j, mp in enumerate(pieces):
            p = mp.piece
            for got in (fresh, built):
                kind, start, end, gap, suffix = got.span(j)
                assert (kind, start, end) == (p.kind, p.start, p.end)
                assert (text[gap:start], text[end:suffix]) == (mp.gap, mp.suffix)
        # The first piece's span and literals read without building it (the columns' label and date).
        if pieces:
            p = pieces[0].piece
            for got in (fresh, built):
                assert got.opening() == (p.start, p.end, p.literals)


def test_a_resigned_entry_that_breaks_a_rule_is_refused():
    text = "Dana moved the gateway to v2.3.1 on 2026-10-08. Owner: Mia Li"
    pieces = Compactor().analyzer.analyse([text])[0]
    blob = analysis_codec.encode("k", text, pieces, SECRET)
    head = analysis_codec._HEAD  # (the first piece's row follows the header)
    for edit in (lambda a: a.__setitem__(head + 1, 10**6),  # a piece's start past the text
                 lambda a: a.__setitem__(head, 99),  # a kind that does not exist
                 lambda a: a.__setitem__(5, -2),  # a count of the text's tokens below -1
                 lambda a: a.__setitem__(1, a[1] + 1),  # more pieces than rows
                 lambda a: a.__setitem__(6, a[6] + 1),  # more marks than numbers
                 lambda a: a.__setitem__(head + 3, -1),  # a negative string index
                 lambda a: a.__setitem__(-1, 10**9)):  # the last number (a head, or a mark) out of range
        assert analysis_codec.decode("k", text, _resigned(analysis_codec, "k", blob, edit), SECRET) is None


def test_an_entry_whose_marks_name_no_literal_of_its_own_is_refused():
    # (a name after a word, a name only as a tag's, a line of tags: every kind of mark)
    text = "Then Dana met Mia Li at the office.\n\n<output>\nsee <pr_description> above\n</output>\nexit 0\n"
    pieces = Compactor().analyzer.analyse([text])[0]
    marks = marks_of(text, [mp.piece for mp in pieces])
    assert marks.mid and marks.tag_lines, marks
    blob = analysis_codec.encode("k", text, pieces, SECRET)
    strings, ints, (later, _) = _analysis("k", blob)
    first_mid = len(ints) - len(marks.mid) - len(marks.tags) - len(marks.tag_lines)
    every = strings + later
    not_literal = every.index(pieces[0].piece.key)  # (a string of the entry, but a content key)
    # (a literal text of the entry, but of its second stream: read when a piece is built)
    later_literal = every.index(next(t for mp in pieces[1:] for t in mp.literal_texts if t not in strings))
    assert later_literal >= len(strings) and not_literal >= len(strings)
    for edit in (lambda a: a.__setitem__(first_mid, not_literal),  # a mark naming a string that is no literal
                 lambda a: a.__setitem__(first_mid, later_literal),  # a mark the first stream does not hold
                 lambda a: a.__setitem__(first_mid, len(every)),  # a mark past the strings
                 lambda a: a.__setitem__(-1, len(pieces)),  # a tag line past the pieces
                 lambda a: a.__setitem__(-1, -1)):
        assert analysis_codec.decode("k", text, _resigned(analysis_codec, "k", blob, edit), SECRET) is None
    # and read whole, the marks are those found from the pieces: the columns see no difference
    assert analysis_codec.decode("k", text, blob, SECRET)[2] == marks  # type: ignore[index]


@pytest.mark.parametrize("strings", [10**15, 2**62, 2**63 - 1])
def test_an_entry_claiming_a_vast_count_of_strings_is_no_error(strings):
    # (the header's count of both streams' strings is checked against the second stream when it
    # is read; the marks' check had made a table that long, a MemoryError of 909 TiB at 10^15)
    said = ("Then Dana met Mia Li at the office on 2026-10-08 about v2.3.1.\n\n<output>\nsee <pr_description> "
            "above\n</output>\nexit 0\n")
    msgs = [{"role": ("user", "assistant")[i % 2], "content": f"Step {i}. {said * 3}"} for i in range(6)]
    plain, budget, expected = _plain_view(msgs, 0.5)
    cache = DictCache()
    DiscourseMemory(msgs, cache=cache).view(budget)
    edited = 0
    for key, blob in list(cache.data.items()):
        if not (_is_rows(key) or _is_cols(key) or _is_counts(key)):
            cache.data[key] = _resigned(analysis_codec, key, blob, lambda a: a.__setitem__(9, strings))
            edited += 1
    assert edited >= 2
    assert _view_or_error(DiscourseMemory.from_dict(plain.to_dict(), cache=cache), budget) == expected


class _Broken:
    def __init__(self, fail_reads: bool = True, wrong_length: bool = False) -> None:
        self.fail_reads, self.wrong_length, self.writes = fail_reads, wrong_length, 0

    def get_many(self, keys):  # type: ignore[no-untyped-def]
        if self.wrong_length:
            return [None]
        if self.fail_reads:
            raise ConnectionError("store down")
        return [None] * len(keys)

    def set_many(self, items):  # type: ignore[no-untyped-def]
        self.writes += 1
        raise TimeoutError("store down")


@pytest.mark.parametrize("store", [_Broken(), _Broken(fail_reads=False), _Broken(wrong_length=True)])
def test_a_failing_store_is_a_miss_logged_once(store, caplog):
    msgs = [{"role": "user", "content": f"Step {i}: move pool {i} to v2.{i}.0 for Dana. " * 8} for i in range(12)]
    expected = _bytes(DiscourseMemory(msgs).view(300))
    with caplog.at_level(logging.WARNING, logger="discourse_memory"):
        memory = DiscourseMemory(msgs, cache=store)
        assert _bytes(memory.view(300)) == expected
        memory.append({"role": "assistant", "content": "Done: pool 3 is on v2.3.0."})
        memory.view(300)
    assert len([r for r in caplog.records if "analysis cache failed" in r.getMessage()]) == 1


def test_what_is_not_shared():
    assert isinstance(DictCache(), AnalysisCache)
    with pytest.raises(InvalidOptionError, match="get_many"):
        Compactor(cache=object())  # type: ignore[arg-type]
    with pytest.raises(InvalidOptionError, match="get_many"):
        DiscourseMemory.from_dict(DiscourseMemory([{"role": "user", "content": "hi"}]).to_dict(), cache={})  # type: ignore[arg-type]
    # A function counts with no name to key its analyses by: not shared, unless it gives one.
    assert Compactor(token_counter=len, cache=DictCache()).analyzer.shared is None

    def words(text: str) -> int:
        return len(text.split())

    words.cache_key = "words-v1"  # type: ignore[attr-defined]
    assert Compactor(token_counter=words, cache=DictCache()).analyzer.shared is not None
    # The settings that change an analysis change the key.
    c = Compactor()
    keys = {bind(DictCache(), c.counter, p, k).key("same text")
            for p, k in ((None, 12), (None, 13), ("blank:de", 12))}
    keys.add(bind(DictCache(), Compactor(token_counter="o200k_base").counter, None, 12).key("same text"))
    assert len(keys) == 4


def test_an_analysis_too_large_to_share_is_not_written():
    cache = DictCache()
    text = " ".join(f"line {i} has value v{i}.{i % 7}.{i % 5} and id OPS-{i}\n" for i in range(60_000))
    assert len(text) > LIMITS.shared_entry_bytes
    memory = DiscourseMemory([{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}],
                             cache=cache)
    memory.view(2000)
    assert all(len(v) <= LIMITS.shared_entry_bytes for v in cache.data.values())
    assert len([k for k in cache.data if not _is_rows(k)]) == 1  # "ok" only (and the conversation's rows)


def test_redis_cache_refuses_what_it_cannot_use():
    redis = pytest.importorskip("redis")
    import redis.asyncio

    with pytest.raises(InvalidOptionError, match="redis.asyncio"):
        RedisAnalysisCache(redis.asyncio.Redis())
    with pytest.raises(InvalidOptionError, match="ttl"):
        RedisAnalysisCache(redis.Redis(), ttl=0)
    with pytest.raises(InvalidOptionError, match="redis.Redis"):
        RedisAnalysisCache({})


def test_a_head_past_its_pieces_distinct_values_gives_way_to_the_analysis_made_here():
    # (the pieces of an entry are built when looked at: a head that names no value of its piece
    # fails the entry's second stream, and its pieces are made here, not an error)
    text = ("Ticket 8C8K4E stays with ticket 8C8K4E while the migration of every remaining service in the "
            "cluster, the queue workers and the scheduler included, finishes on UDMOP1 tonight.")
    pieces = Compactor(clip_tokens=8).analyzer.analyse([text])[0]
    at = next(j for j, mp in enumerate(pieces) if mp.head_literal_texts != mp.literal_texts and mp.head_literal_texts)
    distinct = len(pieces[at].literal_texts)
    assert distinct < len(pieces[at].piece.literals)  # (a value stated twice: fewer texts than literals)
    blob = analysis_codec.encode("k", text, pieces, SECRET)
    _, ints, _ = _analysis("k", blob)
    first_head = int(ints[2])  # (the second stream: the words, then the heads)
    before = sum(len(mp.head_literal_texts) for mp in pieces[:at] if mp.head_literal_texts != mp.literal_texts)
    edited = _resigned(analysis_codec, "k", blob, lambda a: a.__setitem__(first_head + before, distinct), later=True)
    # (the heads are the second stream's, checked when a piece is built: the pieces are then the
    # text's analysis made here, or, with none to make, the rows' alone; never an error)
    analyzer = Compactor(clip_tokens=8).analyzer
    made = []
    redo = lambda t: made.append(t) or analyzer._analysed_here(t)  # noqa: E731
    bad, measures = analysis_codec.decode("k", text, edited, SECRET, redo), analysis_codec.decode("k", text, blob, SECRET)
    assert bad is not None and bad[1:] == measures[1:] and not made  # type: ignore[index]
    assert bad[0][at] == pieces[at] and tuple(bad[0]) == pieces and made == [text]  # type: ignore[index]
    bare = analysis_codec.decode("k", text, edited, SECRET)[0]  # type: ignore[index]
    assert [(mp.piece.kind, mp.piece.start, mp.piece.end, mp.tokens, mp.head_end) for mp in bare] == \
        [(mp.piece.kind, mp.piece.start, mp.piece.end, mp.tokens, mp.head_end) for mp in pieces]
    got = analysis_codec.decode("k", text, blob, SECRET)[0]  # type: ignore[index]
    assert isinstance(got, analysis_codec.DecodedPieces) and len(got) == len(pieces)
    assert got[-1] == pieces[-1] and got[1:3] == pieces[1:3] and got[at] == pieces[at] and tuple(got) == pieces
    assert got.measures()[3].tolist() == [mp.head_end for mp in pieces]


def _facts(memory: DiscourseMemory) -> tuple[dict[int, tuple], int]:  # type: ignore[type-arg]
    """Per row whose facts a view read: (header, keyed, named, the literals its span shows or
    None); and how many rows had facts."""
    from discourse_memory.fit.candidates import _Facts

    facts = memory._compactor._cols.memo(_Facts)
    out = {}
    for r in np.flatnonzero(facts.span != _Facts.UNREAD).tolist():
        sid = int(facts.span[r])
        shown = None if sid < 0 else tuple(facts.span_lits[facts.span_ptr[sid]:facts.span_ptr[sid + 1]])
        out[r] = (bool(facts.header[r]), bool(facts.keyed[r]), bool(facts.named[r]), shown)
    return out, len(out)


def test_a_fresh_worker_reads_the_rows_facts_a_warm_one_found():
    msgs, budget = _swe_run(1)
    cache = DictCache()
    DiscourseMemory(msgs, cache=cache).view(budget)
    alone = DiscourseMemory(msgs)
    alone.view(budget)
    fresh = DiscourseMemory(msgs, cache=cache)
    found = []
    from discourse_memory.fit import candidates

    real = candidates._row_facts

    def spy(cols, units, owners, kept, row_items, rows, count):  # type: ignore[no-untyped-def]
        facts = cols.memo(candidates._Facts)
        facts.grow(len(row_items))
        found.append(int((facts.span[rows] == candidates._Facts.UNREAD).sum()))
        return real(cols, units, owners, kept, row_items, rows, count)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(candidates, "_row_facts", spy)
        assert _bytes(fresh.view(budget)) == _bytes(alone.view(budget))
    (want, n_want), (got, n_got) = _facts(alone), _facts(fresh)
    assert n_got >= n_want > 100 and all(got[r] == want[r] for r in want)
    assert found and found[0] < n_want // 10  # (the entries held nearly every row's facts: few found again)


def test_the_spans_of_a_fresh_worker_are_numbered_as_row_by_row():
    """A first view numbers the spans of the rows it reads with array operations
    (``shared_rows._new_spans``); a memo that has spans already numbers its new ones row by
    row. Both give every span the same id, pointers and literals."""
    from discourse_memory.fit.candidates import _Facts
    from discourse_memory.fit.sources import _RowMemo

    msgs, budget = _swe_run(1)
    cache = DictCache()
    DiscourseMemory(msgs, cache=cache).view(budget)
    fresh = DiscourseMemory(msgs, cache=cache)
    entries = []
    real = shared_rows.decode_many

    def spy(cols, batch, secret=b""):  # type: ignore[no-untyped-def]
        entries.append((cols, list(batch), secret))
        return real(cols, batch, secret)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(shared_rows, "decode_many", spy)
        fresh.view(budget)
    (cols, batch, secret), = entries

    class Numbered(dict):  # (no span yet, but the memo reads as having some: row by row)
        def __bool__(self) -> bool:
            return True

    got = []
    for spans in ({}, Numbered()):
        cols._memos.pop(_RowMemo, None)
        cols._memos.pop(_Facts, None)
        cols.memo(_Facts).spans = spans
        assert min(real(cols, batch, secret)) > 0
        facts = cols.memo(_Facts)
        got.append((dict(facts.spans), list(facts.span_ptr), list(facts.span_lits), facts.span.tolist()))
    assert got[0] == got[1] and len(got[0][0]) > 100


def test_new_spans_are_numbered_in_order_of_their_first_row():
    from discourse_memory.fit.candidates import _Facts

    facts = _Facts()
    units, a, b = np.array([5, 3, 5, 3, 5]), np.array([9, 0, 9, 4, 1]), np.array([12, 2, 12, 6, 3])
    n, at = np.array([2, 1, 2, 0, 1]), np.array([0, 2, 3, 5, 5])
    shown = np.array([40, 41, 30, 40, 41, 50])
    read_span = np.full(7, -1)
    shared_rows._new_spans(facts, units, a, b, at, n, shown, np.array([0, 1, 2, 4, 6]), read_span)
    assert facts.spans == {(5, (9, 12)): 0, (3, (0, 2)): 1, (3, (4, 6)): 2, (5, (1, 3)): 3}
    assert read_span.tolist() == [0, 1, 0, -1, 2, -1, 3]
    assert facts.span_ptr == [0, 2, 3, 3, 4] and facts.span_lits == [40, 41, 30, 50]


def test_a_fresh_worker_finds_the_date_lines_and_labels_of_a_cold_one():
    """The label and date line of each message read off its cached analysis (whose first piece
    is built only when it may be a date line) are those of an analysis made here."""
    path = SHARED_DATA / "locomo" / "locomo_dev.json"
    if not path.exists():
        pytest.skip(f"{path} is not there")
    conv = json.loads(path.read_text())[0]["conversation"]
    msgs = []
    k = 1
    while f"session_{k}" in conv:
        for at, turn in enumerate(conv[f"session_{k}"]):
            text = f"{turn['speaker']}: {turn['text']}"
            if at == 0:  # (as evaluation/datasets.py: a session opens with its date)
                text = f"[{conv[f'session_{k}_date_time']}]\n{text}"
            msgs.append({"role": "user" if turn["speaker"] == conv["speaker_a"] else "assistant", "content": text})
        k += 1
    msgs = msgs[:160]
    budget = Compactor().count_messages(msgs) // 4
    cache = DictCache()
    DiscourseMemory(msgs, cache=cache).view(budget)
    fresh, alone = DiscourseMemory(msgs, cache=cache), DiscourseMemory(msgs)
    assert _bytes(fresh.view(budget)) == _bytes(alone.view(budget))
    a, b = fresh._compactor._cols, alone._compactor._cols
    dates = [a.msg_date[i] for i in range(len(msgs))]
    assert dates == [b.msg_date[i] for i in range(len(msgs))] and sum(d is not None for d in dates) >= 3
    assert [a.speaker(i) for i in range(len(msgs))] == [b.speaker(i) for i in range(len(msgs))]


def test_a_fresh_worker_reads_the_items_a_warm_one_built():
    """The items decoded from row entries (built column by column, each by its fields' slots)
    are the warm memory's, field for field and type for type."""
    from discourse_memory.fit.sources import _row_memo
    from discourse_memory.record import Item, built_item

    msgs, budget = _swe_run(1)
    cache = DictCache()
    warm = DiscourseMemory(msgs, cache=cache)
    warm.view(budget)
    fresh = DiscourseMemory(msgs, cache=cache)
    decoded = []
    real = shared_rows.decode_many

    def spy(cols, entries, secret=b""):  # type: ignore[no-untyped-def]
        got = real(cols, entries, secret)
        memo = _row_memo(cols)
        decoded.extend((r, memo.state[r], memo.items[r]) for r in np.flatnonzero(memo.state).tolist())
        return got

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(shared_rows, "decode_many", spy)
        assert _bytes(fresh.view(budget)) == _bytes(warm.view(budget))
    want = _row_memo(warm._compactor._cols)
    assert sum(it is not None for _, _, it in decoded) > 100
    for r, state, item in decoded:
        assert state == want.state[r] and repr(item) == repr(want.items[r]) and item == want.items[r]
        assert item is None or type(item) is Item
    fields = (7, 3, 2, "7 ms", (1, 5), (7, 9), True, "took", "7 ms", "run", 4)
    assert repr(built_item(*fields)) == repr(Item(*fields)) and built_item(*fields) == Item(*fields)


def test_a_row_entry_of_no_rows_reads_as_none_and_bad_facts_are_refused():
    path = SHARED_DATA / "agents" / "swe_dev.jsonl"
    if not path.exists():
        pytest.skip(f"{path} is not there")
    msgs = json.loads(path.read_text().splitlines()[1])["messages"][:40]
    cache = DictCache()
    DiscourseMemory(msgs, cache=cache).view(Compactor().count_messages(msgs) // 4)

    def fresh_cols():  # type: ignore[no-untyped-def]
        compactor = DiscourseMemory(msgs)._compactor
        compactor._columns(msgs)
        return compactor._cols

    def spans(kv) -> int:  # type: ignore[no-untyped-def]  # (rows whose span's literals the entry holds)
        strings, ints = cache_entry.unseal(shared_rows.MAGIC, shared_rows.PERSON, kv[0], kv[1], SECRET)
        return int((ints[4:4 + shared_rows._COLS * int(ints[2])].reshape(-1, shared_rows._COLS)[:, -1] > 0).sum())

    key, blob = max(((k, v) for k, v in cache.data.items() if _is_rows(k)), key=spans)
    b = int(key.split(":r")[1].split(":")[0])
    a = {end: begin for begin, end in _segments(len(msgs))}[b]
    # (a forged entry of no rows: read as none, where it raised IndexError; its messages no
    # speaker's, as this run's are; without their speakers it is not well-formed)
    assert all(fresh_cols().speaker(m) is None for m in range(a, b))
    empty = cache_entry.seal(shared_rows.MAGIC, shared_rows.PERSON, key, [], np.array([a, b, 0, 0, *[-1] * (b - a)]),
                             SECRET)
    assert shared_rows.decode(key, empty, fresh_cols(), a, b, SECRET) == 0
    unnamed = cache_entry.seal(shared_rows.MAGIC, shared_rows.PERSON, key, [], np.array([a, b, 0, 0]), SECRET)
    assert shared_rows.decode(key, unnamed, fresh_cols(), a, b, SECRET) == -1
    named = cache_entry.seal(shared_rows.MAGIC, shared_rows.PERSON, key, ["Port"],
                             np.array([a, b, 0, 0, 0, *[-1] * (b - a - 1)]), SECRET)
    assert shared_rows.decode(key, named, fresh_cols(), a, b, SECRET) == -1  # (a speaker the reader's message has not)
    strings, ints = cache_entry.unseal(shared_rows.MAGIC, shared_rows.PERSON, key, blob, SECRET)  # type: ignore[misc]
    cols_n = shared_rows._COLS
    table = ints[4:4 + cols_n * int(ints[2])].reshape(-1, cols_n)
    last = cols_n - 1
    with_span = int(np.flatnonzero(table[:, last] > 0)[0])
    no_item = np.flatnonzero(table[:, 1] == 0)
    first_shown = 4 + cols_n * int(ints[2])
    edits = [lambda x: x.__setitem__(4 + cols_n * with_span + last, -3),  # below "not read"
             lambda x: x.__setitem__(first_shown, 10**9),  # a span's literal out of range
             lambda x: x.__setitem__(first_shown, -1),
             lambda x: x.__setitem__(4 + cols_n * with_span + 10, 0)]  # a span's facts on a keyed item
    if len(no_item):
        edits.append(lambda x: x.__setitem__(4 + cols_n * int(no_item[0]) + last, -1))  # facts of no item
    for edit in edits:
        assert shared_rows.decode(key, _resigned(shared_rows, key, blob, edit), fresh_cols(), a, b, SECRET) == -1
    assert shared_rows.decode(key, blob, fresh_cols(), a, b, SECRET) > 0


def test_analyses_checked_together_refuse_a_bad_entry_alone():
    texts = ["Dana moved the gateway to v2.3.1 on 2026-10-08. Owner: Mia Li",
             "Ticket 8C8K4E stays with ticket 8C8K4E; the rest moves to UDMOP1 tonight.",
             "| id | price |\n|---|---|\n| HAT110 | 105 |\n| HAT206 | 102 |",
             "Then Dana met Mia Li at the office.\n\n<output>\nsee <pr_description> above\n</output>\nexit 0\n", ""]
    compactor = Compactor()
    entries = [(f"k{i}", t, analysis_codec.encode(f"k{i}", t, p, SECRET, compactor.counter.count(t)))
               for i, (t, p) in enumerate(zip(texts, compactor.analyzer.analyse(texts)))]
    whole = analysis_codec.decode_many(entries, SECRET)
    assert all(got is not None for got in whole)
    assert whole == [analysis_codec.decode(k, t, b, SECRET) for k, t, b in entries]
    head, cols = analysis_codec._HEAD, analysis_codec._COLS
    # (a piece's start past the text; a literal's name past the strings, which once made the
    # batch's head check raise; the last number out of range; a kind that does not exist)
    for edit in (lambda a: a.__setitem__(head + 1, 10**6),
                 lambda a: a.__setitem__(head + cols * int(a[1]), 10**6),
                 lambda a: a.__setitem__(-1, 10**9),
                 lambda a: a.__setitem__(head, 99)):
        for bad in range(len(entries) - 1):
            k, t, b = entries[bad]
            batch = list(entries)
            batch[bad] = (k, t, _resigned(analysis_codec, k, b, edit))
            got = analysis_codec.decode_many(batch, SECRET)
            assert got[bad] is None and got[:bad] + got[bad + 1:] == whole[:bad] + whole[bad + 1:]
            assert got == [analysis_codec.decode(k, t, b, SECRET) for k, t, b in batch]


def test_an_entry_keeps_its_strings_and_numbers_at_their_width_and_refuses_another_layout():
    import hashlib
    import struct

    magic, person = b"DMX\x01", b"dm-test"
    for numbers in ([], [0, -1, 127], [300, -2], [70_000], [-(2**40)], [2**63 - 1, -(2**63)]):
        blob = cache_entry.seal(magic, person, "k", ["a"], np.array(numbers, dtype=np.int64), SECRET)
        strings, ints = cache_entry.unseal(magic, person, "k", blob, SECRET)  # type: ignore[misc]
        assert strings == ["a"] and ints.tolist() == numbers and ints.dtype == np.dtype("<i8")
        assert not ints.flags.writeable
    small = cache_entry.seal(magic, person, "k", [], np.arange(1000, dtype=np.int64) % 100, SECRET)
    wide = cache_entry.seal(magic, person, "k", [], np.arange(1000, dtype=np.int64) % 100 + 2**40, SECRET)
    assert len(zlib.decompress(small[len(magic) + cache_entry.DIGEST:], -zlib.MAX_WBITS)) < 1100 < len(
        zlib.decompress(wide[len(magic) + cache_entry.DIGEST:], -zlib.MAX_WBITS))

    def signed(body: bytes, layout: bytes = cache_entry.LAYOUT) -> bytes:
        h = hashlib.blake2b(digest_size=cache_entry.DIGEST, key=SECRET, person=person)
        h.update(layout + b"k\x00" + body)
        return magic + h.digest() + body

    # (strings NUL-ended, or a JSON array where one holds a NUL: both round-trip)
    for strings in ([], [""], ["a", "", "b c", "\u00e9\ud800"], ["a\0b", "c"], ["\0"]):
        blob = cache_entry.seal(magic, person, "k", strings, np.array([1]), SECRET)
        assert cache_entry.unseal(magic, person, "k", blob, SECRET)[0] == strings  # type: ignore[index]
    names, ended = b'["a"]', b"a\x00"
    five = np.array([5, -5], dtype="<i2").tobytes()
    for width, text in ((2 | cache_entry.JSON, names), (2, ended)):
        got = cache_entry.unseal(magic, person, "k", signed(cache_entry.deflate(struct.pack("<IB", len(text), width) + text + five)),
                                 SECRET)
        assert got is not None and got[0] == ["a"] and got[1].tolist() == [5, -5]
    for width, text in ((0, ended), (3, ended), (16, ended), (2, b"a"), (2, b"a\x00b"), (2 | cache_entry.JSON, b"[1]")):
        # (no such width; strings not each NUL-ended; a JSON array of other than strings)
        body = cache_entry.deflate(struct.pack("<IB", len(text), width) + text + bytes(48))
        assert cache_entry.unseal(magic, person, "k", signed(body), SECRET) is None
    # (an entry of the int64 layout of before, signed without the layout: a miss)
    old = zlib.compress(struct.pack("<I", len(names)) + names + np.array([5], dtype="<i8").tobytes())
    assert cache_entry.unseal(magic, person, "k", signed(old, b""), SECRET) is None
    # (a body in the zlib stream of before, even signed with today's layout: a miss)
    for body in (zlib.compress(struct.pack("<IB", 1 + 1, 2) + ended + five),
                 cache_entry.deflate(struct.pack("<IB", 2, 2) + ended + five)[:-1]):
        assert cache_entry.unseal(magic, person, "k", signed(body), SECRET) is None
    assert cache_entry.unseal(magic, person, "k", signed(cache_entry.deflate(struct.pack("<IB", 2, 2) + ended + five)),
                              SECRET) is not None


def test_an_entry_of_two_streams_reads_its_second_when_asked_and_refuses_what_one_stream_refuses():
    magic, person = b"DMX\x01", b"dm-test"
    cases: list[tuple[tuple[list[str], np.ndarray], tuple[list[str], np.ndarray]]] = [
        (([], np.array([1])), ([], np.array([], dtype=np.int64))),
        ((["a", ""], np.array([1, -2])), (["b c", "\u00e9\ud800"], np.array([2**40]))),
        ((["x"], np.array([3])), (["a\0b", "c"], np.array([7, 8])))]
    for first, second in cases:
        blob = cache_entry.seal(magic, person, "k", *first, SECRET, later=second)
        strings, ints, later = cache_entry.unseal_split(magic, person, "k", blob, SECRET)  # type: ignore[misc]
        assert (strings, ints.tolist()) == (first[0], first[1].tolist())
        got = later.open()
        assert got is not None and (got[0], got[1].tolist()) == (second[0], second[1].tolist())
        assert cache_entry.unseal_split(magic, person, "other", blob, SECRET) is None
        assert cache_entry.unseal_split(magic, person, "k", blob, b"another secret") is None
        # (the digest covers both streams: a byte of the second flipped fails the entry at once)
        assert cache_entry.unseal_split(magic, person, "k", blob[:-1] + bytes([blob[-1] ^ 1]), SECRET) is None
        for cut in range(len(magic) + cache_entry.DIGEST, len(blob)):
            assert cache_entry.unseal_split(magic, person, "k", blob[:cut], SECRET) is None
    head = len(magic) + cache_entry.DIGEST

    def signed(body: bytes) -> bytes:
        return magic + cache_entry.digest(person, "k", body, SECRET) + body

    one = cache_entry.deflate(cache_entry._raw(["a"], np.array([1])))
    for body in (b"", b"\x01\x00", np.array([len(one) + 1], dtype="<u4").tobytes() + one,  # (a length past the body)
                 np.array([len(one) - 1], dtype="<u4").tobytes() + one):  # (a first stream cut short)
        assert cache_entry.unseal_split(magic, person, "k", signed(body), SECRET) is None
    # A second stream that is not one is refused when read, not when the entry is opened.
    for second in (b"", b"garbage", one[:-1], cache_entry.deflate(b"\x02\x00\x00\x00\x02a")):
        body = np.array([len(one)], dtype="<u4").tobytes() + one + second
        got = cache_entry.unseal_split(magic, person, "k", signed(body), SECRET)
        assert got is not None and got[0] == ["a"] and got[2].open() is None
    # (an entry of one stream is not one of two, nor the reverse)
    single = cache_entry.seal(magic, person, "k", ["a"], np.array([1]), SECRET)
    assert cache_entry.unseal_split(magic, person, "k", single, SECRET) is None
    assert cache_entry.unseal(magic, person, "k", cache_entry.seal(magic, person, "k", ["a"], np.array([1]), SECRET,
                                                                  later=(["b"], np.array([2]))), SECRET) is None
    assert head < len(single)


def test_a_fresh_worker_reads_the_second_stream_of_few_analyses():
    """A first view through the cache reads a text's marks, its pieces' rows and its first
    piece's literals off the entry's first stream and inflates the second only for the texts
    whose pieces it builds: the view is the same, and most entries' second streams are never
    read."""
    msgs, budget = _swe_run(1)
    cache = DictCache()
    warm = DiscourseMemory(msgs, cache=cache)
    warm.view(budget)
    fresh = DiscourseMemory(msgs, cache=cache)
    assert _bytes(fresh.view(budget)) == _bytes(warm.view(budget))
    decoded = [p for p in fresh._compactor.analyzer._cache.values() if isinstance(p, analysis_codec.DecodedPieces)]
    assert len(decoded) > 20
    assert sum(p._later is not None for p in decoded) > 0.8 * len(decoded)
    assert all(p._local is None for p in decoded)
    # (and each entry's pieces, built whole from both streams, are the analysis made here)
    alone = Compactor().analyzer
    for p in decoded[:10]:
        assert tuple(p) == alone.analyse([p._text])[0] == alone._analysed_here(p._text)


def test_a_fresh_worker_reads_the_labels_a_warm_one_made():
    """The record labels a warm worker made (and their tokens) ride with its row entries: a
    fresh worker's first view makes none of them again, and its view is the same. A label
    not of its message, of a message past its segment, or of tokens out of bounds refuses
    the entry; one of another speaker than the reader's columns give is not read."""
    from discourse_memory.fit.candidates import _Candidates
    from discourse_memory.record import labels as record_labels

    msgs, budget = _swe_run(1)
    cache = DictCache()
    warm = DiscourseMemory(msgs, cache=cache)
    warm.view(budget)
    made = warm._compactor._cols.memo(record_labels.LabelsMemo).labels
    expected = _bytes(DiscourseMemory(msgs).view(budget))
    settled = {m for a, b in _segments(len(msgs)) for m in range(a, b)}
    assert len(set(made) & settled) > 20
    asked: list[int] = []
    real = record_labels._message_label

    def spy(cols, m, speaker):  # type: ignore[no-untyped-def]
        asked.append(m.index)
        return real(cols, m, speaker)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(record_labels, "_message_label", spy)
        fresh = DiscourseMemory(msgs, cache=cache)
        assert _bytes(fresh.view(budget)) == expected
    assert not set(asked) & set(made) & settled  # (made by the warm worker: read, not made)
    got = fresh._compactor._cols.memo(record_labels.LabelsMemo).labels
    assert all(got[m] == made[m] for m in set(made) & settled)
    costs = fresh._compactor._cols.memo(_Candidates).label_costs
    assert all(costs[m] == warm._compactor._cols.memo(_Candidates).label_costs[m] for m in set(made) & settled
               if m in costs)

    def fresh_cols():  # type: ignore[no-untyped-def]
        compactor = DiscourseMemory(msgs)._compactor
        compactor._columns(msgs)
        return compactor._cols

    key, blob = max(((k, v) for k, v in cache.data.items() if _is_rows(k)),
                    key=lambda kv: len(cache_entry.unseal(shared_rows.MAGIC, shared_rows.PERSON, kv[0], kv[1], SECRET)[1])
                    - _labels_start(cache_entry.unseal(shared_rows.MAGIC, shared_rows.PERSON, kv[0], kv[1], SECRET)[1]))
    b = int(key.split(":r")[1].split(":")[0])
    a = {end: begin for begin, end in _segments(len(msgs))}[b]
    strings, ints = cache_entry.unseal(shared_rows.MAGIC, shared_rows.PERSON, key, blob, SECRET)  # type: ignore[misc]
    at = _labels_start(ints)
    assert len(ints) - at >= 4 and (len(ints) - at) % 4 == 0  # (labels held: message, speaker, label, tokens)
    cols = fresh_cols()
    assert shared_rows.decode(key, blob, cols, a, b, SECRET) > 0
    assert cols.memo(record_labels.LabelsMemo).labels[int(ints[at])] == made[int(ints[at])]
    for edit in (lambda x: x.__setitem__(at, b),  # a message past the segment
                 lambda x: x.__setitem__(at, a - 1),  # before it
                 lambda x: x.__setitem__(at, x[at] + 1 if x[at] + 1 < b else x[at] - 1),  # another message's label
                 lambda x: x.__setitem__(at + 2, 10**6),  # a string out of range
                 lambda x: x.__setitem__(at + 3, 0),  # no tokens
                 lambda x: x.__setitem__(at + 3, 10**6),  # more than its text can hold
                 lambda x: x.__setitem__(at + 1, -2),  # a speaker of no string
                 lambda x: x.__setitem__(_covers_end(x), 10**6),  # a message's speaker out of range
                 lambda x: x.__setitem__(_covers_end(x), -2)):
        assert shared_rows.decode(key, _resigned(shared_rows, key, blob, edit), fresh_cols(), a, b, SECRET) == -1
    # (a label cut short, three numbers of four: the entry's length no longer adds up)
    short = cache_entry.seal(shared_rows.MAGIC, shared_rows.PERSON, key, strings, ints[:-1], SECRET)
    assert shared_rows.decode(key, short, fresh_cols(), a, b, SECRET) == -1
    # A label made for another speaker is not read (the reader's columns give its message none).
    other = cache_entry.seal(shared_rows.MAGIC, shared_rows.PERSON, key, [*strings, "Mel"],
                             np.r_[ints[:at + 1], len(strings), ints[at + 2:]], SECRET)
    cols = fresh_cols()
    assert shared_rows.decode(key, other, cols, a, b, SECRET) > 0
    assert int(ints[at]) not in cols.memo(record_labels.LabelsMemo).labels

"""The token counts a view's renderings used, shared between workers (shared_counts.py): a view
through them, cold, warm or with bad entries, is the view made without them, byte for byte; a
fresh worker whose store holds a warm worker's entry BPE-encodes a few of the texts it renders;
a count read never enters the process's memos."""

from __future__ import annotations

import dataclasses
import hashlib
import zlib

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discourse_memory import Compactor, DiscourseMemory, cache_entry, get_token_counter, shared_counts
from discourse_memory.limits import LIMITS

from .test_analysis_cache import (SECRET, DictCache, _bytes, _damaged, _forged, _is_counts, _plain_view, _resigned,
                                  _swe_run, _view_or_error)
from .test_properties import conversations


@pytest.fixture
def forgetful():
    """The process's token counter with empty memos (what a fresh worker has), put back after."""
    counter = get_token_counter()
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(counter._cache, "_data", {})
        mp.setattr(counter, "_line_sums", {})
        yield counter


def _encodings(counter, mp: pytest.MonkeyPatch) -> list[str]:  # type: ignore[no-untyped-def]
    """The texts ``counter`` BPE-encodes from now on (as bench_first_view_gap.py counts them)."""
    seen: list[str] = []
    enc = counter._enc

    class Counted:
        def __getattr__(self, name):  # type: ignore[no-untyped-def]
            return getattr(enc, name)

        def encode_ordinary(self, text):  # type: ignore[no-untyped-def]
            seen.append(text)
            return enc.encode_ordinary(text)

        def encode_to_numpy(self, text, **kw):  # type: ignore[no-untyped-def]
            seen.append(text)
            return enc.encode_to_numpy(text, **kw)

    mp.setattr(counter, "_enc", Counted())
    return seen


def _counts_entries(cache: DictCache) -> dict[str, bytes]:
    return {k: v for k, v in cache.data.items() if _is_counts(k)}


def _other_writer(msgs: list[dict], budget: int, **options) -> DictCache:  # type: ignore[no-untyped-def]
    cache = DictCache()
    try:
        DiscourseMemory(msgs, cache=cache, **options).view(budget)
    except Exception:
        pass
    return cache


MODES = ["cold", "warm", "flip", "truncate", "forged", "other_conversation", "other_settings", "transplanted",
         "garbage", "out_of_bounds"]


def _tamper(cache: DictCache, mode: str, data: st.DataObject, msgs: list[dict], budget: int) -> None:
    """Each counts entry of ``cache`` broken as ``mode`` says."""
    donors: dict[str, bytes] = {}
    if mode in ("other_conversation", "other_settings", "transplanted"):
        other = [dict(m) for m in msgs]
        other[0]["content"] = f"{other[0].get('content') or ''} (another conversation)"
        donor = _other_writer(other if mode != "other_settings" else msgs, budget,
                              **({"clip_tokens": 7} if mode == "other_settings" else {}))
        donors = _counts_entries(donor)
    for key, blob in sorted(_counts_entries(cache).items()):
        if mode in ("flip", "truncate"):
            cache.data[key] = _damaged(blob, mode, data)
        elif mode == "forged":  # written by someone without the secret
            cache.data[key] = _forged(shared_counts, key, blob)
        elif mode in ("other_conversation", "other_settings") and donors:  # another key's entry, as it was
            cache.data[key] = donors[sorted(donors)[0]]
        elif mode == "transplanted" and donors:  # another conversation's counts, signed for this key
            got = cache_entry.unseal(shared_counts.MAGIC, shared_counts.PERSON, sorted(donors)[0],
                                     donors[sorted(donors)[0]], SECRET)
            assert got is not None
            b = int(key.split(":k")[1].split(":")[0])
            cache.data[key] = cache_entry.seal(shared_counts.MAGIC, shared_counts.PERSON, key, [],
                                               np.r_[b, got[1][1:]], SECRET)
        elif mode == "garbage":
            cache.data[key] = data.draw(st.sampled_from([b"", shared_counts.MAGIC, b"\x00" * 40, blob + b"x"]),
                                        label="garbage")
        elif mode == "out_of_bounds":  # signed with the secret: counts of 0, below, or past the text's bytes
            value = data.draw(st.sampled_from([0, -3, 10**9]), label="count")
            every = data.draw(st.booleans(), label="every count")

            def edit(ints: np.ndarray) -> None:
                k = int(ints[1])
                if k:
                    ints[2 + k:] = np.where(np.arange(k) % 2 == 0 if not every else True, value, ints[2 + k:])

            cache.data[key] = _resigned(shared_counts, key, blob, edit)


def _fresh_encodings(counter, msgs: list[dict], store: DictCache, budget: int, expected: bytes) -> int:  # type: ignore[no-untyped-def]
    """How many texts a fresh worker (``counter``'s memos emptied) BPE-encodes for its first view
    of ``msgs`` through ``store`` at ``budget``, which must be ``expected``."""
    counter._cache._data.clear()
    counter._line_sums.clear()
    memory = DiscourseMemory.from_dict(DiscourseMemory(msgs).to_dict(), cache=store)
    with pytest.MonkeyPatch.context() as mp:
        seen = _encodings(counter, mp)
        assert _bytes(memory.view(budget)) == expected
    return len(seen)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                                                  HealthCheck.function_scoped_fixture])
@given(msgs=conversations(), share=st.floats(0.05, 0.6), mode=st.sampled_from(["warm"] * 4 + MODES), data=st.data())
def test_a_view_through_shared_counts_is_the_view_without_them(msgs, share, mode, data, forgetful):
    plain, budget, expected = _plain_view(msgs, share)
    cache = DictCache()
    with pytest.MonkeyPatch.context() as mp:
        # (segments of 1 to 16 messages: short conversations have entries too)
        big = data.draw(st.sampled_from([(1, 1), (1, 2), (2, 2), (LIMITS.shared_segment, LIMITS.shared_group)]),
                        label="segment, group")
        mp.setattr(shared_counts, "LIMITS", dataclasses.replace(LIMITS, shared_segment=big[0], shared_group=big[1]))
        # The writer served the conversation up to some message, viewing it there and before
        # (mostly as far as the reader, or one message back: the entries a reader reads).
        n = len(msgs)
        cut = data.draw(st.one_of(st.sampled_from([n, max(1, n - 1)]), st.integers(1, n)), label="writer's messages")
        if mode != "cold":
            # (one worker taking the turns, whose entries hold the counts of its last views, at
            # budgets of their own; or a worker per view)
            one = data.draw(st.booleans(), label="one writer")
            writer = None
            for n in sorted({cut, *data.draw(st.lists(st.integers(1, cut), max_size=3), label="earlier views")}):
                at = data.draw(st.sampled_from([budget, budget, max(1, budget // 2), budget * 2]), label="its budget")
                try:
                    if writer is None or not one:
                        writer = DiscourseMemory(msgs[:n], cache=cache)
                    else:
                        for m in msgs[len(writer.messages):n]:
                            writer.append(m)
                    writer.view(at)
                except Exception:
                    pass
            _tamper(cache, mode, data, msgs, budget)
        # The reader: a fresh worker, whose counter has counted nothing.
        forgetful._cache._data.clear()
        forgetful._line_sums.clear()
        got = _view_or_error(DiscourseMemory.from_dict(plain.to_dict(), cache=cache), budget)
    assert got == expected


@pytest.mark.parametrize("back", [0, 1])
def test_a_fresh_worker_encodes_few_texts_where_a_warm_one_shared_its_counts(back, forgetful):
    """A warm worker viewed the conversation (``back`` 0: as it is, a request served again; 1:
    one agent's message before, as bench_workers.py's fresh worker finds it); a fresh worker
    whose store holds its entries BPE-encodes a tenth of the texts one without them does (0),
    or less than half (1: the new message moves some of the view)."""
    msgs, budget = _swe_run(0)
    msgs = [*msgs[:-1], {"role": "assistant", "content": "I will run the tests again with pytest -x and read the "
                                                          "separability matrix of the nested compound models."}]
    expected = _bytes(DiscourseMemory(msgs).view(budget))
    cache = DictCache()
    DiscourseMemory(msgs[:len(msgs) - back], cache=cache).view(budget)
    assert _counts_entries(cache)

    def fresh(store: DictCache) -> int:
        return _fresh_encodings(forgetful, msgs, store, budget, expected)

    without = DictCache()
    without.data = {k: v for k, v in cache.data.items() if not _is_counts(k)}
    shared, alone = fresh(cache), fresh(without)
    assert alone >= 100  # (the note's pieces, dozens of partly shown messages)
    assert shared * (10 if back == 0 else 2) <= alone, (shared, alone)


def test_an_entry_holds_the_counts_of_the_workers_last_views(forgetful):
    """A warm worker's entry holds what each of its last ``LIMITS.shared_count_views`` views
    counted, no older view's: a fresh worker whose view renders as one of them did, not as the
    last, BPE-encodes a tenth of the texts one without the entry does."""
    msgs, budget = _swe_run(0)
    budgets = [budget // 2, budget, budget * 2, budget // 3, budget // 4]
    cache = DictCache()
    writer = DiscourseMemory(msgs, cache=cache)
    views = []
    for at in budgets:
        writer.view(at)
        views.append(dict(writer._compactor._counts.used))
    (key, blob), = _counts_entries(cache).items()
    b = int(key.split(":k")[1].split(":")[0])
    entry = shared_counts.decode(key, blob, b, SECRET)
    last = views[-LIMITS.shared_count_views:]
    assert entry == {d: n for used in last for d, n in used.items()}  # (the last view's counts were new: written)
    assert set(views[0]) - set(entry)  # (the first view's own counts are gone)
    writer.view(budgets[2])  # (a view as one of them: its counts are in the entry, not written again)
    assert _counts_entries(cache) == {key: blob}
    # A view as the second was (three views back): from the entry, not encoded.
    expected = _bytes(DiscourseMemory(msgs).view(budgets[1]))

    def fresh(store: DictCache) -> int:
        return _fresh_encodings(forgetful, msgs, store, budgets[1], expected)

    without = DictCache()
    without.data = {k: v for k, v in cache.data.items() if not _is_counts(k)}
    shared, alone = fresh(cache), fresh(without)
    assert shared * 6 <= alone, (shared, alone)


def _with_counts_edited(run: int, edit, counter):  # type: ignore[no-untyped-def]
    """swe_dev run ``run`` at a quarter of its tokens, its view made without a store, and a store
    that a warm memory wrote, whose counts entries a writer with the secret signed again with
    their counts replaced by ``edit(counts)``; ``counter``'s memos then emptied (a fresh worker's)."""
    msgs, budget = _swe_run(run)
    expected = _bytes(DiscourseMemory(msgs).view(budget))
    cache = DictCache()
    DiscourseMemory(msgs, cache=cache).view(budget)

    def counts(ints):  # type: ignore[no-untyped-def]
        at = 2 + int(ints[1])  # (b, k, then k digests and k counts: shared_counts.encode)
        ints[at:] = edit(ints[at:])

    for key, blob in _counts_entries(cache).items():
        cache.data[key] = _resigned(shared_counts, key, blob, counts)
    counter._cache._data.clear()
    counter._line_sums.clear()
    return msgs, budget, expected, cache


def test_counts_read_never_enter_the_process_memos(forgetful):
    """A count read from the store (here, each one more than its text's, signed with the secret:
    a writer to the server that has it) moves this compactor's views, not another's."""
    msgs, budget, expected, cache = _with_counts_edited(1, lambda counts: counts + 1, forgetful)
    fooled = DiscourseMemory(msgs, cache=cache)
    assert _bytes(fooled.view(budget)) != expected  # (docs/workers.md, "Forgery": without a secret, so can anyone)
    read = fooled._compactor._counts.read
    assert read and fooled._compactor._counts.refused == 0
    # The process's counter holds none of the counts read: another conversation's views, and
    # this one's without the store, are right.
    encode = forgetful._enc.encode_ordinary
    assert forgetful._cache._data and forgetful._line_sums
    assert all(n == len(encode(t)) for t, n in forgetful._cache._data.items())
    assert all(n == len(encode(run + "\n" if more else run)) for (run, more), (n, _) in forgetful._line_sums.items())
    assert _bytes(DiscourseMemory(msgs).view(budget)) == expected


def test_a_warm_worker_replaces_its_segments_entry_only_when_its_counts_change():
    msgs, budget = _swe_run(2)
    big = LIMITS.shared_segment * LIMITS.shared_group
    cache = DictCache()
    memory = DiscourseMemory(msgs[:-3], cache=cache)
    writes: list[dict[int, int]] = []
    real = cache.set_many

    def spy(items):  # type: ignore[no-untyped-def]
        for key, blob in items.items():
            if _is_counts(key):
                b = int(key.split(":k")[1].split(":")[0])
                assert b == len(memory._compactor._tags) // big * big
                writes.append(shared_counts.decode(key, blob, b, SECRET))
        real(items)

    cache.set_many = spy  # type: ignore[method-assign]
    memory.view(budget)
    assert len(writes) == 1 and writes[0]
    memory.view(budget)  # (the same view: the same counts, not written again)
    assert len(writes) == 1
    for m in msgs[-3:]:
        memory.append(m)
        memory.view(budget)
    assert len(writes) >= 2
    # Each entry is the counts of the worker's last views (replaced, not merged with the entry):
    # a text's count once, and no more than those views' renderings and notes counted.
    assert all(len(w) <= LIMITS.shared_counts for w in writes)
    assert len({len(w) for w in writes}) > 1 or writes[-1] != writes[0]
    assert len(_counts_entries(cache)) <= len(msgs) // big


def test_an_entry_round_trips_and_a_malformed_one_is_refused():
    counts = {shared_counts.text_digest(t)[0]: n for t, n in (("a b c", 3), ("é", 1))}
    key = "s:k16:t"
    blob = shared_counts.encode(key, 16, counts, SECRET)
    assert shared_counts.decode(key, blob, 16, SECRET) == counts
    assert shared_counts.decode(key, blob, 32, SECRET) is None  # (another segment's)
    assert shared_counts.decode("s:k16:u", blob, 16, SECRET) is None  # (another conversation's key)
    assert shared_counts.decode(key, blob, 16, b"") is None  # (signed: a reader without the secret refuses it)
    assert shared_counts.decode(key, _forged(shared_counts, key, blob), 16, SECRET) is None
    for edit in (lambda ints: ints.__setitem__(1, 3),  # (its count of counts off)
                 lambda ints: ints.__setitem__(1, -1)):
        assert shared_counts.decode(key, _resigned(shared_counts, key, blob, edit), 16, SECRET) is None
    too_many = shared_counts.encode(key, 16, dict.fromkeys(range(LIMITS.shared_counts + 1), 1), SECRET)
    assert shared_counts.decode(key, too_many, 16, SECRET) is None
    with_strings = cache_entry.seal(shared_counts.MAGIC, shared_counts.PERSON, key, ["x"],
                                    np.array([16, 0]), SECRET)
    assert shared_counts.decode(key, with_strings, 16, SECRET) is None
    assert shared_counts.text_digest("\ud800")[1] == 3  # (surrogatepass bytes)
    assert shared_counts.text_digest("x")[0] != shared_counts.text_digest("x\n")[0]
    # (the digest an entry is keyed by, whatever way it is computed: BLAKE2b-64 personalised, little-endian, signed)
    for text in ("a b c", "é", "\ud800", "x" * 5000, ""):
        raw = text.encode("utf-8", "surrogatepass")
        assert shared_counts.text_digest(text) == (int.from_bytes(
            hashlib.blake2b(raw, digest_size=8, person=b"dm-text").digest(), "little", signed=True), len(raw))
    assert zlib.decompress(blob[len(shared_counts.MAGIC) + cache_entry.DIGEST:], -zlib.MAX_WBITS)  # (the envelope's body: raw DEFLATE)


def test_a_conversation_under_a_segment_shares_no_counts():
    cache = DictCache()
    msgs, budget = _swe_run(0)
    big = LIMITS.shared_segment * LIMITS.shared_group
    DiscourseMemory(msgs[:big - 1], cache=cache).view(max(1, Compactor().count_messages(msgs[:big - 1]) // 4))
    assert not _counts_entries(cache)


@pytest.mark.parametrize("value", [0, -3, 10**9])
def test_a_count_out_of_bounds_is_refused_and_counted_here(value, forgetful):
    """Signed with the secret (a writer that has it), counts below one token or past their text's
    bytes: each is refused where it would be used, and the view is the view without them."""
    msgs, budget, expected, cache = _with_counts_edited(0, lambda counts: value, forgetful)
    reader = DiscourseMemory(msgs, cache=cache)
    assert _bytes(reader.view(budget)) == expected
    counts = reader._compactor._counts
    assert counts.read and counts.refused >= len(counts.read) // 2

"""A conversation's columns (:class:`.columns.Columns`), shared between workers per segment
of messages.

A fresh worker's first view read every text's analysis from the shared cache and then took
the conversation's columns from it unit by unit: each unit's key, literals, heads and words
numbered through the conversation's vocabularies (dictionary look-ups for tens of thousands
of strings), about a sixth of that view (issue 49). Those numbers are a function of the
conversation's first messages, so they are shared like the row memo (:mod:`.fit.shared_rows`):
per segment of messages (:func:`.cache_entry.segments`: ``LIMITS.shared_segment *
LIMITS.shared_group`` messages of the settled history, ``LIMITS.shared_segment`` after it),
under a key of the first ``b`` messages, an entry holds the columns of the units of messages
``a`` to ``b - 1`` and the vocabulary they add. A reader applies the entries of a conversation's complete segments in order, from its
first message, while they hold and check out, and builds the rest (fewer than a segment's
messages, or from the first entry missing) as before. Each segment is written once, by the
first worker that has its columns and does not know the store to hold it; a worker whose
turns completed short segments writes the settled segment that merges them when a turn
completes it (the short ones stay until they expire, read by no view after): a
conversation's entries together are its columns at most twice.

Key: ``<settings>:u<b>:<tag>`` (the analysis settings' digest with this format's version, the
segment's end, which names it, and the compactor's chained digest of the first ``b`` messages).

Value: the envelope of :mod:`.cache_entry` (magic, digest of key and body, keyed by the store's
``secret``; zlib). Strings: the keys, literal texts and words the segment adds, the literal
kinds' names as of its last message, and the words it writes in lower case
(:func:`.record.noise.lowercase_words`, a scan of every message's text on a first view).
Numbers: a header, per message its units, per unit its key and how many literals, heads and
words it has, then those as numbers of the vocabularies, each new literal's kind, the row
where each kind name first stands, each lower-case word's count, and the first-view scans the
writer had made of these messages (per unit the list item that heads it,
:func:`.outline.list_heads`; per message whether it is a listing or prints code,
:mod:`.fit.signals`, and the unit of the question it answers, :func:`.replies.question_units`;
the headings written as titles, ``fit.rank._stating_headings``; per new literal what
:func:`.record.noise.not_values` finds of it alone: encoded data, capitals, code glue; per new
word its stem's number and the new stems, ``focus._stems``; the lines
:func:`.fit.signals.outcome_lines` read, with their verdicts). What follows from the texts' analyses, which the reader has, is not
stored: a unit's kind, tokens, clip cost and head are taken from them. A reader checks every number against its columns and the
messages' fields (the units of each message, every number in its vocabulary, the floats finite
and in range, the new strings new) before it takes any: an entry that fails is a miss, and so
are the entries after it. What a text's analysis gives with the fields (labels, dates, marks)
is not stored.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from bisect import bisect_left
from itertools import accumulate, chain
from dataclasses import dataclass
from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from .cache_entry import seal, segments, unseal
from .columns import Columns
from .limits import LIMITS
from .fit.signals import found_scans, found_verdicts, seed_scans, seed_verdicts
from .outline import found_heads, seed_list_heads
from .record.examples import FoundScans, found_scans as found_prompt_scans, seed_scans as seed_prompt_scans
from .record.noise import found_literal_scans, lowercase_words_of, plural_forms, seed_literal_scans, \
    seed_lowercase_words
from .replies import found_question_units, seed_question_units
from .focus import found_stems, seed_stems
from .fit.rank import found_titles, seed_titles
from .columns import UNIT_KINDS
from .messages import Message
from .units import Field

__all__ = ["COLUMNS_VERSION", "SharedColumns", "SharedSegment", "decode", "decode_run", "encode", "fits", "vocabularies"]

MAGIC = b"DMC\x01"
COLUMNS_VERSION = "4"
"""Raised whenever what :meth:`Columns.extend` makes of a message changes: part of every key."""
PERSON = b"dm-columns"
"""The digest's personalisation (:mod:`.cache_entry`): an entry of another format never passes."""
_HEAD = 33  # a, b, units, literal rows, head rows, word rows, keys before, new keys, literals before,
# new literals, words before, new words, kind names, lower-case words, and whether it holds list heads,
# listings and code reads; whether it holds the prompt scans (record/examples.py), and how many
# example units, literal occurrences outside examples, harness units and comment units; whether it
# holds the question units (replies.py), the title headings (fit/rank.py: whether, and how many) and
# the literals' noise scans (record/noise.py: whether, and how many encoded, in capitals, code glue);
# whether it holds the words' stems (focus.py), the stems numbered before it and how many it adds;
# how many of its lines it holds the verdict of (fit/signals.py: outcome_lines)
_COLS = 4  # per unit: key n_lits n_heads n_words
_HEADING_KIND = UNIT_KINDS.index("heading")



@dataclass(frozen=True, slots=True)
class SharedSegment:
    """The columns of the units of messages ``a`` to ``b - 1`` as an entry holds them (checked
    for its own consistency; :func:`fits` checks it against a conversation)."""

    a: int
    b: int
    units: np.ndarray
    """Per message, its units."""
    keys: np.ndarray
    """Per unit, its key's number."""
    n_lits: np.ndarray
    n_heads: np.ndarray
    n_words: np.ndarray
    lits: np.ndarray
    heads: np.ndarray
    words: np.ndarray
    keys_before: int
    lits_before: int
    words_before: int
    new_keys: list[str]
    new_lits: list[str]
    lit_kinds: np.ndarray
    """Per new literal, its kind's number (of ``kind_names``)."""
    new_words: list[str]
    kind_names: list[str]
    kind_name_rows: list[int]
    """Per kind name, the literal row where it first stands."""
    lower_words: Counter[str]
    """What :func:`.record.noise.lowercase_words` counts in these messages."""
    list_heads: np.ndarray | None
    """Per unit, :func:`.outline.list_heads` (None: the writer had not found them)."""
    listing: np.ndarray | None
    """Per message, :func:`.fit.signals.listing_messages` (None: not found)."""
    reading: np.ndarray | None
    """Per message, :func:`.fit.signals.reading_messages` (None: not found)."""
    prompt: FoundScans | None = None
    """The units :func:`.record.examples.example_units`, ``harness_units`` and
    ``comment_units`` found in these messages, numbered from the conversation's first unit
    (None: not found)."""
    questions: np.ndarray | None = None
    """Per message, :func:`.replies.question_units` (None: not found)."""
    titles: np.ndarray | None = None
    """The units that are headings written as titles (``fit.rank._stating_headings``),
    numbered from the conversation's first unit (None: not found)."""
    stems: tuple[np.ndarray, list[str]] | None = None
    """Per word of the conversation's vocabulary so far, its stem's number, and the stems by
    number (``focus._stems``; None: not found)."""
    verdicts: np.ndarray | None = None
    """Lines read by :func:`.fit.signals.outcome_lines`, numbered from the conversation's
    first unit, with whether each reads as a verdict, as rows (None: none)."""
    noise: tuple[np.ndarray, np.ndarray, np.ndarray] | None = None
    """What :func:`.record.noise.not_values` finds of each new literal alone: the literals that
    are encoded data, those in capitals with their class (0: emphasis, 1: a code, 2: an
    abbreviation's plural) as rows, and the quoted literals that are code glue (None: not found)."""


def vocabularies(cols: Columns, a: int, b: int, before: tuple[int, int, int]) -> tuple[int, int, int]:
    """How many keys, literals and words ``cols`` had numbered after message ``b - 1``, given
    those after message ``a - 1`` (each numbered in order of first appearance: the greatest
    number so far, plus one), reading only the units of messages ``a`` to ``b - 1``."""
    starts = cols.msg_start.view
    u0, u1 = int(starts[a]), int(starts[b])
    out = []
    for values, ptr, known in ((cols.u_key.view, None, before[0]), (cols.lit_idx.view, cols.lit_ptr.view, before[1]),
                               (cols.word_idx.view, cols.word_ptr.view, before[2])):
        lo, hi = (u0, u1) if ptr is None else (int(ptr[u0]), int(ptr[u1]))
        out.append(max(known, int(values[lo:hi].max()) + 1) if hi > lo else known)
    return out[0], out[1], out[2]


def encode(key: str, cols: Columns, a: int, b: int, before: tuple[int, int, int],
           after: tuple[int, int, int], secret: bytes = b"") -> bytes | None:
    """The entry of ``cols``' messages ``a`` to ``b - 1``, with the vocabularies' sizes ``before``
    and ``after`` them (:func:`vocabularies`); None: columns no entry can hold."""
    starts = cols.msg_start.view
    u0, u1 = int(starts[a]), int(starts[b])
    lp, hp, wp = cols.lit_ptr.view, cols.head_ptr.view, cols.word_ptr.view
    (k0, l0, w0), (k1, l1, w1) = before, after
    n_names = bisect_left(cols.kind_name_row, int(lp[u1]))  # (the rows where names first stand: in order)
    lower = lowercase_words_of(cols, a, b)
    # (the first-view scans found for these messages, if the writer's views found them)
    heads, seen = found_heads(cols)
    heads = heads[u0:u1] if seen >= b else np.zeros(0, dtype=np.int64)
    listing, reading = found_scans(cols)
    listing = np.asarray(listing[a:b] if len(listing) >= b else [], dtype=np.int64)
    reading = np.asarray(reading[a:b] if len(reading) >= b else [], dtype=np.int64)
    prompt = found_prompt_scans(cols)
    has_prompt = prompt.seen >= b
    ex, har, com = (np.asarray(_within(found, u0, u1) if has_prompt else [], dtype=np.int64) - u0
                    for found in (prompt.examples, prompt.harness, prompt.comments))
    out = _within_pairs(prompt.outside, u0, u1) if has_prompt else []
    outside = np.asarray(out, dtype=np.int64).reshape(len(out), 2) - np.array([u0, 0], dtype=np.int64)
    questions = found_question_units(cols)
    questions = np.asarray(questions[a:b] if len(questions) >= b else [], dtype=np.int64)
    titles = found_titles(cols)
    has_titles = len(titles) >= u1
    title_units = np.flatnonzero(np.asarray(titles[u0:u1], dtype=bool)) if has_titles else np.zeros(0, dtype=np.int64)
    lits_seen, encoded, capitals, glue = found_literal_scans(cols)
    has_noise = lits_seen >= l1
    enc = np.asarray(_within(encoded, l0, l1) if has_noise else [], dtype=np.int64) - l0
    caps = np.asarray([(i - l0, 0 if forms == () else 1 if forms is None else 2) for i, forms in capitals.items()
                       if l0 <= i < l1] if has_noise else [], dtype=np.int64).reshape(-1, 2)
    caps = caps[np.argsort(caps[:, 0], kind="stable")]
    code_glue = np.sort(np.asarray([i - l0 for i, hit in glue.items() if hit and l0 <= i < l1] if has_noise else [],
                                   dtype=np.int64))
    word_stems, stem_names = found_stems(cols)
    has_stems = len(word_stems) >= w1
    stem_ids = np.asarray(word_stems[w0:w1] if has_stems else [], dtype=np.int64)
    s0 = max(word_stems[:w0]) + 1 if has_stems and w0 else 0  # (stems are numbered in the words' order)
    new_stems = stem_names[s0:max(s0, int(stem_ids.max()) + 1)] if len(stem_ids) else []
    verdicts = np.asarray(sorted((u - u0, int(hit)) for u, hit in found_verdicts(cols).items() if u0 <= u < u1),
                          dtype=np.int64).reshape(-1, 2)
    strings = [*cols.key_text[k0:k1], *cols.lit_text[l0:l1], *cols.word_text[w0:w1], *cols.lit_kind_names[:n_names],
               *lower, *new_stems]
    per_unit = np.stack([cols.u_key.view[u0:u1], np.diff(lp[u0:u1 + 1]), np.diff(hp[u0:u1 + 1]),
                         np.diff(wp[u0:u1 + 1])], axis=1) if u1 > u0 else np.zeros((0, _COLS), dtype=np.int64)
    ints = np.concatenate([
        np.array([a, b, u1 - u0, int(lp[u1] - lp[u0]), int(hp[u1] - hp[u0]), int(wp[u1] - wp[u0]), k0, k1 - k0,
                  l0, l1 - l0, w0, w1 - w0, n_names, len(lower), int(seen >= b), len(listing) > 0, len(reading) > 0,
                  int(has_prompt), len(ex), len(outside), len(har), len(com), len(questions) > 0, int(has_titles),
                  len(title_units), int(has_noise), len(enc), len(caps), len(code_glue), int(has_stems), s0,
                  len(new_stems), len(verdicts)],
                 dtype=np.int64),
        np.diff(starts[a:b + 1]), per_unit.ravel(), cols.lit_idx.view[lp[u0]:lp[u1]],
        cols.head_idx.view[hp[u0]:hp[u1]], cols.word_idx.view[wp[u0]:wp[u1]],
        cols.lit_kind.view[l0:l1].astype(np.int64), np.asarray(cols.kind_name_row[:n_names], dtype=np.int64),
        questions, title_units, enc, caps.ravel(), code_glue, stem_ids, verdicts.ravel(),
        np.fromiter(lower.values(), dtype=np.int64, count=len(lower)), heads, listing, reading, ex,
        outside.ravel(), har, com])
    return seal(MAGIC, PERSON, key, strings, ints, secret, 6)


def _within(units: list[int], u0: int, u1: int) -> list[int]:
    """The units of ``units`` (in order) from ``u0`` to ``u1 - 1``."""
    return units[bisect_left(units, u0):bisect_left(units, u1)]


def _within_pairs(pairs: list[tuple[int, int]], u0: int, u1: int) -> list[tuple[int, int]]:
    """The pairs of ``pairs`` (in order of their unit) whose unit is from ``u0`` to ``u1 - 1``."""
    return pairs[bisect_left(pairs, (u0, -1)):bisect_left(pairs, (u1, -1))]


def decode(key: str, blob: Any, a: int, b: int, secret: bytes = b"") -> SharedSegment | None:
    """The segment an entry holds, if it is a well-formed entry of this format for this key
    and messages ``a`` to ``b - 1`` (its numbers consistent with each other; :func:`fits`
    checks them against a conversation)."""
    return decode_run([(key, blob, a, b)], secret)


class _Parts(NamedTuple):
    """An opened entry whose lengths agree with its header: its parts, their values unchecked."""

    a: int
    b: int
    counts: tuple[int, ...]  # units, literal rows, head rows, word rows
    vocab: tuple[int, ...]  # keys before, new keys, literals before, new literals, words before, new words
    units: np.ndarray
    rows: np.ndarray
    lits: np.ndarray
    heads: np.ndarray
    words: np.ndarray
    lit_kinds: np.ndarray
    name_rows: np.ndarray
    lower_counts: np.ndarray
    heads_memo: np.ndarray | None
    listing: np.ndarray | None
    reading: np.ndarray | None
    prompt: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray] | None  # examples, outside, harness, comments
    strings: list[str]  # new keys, literals and words
    names: list[str]
    lower: list[str]
    questions: np.ndarray | None
    titles: np.ndarray | None  # (of its own units)
    noise: tuple[np.ndarray, np.ndarray, np.ndarray] | None  # (of its new literals) encoded, capitals, glue
    stems: tuple[int, np.ndarray, list[str]] | None  # the stems before it, its words' stems, its new stems
    verdicts: np.ndarray | None  # (of its own units) unit, verdict


def _open(key: str, blob: Any, a: int, b: int, secret: bytes) -> _Parts | None:
    opened = unseal(MAGIC, PERSON, key, blob, secret)
    if opened is None:
        return None
    strings, ints = opened
    if len(ints) < _HEAD:
        return None
    (got_a, got_b, n_units, n_lr, n_hr, n_wr, k0, n_k, l0, n_l, w0, n_w, n_names, n_lower, has_heads, has_listing,
     has_reading, has_prompt, n_ex, n_out, n_har, n_com, has_questions, has_titles, n_titles, has_noise, n_enc, n_caps,
     n_glue, has_stems, s0, n_stems, n_verdicts) = ints[:_HEAD].tolist()
    if (got_a, got_b) != (a, b) or not 0 <= a < b or min(n_units, n_lr, n_hr, n_wr, k0, n_k, l0, n_l, w0, n_w,
                                                        n_names, n_lower, n_ex, n_out, n_har, n_com, n_titles, n_enc,
                                                        n_caps, n_glue, s0, n_stems, n_verdicts) < 0 \
            or not {has_heads, has_listing, has_reading, has_prompt, has_questions, has_titles, has_noise,
                    has_stems} <= {0, 1} or not has_stems and s0 + n_stems \
            or not has_prompt and n_ex + n_out + n_har + n_com \
            or not has_titles and n_titles or not has_noise and n_enc + n_caps + n_glue:
        return None
    n_msgs = b - a
    if len(ints) != _HEAD + n_msgs + _COLS * n_units + n_lr + n_hr + n_wr + n_l + n_names + n_lower \
            + has_heads * n_units + (has_listing + has_reading + has_questions) * n_msgs + n_titles + n_enc \
            + 2 * n_caps + n_glue + has_stems * n_w + 2 * n_verdicts + n_ex + 2 * n_out + n_har + n_com \
            or len(strings) != n_k + n_l + n_w + n_names + n_lower + n_stems:
        return None
    cut = list(accumulate([_HEAD, n_msgs, _COLS * n_units, n_lr, n_hr, n_wr, n_l, n_names, has_questions * n_msgs,
                           n_titles, n_enc, 2 * n_caps, n_glue, has_stems * n_w, 2 * n_verdicts, n_lower,
                           has_heads * n_units,
                           has_listing * n_msgs, has_reading * n_msgs, n_ex, 2 * n_out, n_har]))
    # (slices, not np.split: a split is a dozen numpy calls per part, for every entry of a first view)
    units, rows, lits, heads, words, lit_kinds, name_rows, questions, titles, enc, caps, glue, stem_ids, verdicts, \
        lower_counts, heads_memo, listing, reading, ex, out, har, com = [ints[a:b] for a, b in zip(cut, [*cut[1:], len(ints)])]
    at = n_k + n_l + n_w
    caps = caps.reshape(n_caps, 2)
    # (a scan that breaks a rule of its own is made instead: its units or literals the entry's own, in order)
    if has_titles and not _ascending(titles, n_units):
        has_titles = 0
    if has_noise and not (_ascending(enc, n_l) and _ascending(caps[:, 0], n_l) and _ascending(glue, n_l)
                          and bool(((caps[:, 1] >= 0) & (caps[:, 1] <= 2)).all())):
        has_noise = 0
    if has_stems and not _numbered(stem_ids, s0, n_stems):
        has_stems = 0
    verdicts = verdicts.reshape(n_verdicts, 2)
    well_read = _ascending(verdicts[:, 0], n_units) and bool(((verdicts[:, 1] == 0) | (verdicts[:, 1] == 1)).all())
    return _Parts(a, b, (n_units, n_lr, n_hr, n_wr), (k0, n_k, l0, n_l, w0, n_w), units,
                  rows.reshape(n_units, _COLS), lits, heads, words, lit_kinds, name_rows, lower_counts,
                  heads_memo if has_heads else None, listing if has_listing else None,
                  reading if has_reading else None, (ex, out.reshape(n_out, 2), har, com) if has_prompt else None,
                  strings[:at], strings[at:at + n_names], strings[at + n_names:at + n_names + n_lower],
                  questions if has_questions else None, titles if has_titles else None,
                  (enc, caps, glue) if has_noise else None,
                  (s0, stem_ids, strings[at + n_names + n_lower:]) if has_stems else None,
                  verdicts if well_read else None)


def _numbered(ids: np.ndarray, before: int, new: int) -> bool:
    """Whether ``ids`` number from 0 to ``before + new - 1``, the ``new`` numbers from ``before``
    each first appearing in order (as a vocabulary numbers in order of first appearance)."""
    if not len(ids):
        return new == 0
    if int(ids.min()) < 0 or int(ids.max()) >= before + new:
        return False
    # (in one pass, not a sort: each new number at most one past the greatest before it, and
    # the last of them ``before + new - 1``, is each of the ``new`` appearing, first in order)
    fresh = ids[ids >= before]
    if len(fresh) == 0:
        return new == 0
    most = np.maximum.accumulate(fresh)
    return int(fresh[0]) == before and bool((fresh[1:] <= most[:-1] + 1).all()) and int(most[-1]) == before + new - 1


def _ascending(values: np.ndarray, limit: int) -> bool:
    """Whether ``values`` rise strictly, from 0 up to ``limit - 1`` at most."""
    # (neighbours compared, not np.diff: its wrapper was most of a check run some forty times a view)
    return not len(values) or (int(values[0]) >= 0 and int(values[-1]) < limit
                               and bool((values[1:] > values[:-1]).all()))


def _continues(p: _Parts, nxt: _Parts) -> bool:
    """Whether ``nxt`` numbers its vocabularies from where ``p`` left them, with its names."""
    k0, n_k, l0, n_l, w0, n_w = p.vocab
    k1, _, l1, _, w1, _ = nxt.vocab
    return (nxt.a == p.b and (k1, l1, w1) == (k0 + n_k, l0 + n_l, w0 + n_w)
            and nxt.names[:len(p.names)] == p.names
            and nxt.name_rows[:len(p.name_rows)].tolist() == p.name_rows.tolist())


def decode_run(entries: Sequence[tuple[str, Any, int, int]], secret: bytes = b"") -> SharedSegment | None:
    """The entries ``(key, blob, a, b)`` of consecutive segments, from the first, while they
    are well-formed and continue one another, as one segment (None: not the first): their
    numbers checked together, a few array operations for all of them."""
    run: list[_Parts] = []
    for key, blob, a, b in entries:
        got = _open(key, blob, a, b, secret)
        if got is None or (run and not _continues(run[-1], got)):
            break
        run.append(got)
    while run:  # (checked together; an entry that fails ends the run before it)
        bad = _failed(run)
        if not bad.any():
            return _joined(run)
        run = run[:int(np.argmax(bad))]
    return None


def _failed(run: list[_Parts]) -> np.ndarray:
    """Per entry of ``run``, whether one of its numbers breaks a rule."""
    n = len(run)
    ids = np.arange(n)

    def per(counts: list[int]) -> np.ndarray:  # each number's entry
        return np.repeat(ids, counts)

    def any_of(bad: np.ndarray, owner: np.ndarray) -> np.ndarray:
        return np.bincount(owner[bad], minlength=n) > 0 if len(bad) else np.zeros(n, dtype=bool)

    n_units, n_lr, n_hr, n_wr = (np.array(c, dtype=np.int64) for c in zip(*(p.counts for p in run)))
    k0, n_k, l0, n_l, w0, n_w = (np.array(c, dtype=np.int64) for c in zip(*(p.vocab for p in run)))
    n_names = np.array([len(p.name_rows) for p in run], dtype=np.int64)
    units = np.concatenate([p.units for p in run])
    msg_of = per([p.b - p.a for p in run])
    failed = any_of(units < 0, msg_of) | (np.bincount(msg_of, weights=np.maximum(units, 0), minlength=n) != n_units)
    rows = np.concatenate([p.rows for p in run])
    unit_of = per(n_units.tolist())
    keys, n_lits, n_heads, n_words = rows.T
    failed |= any_of((keys < 0) | (keys >= (k0 + n_k)[unit_of]) | (n_lits < 0) | (n_heads < 0) | (n_words < 0),
                     unit_of)
    for counts, total in ((n_lits, n_lr), (n_heads, n_hr), (n_words, n_wr)):
        failed |= np.bincount(unit_of, weights=np.maximum(counts, 0), minlength=n) != total
    for name, counts, limit in (("lits", n_lr, l0 + n_l), ("heads", n_hr, l0 + n_l), ("words", n_wr, w0 + n_w),
                                ("lit_kinds", n_l, n_names)):
        values, owner = np.concatenate([getattr(p, name) for p in run]), per(counts.tolist())
        failed |= any_of((values < 0) | (values >= limit[owner]), owner)
    lower, owner = np.concatenate([p.lower_counts for p in run]), per([len(p.lower) for p in run])
    failed |= any_of(lower < 1, owner)  # (and their sum within the texts': fits)
    name_rows, owner = np.concatenate([p.name_rows for p in run]), per(n_names.tolist())
    failed |= any_of(name_rows < 0, owner)
    if len(name_rows) > 1:
        failed |= any_of(np.r_[False, (np.diff(name_rows) <= 0) & (owner[1:] == owner[:-1])], owner)
    return failed


def _prompt_in_segment(p: _Parts) -> bool:
    """Whether the prompt scans' units of ``p`` are of its own units, their literals of the
    vocabulary as it stands after it (a scan that is not is made instead)."""
    assert p.prompt is not None
    n_units, (l0, _, _, n_l, _, _) = p.counts[0], p.vocab
    ex, out, har, com = p.prompt
    units = np.concatenate([ex, out[:, 0], har, com])
    return not len(units) or (int(units.min()) >= 0 and int(units.max()) < n_units
                              and (not len(out) or (int(out[:, 1].min()) >= 0 and int(out[:, 1].max()) < l0 + n_l)))


def _joined(run: list[_Parts]) -> SharedSegment:
    """Consecutive entries (each continuing the one before, every number checked) as one segment."""
    first, last = run[0], run[-1]
    rows = np.concatenate([p.rows for p in run])
    keys, n_lits, n_heads, n_words = rows.T

    def cat(name: str) -> np.ndarray:
        return np.concatenate([getattr(p, name) for p in run])

    def part(p: _Parts, at: int) -> list[str]:  # new keys (0), literals (1) or words (2) of an entry's strings
        n_k, n_l, n_w = p.vocab[1], p.vocab[3], p.vocab[5]
        return p.strings[(0, n_k, n_k + n_l)[at]:(n_k, n_k + n_l, n_k + n_l + n_w)[at]]

    # Each word's counts added up over the entries, in order of first appearance (as counted from
    # the first message), with C-level maps and one bincount: a loop per word was a fifth of a run.
    said = list(chain.from_iterable(p.lower for p in run))
    order = list(dict.fromkeys(said))
    place = dict(zip(order, range(len(order))))
    sums = np.bincount(np.fromiter(map(place.__getitem__, said), dtype=np.int64, count=len(said)),
                       weights=np.concatenate([p.lower_counts for p in run]), minlength=len(order))
    lower: Counter[str] = Counter()
    dict.update(lower, zip(order, sums.astype(np.int64).tolist()))  # (no dict made to be copied)

    def memo(name: str) -> np.ndarray | None:  # (one a segment lacks: none for the run)
        got = [getattr(p, name) for p in run]
        return None if any(g is None for g in got) else np.concatenate(got)

    prompt = None
    if all(p.prompt is not None and _prompt_in_segment(p) for p in run):  # (numbered from the conversation's first unit)
        base = np.cumsum([0] + [p.counts[0] for p in run[:-1]]).tolist()
        parts = [(ex + u0, out + np.array([u0, 0], dtype=np.int64), har + u0, com + u0)
                 for u0, (ex, out, har, com) in zip(base, (p.prompt for p in run if p.prompt is not None))]
        prompt = FoundScans(last.b, np.concatenate([x[0] for x in parts]).tolist(),
                            list(map(tuple, np.concatenate([x[1] for x in parts]).tolist())),
                            np.concatenate([x[2] for x in parts]).tolist(), np.concatenate([x[3] for x in parts]).tolist())
    questions = memo("questions")
    titles = noise = stems = None
    read = [(u0, p.verdicts) for u0, p in zip(np.cumsum([0] + [p.counts[0] for p in run[:-1]]).tolist(), run)
            if p.verdicts is not None]  # (a memo of lines read: those of the entries that hold them well)
    verdicts = np.concatenate([v + np.array([u0, 0], dtype=np.int64) for u0, v in read]) if read else None
    # (the stems numbered from the first message on, each entry from where the one before left them)
    got = [p.stems for p in run]
    if all(g is not None for g in got) and [g[0] for g in got if g is not None] == \
            np.cumsum([0] + [len(g[2]) for g in got if g is not None][:-1]).tolist():
        stems = (np.concatenate([g[1] for g in got if g is not None]), [t for g in got if g is not None for t in g[2]])
    if all(p.titles is not None for p in run):  # (numbered from the conversation's first unit)
        base = np.cumsum([0] + [p.counts[0] for p in run[:-1]]).tolist()
        titles = np.concatenate([p.titles + u0 for u0, p in zip(base, run) if p.titles is not None])
    if all(p.noise is not None for p in run):  # (numbered from the conversation's first literal)
        parts3 = [(p.vocab[2], p.noise) for p in run if p.noise is not None]
        noise = (np.concatenate([enc + l0 for l0, (enc, _, _) in parts3]),
                 np.concatenate([caps + np.array([l0, 0], dtype=np.int64) for l0, (_, caps, _) in parts3]),
                 np.concatenate([glue + l0 for l0, (_, _, glue) in parts3]))
    return SharedSegment(first.a, last.b, cat("units"), np.ascontiguousarray(keys), np.ascontiguousarray(n_lits), np.ascontiguousarray(n_heads),
                         np.ascontiguousarray(n_words), cat("lits"), cat("heads"), cat("words"), first.vocab[0],
                         first.vocab[2], first.vocab[4], list(chain.from_iterable(part(p, 0) for p in run)),
                         list(chain.from_iterable(part(p, 1) for p in run)), cat("lit_kinds").astype(np.int16),
                         list(chain.from_iterable(part(p, 2) for p in run)), last.names, last.name_rows.tolist(), lower,
                         memo("heads_memo"), memo("listing"), memo("reading"), prompt, questions, titles, stems,
                         verdicts, noise)


def fits(seg: SharedSegment, cols: Columns, fields: list[list[Field]],
         ) -> tuple[dict[str, int], dict[str, int], dict[str, int]] | None:
    """Whether ``seg`` continues ``cols`` (which holds its first ``seg.a`` messages) with
    messages of ``fields``: their units, the vocabularies it numbers from and adds to, and the
    literal kinds' names agree. Where it does, the numbers it adds to the keys', literals' and
    words' vocabularies (each new string's number: what :meth:`.columns.Columns.extend_shared`
    adds, the dicts built once, here, where a set of each list was built to check it and then
    the dicts); None where it does not."""
    if len(cols) != seg.a or len(fields) != seg.b - seg.a:
        return None
    units = [sum(map(len, [f.units for f in fs])) for fs in fields]
    if units != seg.units.tolist():
        return None
    before = (len(cols.key_ids), len(cols.lit_text), len(cols.word_text))
    if (seg.keys_before, seg.lits_before, seg.words_before) != before:
        return None
    names = cols.lit_kind_names
    if seg.kind_names[:len(names)] != names or seg.kind_name_rows[:len(names)] != cols.kind_name_row:
        return None
    if seg.kind_name_rows and seg.kind_name_rows[-1] >= cols.lit_idx.n + len(seg.lits):
        return None
    if sum(seg.lower_words.values()) > sum(map(len, [f.text for fs in fields for f in fs])):
        return None  # (more lower-case words than the texts have characters)
    # New strings must be new, and distinct (a vocabulary numbers each once: a dict of fewer
    # entries than strings holds a string twice).
    out = []
    for new, known, n in zip((seg.new_keys, seg.new_lits, seg.new_words), (cols.key_ids, cols.lit_ids, cols.word_ids),
                             before):
        ids = dict(zip(new, range(n, n + len(new))))
        if len(ids) != len(new) or (known and any(map(known.__contains__, new))):
            return None
        out.append(ids)
    return out[0], out[1], out[2]


def _seed_scans(cols: Columns, seg: SharedSegment) -> None:
    """The first-view scans ``seg`` holds, into ``cols`` (which it starts), those that are
    well formed: a unit's head one of its message's units before it, a flag 0 or 1."""
    heads = seg.list_heads
    if heads is not None and len(heads) == len(cols.units):
        starts = cols.msg_start.view[cols.u_msg.view]
        if bool(((heads == -1) | ((heads >= starts) & (heads < np.arange(len(heads))))).all()):
            seed_list_heads(cols, heads, seg.b)
    flags = [f if f is not None and len(f) == seg.b and bool(((f == 0) | (f == 1)).all()) else None
             for f in (seg.listing, seg.reading)]
    seed_scans(cols, *(None if f is None else f.astype(bool).tolist() for f in flags))  # (each 0 or 1: checked)
    found = seg.prompt
    if found is not None and _prompt_well_formed(found, int(cols.msg_start.view[seg.b]), len(cols.lit_text)):
        seed_prompt_scans(cols, found)
    _seed_more(cols, seg)


def _seed_more(cols: Columns, seg: SharedSegment) -> None:
    """The question units, title headings and literals' noise scans ``seg`` holds, into
    ``cols`` (which it starts), those that are well formed: a question unit -1 or one of the
    units up to its message's, a title a heading, code glue a quoted literal."""
    n_units = int(cols.msg_start.view[seg.b])
    q = seg.questions
    if q is not None and len(q) == seg.b and bool(((q >= -1) & (q < cols.msg_start.view[1:seg.b + 1])).all()):
        seed_question_units(cols, q.tolist())
    titles = seg.titles
    if titles is not None and _ascending(titles, n_units) and bool((cols.u_kind.view[titles] == _HEADING_KIND).all()):
        flags = np.zeros(n_units, dtype=bool)
        flags[titles] = True
        seed_titles(cols, flags.tolist())
    if seg.stems is not None:
        ids, names = seg.stems
        # (each entry's numbers checked on opening, and the run's continuity on joining)
        if len(ids) == len(cols.word_text) and len(set(names)) == len(names):
            seed_stems(cols, ids.tolist(), names)
    read = seg.verdicts
    if read is not None and len(read) and _ascending(read[:, 0], n_units):
        seed_verdicts(cols, dict(zip(read[:, 0].tolist(), (read[:, 1] == 1).tolist())))
    if seg.noise is not None:
        seen = len(cols.lit_text)
        enc, caps, glue = seg.noise
        quoted = cols.kind_code("quoted")
        kinds = cols.lit_kind.view[:seen]
        every = np.flatnonzero(kinds == quoted) if quoted >= 0 else np.zeros(0, dtype=np.int64)
        if _ascending(enc, seen) and _ascending(caps[:, 0], seen) and _ascending(glue, seen) \
                and bool(np.isin(glue, every).all()):
            text = cols.lit_text
            forms = ((), None)
            capitals = {i: forms[c] if c < 2 else plural_forms(text[i]) for i, c in caps.tolist()}
            # (every quoted literal, those of code glue True: glue is among them, checked above)
            glued = dict.fromkeys(every.tolist(), False)
            glued.update(dict.fromkeys(glue.tolist(), True))
            seed_literal_scans(cols, seen, enc.tolist(), capitals, glued)


def _prompt_well_formed(found: FoundScans, n_units: int, n_lits: int) -> bool:
    """Whether ``found``'s units are in order, each once, among the first ``n_units``, and each
    literal occurrence outside an example is of an example unit (in order) and a literal."""
    for units in (found.examples, found.harness, found.comments):
        a = np.asarray(units, dtype=np.int64)
        if len(a) and not _ascending(a, n_units):
            return False
    if found.outside:
        pairs = np.asarray(found.outside, dtype=np.int64)
        units, lits = pairs[:, 0], pairs[:, 1]
        if not (bool((units[1:] >= units[:-1]).all()) and bool(np.isin(units, found.examples).all())
                and int(lits.min()) >= 0 and int(lits.max()) < n_lits):
            return False
    return True


class SharedColumns:
    """A compactor's reads and writes of column entries (see the module docstring)."""

    def __init__(self, shared: Any) -> None:
        self.shared = shared  # a SharedAnalyses: the store, its secret, settings and failure log
        self._settings = hashlib.blake2b(f"{shared.settings}:c{COLUMNS_VERSION}".encode(), digest_size=8).hexdigest()
        self._cols: Columns | None = None
        # (the store holds the segments up to message ``_done``, as far as this compactor knows,
        # and the vocabularies had ``_vocab`` entries there)
        self._done = 0
        self._vocab = (0, 0, 0)

    def key(self, b: int, tag: str) -> str:
        return f"{self._settings}:u{b}:{tag}"

    def keys(self, tags: list[str]) -> list[str]:
        """The keys of the entries of a conversation with ``tags``: one per complete segment
        (:func:`.cache_entry.segments`; its end names it)."""
        return [self.key(b, tags[b - 1]) for _, b in self._segments(len(tags))]

    @staticmethod
    def _segments(n: int) -> list[tuple[int, int]]:
        return segments(n, LIMITS.shared_segment, LIMITS.shared_group)

    def take(self, cols: Columns, carried: dict[str, Any], tags: list[str], messages: list[Message],
             fields: list[list[Field]]) -> int:
        """Into ``cols`` (empty), the messages of the segments of ``carried`` (entries read with
        the analyses, or read here) from the conversation's first message while they hold and
        check out; how many messages they covered (the rest are the caller's to extend)."""
        self._cols, self._done, self._vocab = cols, 0, (0, 0, 0)
        keys = self.keys(tags)
        if not keys or len(cols):
            return 0
        if not all(k in carried for k in keys):  # (the analyses were all in this process: no round trip yet)
            blobs = self.shared.fetch(keys)
            if blobs is None:  # (a store's failure is a miss)
                return 0
            carried = dict(zip(keys, blobs))
        run = [(key, carried.get(key), a, b) for (a, b), key in zip(self._segments(len(tags)), keys)]
        seg = decode_run(run, self.shared.secret)
        ids = None if seg is None else fits(seg, cols, fields[:seg.b])
        if seg is None or ids is None:
            return 0  # (the first segments: a reader that shares them shares all its tags, so all agree or none)
        cols.extend_shared(messages[:seg.b], fields[:seg.b], seg, ids)
        seed_lowercase_words(cols, seg.lower_words, seg.b)
        _seed_scans(cols, seg)
        self._done, self._vocab = seg.b, (len(cols.key_text), len(cols.lit_text), len(cols.word_text))
        return seg.b

    def save(self, cols: Columns, tags: list[str]) -> None:
        """Write the entries of the complete segments of ``cols`` past those the store holds (as
        far as this compactor knows): on a turn, the segment it completed, if any."""
        if cols is not self._cols:
            self._cols, self._done, self._vocab = cols, 0, (0, 0, 0)
        n = min(len(tags), len(cols))
        items = {}
        for a, b in self._segments(n):
            if b <= self._done:
                continue
            # (a segment of settled history that merges short ones written before starts
            # before ``_done``: the vocabularies there, the greatest numbers before it plus one)
            before = self._vocab if a == self._done else vocabularies(cols, 0, a, (0, 0, 0))
            after = vocabularies(cols, a, b, before)
            key = self.key(b, tags[b - 1])
            blob = encode(key, cols, a, b, before, after, self.shared.secret)
            self._done, self._vocab = b, after
            if blob is not None and len(blob) <= LIMITS.shared_entry_bytes:
                items[key] = blob
        if items:
            try:
                self.shared.store.set_many(items)
            except Exception as exc:  # (a store's failure: the entries are not shared)
                self.shared._warn("write", exc)

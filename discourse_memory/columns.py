"""A conversation's units as columns (numpy arrays), grown message by message.

The policy runs on these arrays, so a view of a long history costs a few array
operations instead of a Python loop per unit, and appending a message only
appends its rows. Literals are numbered in order of first appearance, which is
the record's chronological order.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .messages import Message
from .units import Unit

__all__ = ["Columns", "KIND_WEIGHT", "LITERAL_RANK"]

KIND_WEIGHT = {"heading": 1.5, "tool_call": 3.0, "field": 1.2, "table_row": 1.1}
# Literal kinds, most worth keeping in a cut record first.
LITERAL_RANK = {
    "identifier": 0, "email": 0, "url": 0, "path": 0, "amount": 0, "datetime": 0, "date": 0,
    "version": 0, "time": 1, "percent": 1, "quoted": 1, "name": 1, "number": 2,
}


class _Grow:
    """A numpy array with amortised appends."""

    def __init__(self, dtype: type) -> None:
        self._a = np.zeros(64, dtype=dtype)
        self.n = 0

    def extend(self, values: list) -> None:
        k = len(values)
        if self.n + k > len(self._a):
            bigger = np.zeros(max(2 * len(self._a), self.n + k), dtype=self._a.dtype)
            bigger[: self.n] = self._a[: self.n]
            self._a = bigger
        self._a[self.n:self.n + k] = values
        self.n += k

    def set(self, i: int, value: object) -> None:
        self._a[i] = value

    @property
    def view(self) -> np.ndarray:
        return self._a[: self.n]


class Columns:
    """Columns of the units of messages ``0..len(self)-1``."""

    def __init__(self, count: Callable[[str], int]) -> None:
        self._count = count
        self.units: list[Unit] = []
        self.messages: list[Message] = []
        self.msg_start = _Grow(np.int64)
        self.msg_start.extend([0])
        self.msg_cost = _Grow(np.int64)
        # per unit
        self.u_msg = _Grow(np.int64)
        self.u_tokens = _Grow(np.float64)
        self.u_clip = _Grow(np.float64)
        self.u_clippable = _Grow(np.bool_)
        self.u_head_share = _Grow(np.float64)
        self.u_kind_weight = _Grow(np.float64)
        self.u_is_call = _Grow(np.bool_)
        self.u_key = _Grow(np.int64)
        self.lit_ptr = _Grow(np.int64)
        self.lit_ptr.extend([0])
        self.lit_idx = _Grow(np.int64)
        self.head_ptr = _Grow(np.int64)
        self.head_ptr.extend([0])
        self.head_idx = _Grow(np.int64)
        self.word_ptr = _Grow(np.int64)
        self.word_ptr.extend([0])
        self.word_idx = _Grow(np.int64)
        self._word_ids: dict[str, int] = {}
        self.word_df = _Grow(np.float64)
        """Per content word, how many units state it."""
        # per key: the newest unit with that key
        self._key_ids: dict[str, int] = {}
        self.key_count: dict[str, int] = {}
        """How many units of each key the conversation has (for occurrence numbers)."""
        self.key_newest = _Grow(np.int64)
        # per literal
        self.lit_ids: dict[str, int] = {}
        self.lit_text: list[str] = []
        self.lit_cost = _Grow(np.float64)
        self.lit_rank = _Grow(np.int64)
        self.lit_last_msg = _Grow(np.int64)
        # (message, its decisions, calls shown, is a result) -> (rendered message, texts to count)
        self.rendered: dict[tuple, tuple[dict | None, list[str], object]] = {}
        self._call_owner: dict[str, int] = {}
        self._pending: dict[int, set[str]] = {}
        self._results: dict[int, list[int]] = {}
        self._orphans: set[int] = set()
        self._unanswered: set[int] = set()

    def remember_render(self, key: tuple, message: dict | None, texts: list[str], raw: object) -> None:
        """Cache a message's rendering for a given set of decisions (bounded); valid
        while the input message is the same object ``raw``."""
        if len(self.rendered) > 20_000:
            self.rendered.clear()
        self.rendered[key] = (message, texts, raw)

    def tool_groups(self) -> tuple[dict[int, list[int]], set[int], set[int]]:
        """(assistant message -> its result messages, orphan results, assistant messages
        with a call that has no result), kept up to date as messages are appended."""
        return self._results, self._orphans, self._unanswered

    def __len__(self) -> int:
        return len(self.messages)

    def extend(self, messages: list[Message], units: list[list[Unit]]) -> None:
        """Append messages (numbered from ``len(self)``) and their units, in one batch."""
        count = self._count
        index = len(self.units)
        starts: list[int] = []
        costs: list[int] = []
        key_rows: list[int] = []
        newest: dict[int, int] = {}
        lit_rows: list[int] = []
        lit_ptrs: list[int] = []
        head_rows: list[int] = []
        head_ptrs: list[int] = []
        word_rows: list[int] = []
        word_ptrs: list[int] = []
        last_msg: dict[int, int] = {}
        rank_of: dict[int, int] = {}
        new_lits: list[str] = []
        n_lit, n_head, n_word = self.lit_idx.n, self.head_idx.n, self.word_idx.n
        n_words_before = len(self._word_ids)
        flat: list[Unit] = []
        owners: list[int] = []
        # Locals: this loop runs once per unit, literal and word of the batch.
        key_ids, lit_ids, lit_text, word_ids = self._key_ids, self.lit_ids, self.lit_text, self._word_ids
        for m, us in zip(messages, units):
            self.messages.append(m)
            self._pair(m)
            flat.extend(us)
            mi = m.index
            owners.extend([mi] * len(us))
            costs.append(sum(count(tf.text) for tf in m.texts)
                         + sum(count(c.name) + count(c.arguments) for c in m.tool_calls))
            for u in us:
                kid = key_ids.get(u.key)
                if kid is None:
                    kid = key_ids[u.key] = len(key_ids)
                newest[kid] = index
                key_rows.append(kid)
                texts = u.literal_texts
                if texts:
                    # A text's rank comes from the kind it first appears as.
                    kinds = {lit.text: lit.kind for lit in reversed(u.literals)} if u.literals else {}
                    for t in texts:
                        lid = lit_ids.get(t)
                        if lid is None:
                            lid = lit_ids[t] = len(lit_text)
                            lit_text.append(t)
                            new_lits.append(t)
                        rank = LITERAL_RANK.get(kinds.get(t, ""), 1)
                        if rank < rank_of.get(lid, 9):
                            rank_of[lid] = rank
                        last_msg[lid] = mi
                        lit_rows.append(lid)
                lit_ptrs.append(n_lit + len(lit_rows))
                if u.head_literal_texts:
                    head_rows.extend([lit_ids[t] for t in u.head_literal_texts])
                head_ptrs.append(n_head + len(head_rows))
                for w in u.words:
                    wid = word_ids.get(w)
                    if wid is None:
                        wid = word_ids[w] = len(word_ids)
                    word_rows.append(wid)
                word_ptrs.append(n_word + len(word_rows))
                index += 1
            starts.append(index)
        self.units.extend(flat)
        self.msg_start.extend(starts)
        self.msg_cost.extend(costs)
        # Vocabularies: new entries appended, existing ones updated in place.
        self.key_newest.extend([0] * (len(self._key_ids) - self.key_newest.n))
        if newest:
            self.key_newest.view[np.fromiter(newest.keys(), np.int64, len(newest))] = \
                np.fromiter(newest.values(), np.int64, len(newest))
        self.lit_cost.extend([count(t) + 1 for t in new_lits])
        self.lit_rank.extend([9] * len(new_lits))
        self.lit_last_msg.extend([0] * len(new_lits))
        if last_msg:
            ids = np.fromiter(last_msg.keys(), np.int64, len(last_msg))
            self.lit_last_msg.view[ids] = np.fromiter(last_msg.values(), np.int64, len(last_msg))
            ranks = np.fromiter((rank_of[i] for i in last_msg), np.int64, len(last_msg))
            self.lit_rank.view[ids] = np.minimum(self.lit_rank.view[ids], ranks)
        self.word_df.extend([0.0] * (len(self._word_ids) - n_words_before))
        if word_rows:
            np.add.at(self.word_df.view, np.asarray(word_rows, dtype=np.int64), 1.0)
        self.word_idx.extend(word_rows)
        self.word_ptr.extend(word_ptrs)
        self.lit_idx.extend(lit_rows)
        self.lit_ptr.extend(lit_ptrs)
        self.head_idx.extend(head_rows)
        self.head_ptr.extend(head_ptrs)
        self.u_key.extend(key_rows)
        self.u_msg.extend(owners)
        self.u_tokens.extend([u.tokens for u in flat])
        self.u_clip.extend([u.clip_tokens for u in flat])
        self.u_clippable.extend([u.head_end < len(u.text) for u in flat])
        self.u_head_share.extend([u.head_end / max(len(u.text), 1) for u in flat])
        self.u_kind_weight.extend([KIND_WEIGHT.get(u.kind, 1.0) for u in flat])
        self.u_is_call.extend([u.kind == "tool_call" for u in flat])

    def _pair(self, m: Message) -> None:
        """Pair calls with results (a result answers the latest earlier call with its id)."""
        if m.tool_calls:
            # A call without an id can never be answered: it keeps its message unanswered.
            self._pending[m.index] = {c.id or f"\x00missing-{k}" for k, c in enumerate(m.tool_calls)}
            self._unanswered.add(m.index)
            for call in m.tool_calls:
                if call.id:
                    self._call_owner[call.id] = m.index
        if m.role == "tool":
            a = self._call_owner.get(m.tool_call_id) if m.tool_call_id else None
            if a is None:
                self._orphans.add(m.index)
                return
            self._results.setdefault(a, []).append(m.index)
            pending = self._pending.get(a, set())
            pending.discard(m.tool_call_id or "")
            if not pending:
                self._unanswered.discard(a)

    def per_unit_sum(self, values: np.ndarray, head: bool = False) -> np.ndarray:
        """For each unit, the sum of ``values`` over its (head) literals."""
        ptr = (self.head_ptr if head else self.lit_ptr).view
        idx = (self.head_idx if head else self.lit_idx).view
        if len(idx) == 0:
            return np.zeros(len(ptr) - 1)
        csum = np.concatenate(([0.0], np.cumsum(values[idx])))
        return csum[ptr[1:]] - csum[ptr[:-1]]

    def word_weights(self, power: float = 1.0) -> np.ndarray:
        """For each unit, the sum over its content words of their inverse document
        frequency in this conversation (rare, specific words weigh more), scaled so
        that the mean word weighs 1."""
        df = self.word_df.view
        if len(df) == 0:
            return np.zeros(len(self.units))
        idf = np.log((len(self.units) + 1.0) / df) ** power
        idf /= max(float(idf.mean()), 1e-9)
        idx = self.word_idx.view
        ptr = self.word_ptr.view
        csum = np.concatenate(([0.0], np.cumsum(idf[idx])))
        return csum[ptr[1:]] - csum[ptr[:-1]]

    def literal_counts(self, unit_mask: np.ndarray, head_mask: np.ndarray | None = None) -> np.ndarray:
        """How many units in ``unit_mask`` state each literal (plus the heads of ``head_mask``)."""
        ptr = self.lit_ptr.view
        counts = np.diff(ptr)
        rows = np.repeat(unit_mask, counts)
        out = np.bincount(self.lit_idx.view[rows], minlength=len(self.lit_text)).astype(np.float64)
        if head_mask is not None and head_mask.any():
            hptr = self.head_ptr.view
            hrows = np.repeat(head_mask, np.diff(hptr))
            out += np.bincount(self.head_idx.view[hrows], minlength=len(self.lit_text))
        return out

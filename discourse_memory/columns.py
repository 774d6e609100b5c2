"""A conversation's units as columns (numpy arrays), grown message by message.

Storage and vocabularies only: the fitting stage (:mod:`.fit`) reads these arrays and
holds every weight of the policy, so a view of a long history costs a few array
operations instead of a Python loop per unit, and appending a message only appends
its rows. Literals are numbered in order of first appearance (the record's
chronological order); content words and literals carry their document frequencies
(how many units state them), which the fitting stage turns into rarity and focus
scores.
"""

from __future__ import annotations

from itertools import chain, repeat
from operator import lt, sub, truediv
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np

from .labels import date_line, label_before_number, may_be_date_line, speaker_label
from .literals import first_kinds
from .messages import Message
from .segment import Piece
from .text_marks import marks_of
from .tool_pairs import ToolPairs
from .analysis_codec import DecodedPieces
from .field_units import Units
from .units import Field, MeasuredPiece, Unit, field_getter

if TYPE_CHECKING:
    from .shared_columns import SharedSegment

__all__ = ["Columns", "UNIT_KINDS"]

UNIT_KINDS = ("heading", "list_item", "field", "table_row", "code", "sentence", "line", "tool_call")
_KIND_CODE = {k: i for i, k in enumerate(UNIT_KINDS)}

class _Grow:
    """A numpy array with amortised appends."""

    def __init__(self, dtype: type) -> None:
        self._a = np.zeros(64, dtype=dtype)
        self.n = 0

    def extend(self, values: list) -> None:
        k = len(values)
        if not k:  # (a turn's message adds no new literal, word or key often: no numpy call)
            return
        self._room(k)
        self._a[self.n:self.n + k] = values
        self.n += k

    def zeros(self, k: int) -> None:
        """Append ``k`` zeros (a list of them was converted element by element: a fresh
        worker's first view appends some 20,000 to the vocabularies' counts)."""
        if k > 0:
            self._room(k)
            self._a[self.n:self.n + k] = 0
            self.n += k

    def _room(self, k: int) -> None:
        if self.n + k > len(self._a):
            bigger = np.zeros(max(2 * len(self._a), self.n + k), dtype=self._a.dtype)
            bigger[: self.n] = self._a[: self.n]
            self._a = bigger

    def set(self, i: int, value: object) -> None:
        self._a[i] = value

    @property
    def view(self) -> np.ndarray:
        return self._a[: self.n]


_Memo = TypeVar("_Memo")


class Columns:
    """Columns of the units of messages ``0..len(self)-1``."""

    def __init__(self, count: Callable[[str], int]) -> None:
        self._count = count
        self._fields: list[Field] = []
        self._firsts: list[int] = []
        self._occurrences: list[int] = []
        self.messages: list[Message] = []
        self.pairs = ToolPairs()
        self.msg_start = _Grow(np.int64)
        self.msg_start.extend([0])
        self.msg_cost = _Grow(np.int64)
        self._cost_total = (0, 0)  # (messages summed, their tokens): see history_tokens
        self._kept_sums: dict[bool, _UnitSums] = {}  # see per_unit_sum
        self._labels: list[str | None] = []
        self._number_labels: dict[int, str] = {}  # message -> a label before a number (see speaker)
        self._label_uses: dict[str, int] = {}
        self.speakers_moved = False
        """Whether the last batch appended made a message before it a speaker's (see
        :meth:`speaker`: the second message opening with its label): what was read of that
        message (its items: ``record.items``) may read otherwise now."""
        self.msg_label_cost = _Grow(np.float64)
        """Tokens of showing that label before an omission mark ("Caroline: …")."""
        self.msg_date: list[str | None] = []
        """Per message, the date line it opens with ("[1:56 pm on 8 May, 2023]"), if any."""
        self.msg_session = _Grow(np.int64)
        """Per message, the latest message at or before it that opens with a date line (-1: none)."""
        # per unit
        self.u_msg = _Grow(np.int64)
        self.u_kind = _Grow(np.int8)
        """Index into :data:`UNIT_KINDS`."""
        self.u_tokens = _Grow(np.float64)
        self.u_clip = _Grow(np.float64)
        self.u_clippable = _Grow(np.bool_)
        self.u_head_share = _Grow(np.float64)
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
        self.word_ids: dict[str, int] = {}
        self.word_text: list[str] = []
        """Per content word id, the word (``word_ids`` inverted)."""
        self.word_df = _Grow(np.float64)
        """Per content word, how many units state it."""
        # per key: the newest unit with that key
        self._key_ids: dict[str, int] = {}
        self.key_text: list[str] = []
        """Per key number, the key (``key_ids`` inverted)."""
        self.key_total = _Grow(np.int64)
        """How many units of each key the conversation has (for occurrence numbers)."""
        self.key_newest = _Grow(np.int64)
        # per literal
        self.lit_ids: dict[str, int] = {}
        self.lit_text: list[str] = []
        self.lit_kind_names: list[str] = []
        self._lit_kind_codes: dict[str, int] = {}
        self.kind_name_row: list[int] = []
        """Per literal kind name, the literal row (of ``lit_idx``) where it first stands (a shared
        segment of messages carries the names as of its last message: :mod:`.shared_columns`)."""
        self.lit_kind = _Grow(np.int16)
        """Index into ``lit_kind_names``: the kind the literal first appears as."""
        self.lit_df = _Grow(np.float64)
        """How many units state the literal."""
        self.lit_last_msg = _Grow(np.int64)
        self.lit_mid = _Grow(np.bool_)
        """Whether the literal ever stands after a word of its unit (a capitalised word
        only ever seen opening a sentence is an opener, not a name)."""
        self.lit_tags = _Grow(np.float64)
        """How many units state the literal only as a markup tag's name (``<pr_description>``)."""
        self.u_tag_line = _Grow(np.bool_)
        """Per unit: a line of markup tags alone (``</output>``)."""
        self._memos: dict[type, object] = {}
        """What modules derive from messages already appended (see :meth:`memo`)."""
        self._grown: dict[str, _Grow] = {}
        """The arrays of :meth:`grown`, by name."""
        self._units: Units | None = None

    def memo(self, kind: type[_Memo]) -> _Memo:
        """The conversation's instance of ``kind``, made on first use: a module keeps what
        it derives from messages already appended (which never changes as the conversation
        grows) in a dataclass of its own with named fields, one instance per conversation."""
        got = self._memos.get(kind)
        if got is None:
            got = self._memos[kind] = kind()
        return got  # type: ignore[return-value]

    @property
    def key_ids(self) -> dict[str, int]:
        """The number of each unit key, in order of first appearance (read, never written)."""
        return self._key_ids

    def speaker(self, message: int) -> str | None:
        """The speaker label message ``message`` opens with ("Caroline"), when the
        conversation opens at least two messages with it (a transcript's speakers, not a
        one-off "Note:")."""
        label = self._labels[message]
        if label is None:  # "Melanie: 5 years already!" among turns that open "Melanie: …"
            label = self._number_labels.get(message)
        return label if label is not None and self._label_uses.get(label, 0) >= 2 else None

    def opening_label(self, message: int) -> str | None:
        """The label message ``message`` opens with ("Caroline"), counted or not (see
        :meth:`speaker`): it never changes as the conversation grows."""
        return self._labels[message]

    def tool_groups(self) -> tuple[dict[int, list[int]], set[int], set[int]]:
        """(assistant message -> its result messages, orphan results, assistant messages
        with a call that has no result), kept up to date as messages are appended."""
        return self.pairs.results, self.pairs.orphans, self.pairs.unanswered

    def __len__(self) -> int:
        return len(self.messages)

    @property
    def units(self) -> Units:
        """The units so far (built when looked at)."""
        n = len(self._occurrences)
        got = self._units
        if got is None or len(got) != n:  # (one per length: read thousands of times in a first view)
            got = self._units = Units(self._fields, self._firsts, self._occurrences, n)
        return got

    def extend(self, messages: list[Message], fields: list[list[Field]]) -> list[list[str]]:
        """Append messages (numbered from ``len(self)``) and their fields, in one batch;
        returns the keys of each message's units."""
        keys_of = self._extend(messages, fields, None)
        assert keys_of is not None
        return keys_of

    def extend_shared(self, messages: list[Message], fields: list[list[Field]], shared: SharedSegment,
                      ids: tuple[dict[str, int], dict[str, int], dict[str, int]]) -> None:
        """Append messages and their fields as :meth:`extend` does, their units' columns taken
        from ``shared`` (read from a shared cache: :mod:`.shared_columns`); ``ids``: the numbers
        of its new keys, literals and words, as :func:`.shared_columns.fits` gave them against
        these columns and fields."""
        self._extend(messages, fields, shared, ids)

    def _extend(self, messages: list[Message], fields: list[list[Field]], shared: SharedSegment | None,
                ids: tuple[dict[str, int], dict[str, int], dict[str, int]] | None = None) -> list[list[str]] | None:
        count = self._count
        first = len(self._occurrences)
        rows: list[MeasuredPiece] = []  # every unit of the batch, a tool call as a measured piece
        measures: list[tuple[np.ndarray, ...]] = []  # (a shared segment's: the measures of every unit, per field)
        n_rows = 0
        call_rows: dict[tuple[str, str], MeasuredPiece] = {}
        owners: list[int] = []
        starts: list[int] = []
        costs: list[int] = []
        session = int(self.msg_session.view[-1]) if self.msg_session.n else -1
        sessions: list[int] = []
        label_costs: list[float] = []
        # (each text's marks come with its analysis, read from a shared cache or found there;
        # found here for a tool call's arguments, and for a text analysed without one)
        mid: list[str] = []
        tags: list[str] = []
        tag_lines: list[int] = []
        batch = len(self._labels)
        crossed: list[str] = []
        for m, fs in zip(messages, fields):
            self.messages.append(m)
            self.pairs.add(m)
            label, date = _label_and_date(fs)
            if label is None:
                loose = _label_before_number(fs)
                if loose is not None:
                    self._number_labels[len(self._labels)] = loose
            self._labels.append(label)
            if label is not None:
                uses = self._label_uses[label] = self._label_uses.get(label, 0) + 1
                if uses == 2:
                    crossed.append(label)
            self.msg_date.append(date)
            label_costs.append(float(count(label + ": …")) if label else 0.0)
            if date is not None:
                session = m.index
            sessions.append(session)
            cost = sum(map(count, [tf.text for tf in m.texts]))
            if m.tool_calls:
                cost += sum(count(c.name) + count(c.arguments) for c in m.tool_calls)
            costs.append(cost)
            before = n_rows
            for f in fs:
                self._fields.append(f)
                at = n_rows
                self._firsts.append(first + at)
                units = f.units
                if type(units) is tuple and units and isinstance(units[0], Unit):
                    this: Any = []
                    for u in units:
                        row = call_rows.get((u.key, u.text))  # type: ignore[union-attr]
                        if row is None:
                            row = call_rows[u.key, u.text] = _call_row(u)  # type: ignore[union-attr,arg-type]
                        this.append(row)
                    marked = marks_of(f.text, list(map(_PIECE, this)))
                else:
                    this = units
                    marked = f.marks if f.marks is not None else marks_of(f.text, list(map(_PIECE, units)))
                if shared is None:
                    rows.extend(this)
                else:  # (decoded pieces give their measures without building a piece)
                    measures.append(this.measures() if isinstance(this, DecodedPieces) else _measures(this))
                n_rows += len(this)
                mid.extend(marked.mid)
                tags.extend(marked.tags)
                if marked.tag_lines:
                    tag_lines.extend([at + j for j in marked.tag_lines])
            owners.extend([m.index] * (n_rows - before))
            starts.append(first + n_rows)
        index = first + n_rows
        self.speakers_moved = bool(crossed) and _moved(self._labels, self._number_labels, crossed, batch)
        if shared is not None:  # (the units' measures from their analyses; their numbers shared)
            assert ids is not None  # (extend_shared's)
            kinds, tokens, clips, head_ends, sizes = (
                np.concatenate([m[c] for m in measures]) if measures else np.zeros(0, dtype=np.int64)
                for c in range(5))
            self._take_shared(shared, ids, first, index, owners, starts, costs, label_costs, sessions, mid, tags,
                              tag_lines, kinds, tokens, clips, head_ends < sizes, head_ends / np.maximum(sizes, 1))
            return None
        # Columns of the batch taken with C-level maps: a long history has tens of
        # thousands of units, and a Python statement per unit and column added up.
        pieces = list(map(_PIECE, rows))
        kinds = list(map(_KIND, pieces))
        keys = list(map(_KEY, pieces))
        sizes = list(map(sub, map(_END, pieces), map(_START, pieces)))
        head_ends = list(map(_HEAD_END, rows))
        texts_of = list(map(_TEXTS, rows))
        heads_of = list(map(_HEADS, rows))
        words_of = list(map(_WORDS, pieces))
        keys_of = [keys[a - first:b - first] for a, b in zip([first, *starts], starts)]

        self.key_text.extend(_new_entries(self._key_ids, keys))
        key_rows = list(map(self._key_ids.__getitem__, keys))
        all_texts = list(chain.from_iterable(texts_of))
        new_lits = _new_entries(self.lit_ids, all_texts)
        self.lit_text.extend(new_lits)
        lit_rows = list(map(self.lit_ids.__getitem__, all_texts))
        # A literal's kind is the kind it first appears as in a unit.
        n_names = len(self.lit_kind_names)
        flat_kinds = list(chain.from_iterable(map(_KINDS, pieces)))
        codes = self._lit_kind_codes
        for name in dict.fromkeys(flat_kinds):  # (new names numbered in order of first appearance)
            if name not in codes:
                self._kind_code(name)
        kind_names = list(map(codes.__getitem__, flat_kinds))
        for code in range(n_names, len(self.lit_kind_names)):  # (where each new name first stands)
            self.kind_name_row.append(self.lit_idx.n + kind_names.index(code))
        head_rows = list(map(self.lit_ids.__getitem__, chain.from_iterable(heads_of)))
        n_words_before = len(self.word_ids)
        all_words = list(chain.from_iterable(words_of))
        self.word_text.extend(_new_entries(self.word_ids, all_words))
        word_rows = list(map(self.word_ids.__getitem__, all_words))

        self._grow(first, index, key_rows, len(new_lits), lit_rows, head_rows,
                   len(self.word_ids) - n_words_before, word_rows,
                   list(map(len, texts_of)), list(map(len, heads_of)), list(map(len, words_of)), owners, starts, costs,
                   label_costs, sessions, mid, tags, tag_lines,
                   list(map(_KIND_CODE.__getitem__, kinds)), list(map(_TOKENS, rows)), list(map(_CLIP, rows)),
                   list(map(lt, head_ends, sizes)), list(map(truediv, head_ends, map(max, sizes, repeat(1)))))
        if lit_rows:
            lrows = np.asarray(lit_rows, dtype=np.int64)
            fresh = lrows >= len(self.lit_text) - len(new_lits)
            if fresh.any():  # first appearance wins: the last write of a reversed scatter
                codes = np.asarray(kind_names, dtype=np.int16)
                self.lit_kind.view[lrows[fresh][::-1]] = codes[fresh][::-1]
        return keys_of

    def _take_shared(self, shared: SharedSegment, ids: tuple[dict[str, int], dict[str, int], dict[str, int]],
                     first: int, index: int, owners: list[int], starts: list[int],
                     costs: list[int], label_costs: list[float], sessions: list[int], mid: list[str],
                     tags: list[str], tag_lines: list[int], kinds: list[int], tokens: list[int], clips: list[int],
                     clippable: list[bool], head_share: list[float]) -> None:
        """:meth:`_grow` with the units' numbers of a shared segment (and their measures)."""
        new_keys, new_lits, new_words = shared.new_keys, shared.new_lits, shared.new_words
        self._key_ids, self.lit_ids, self.word_ids = (
            _numbered_more(old, more) for old, more in zip((self._key_ids, self.lit_ids, self.word_ids), ids))
        self.key_text.extend(new_keys)
        self.lit_text.extend(new_lits)
        self.word_text.extend(new_words)
        for name in shared.kind_names[len(self.lit_kind_names):]:
            self._lit_kind_codes[name] = len(self.lit_kind_names)
            self.lit_kind_names.append(name)
        self.kind_name_row.extend(shared.kind_name_rows[len(self.kind_name_row):])
        self._grow(first, index, shared.keys, len(new_lits), shared.lits, shared.heads, len(new_words), shared.words,
                   shared.n_lits, shared.n_heads, shared.n_words, owners, starts, costs, label_costs, sessions, mid,
                   tags, tag_lines, kinds, tokens, clips, clippable, head_share)
        if len(new_lits):
            self.lit_kind.view[len(self.lit_text) - len(new_lits):] = shared.lit_kinds

    def _grow(self, first: int, index: int, key_rows: Any, n_new: int, lit_rows: Any, head_rows: Any,
              n_new_words: int, word_rows: Any, n_texts: Any, n_heads: Any, n_words: Any, owners: list[int], starts: list[int], costs: list[int], label_costs: list[float],
              sessions: list[int], mid: list[str], tags: list[str], tag_lines: list[int], kinds: Any, tokens: Any,
              clips: Any, clippable: Any, head_share: Any) -> None:
        """Append the columns of units ``first..index-1`` (their keys, literals, heads and words
        numbered; new literals and words already numbered, ``n_new`` and ``n_new_words`` of them)
        and of their messages, and update the vocabularies' counts."""
        # (numbers as arrays once: a list given to an array's extend is converted again)
        krows, lit_rows, head_rows, word_rows, owned = (np.asarray(x, dtype=np.int64)
                                                        for x in (key_rows, lit_rows, head_rows, word_rows, owners))
        # Occurrence numbers: earlier units of the same key, in this conversation.
        self.key_total.zeros(len(self._key_ids) - self.key_total.n)
        if len(krows):
            order = np.argsort(krows, kind="stable")
            ranked = krows[order]
            group = np.flatnonzero(np.concatenate(([True], ranked[1:] != ranked[:-1])))
            within = np.arange(len(krows)) - np.repeat(group, np.diff(np.append(group, len(krows))))
            occurrences = np.empty(len(krows), dtype=np.int64)
            occurrences[order] = self.key_total.view[ranked] + within
            self._occurrences.extend(occurrences.tolist())
            np.add.at(self.key_total.view, krows, 1)
        self.msg_start.extend(starts)
        self.msg_cost.extend(costs)
        self.msg_label_cost.extend(label_costs)
        self.msg_session.extend(sessions)
        # Vocabularies: new entries appended, existing ones updated in place (units are
        # numbered in order, so a key's newest unit is its largest index, and a
        # literal's last message its largest).
        self.key_newest.zeros(len(self._key_ids) - self.key_newest.n)
        if len(krows):
            np.maximum.at(self.key_newest.view, krows, np.arange(first, index, dtype=np.int64))
        self.lit_kind.zeros(n_new)
        self.lit_df.zeros(n_new)
        self.lit_last_msg.zeros(n_new)
        self.lit_mid.zeros(n_new)
        self.lit_tags.zeros(n_new)
        if len(lit_rows):
            lrows = lit_rows
            per_unit = np.asarray(n_texts, dtype=np.int64)
            np.maximum.at(self.lit_last_msg.view, lrows, np.repeat(owned, per_unit))
            np.add.at(self.lit_df.view, lrows, 1.0)
            # (a literal of a mark is one of its text's, numbered above; one a shared segment
            # did not number, which only a forged one can lack, is not marked)
            ids = self.lit_ids
            if mid:
                self.lit_mid.view[[ids[t] for t in mid if t in ids]] = True
            if tags:
                np.add.at(self.lit_tags.view, np.asarray([ids[t] for t in tags if t in ids], dtype=np.int64), 1.0)
        self.word_df.zeros(n_new_words)
        if len(word_rows):
            np.add.at(self.word_df.view, word_rows, 1.0)
        self.word_idx.extend(word_rows)
        self.word_ptr.extend(_ends(self.word_idx.n - len(word_rows), n_words))
        self.lit_idx.extend(lit_rows)
        self.lit_ptr.extend(_ends(self.lit_idx.n - len(lit_rows), n_texts))
        self.head_idx.extend(head_rows)
        self.head_ptr.extend(_ends(self.head_idx.n - len(head_rows), n_heads))
        self.u_key.extend(krows)
        self.u_msg.extend(owned)
        self.u_kind.extend(kinds)
        self.u_tokens.extend(tokens)
        self.u_clip.extend(clips)
        self.u_clippable.extend(clippable)
        self.u_head_share.extend(head_share)
        on_line = np.zeros(index - first, dtype=np.bool_)
        on_line[tag_lines] = True
        self.u_tag_line.extend(on_line)

    def _kind_code(self, kind: str) -> int:
        code = self._lit_kind_codes.get(kind)
        if code is None:
            code = self._lit_kind_codes[kind] = len(self.lit_kind_names)
            self.lit_kind_names.append(kind)
        return code

    def kind_code(self, kind: str) -> int:
        """The code of literal kind ``kind`` (-1 if no literal of that kind was seen)."""
        return self._lit_kind_codes.get(kind, -1)

    def unit_owner(self, ptr: np.ndarray) -> np.ndarray:
        """For each entry of a CSR index with pointers ``ptr`` (``lit_ptr``,
        ``word_ptr``), the unit it belongs to."""
        return np.repeat(np.arange(len(ptr) - 1), np.diff(ptr))

    def per_unit_sum(self, values: np.ndarray, head: bool = False, kept: bool = False) -> np.ndarray:
        """For each unit, the sum of ``values`` over its (head) literals. ``kept``: the
        sums are kept for the next call (one per ``head``), which, given the same values
        for the literals they had, adds only the units appended since (read, never
        written: shared from call to call)."""
        ptr = (self.head_ptr if head else self.lit_ptr).view
        idx = (self.head_idx if head else self.lit_idx).view
        if len(idx) == 0:
            return np.zeros(len(ptr) - 1)
        if not kept or values.dtype != np.float64:
            csum = np.concatenate(([0.0], np.cumsum(values[idx])))
            return csum[ptr[1:]] - csum[ptr[:-1]]
        return self._kept_sums.setdefault(head, _UnitSums()).read(values, ptr, idx)

    def grown(self, name: str, values: list, dtype: type) -> np.ndarray:
        """``values``, a memo that only grows (one item per message or unit, found once),
        as an array: its new items converted, not the whole list on every view (a list of
        200,000 messages was a few milliseconds a view, for each memo)."""
        grow = self._grown.get(name)
        if grow is None:
            grow = self._grown[name] = _Grow(dtype)
        if grow.n < len(values):
            grow.extend(values[grow.n:])
        out = grow.view
        out.flags.writeable = False  # (shared from view to view: read, never written)
        return out

    def history_tokens(self) -> int:
        """The tokens of every message (``msg_cost``'s sum), kept as the messages come: not
        a sum of 200,000 costs on every view of a long history (the same whole number)."""
        done, total = self._cost_total
        n = self.msg_cost.n
        if done != n:
            if done > n:  # (columns only grow; counted afresh rather than trusted)
                done, total = 0, 0
            total += int(self.msg_cost.view[done:n].sum())
            self._cost_total = (n, total)
        return total

    def word_weights(self, power: float = 1.0) -> np.ndarray:
        """For each unit, the sum over its content words of their inverse document
        frequency in this conversation (rare, specific words weigh more), scaled so
        that the mean word weighs 1."""
        df = self.word_df.view
        if len(df) == 0:
            return np.zeros(len(self._occurrences))
        idf = np.log((len(self._occurrences) + 1.0) / df) ** power
        idf /= max(float(idf.mean()), 1e-9)
        idx = self.word_idx.view
        ptr = self.word_ptr.view
        csum = np.concatenate(([0.0], np.cumsum(idf[idx])))
        return csum[ptr[1:]] - csum[ptr[:-1]]

    def literal_counts(self, unit_mask: np.ndarray, head_mask: np.ndarray | None = None) -> np.ndarray:
        """How many units in ``unit_mask`` state each literal (plus the heads of ``head_mask``)."""
        n = len(self.lit_text)
        out = _index_counts(self.lit_ptr.view, self.lit_idx.view, unit_mask, n).astype(np.float64)
        if head_mask is not None and head_mask.any():
            out += _index_counts(self.head_ptr.view, self.head_idx.view, head_mask, n)
        return out


class _UnitSums:
    """Per unit, the sum of a value per literal over its rows (``Columns.per_unit_sum``),
    kept with the prefix sums it was read from. Rows and units are only appended, so
    while the literals' values stay those of the last call (new literals may come), the
    prefix sums of the old rows and the sums of the old units stand: the new rows' prefix
    sums go on from the last (one accumulation, in row order: the same floats as one over
    every row) and only the new units are read. Values of a literal changed: read afresh."""

    def __init__(self) -> None:
        self.values = np.zeros(0)
        self.csum = _Grow(np.float64)
        self.sums = _Grow(np.float64)

    def read(self, values: np.ndarray, ptr: np.ndarray, idx: np.ndarray) -> np.ndarray:
        rows, units, known = self.csum.n - 1, self.sums.n, len(self.values)
        if rows < 0 or rows > len(idx) or units > len(ptr) - 1 or known > len(values) \
                or values[:known].tobytes() != self.values.tobytes():
            self.csum, self.sums = _Grow(np.float64), _Grow(np.float64)
            self.csum.extend([0.0])
            rows = units = 0
        if rows == 0:  # (as a sum of every row: the first row's value as it is, not 0.0 + it)
            self.csum.extend(np.cumsum(values[idx]))
        elif rows < len(idx):
            self.csum.extend(np.cumsum(np.concatenate((self.csum.view[-1:], values[idx[rows:]])))[1:])
        if units < len(ptr) - 1:
            csum = self.csum.view
            self.sums.extend(csum[ptr[units + 1:]] - csum[ptr[units:-1]])
        self.values = values.copy()
        out = self.sums.view
        out.flags.writeable = False
        return out


def _index_counts(ptr: np.ndarray, idx: np.ndarray, unit_mask: np.ndarray, n: int) -> np.ndarray:
    """Per value of an index (``ptr``, ``idx``: unit ``u``'s rows are ``ptr[u]:ptr[u + 1]``),
    how many rows of the units in ``unit_mask`` hold it. A view keeps a few hundred of a long
    history's ~36,000 units: their rows are gathered by their spans, not picked by a mask of
    every row (the same counts; a count does not depend on the rows' order)."""
    units = np.flatnonzero(unit_mask)
    if len(units) == len(unit_mask):  # (every unit: every row)
        return np.bincount(idx, minlength=n)
    if 4 * len(units) >= len(unit_mask):
        return np.bincount(idx[np.repeat(unit_mask, np.diff(ptr))], minlength=n)
    lo = ptr[units] - ptr[0]
    sizes = ptr[units + 1] - ptr[units]
    rows = np.repeat(lo - (np.cumsum(sizes) - sizes), sizes) + np.arange(int(sizes.sum()))
    return np.bincount(idx[rows], minlength=n)


def _label_and_date(fields: list[Field]) -> tuple[str | None, str | None]:
    """The speaker label a message's text opens with, and its opening date line."""
    for f in fields:
        if not f.units:
            continue
        if isinstance(f.units, DecodedPieces):  # (read off the entry: the piece is not built)
            a, b, n = f.units.opening_span()
            if not may_be_date_line(b - a, n):  # (no date line: its literals are not made)
                return speaker_label(f.text), None
            a, b, literals = f.units.opening()
        elif isinstance(f.units[0], Unit):
            continue
        else:
            first = f.units[0].piece  # type: ignore[union-attr]
            a, b, literals = first.start, first.end, first.literals
        body = f.text[a:b]
        date = " ".join(body.split()) if date_line(body, literals) else None
        return speaker_label(f.text), date
    return None, None


def _numbered_more(ids: dict[str, int], more: dict[str, int]) -> dict[str, int]:
    """A vocabulary's numbers with ``more`` added: ``more`` itself where there were none (a
    fresh worker's, whose shared segment numbers every string: not a copy of it)."""
    if not ids:
        return more
    ids.update(more)
    return ids


def _moved(labels: list[str | None], number_labels: dict[int, str], crossed: list[str], batch: int) -> bool:
    """Whether a message before ``batch`` opens with one of the labels ``crossed`` (each now
    opening two messages), or names it before a number: its speaker changed."""
    now = set(crossed)
    return any(labels[m] in now for m in range(batch)) or any(
        m < batch and label in now for m, label in number_labels.items())


def _label_before_number(fields: list[Field]) -> str | None:
    """The label a message's text opens with when a number follows it (see
    :func:`.labels.label_before_number`)."""
    for f in fields:
        # (a text read from the cache holds pieces: its first is not built to tell)
        if f.units and (isinstance(f.units, DecodedPieces) or not isinstance(f.units[0], Unit)):
            return label_before_number(f.text)
    return None


_KIND, _START, _END, _KEY, _WORDS, _KINDS = (
    field_getter(Piece, name) for name in ("kind", "start", "end", "key", "words", "literal_kinds"))
_PIECE, _TOKENS, _HEAD_END, _CLIP, _TEXTS, _HEADS = (
    field_getter(MeasuredPiece, name)
    for name in ("piece", "tokens", "head_end", "clip_tokens", "literal_texts", "head_literal_texts"))


def _measures(rows: Sequence[MeasuredPiece]) -> tuple[np.ndarray, ...]:
    """Per measured piece, its kind's number, tokens, clip cost, head's end and size (as
    :meth:`.analysis_codec.DecodedPieces.measures`)."""
    pieces = list(map(_PIECE, rows))
    return (np.asarray(list(map(_KIND_CODE.__getitem__, map(_KIND, pieces))), dtype=np.int64),
            np.asarray(list(map(_TOKENS, rows)), dtype=np.int64), np.asarray(list(map(_CLIP, rows)), dtype=np.int64),
            np.asarray(list(map(_HEAD_END, rows)), dtype=np.int64),
            np.asarray(list(map(sub, map(_END, pieces), map(_START, pieces))), dtype=np.int64))


def _call_row(u: Unit) -> MeasuredPiece:
    """A tool call's unit in the shape of a measured piece (its name is a literal text
    of no kind)."""
    kinds = first_kinds(u.literals)
    piece = Piece(u.kind, 0, len(u.text), u.key, u.literals, u.depth, u.info, u.words, u.literal_texts,
                  tuple(kinds.get(t, "") for t in u.literal_texts))
    return MeasuredPiece(piece, u.gap, u.tokens, u.head_end, u.clip_tokens, u.literal_texts, u.head_literal_texts)


def _new_entries(ids: dict[str, int], items: list[str]) -> list[str]:
    """Number the items not yet in ``ids`` in order of first appearance; returns them."""
    new = [t for t in dict.fromkeys(items) if t not in ids]
    ids.update(zip(new, range(len(ids), len(ids) + len(new))))
    return new


def _ends(base: int, sizes: Any) -> np.ndarray:
    """CSR pointers: where each group of ``sizes`` ends, counting from ``base``."""
    return base + np.cumsum(np.asarray(sizes, dtype=np.int64))

"""A conversation's units as a sequence built from their fields when looked at: a view
shows a few of the tens of thousands a long history has, and a restored memory's first view
reads the texts and literals of thousands without building them."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload

from .literals import Literal
from .units import Field, Unit

__all__ = ["Units"]


class Units(Sequence[Unit]):
    """The first ``n`` units of a conversation, built from its fields when looked at (a
    view shows a few of the tens of thousands a long history has), with some replaced.
    The fields only ever grow, so a view stays valid as the conversation does."""

    def __init__(self, fields: list[Field], firsts: list[int], occurrences: list[int], n: int,
                 replaced: Mapping[int, Unit] | None = None) -> None:
        self._fields = fields
        self._firsts = firsts  # index of each field's first unit
        self._occurrences = occurrences
        self._n = n
        self._replaced = replaced or {}

    def replaced(self, units: Mapping[int, Unit]) -> "Units":
        """This view with unit ``i`` replaced by ``units[i]``."""
        return Units(self._fields, self._firsts, self._occurrences, self._n, {**self._replaced, **units})

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> Unit: ...

    @overload
    def __getitem__(self, i: slice) -> list[Unit]: ...

    def __getitem__(self, i: int | slice) -> Unit | list[Unit]:
        if isinstance(i, slice):
            return list(self._range(*i.indices(self._n)))
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError(i)
        got = self._replaced.get(i) if self._replaced else None
        if got is not None:
            return got
        # (one unit, built directly: a restored memory's first view reads thousands one by one)
        k = bisect_right(self._firsts, i) - 1
        return self._fields[k].unit(i - self._firsts[k], self._occurrences[i])

    def __iter__(self) -> Iterator[Unit]:
        return self._range(0, self._n, 1)

    def by_field(self, start: int, stop: int) -> Iterator[tuple[str, Sequence[Unit]]]:
        """Units ``start..stop-1`` (of one message) field by field, in order: each field's
        name and its units among them, each built only when looked at (a message of
        100,000 list items shows a few, and its view reads few of the others)."""
        k = bisect_right(self._firsts, start) - 1
        while start < stop:
            field, first = self._fields[k], self._firsts[k]
            last = min(stop, first + len(field.units))
            yield field.field, _FieldUnits(self, field, first, start, last)
            start = last
            k += 1

    def text(self, i: int) -> str:
        """Unit ``i``'s text, without building the unit (a restored memory's first view
        reads the text of thousands of lines to find tags, listings and verdicts)."""
        got, field, j = self._locate(i)
        return got.text if got is not None else field.unit_text(j)

    def literals(self, i: int) -> tuple[Literal, ...]:
        """Unit ``i``'s literals, without building the unit (a restored memory's first view
        reads those of a thousand units to find what each row's span shows)."""
        got, field, j = self._locate(i)
        return got.literals if got is not None else field.unit_literals(j)

    def _locate(self, i: int) -> tuple[Unit | None, Any, int]:
        """Unit ``i`` where it was replaced, else its field and its place in that field."""
        if not 0 <= i < self._n:
            raise IndexError(i)
        got = self._replaced.get(i) if self._replaced else None
        if got is not None:
            return got, None, 0
        k = bisect_right(self._firsts, i) - 1
        return None, self._fields[k], i - self._firsts[k]

    def _range(self, start: int, stop: int, step: int) -> Iterator[Unit]:
        if step != 1:
            yield from (self[i] for i in range(start, stop, step))
            return
        firsts, fields, occurrences, replaced = self._firsts, self._fields, self._occurrences, self._replaced
        k = bisect_right(firsts, start) - 1
        i = start
        while i < stop:
            field, first = fields[k], firsts[k]
            last = min(stop, first + len(field.units))
            for i in range(i, last):
                got = replaced.get(i) if replaced else None
                yield got if got is not None else field.unit(i - first, occurrences[i])
            i = last
            k += 1


class _FieldUnits(Sequence[Unit]):
    """Units ``start..stop-1`` of one field (whose first unit is ``first``), built when
    looked at."""

    def __init__(self, units: Units, field: Field, first: int, start: int, stop: int) -> None:
        self._units, self._field, self._first, self._start, self._n = units, field, first, start, stop - start

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, j: int) -> Unit: ...

    @overload
    def __getitem__(self, j: slice) -> list[Unit]: ...

    def __getitem__(self, j: int | slice) -> Unit | list[Unit]:
        if isinstance(j, slice):
            return [self[i] for i in range(*j.indices(self._n))]
        if j < 0:
            j += self._n
        if not 0 <= j < self._n:
            raise IndexError(j)
        i = self._start + j
        units = self._units
        got = units._replaced.get(i) if units._replaced else None
        return got if got is not None else self._field.unit(i - self._first, units._occurrences[i])

    def gap(self, j: int) -> str:
        """Unit ``j``'s gap, without building the unit (a view's render reads the gaps of
        the units it leaves out: a line break among them puts the next shown one on a line)."""
        return self.shown(j)[2]

    def text(self, j: int) -> str:
        """Unit ``j``'s text, without building the unit."""
        return self.shown(j)[1]

    def kind(self, j: int) -> str:
        """Unit ``j``'s kind, without building the unit."""
        return self.shown(j)[0]

    def _replaced(self, j: int) -> tuple[int, Unit | None]:
        """Unit ``j``'s place among the conversation's units, and the unit this view put in its
        place (``Units.replaced``) or None: where a read without building the unit starts."""
        if not 0 <= j < self._n:
            raise IndexError(j)
        i = self._start + j
        replaced = self._units._replaced
        return i, (replaced.get(i) if replaced else None)

    def head_end(self, j: int) -> int:
        """Unit ``j``'s head's end (where its clip cuts), without building the unit where the
        pieces can read it (a view's render of a clipped unit it reads with :meth:`shown`)."""
        i, got = self._replaced(j)
        if got is not None:
            return got.head_end
        pieces = self._field.units
        read = getattr(pieces, "head_end", None)
        if read is not None:  # (analysis_codec.DecodedPieces: read from its numbers)
            return read(i - self._first)
        return pieces[i - self._first].head_end

    def shown(self, j: int) -> tuple[str, str, str, str]:
        """Unit ``j``'s kind, text, gap and suffix: what a view's render writes of a unit it
        shows whole, without building the unit (a restored memory's first view renders
        hundreds, and reads the gaps of hundreds it leaves out)."""
        i, got = self._replaced(j)
        if got is not None:
            return got.kind, got.text, got.gap, got.suffix
        k = i - self._first
        field = self._field
        pieces = field.units
        text = field.text
        span = getattr(pieces, "span", None)
        if span is not None:  # (analysis_codec.DecodedPieces: read from its numbers, no piece built)
            kind, start, end, gap, suffix = span(k)
            return kind, text[start:end], text[gap:start], text[end:suffix]
        got = pieces[k]
        if isinstance(got, Unit):  # (a tool call's one unit)
            return got.kind, got.text, got.gap, got.suffix
        p = got.piece
        return p.kind, text[p.start:p.end], got.gap, got.suffix

"""The tokens a view's gap marks and speaker labels add as the take shows units
(:class:`Gaps`), and the shares of tokens units shown side by side save at their seams
(:class:`Seams`)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..columns import UNIT_KINDS
from ..plan import CLIPPED, KEPT
from .limits import LIMITS
from .types import _CALL, Ranked

__all__ = ["Gaps", "Seams"]

_CALL_KIND, _CODE_KIND = _CALL, UNIT_KINDS.index("code")


@dataclass
class Seams:
    """Per message, its whole text's tokens over the sum of its units' tokens: units shown
    side by side share tokens at their seams (a line break and the indentation after it,
    counted with each line, merge). The conversation's memo (``Columns.memo``): a
    message's text never changes."""

    ratio: dict[int, float] = field(default_factory=dict)


class Gaps:
    """The tokens a view's gap marks and speaker labels add as units are shown, reckoned
    as :func:`..render.render_field` writes them: one mark (`` …``) for each run of units
    left out next to a shown one, none after a clip (its head ends with the mark), and a
    message's label with its mark (``Caroline: …``) for a run that opens it. A unit's
    neighbours tell what it adds: shown beside a shown unit it adds no mark, and it may
    close a gap (a mark less)."""

    def __init__(self, r: Ranked, decision: np.ndarray) -> None:
        # (read a unit at a time for the options tried: memoryviews of the arrays, whose
        # reads are Python numbers, not numpy's scalars; the decisions' is written through)
        self.decision = memoryview(decision)
        self.kind = memoryview(np.ascontiguousarray(r.cols.u_kind.view))
        self.label = memoryview(np.ascontiguousarray(r.cols.msg_label_cost.view))
        self.start = memoryview(np.ascontiguousarray(r.msg_start))
        self.u_msg = memoryview(np.ascontiguousarray(r.u_msg))
        self.mark = r.mark_cost
        self.opening_of = memoryview(r.opening)
        self.shown = bytearray(len(r.msg_overhead))  # per message: some text unit is shown
        for m in r.protected:
            self.shown[m] = 1
        self.cols = r.cols
        self.seams = r.cols.memo(Seams).ratio

    def seam(self, m: int) -> float:
        """Message ``m``'s tokens over the sum of its units' (see :class:`Seams`)."""
        got = self.seams.get(m)
        if got is None:
            cols = self.cols
            s, e = self.start[m], self.start[m + 1]
            units = float(cols.u_tokens.view[s:e].sum())
            got = self.seams[m] = min(1.0, max(LIMITS.seam_least, float(cols.msg_cost.view[m]) / units)) if units else 1.0
        return got

    def _open(self, u: int) -> bool:
        """Unit ``u`` is text left out (part of a run)."""
        d = self.decision[u]
        return d != KEPT and d != CLIPPED and self.kind[u] != _CALL_KIND

    def _marks_clip(self, u: int) -> bool:
        """A clip of unit ``u`` ends with a mark (code closes its fence instead)."""
        return self.kind[u] != _CODE_KIND

    def unit(self, u: int, clipped: bool) -> float:
        """What showing unit ``u`` (left out now; clipped or whole) adds in marks and label."""
        m = self.u_msg[u]
        s, e = self.start[m], self.start[m + 1]
        lead = self.label[m] or self.mark
        left_open = u > s and self._open(u - 1)
        after = self.mark if u + 1 < e and self._open(u + 1) and not (clipped and self._marks_clip(u)) else 0.0
        if not self.shown[m]:  # the message's first shown unit: a run before it, and one after
            return (lead if left_open else 0.0) + after
        if left_open:  # the run it was in keeps its mark: the part after it is a run of its own
            return after
        p = u - 1  # it opened its run: that run's mark (or label) goes
        if u == s:
            before = lead
        elif self.decision[p] == CLIPPED and self._marks_clip(p):
            before = 0.0
        else:
            before = self.mark
        return after - before

    def rest(self, u: int) -> float:
        """What showing the rest of clipped unit ``u`` adds: the run after it, marked by the
        clip's mark until now, needs one of its own."""
        m = self.u_msg[u]
        return self.mark if u + 1 < self.start[m + 1] and self._open(u + 1) and self._marks_clip(u) else 0.0

    def opening(self, m: int, units: list[int]) -> float:
        """What opening short message ``m`` (``units`` shown as ``r.opening`` says) adds."""
        return self._message(m, units, True) - self._message(m, units, False)

    def _message(self, m: int, units: list[int], opened: bool) -> float:
        s, e = self.start[m], self.start[m + 1]
        ds = self.decision[s:e].tolist()
        if opened:
            for u in units:
                ds[u - s] = self.opening_of[u]
        total, run, seen, marked = 0.0, False, False, False
        for d, k in zip(ds, self.kind[s:e].tolist()):
            if k == _CALL_KIND:
                continue
            if d == KEPT or d == CLIPPED:
                if run:
                    total += (self.label[m] or self.mark) if not seen else 0.0 if marked else self.mark
                seen, run, marked = True, False, d == CLIPPED and k != _CODE_KIND
            else:
                run = True
        if run and seen and not marked:
            total += self.mark
        return total

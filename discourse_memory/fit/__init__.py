"""The fitting stage: every decision of a view (its weights are the :class:`~.policy.Policy` of the view's options).

``fit(scene) -> Plan``. Nothing happens when the conversation fits and is well formed
(the caller checks that first). Otherwise, in this order:

1. **Protect** (:func:`protections`): system messages and the newest turn are kept
   verbatim; when they do not fit, protection degrades in steps (system + the newest
   message and its open tool-call chain, then the newest message alone) unless
   ``strict``. A tool call whose result is protected is shown too. A system prompt
   that would take over ``Policy.system_share`` of the budget and leave the rest of the
   history less than that share is outlined: its units' openings are worth
   ``Policy.system_opening`` times more, and the rest of it competes like any text.
2. **Deduplicate**: a unit of at least ``dedup_min_tokens`` tokens whose text appears
   again in a newer message is dropped; the newest copy wins.
3. **Rank** every option by value per token: an assistant's tool calls (with a
   placeholder for each result), a short message's opening, a unit's clip, the rest of
   a clipped unit, a unit whole, and a record item (one left-out value with its key).
   Value: a unit's opening (for units that say something) plus each content word and
   literal it states, rarer words more, newer messages up to ``1 + RECENCY`` times the
   oldest, tool calls and headings more; plus what it shares with the **focus** (the
   newest turn, :mod:`.focus`) and, for units around a match, its context (the rest of
   the turn, the question it answers or the answer it got, the call of a matching
   result, the session's date line). A record item is worth ``Policy.record_value`` of a value
   shown in its text, more when the focus names it or when it is an id of a list the
   agent is working through and has not passed to a call yet (:func:`pending_ids`).
4. **Take** options best first while they fit (a message's first shown piece pays its
   label and chat-format overhead, and in a dialogue of dated sessions its session's
   date line, shown with it; a record entry pays its label and date line); a value
   shown by a unit taken later leaves the record, and its item's room is spent again.
5. **Check** the rendered view's exact token count; decide again with the estimate's
   error taken off (or the room it left added) until it fits, a few passes at most.
6. **Longer heads**: room left goes to the heads of clipped units, newest first.
"""


from __future__ import annotations

from .fitting import fit
from .protect import protections
from .types import Scene

__all__ = ["Scene", "fit", "protections"]

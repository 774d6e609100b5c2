"""``compact``: messages in, a curated view and its report out.

The flow is one way: validated messages -> analysed units (cached per text) -> columns
(extended when the conversation grows) -> the focus of the newest turn -> the fitting
stage's plan (:mod:`.fit`) -> rendered messages and the record note -> the report.
"""

from __future__ import annotations

import copy
import dataclasses
import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from . import formats, tag_chain
from .analysis_cache import AnalysisCache, bind
from .columns import Columns, _Grow
from .errors import BudgetTooSmallError, InvalidOptionError
from .fit import Scene, fit
from .fit.shared_rows import SharedRows
from .shared_columns import SharedColumns
from .shared_counts import SharedCounts
from .framing import Framing, _Rule, framing_of, rule_for_format
from .focus import focus_of_text, focus_of_turn, focus_terms, relevance
from .gc_pause import gc_paused, is_bulk
from .keys import content_key
from .limits import LIMITS
from .messages import SYSTEM_ROLES, Message, validate_messages
from .nlp import wait_for_warm_up
from .options import NEWEST_TURN, FocusLike, Options
from .plan import CLIPPED, DECISION_NAMES, DEDUPLICATED, KEPT, Plan
from .policy import Policy
from .recall import Recalled, check_max_tokens, recall
from .result import Compaction, _snapshot, json_copy
from .record.note import note_lines
from .render import RenderCache, render_messages
from .report import Report, RecordEntry, UnitReport
from .tokens import TokenCounter, TokenCounterLike, count_lines, get_token_counter, head_of
from .tool_pairs import ToolPairs
from .units import Analyzer, Unit, clip_cost, head_literal_texts

__all__ = ["Compaction", "Compactor", "compact", "count_messages", "json_copy"]


@dataclass(frozen=True)
class _Feed:
    """What a caller knows of the messages it passes that a plain caller cannot:
    :class:`~discourse_memory.DiscourseMemory` and :mod:`.formats` hold their messages and
    never edit them (``owned``: the columns may keep them by identity), the memory's first
    ``same`` messages are the compactor's last input, and ``beyond`` is the run of messages
    its horizon left out (see :mod:`.horizon`); ``valid``: the messages, validated as they
    came in (its message ``i`` is ``messages[i]``'s; it may run on past them)."""

    owned: bool = False
    beyond: tuple[int, int] | None = None
    same: int = 0
    valid: Sequence[Message] | None = None


class _References(dict):
    """Message number -> its reference (``#12``), made when a view first hands it out (the
    conversation's memo, see ``Columns.memo``): a view of a long history hands out thousands,
    most of them the last view's, and formatting each anew was a millisecond or two a view."""

    def __missing__(self, i: int) -> str:
        ref = self[i] = f"#{i}"
        return ref


class Compactor:
    """Holds what compaction caches (pipeline, token counter, analysed texts, and the
    columns of the last conversation, which a longer version of it extends): keep one
    per conversation.

    Safe to share between threads: compactions through one compactor are serialised.
    """

    def __init__(self, token_counter: TokenCounterLike | None = None, *, options: Options | None = None,
                 pipeline: str | None = None, clip_tokens: int | None = None,
                 cache: AnalysisCache | None = None) -> None:
        """``cache``: a store of analyses shared with other workers (a
        :class:`~discourse_memory.RedisAnalysisCache`; see :mod:`.analysis_cache`), read for
        the messages this compactor has not analysed; None (default): this process's only."""
        if options is None:
            options = Options(token_counter=token_counter, pipeline=pipeline,
                              clip_tokens=12 if clip_tokens is None else clip_tokens)
        elif token_counter is not None or pipeline is not None or clip_tokens is not None:
            options = options.replace(**{k: v for k, v in (("token_counter", token_counter), ("pipeline", pipeline),
                                                           ("clip_tokens", clip_tokens)) if v is not None})
        self.options = options
        self.counter: TokenCounter = get_token_counter(options.token_counter)
        self.cache = cache
        self.analyzer = Analyzer(self.counter, pipeline=options.pipeline, clip_tokens=options.clip_tokens,
                                 shared=bind(cache, self.counter, options.pipeline, options.clip_tokens))
        # (the fitting stage's row memo of a conversation, shared beside the analyses: fit/shared_rows.py)
        self._rows = None if self.analyzer.shared is None else SharedRows(self.analyzer.shared)
        # (and its columns, per segment of messages: shared_columns.py)
        self._shared_cols = None if self.analyzer.shared is None else SharedColumns(self.analyzer.shared)
        # (and the token counts of what its views rendered: shared_counts.py)
        self._counts = None if self.analyzer.shared is None else SharedCounts(self.analyzer.shared)
        self._lock = threading.RLock()
        self._raw: list[tuple[Any, ...]] = []
        self._prints: list[tuple[Any, ...]] = []
        self._cols = Columns(self.counter.count)
        self._tags: list[str] = []
        self._render_cache = RenderCache()
        self._rules: dict[str, Framing] = {}
        # Per message of the columns, its framing under a bound rule (by the rule's id): a
        # long history's view does not walk every message for it again.
        self._frames: tuple[Columns | None, Any, _Grow, int] = (None, None, _Grow(np.float64), 0)

    def __deepcopy__(self, memo: dict[int, Any]) -> "Compactor":
        return self  # caches only: sharing them is safe

    def count_messages(self, messages: Sequence[Mapping[str, Any]]) -> int:
        """Tokens of ``messages`` as a view counts them (see :func:`count_messages`),
        with this compactor's counter and message overhead (and a named rule's reply
        priming: the count of the request)."""
        options, reply = self.framed(self.options, "openai")
        return count_messages(messages, self.counter, options) + reply

    def compact(self, messages: Any, budget: int, options: Options | None = None, *,
                focus: FocusLike = NEWEST_TURN, format: Any = "auto") -> Compaction:
        """``messages`` compacted to ``budget`` tokens (see :func:`compact`). ``options``
        may differ from the compactor's in everything but its analysis settings
        (``token_counter``, ``pipeline``, ``clip_tokens``). ``format``: see :func:`compact`."""
        return self._view(messages, budget, options, focus, format, _Feed())

    def _view(self, messages: Any, budget: int, options: Options | None, focus: FocusLike, format: Any,
              feed: _Feed) -> Compaction:
        """:meth:`compact`, with what :class:`~discourse_memory.DiscourseMemory` knows of its
        own messages (``feed``); ``format`` may be :data:`~.formats.INTERNAL`."""
        if isinstance(budget, bool) or not isinstance(budget, int):
            raise InvalidOptionError(f"budget must be an int number of tokens; got {type(budget).__name__}")
        if budget < 0:
            raise InvalidOptionError(f"budget must be >= 0 tokens; got {budget}")
        options = self._options(options)
        if focus is not NEWEST_TURN and focus is not None and not isinstance(focus, str):
            raise InvalidOptionError(
                f"focus must be a text, None (no focus) or NEWEST_TURN; got {type(focus).__name__}")
        # Plain OpenAI chat goes straight to the core; anything else is converted, and comes back
        # through core() with messages of the formats module's own.
        if formats.needs_formats(messages, format):
            return formats.run(self, messages, budget, options, focus, format, feed)
        options, reply = self.framed(options, "openai")
        if not reply:
            return self.core(messages, budget, options, focus, feed)
        # The reply priming is the request's, paid once: the messages get what is left, and the
        # counts (and a too-small budget's error) are the request's.
        try:
            view = self.core(messages, max(0, budget - reply), options, focus, feed)
        except BudgetTooSmallError as exc:
            raise BudgetTooSmallError(budget, exc.minimum + reply, exc.protected) from None
        if view.tokens_after + reply > budget:  # (a budget below the priming: not even an empty request fits)
            raise BudgetTooSmallError(budget, view.tokens_after + reply, "nothing")
        return dataclasses.replace(view, tokens_before=view.tokens_before + reply,
                                   tokens_after=view.tokens_after + reply, budget=budget)

    def framed(self, options: Options, fmt: str) -> tuple[Options, int]:
        """``options`` with a named ``message_overhead`` rule bound to this compactor's
        counter for messages of format ``fmt`` (see :mod:`.framing`), and the tokens that
        prime the reply (0 for an int or a function of the message)."""
        rule = options.message_overhead
        if not isinstance(rule, str):
            return options, 0
        name = rule_for_format(fmt) if rule == "auto" else rule
        with self._lock:
            framing = self._rules.get(name)
            if framing is None:
                framing = self._rules[name] = framing_of(name, fmt, self.counter.count)
        return options.replace(message_overhead=framing.per_message), framing.reply

    def core(self, messages: Any, budget: int, options: Options, focus: FocusLike, feed: _Feed) -> Compaction:
        """The view of internal (OpenAI chat) ``messages`` with ``options`` already checked and
        framed: what :meth:`compact` and the formats' way in (:func:`.formats.run`) share."""
        # A view makes tens of thousands of short-lived objects and no reference cycles (the
        # tests check): the collector is paused while it runs, and what survives it (the grown
        # analysis, the view) goes to the oldest generation (see gc_pause.py). Left running, the
        # collector walked the view's objects in young collections (3.7 ms a turn at 10,000
        # messages) and their survivors set off a full collection about one turn in ten (120 ms).
        with gc_paused(), self._lock:
            if not len(self._cols) and feed.beyond is None:
                # Nothing analysed yet: a conversation that fits as it is needs no analysis
                # (no spaCy import, no pipeline), which is most of a fresh process's first view.
                as_is = self._fits_as_is(messages, budget, options, feed.valid)
                if as_is is not None:
                    return as_is
            if not len(self._cols) and self.analyzer.shared is None:
                # A first analysis: not beside the warm-up (with a shared cache, the analyzer
                # waits only if the cache lacks something).
                wait_for_warm_up(self.options.pipeline)
            cols, tag = self._columns(messages, feed.owned, feed.same, feed.valid)
            return self._compact(cols, tag, messages, budget, options, focus, feed.beyond)

    def _fits_as_is(self, messages: Any, budget: int, options: Options,
                    valid: Sequence[Message] | None = None) -> Compaction | None:
        """The unchanged view of ``messages`` if they fit ``budget`` and their calls are
        well formed, counted without analysing them (None: they need compacting); ``valid``
        as :class:`_Feed`'s."""
        msgs = list(valid[:len(messages)]) if valid is not None else validate_messages(messages)
        if sum(len(tf.text) for m in msgs for tf in m.texts) > LIMITS.as_is_chars_per_token * budget:
            return None  # (it cannot fit: not counted twice, here and by its columns)
        count = self.counter.count
        before = 0
        for m in msgs:
            before += _tokens(m, count, options)
            if before > budget:
                return None
        pairs = ToolPairs()
        for m in msgs:
            pairs.add(m)
        if not pairs.well_formed(msgs):
            return None

        def units() -> Sequence[Unit]:
            cols = Columns(count)
            cols.extend(msgs, self.analyzer.fields(msgs))
            return cols.units

        return _unchanged(msgs, units, before, budget, messages)

    def recall(self, messages: Any, ref: str, max_tokens: int = 1000) -> Recalled:
        """Resolve ``ref`` (see :meth:`Compaction.recall`) against ``messages`` as a whole
        (a query searches all of its units)."""
        return self._recall(messages, ref, max_tokens, _Feed())

    def _recall(self, messages: Any, ref: str, max_tokens: int, feed: _Feed) -> Recalled:
        check_max_tokens(max_tokens)
        with self._lock:
            cols, _ = self._columns(messages, feed.owned)
            return recall(cols, ref, tags=self._tags, shown=None, count=self.counter.count, max_tokens=max_tokens,
                          analyse=self._terms)

    def _options(self, options: Options | None) -> Options:
        if options is None:
            return self.options
        if not isinstance(options, Options):
            raise InvalidOptionError(f"options must be an Options; got {type(options).__name__}")
        if options.analysis_key != self.options.analysis_key and (
                options.token_counter is not None or options.pipeline is not None
                or options.clip_tokens != self.options.clip_tokens):
            raise InvalidOptionError(
                "options change what this Compactor analyses with (token_counter, pipeline or clip_tokens): "
                "make a Compactor with those options instead")
        return options

    def _columns(self, messages: Any, owned: bool = False, same: int = 0,
                 valid: Sequence[Message] | None = None) -> tuple[Columns, str]:
        """Columns for ``messages``, extending the last conversation's when it is a prefix.

        ``owned``: the messages are never edited in place (a ``DiscourseMemory``'s own
        copies), so the same object is the same message. ``same``: with ``owned``, how
        many leading messages are those of the last call (the memory knows; they need no
        walk, which is a few milliseconds a view at 200,000 messages). ``valid``: the
        messages validated already (see :class:`_Feed`)."""
        if not isinstance(messages, Sequence) or isinstance(messages, (str, bytes)):
            validate_messages(messages)  # raises the right error
        # Same dict objects with the same content: no need to validate again.
        k = 0
        limit = min(len(messages), len(self._raw))
        raw = self._raw
        if owned:
            k = min(same, limit)
            while k < limit and messages[k] is raw[k][0]:
                k += 1
        else:
            while k < limit and _same_object(messages[k], raw[k]):
                k += 1
        n = len(messages)
        fresh = list(valid[k:n]) if valid is not None else validate_messages(messages[k:], start=k)
        # (the lists of a long history are extended in place, not copied, on a turn that
        # extends the last call's messages: a copy of 200,000 entries was a young object for
        # the garbage collector to walk)
        old, n_old = self._prints, len(raw)  # (a call that raised may have left prints past the last good one)
        prints = old if k == n_old == len(old) else old[:k]
        prints.extend(_fingerprint(m) for m in fresh)
        j = k  # (the first k prints are the last call's own)
        limit = min(len(prints), n_old, len(old))
        while j < limit and prints[j] == old[j]:
            j += 1
        cols = self._cols
        if j < len(cols):
            # Not an extension of the last conversation: start over.
            cols = Columns(self.counter.count)
            self._tags = []
            self._render_cache.clear()
            j = 0
        new = [m for m in fresh if m.index >= j]
        if j + len(new) < len(messages):  # messages j..k-1 were reused objects, not revalidated
            new = list(valid[j:n]) if valid is not None else validate_messages(messages[j:], start=j)
        # The tag covers every part of every message (roles, names, all content parts, calls):
        # text cannot predict the tag of a conversation holding it.
        tags = tag_chain.chain(self._tags[-1] if self._tags else "", prints[j:j + len(new)])
        shared = self.analyzer.shared
        if self._rows is not None and not len(cols):  # (its row entry is read with the analyses: one round trip)
            self._rows.ride(tags)
        if self._shared_cols is not None and not len(cols):  # (and its column entries, and its counts')
            shared.riders = [*shared.riders, *self._shared_cols.keys(tags)]
            self._counts.ride(tags)  # type: ignore[union-attr]
        with gc_paused(is_bulk([tf.text for m in new for tf in m.texts])):
            fields = self.analyzer.fields(new)
            done = 0
            if self._shared_cols is not None and not len(cols):
                done = self._shared_cols.take(cols, shared.carried, tags, new, fields)
                self._counts.take(shared.carried, tags)  # type: ignore[union-attr]
            cols.extend(new[done:], fields[done:])
            if cols.speakers_moved and j:
                # A message the views before read became a speaker's (a second message opens
                # with its label): what they read of it (its items, its label, its rendering)
                # reads otherwise now. Built again, as a compactor new to the conversation
                # builds it (the same view whatever came before: once per label, at most).
                every = list(cols.messages)
                cols = Columns(self.counter.count)
                self._render_cache.clear()
                cols.extend(every, self.analyzer.fields(every))
        self._tags.extend(tags)
        self._cols = cols
        if owned:
            # Only identities are compared next time; a later call that is not owned
            # sees these short entries as different and validates again.
            if k == len(raw):
                raw.extend((m,) for m in messages[k:])
            else:
                self._raw = [(m,) for m in messages]
        else:
            # The first k were just checked to be the same objects with the same parts.
            if k < len(raw):
                raw = self._raw = raw[:k]
            raw.extend(_identity(m) for m in messages[k:])
        self._prints = prints
        return cols, (self._tags[-1] if self._tags else content_key(""))[:8]

    def _relevance(self, cols: Columns, focus: FocusLike, policy: Policy,
                   ) -> tuple[np.ndarray | None, bool, bool, frozenset[str]]:
        """Per unit, its relevance to the focus (None: no focus), whether the focus asks or
        only remarks, and the terms of a focus that asks."""
        if focus is None or not len(cols):
            return None, False, False, frozenset()
        if focus is NEWEST_TURN:
            found = focus_of_turn(cols, policy)
        else:
            found = focus_of_text(cols, *self._terms(focus), text=focus, policy=policy)
        if found is None:
            return None, False, False, frozenset()
        # (the terms only of a question: an agent's step names the keys of every output it read)
        return relevance(cols, found, policy), found.asks, found.remark, focus_terms(cols, found) if found.asks else frozenset()

    def _compact(self, cols: Columns, tag: str, messages: Any, budget: int, options: Options,
                 focus: FocusLike, beyond: tuple[int, int] | None = None) -> Compaction:
        msgs = cols.messages
        units = cols.units
        count = self.counter.count
        before = cols.history_tokens()
        frames, framed = self._message_frames(cols, options)
        if frames is not None:
            before += framed
        elif options.message_overhead:
            before += sum(options.overhead(m.raw) for m in msgs)
        # (a memory's window that fits is still a view: the messages beyond its horizon are not in it)
        if before <= budget and cols.pairs.well_formed(msgs) and beyond is None:
            return _unchanged(msgs, lambda: units, before, budget, messages)

        recall_n = len(msgs) if options.recall else None

        # The plans fit measured, each rendered once: the one it returns is not rendered again.
        # (The plan is held with its rendering: no other plan can take its id meanwhile.)
        rendered: dict[int, tuple[Plan, list[dict[str, Any]], list[int | None], int, str]] = {}

        def render(plan: Plan) -> tuple[list[dict[str, Any]], list[int | None], int, str]:
            hit = rendered.get(id(plan))
            if hit is not None and hit[0] is plan:
                return hit[1:]
            out, sources, counted = render_messages(cols, plan, messages, count, self._render_cache, options.recall,
                                                    self._counts)
            # (a note is mostly the lines of the last plan's: counted by its lines where that is exact)
            lines = _note(tag, plan, recall_n, beyond, self._render_cache.note_lines)
            note = "\n".join(lines)
            total = sum(counted) + count_lines(self.counter, lines, self._counts)
            if frames is not None:
                # A shown message keeps its source's framing (role, name, ids) unless its calls went.
                # (its frame read as a Python number: a long history's view shows a thousand)
                framed = memoryview(frames)
                total += sum(int(framed[src]) if len(m.get("tool_calls") or ()) == len(msgs[src].tool_calls)
                             else options.overhead(m) for m, src in zip(out, sources))
            else:
                total += sum(options.overhead(m) for m in out)
            total += options.overhead({"role": options.note_role, "content": note})
            rendered[id(plan)] = (plan, out, sources, total, note)
            return out, sources, total, note

        def measure(plan: Plan) -> tuple[int, str]:
            return render(plan)[2:]

        if self._counts is not None:
            self._counts.start()
        rel, asks, remark, terms = self._relevance(cols, focus, options.policy)
        scene = Scene(cols, budget, options, rel, asks, remark, tag, count, measure,
                      lambda text, n: head_of(self.counter, text, n), beyond, terms, frames)
        if self._rows is not None:
            self._rows.seed(cols, self._tags)
        plan = fit(scene)
        if self._rows is not None:
            self._rows.save(cols, self._tags)
        if self._shared_cols is not None:
            self._shared_cols.save(cols, self._tags)
        out, sources, tokens, note = render(plan)
        if self._counts is not None:
            self._counts.save(self._tags)
        out, sources = list(out), list(sources)
        rendered.clear()
        # The note follows the leading system messages of the view, whatever was protected.
        position = 0
        while position < len(out) and out[position].get("role") in SYSTEM_ROLES:
            position += 1
        out.insert(position, {"role": options.note_role, "content": note})
        sources.insert(position, None)
        shown = set(sources)
        orphans = cols.pairs.orphans
        shown_units = (plan.decision == KEPT) | (plan.decision == CLIPPED)
        n_msgs = len(msgs)
        tags = self._tags

        def recall_in_view(ref: str, max_tokens: int) -> Recalled:
            with self._lock:
                return recall(cols, ref, tags=tags[:n_msgs], shown=shown_units, count=count, max_tokens=max_tokens,
                              analyse=self._terms, messages=n_msgs)

        # A clipped unit is shown, but its tail is not: its message is handed out too.
        handed = np.bincount(cols.u_msg.view[plan.decision != KEPT], minlength=n_msgs) > 0
        handed[[e.message for e in plan.record.entries]] = True
        references = tuple(map(cols.memo(_References).__getitem__, np.flatnonzero(handed).tolist()))

        def report() -> Report:  # (the messages left out are listed only if the report is read)
            dropped = tuple(i for i in range(n_msgs) if i not in shown and i not in orphans)
            return _report(cols, units, plan, note, dropped, count)

        return Compaction(out, tuple(sources), before, tokens, budget, note, report, messages,
                          recall_in_view, references)

    def _message_frames(self, cols: Columns, options: Options) -> tuple[np.ndarray | None, int]:
        """Per message of ``cols``, its framing under ``options``' bound rule (extended as
        the conversation grows), and their sum; None, 0 for a caller's own int or function."""
        rule = options.message_overhead
        if not isinstance(rule, _Rule):
            return None, 0
        owner, key, frames, total = self._frames
        if owner is not cols or key is not rule or frames.n > len(cols.messages):
            frames, total = _Grow(np.float64), 0
        if frames.n < len(cols.messages):  # (grown by the new messages: not a copy of 200,000 frames a turn)
            new = [rule(m.raw) for m in cols.messages[frames.n:]]
            frames.extend(new)
            total += int(sum(new))
        self._frames = (cols, rule, frames, total)
        return frames.view, total

    def _terms(self, text: str) -> tuple[list[str], list[str]]:
        """Content words and literal texts of ``text``, analysed like the history."""
        pieces = self.analyzer.analyse([text])[0] if text.strip() else ()
        return [w for p in pieces for w in p.piece.words], [t for p in pieces for t in p.literal_texts]


def _note(tag: str, plan: Plan, recall_n: int | None = None, beyond: tuple[int, int] | None = None,
          lines: dict[Any, Any] | None = None) -> list[str]:
    """The lines of ``plan``'s note (see :func:`.record.note.note_lines`)."""
    omitted, clipped, deduplicated = plan.counts
    return note_lines(tag, omitted, clipped, deduplicated, plan.record, recall=recall_n, beyond=beyond,
                      lines_cache=lines)


def count_messages(messages: Sequence[Mapping[str, Any]], token_counter: TokenCounterLike | TokenCounter | None = None,
                   options: Options | None = None) -> int:
    """Tokens of OpenAI chat ``messages`` sent as a request, as discourse-memory counts a
    view: each text (``content``, or each text part), each tool call's name and
    arguments, plus what ``options.message_overhead`` adds (by default, ``options=None``,
    the OpenAI rule: per message its framing, and the reply priming once). The one
    accounting of the library and its adapters."""
    counter = token_counter if isinstance(token_counter, TokenCounter) else get_token_counter(token_counter)
    framing = framing_of((options or _DEFAULTS).message_overhead, "openai", counter.count)
    per_message = framing.per_message
    if per_message:
        options = (options or _DEFAULTS).replace(message_overhead=per_message)
    else:
        options = None
    msgs = validate_messages(list(messages))
    return sum(_tokens(m, counter.count, options) for m in msgs) + framing.reply


_DEFAULTS = Options()


def _tokens(m: Message, count: Callable[[str], int], options: Options | None) -> int:
    """A message's tokens as a view counts them: its texts, its calls' names and
    arguments, and ``options``' per-message overhead (bound: an int or a function)."""
    n = sum(count(tf.text) for tf in m.texts) + sum(count(c.name) + count(c.arguments) for c in m.tool_calls)
    return n + (options.overhead(m.raw) if options is not None else 0)


def _identity(message: Any) -> tuple[Any, ...]:
    """A message and what it is made of, down to its parts: a message edited in place
    (a part's text, a call's arguments, a dict of arguments edited) no longer matches.
    Holding this tuple keeps the objects alive, so an identity check cannot be fooled
    by a reused id."""
    if not isinstance(message, dict):
        return (None,)
    content = message.get("content")
    calls = message.get("tool_calls")
    if isinstance(content, list):
        content = tuple(_snapshot(p) for p in content)
    if isinstance(calls, list):
        calls = tuple(
            (c.get("id"), c["function"].get("name"), _snapshot(c["function"].get("arguments")))
            if isinstance(c, dict) and isinstance(c.get("function"), dict) else c
            for c in calls
        )
    return (message, message.get("role"), content, calls, message.get("tool_call_id"), message.get("name"))


def _same_object(message: Any, old: tuple[Any, ...]) -> bool:
    # Strings compare by identity first, so an unchanged message costs a few pointer checks.
    return message is old[0] and _identity(message)[1:] == old[1:]


def _fingerprint(m: Message) -> tuple[Any, ...]:
    # Field names too: "x" as a string and as the text part of a list are different
    # messages to render, though their units are the same. The last item covers every
    # part of the message (the note's tag chains it).
    # (lists made into tuples, not generators: a first view makes one of every message)
    return (m.role, m.tool_call_id, tuple([(tf.field, tf.text) for tf in m.texts]),
            tuple([(c.id, c.name, c.arguments) for c in m.tool_calls]) if m.tool_calls else (), _canonical(m.raw))


_PLAIN_KEYS = frozenset({"role", "content", "tool_calls", "tool_call_id"})
_NAMED_KEYS = _PLAIN_KEYS | {"name"}


def _canonical(raw: Mapping[str, Any]) -> str:
    """Everything a message holds, as text. A plain message (role, string content, calls)
    is already covered by the rest of its fingerprint: only its name is added."""
    if raw.keys() <= _NAMED_KEYS and not isinstance(raw.get("content"), list):
        name = raw.get("name")
        return "" if name is None else f"name={name!r}"
    return json.dumps(raw, sort_keys=True, ensure_ascii=False, default=repr)


def _unchanged(msgs: list[Message], units: Callable[[], Sequence[Unit]], before: int, budget: int,
               inputs: Any) -> Compaction:
    def report() -> Report:  # the units are analysed only if the report is read
        reports = tuple(
            UnitReport(u.id, u.kind, u.message, u.field, u.start, u.end, "kept", u.tokens, u.tokens,
                       tuple(u.literal_texts), (), ())
            for u in units()
        )
        return Report(reports, (), (), None, (), (), "everything (nothing compacted)")

    return Compaction([copy.copy(dict(m)) for m in inputs], tuple(range(len(msgs))),
                      before, before, budget, None, report, inputs)


def _report(cols: Columns, units: Sequence[Unit], plan: Plan, note: str,
            dropped_messages: tuple[int, ...], count: Callable[[str], int]) -> Report:
    texts = cols.lit_text
    listed = [texts[i] for i in plan.record.listed]
    recorded = set(listed)
    dropped = {texts[i] for i in plan.record.dropped}
    decision = plan.decision.tolist()
    units = list(units)  # built once: read twice below
    shown: set[str] = set()
    for k, (u, d) in enumerate(zip(units, decision)):
        if d == KEPT:
            shown.update(u.literal_texts)
        elif d == CLIPPED:
            shown.update(head_literal_texts(u, plan.heads.get(k, u.head_end)))
    out = []
    for i, (u, d) in enumerate(zip(units, decision)):
        head = plan.heads.get(i, u.head_end)
        after = u.tokens if d == KEPT else 0
        if d == CLIPPED:
            after = clip_cost(u, head, count) if i in plan.heads else u.clip_tokens
        lits = u.literal_texts
        kept = tuple(t for t in lits if t in shown)
        rec = tuple(t for t in lits if t not in shown and t in recorded)
        drop = tuple(t for t in lits if t not in shown and t not in recorded and t in dropped)
        unlisted = tuple(t for t in lits if t not in shown and t not in recorded and t not in dropped)
        w = int(plan.winner[i])
        out.append(UnitReport(u.id, u.kind, u.message, u.field, u.start, u.end, DECISION_NAMES[d],
                              u.tokens, after, kept, rec, drop,
                              units[w].id if d == DEDUPLICATED else None,
                              u.message in plan.protected,
                              head if d == CLIPPED else None, unlisted))
    entries = tuple(RecordEntry(e.message, e.label, tuple(it.text for it in e.items),
                                tuple(texts[it.literal] for it in e.items), e.header)
                    for e in plan.record.entries)
    return Report(tuple(out), tuple(listed), tuple(texts[i] for i in plan.record.dropped), note, dropped_messages,
                  tuple(sorted(cols.pairs.orphans)), plan.protection, entries)


_COMPACTORS: dict[tuple[Any, ...], Compactor] = {}
_LOCK = threading.Lock()


def _compactor(options: Options) -> Compactor:
    counter = options.token_counter
    if counter is None or isinstance(counter, str):
        key = options.analysis_key
        with _LOCK:
            c = _COMPACTORS.get(key)
            if c is None:
                c = _COMPACTORS[key] = Compactor(options=Options(token_counter=counter, pipeline=options.pipeline,
                                                                 clip_tokens=options.clip_tokens))
            return c
    return Compactor(options=options)


def compact(
    messages: Sequence[Any],
    budget: int,
    *,
    focus: FocusLike = NEWEST_TURN,
    token_counter: TokenCounterLike | None = None,
    keep_system: bool = True,
    keep_last_turn: bool = True,
    strict: bool = False,
    relax: bool = False,
    note_role: str = "system",
    pipeline: str | None = None,
    clip_tokens: int = 12,
    message_overhead: str | int | Callable[[Mapping[str, Any]], int] = "auto",
    recall: bool = False,
    options: Options | None = None,
    format: str = "auto",
) -> Compaction:
    """Compact chat ``messages`` to at most ``budget`` tokens.

    Args:
        messages: OpenAI chat dicts with ``role``, ``content`` (str, None, or a list of
            parts), and optionally ``tool_calls``, ``tool_call_id``, ``name`` (other keys
            are copied to the output unchanged); or messages of another ``format``, or a
            request body (``{"system", "messages"}``, ``{"instructions", "input"}``).
        budget: the most tokens the request may hold: message text, tool-call names
            and arguments, the record note, and what ``message_overhead`` adds (by
            default the provider's per-message tokens and reply priming).
        focus: what the view serves: ``NEWEST_TURN`` (default: the newest user message,
            or the agent's newest step), a text (e.g. the question about to be asked),
            or None (rank by what units state, regardless of the next turn).
        token_counter: a tiktoken encoding name (default ``"cl100k_base"``, offline),
            a ``callable(str) -> int``, or a :class:`~discourse_memory.TokenCounter`.
        keep_system: keep system/developer messages verbatim (a long one that would leave
            the conversation little room is outlined: ``Policy.system_share``).
        keep_last_turn: keep the last user message and everything after it verbatim.
        strict: raise instead of protecting less when the protected messages do not fit
            (by default protection degrades: see :class:`~discourse_memory.Options`).
        relax: when even the newest message does not fit, compact it too.
        note_role: role of the record note message.
        pipeline: spaCy pipeline: ``"blank:en"`` (default) or an installed model name
            such as ``"en_core_web_sm"`` (adds its statistical entities).
        clip_tokens: how many tokens a clipped unit keeps (twice that for code and tables).
        message_overhead: what the request adds to the text: ``"auto"`` (the format's
            provider rule), ``"openai"``, ``"anthropic"``, ``"none"``, or tokens per
            message (an int, or a function of the message dict) for other APIs (see
            :class:`~discourse_memory.Options`).
        recall: the model can recall what was left out (``Compaction.recall``): the note
            says how, and a message that lost text names itself (``…#12``).
        options: all of the above as one :class:`~discourse_memory.Options` (then the
            keyword arguments must be left at their defaults).
        format: ``"auto"`` (detected), ``"openai"``, ``"responses"``, ``"anthropic"``,
            ``"langchain"`` or ``"llamaindex"`` (see ``docs/formats.md``). The view is in
            the same format: a :class:`~discourse_memory.formats.FormatCompaction` for
            anything the core does not read as it is (plain OpenAI chat gives a
            :class:`Compaction`, as before).

    Returns:
        A :class:`Compaction`; when the input already fits, its messages are copies of
        the input and there is no note.

    Raises:
        BudgetTooSmallError: the newest message and the note's frame do not fit (with
            ``strict=True``: the protected messages do not fit); ``.minimum`` says how
            many tokens they need.
        InvalidMessageError: a message is malformed (the error names it).
        InvalidOptionError: an option has the wrong type or value.
    """
    given = dict(token_counter=token_counter, keep_system=keep_system, keep_last_turn=keep_last_turn,
                 strict=strict, relax=relax, note_role=note_role, pipeline=pipeline, clip_tokens=clip_tokens,
                 message_overhead=message_overhead, recall=recall)
    if options is None:
        options = Options(**given)
    else:
        defaults = Options()
        changed = {k for k, v in given.items() if v != getattr(defaults, k)}
        if changed:
            raise InvalidOptionError(f"pass options=... or keyword arguments, not both ({', '.join(sorted(changed))})")
    return _compactor(options).compact(messages, budget, options, focus=focus, format=format)

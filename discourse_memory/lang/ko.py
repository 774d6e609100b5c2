"""The Korean pack: the won written after an amount. Korean is otherwise read by the
generic rules (words between spaces, spaCy's multi-language tokenizer)."""

from __future__ import annotations

from . import LanguagePack

__all__ = ["PACK"]

PACK = LanguagePack(code="ko", currency_after=("원",))

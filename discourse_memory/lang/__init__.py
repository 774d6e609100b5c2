"""Language packs: what the core knows of one language, as data it can read and diff.

The core's mechanism (segmenting a text, reading its literals and names, finding what a
question asks and what a reply answers) holds no language's words. A :class:`LanguagePack`
supplies them for one language code: the units a number is counted in, the words of a
currency, the shapes of its dates and times, the question words of each kind of value,
the characters that hold no content, a reader of its names, and the rules by which a
reply names what the talk is on. Built in: ``zh`` (:mod:`.zh`), ``ja`` (:mod:`.ja`) and
``ko`` (:mod:`.ko`), loaded on first use.

A language without a pack is read by the generic rules alone (:data:`GENERIC`, which
supplies nothing): Latin-script literals, names by capital letters or spaCy's tokens,
sentence marks of every script (:mod:`.marks`).

Two kinds of entry, applied differently:

- **Shapes** (``currency_after``, ``multipliers``, ``amount_qualifiers``,
  ``count_qualifiers``, ``range_words``, ``count_units``, ``weekdays``, ``day_letters``,
  ``dates``, ``times``, ``openers``, ``question_words``, ``requests``,
  ``function_chars``, ``stop_pairs``): those of every registered pack are read in text
  of any language (a Chinese message prices in yen, an English one quotes a Chinese
  address), so registering a pack changes what is read in every text.
- **Readers** (``find_names``, ``topics``): applied to text of the pack's language
  (``find_names``) or, for ``topics``, taken from the first registered pack that has them.

Register a pack of your own with :func:`register` (see ``docs/languages.md``)::

    from discourse_memory.lang import LanguagePack, register
    register(LanguagePack(code="th", currency_after=("บาท",)))
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..registry import Registry

if TYPE_CHECKING:
    from ..literals import Literal

__all__ = ["GENERIC", "LanguagePack", "Topics", "available", "find_names", "generation", "pack", "packs", "register"]


@dataclass(frozen=True)
class Topics:
    """How a reply in a language without subjects names what the talk is on
    (:mod:`discourse_memory.replies`): compiled patterns, each searched in a message."""

    address: re.Pattern[str]
    """A name that is an address (where a place is), not the place the talk is on."""
    dish_key: re.Pattern[str]
    """A key before a list of dishes (a restaurant's): names after it are dishes."""
    recommends: re.Pattern[str]
    """Words of a recommendation before the place a reply recommends."""
    around: re.Pattern[str]
    """After a name (``match``): the place is one searched around, not the one found."""
    dish_before: re.Pattern[str]
    """Before a name (``search`` ending at it): the name is of a dish asked for."""
    dish_after: re.Pattern[str]
    """After a name (``match``): the name is of a dish asked for."""
    route: re.Pattern[str]
    """A route from one place to another (its reply's names are of both ends)."""
    new_subject: re.Pattern[str]
    """Words of a request or reply that turns to a new subject (no topic carries through)."""
    search: re.Pattern[str]
    """Words of a request to search for a place."""
    near: str
    """A pattern after a place's name: near it (a place to search near)."""
    kinds: tuple[tuple[re.Pattern[str], re.Pattern[str]], ...]
    """A kind of place a question may name, and the end words of the names of that kind."""


@dataclass(frozen=True, kw_only=True)
class LanguagePack:
    """What the core knows of one language (see the module docstring). Every entry is
    optional: an empty one adds nothing to the generic rules."""

    code: str
    """The language's code (``"zh"``; lower case, as :func:`normalise_language` reads it)."""
    currency_after: tuple[str, ...] = ()
    """Words of a currency written after an amount, after an optional multiplier (``元``)."""
    multipliers: str = ""
    """Characters of a multiplier between a number and its currency (``万``: ten thousand)."""
    amount_qualifiers: tuple[str, ...] = ()
    """Words after an amount that bound it, part of its value (``以上``: or more)."""
    count_qualifiers: tuple[str, ...] = ()
    """The same after a count with its unit."""
    range_words: tuple[str, ...] = ()
    """Words between the ends of a range, as a dash is (``至``: to)."""
    count_units: tuple[str, ...] = ()
    """Units a number is counted in, written against it (``天``: days; a ``quantity``)."""
    weekdays: tuple[str, ...] = ()
    """Patterns of one day of the week (opening hours: ``周一至周五 9:00-18:00``)."""
    day_letters: str = ""
    """Letters that name a day alone in a range or a list of days (Japanese ``月〜金``)."""
    dates: tuple[str, ...] = ()
    """Patterns of a date."""
    times: tuple[str, ...] = ()
    """Patterns of a time of day."""
    openers: tuple[str, ...] = ()
    """Patterns of how a literal that opens with a letter of an unspaced script starts (a
    time's word, a weekday): elsewhere inside such a run no literal is tried."""
    question_words: tuple[tuple[str, tuple[str, ...]], ...] = ()
    """Words of a question asking for a kind of value, by the group of
    :data:`discourse_memory.focus.ASKED` they join (``("phone", ("电话",))``)."""
    requests: tuple[str, ...] = ()
    """Words of a request to be told something (a question without a question mark)."""
    function_chars: str = ""
    """Characters of no content of their own (particles, pronouns): a pair of Han
    characters holding one is no content word."""
    stop_pairs: frozenset[str] = frozenset()
    """Pairs of characters of courtesy and chat that say nothing of their own."""
    key_links: str = ""
    """Characters that join a key to its value without a space (particles and verbs:
    ``是``, ``为``): the record's context of a value written against its key ends before them."""
    value_keys: tuple[str, ...] = ()
    """Words a value is stated under (``电话``: phone): in a run of characters before a value,
    the first of them starts the value's context."""
    possessive: str = ""
    """The word between an owner and what it owns (``的``): a value's key follows it."""
    find_names: Callable[[str], list[Literal]] | None = None
    """The names of places and organisations in a text of this language (where no capital
    letter marks them), as ``name`` literals in order."""
    topics: Topics | None = None
    """How a reply names what the talk is on (languages that leave the subject out)."""

    def __post_init__(self) -> None:
        if not self.code or self.code != self.code.strip().lower():
            raise ValueError(f"a language pack's code must be a lower-case language code such as 'zh', not {self.code!r}")


GENERIC = LanguagePack(code="xx")
"""The pack of a language without one: it supplies nothing (the generic rules alone)."""

_BUILTIN = ("zh", "ja", "ko")
_REGISTRY: Registry[LanguagePack] = Registry(
    lambda p: p.code, lambda: (importlib.import_module(f"{__name__}.{code}").PACK for code in _BUILTIN))


def register(new: LanguagePack) -> None:
    """Add ``new`` to the registry, or replace the pack of its code (a built-in one too).
    Its shapes are read in every text from the next text read on; views taken before
    are not changed."""
    if not isinstance(new, LanguagePack):
        raise TypeError(f"register() takes a LanguagePack, not {type(new).__name__}")
    _REGISTRY.register(new)


def pack(code: str) -> LanguagePack:
    """The pack of language ``code`` (``"zh-CN"`` reads as ``"zh"``), or :data:`GENERIC`
    for a language without one."""
    return _REGISTRY.get(code.strip().lower().replace("_", "-").split("-")[0]) or GENERIC


def packs() -> tuple[LanguagePack, ...]:
    """Every registered pack: the built-in ones, then the user's, in order."""
    return _REGISTRY.entries()


def available() -> tuple[str, ...]:
    """The codes of the registered packs."""
    return tuple(_REGISTRY.names())


def generation() -> int:
    """A number that changes whenever a pack is registered (patterns built from the packs
    are cached per generation)."""
    return _REGISTRY.generation()


def find_names(text: str, language: str) -> list[Literal]:
    """The names ``language``'s pack reads in ``text`` (none without a reader)."""
    reader = pack(language).find_names
    return reader(text) if reader is not None else []

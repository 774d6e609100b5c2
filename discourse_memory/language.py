"""The language of a text: which rules segment it and read its names.

``detect_language(text)`` returns a code of :data:`LANGUAGES`, from a sample of the
text (its first ``LIMITS.script_sample`` characters):

1. **Script**: Han, kana, Hangul and Cyrillic letters are counted against Latin ones
   (a CJK character weighs as much as a Latin word of four letters). Kana make it
   Japanese, Hangul Korean, Han alone Chinese; Cyrillic is Russian, or Ukrainian with
   letters only Ukrainian uses (``і ї є ґ``). Other scripts (Greek, Arabic, Hebrew,
   Devanagari, Thai, ...) give ``"xx"``.
2. **Latin script**: English unless the sample has a function word of another
   language (``der``, ``une``, ``los``, ``het``, ... from ``_WORDS``) or a letter
   English does not use (``ä é ñ ł ş`` ...); only then is ``py3langid`` asked (its
   model ships inside the package; loaded on first use, 0.6 s), restricted to the
   Latin-script languages of :data:`LANGUAGES`, and its answer is taken when it is not
   English, at least ``LIMITS.min_probability`` sure, and the sample reads as text (mostly
   letters). So English, and what is not prose (logs, code, JSON), stays English and is
   segmented as it always was; a history in English never loads the model.

Measured by ``benchmarks/bench_local_formats.py`` on the hand-written sentences of
``tests/fixtures/language_sentences.json`` (and, for English, on the shared data).
A caller who knows the language passes it instead (``segment_texts(..., language=
"de")``); :func:`normalise_language` reads a caller's code.
"""

from __future__ import annotations

import re
import threading
from typing import Any

from .limits import LIMITS

__all__ = ["CJK", "CJK_CHAR", "LANGUAGES", "LATIN", "detect_language", "normalise_language", "wide_script_share"]

LATIN = ("en", "de", "fr", "es", "it", "pt", "nl", "sv", "da", "nb", "fi", "pl", "cs", "sk", "sl", "hr",
         "ro", "hu", "tr", "ca")
"""Latin-script languages told apart (each has a blank spaCy pipeline that needs nothing)."""
LANGUAGES = (*LATIN, "ru", "uk", "zh", "ja", "ko", "xx")
"""Every code :func:`detect_language` returns (``xx``: another script, language-neutral rules)."""
CJK = frozenset({"zh", "ja"})
"""Languages written without spaces between words (segmented by the CJK rules)."""
CJK_CHAR = re.compile(r"[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]")
"""A kana, Han or Hangul character: text the CJK reading of a reply applies to."""


_HAN = re.compile(r"[\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]")
_KANA = re.compile(r"[\u3040-\u309f\u30a0-\u30ff\u31f0-\u31ff\uff66-\uff9f]")
_HANGUL = re.compile(r"[\uac00-\ud7af\u1100-\u11ff\u3130-\u318f]")
_WIDE = re.compile(f"{_HAN.pattern}|{_KANA.pattern}|{_HANGUL.pattern}")
"""Characters of about a token or more each (Han, kana, Hangul)."""
_CYRILLIC = re.compile(r"[\u0400-\u04ff]")
_NOT_LATIN = re.compile(r"[\u0370-\u03ff\u0400-\u04ff\u0590-\u06ff\u0900-\u0dff\u0e00-\u0eff\u10a0-\u10ff"
                        r"\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
                        r"\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f]")
_UKRAINIAN = re.compile(r"[іїєґІЇЄҐ]")
_LATIN = re.compile(r"[A-Za-z\u00c0-\u024f]")
_OTHER_LETTER = re.compile(r"[\u0370-\u03ff\u0590-\u05ff\u0600-\u06ff\u0900-\u0dff\u0e00-\u0eff\u10a0-\u10ff]")
# Words of the vote: runs between whitespace without the marks around them, so that
# an identifier (``time_est``, ``os.path``, ``make_args(im)``) or a tag (``<em>``) is no
# word of it; a word that ends a sentence is looked up with its period.
_BLANK_EDGES = str.maketrans({c: " " for c in ",;:!?\"«»“”„¿¡…*"})

# Function words of other languages that English text does not use (a sample with one
# is asked of the model). Words English uses too ("die", "a", "in", "also") are left out;
# words two of these languages share ("de", "la", "que") may stand in either list.
# English function words are listed to keep them out.
_WORDS = {
    "en": "the and you your is are was were that this with have has not what it's i'm i've don't "
          "of to my for can will would be been it on at we they he she just but if or me how "
          "there their about from an a in do does did so all any",
    "de": "der die und ist nicht ich sie wir ein eine einen einem dem den des für auf sich auch "
          "noch bitte danke ja nein von bei wie sind haben wird kann können mein meine "
          "ihr ihre uns im vom zum zur oder aber ist's gibt mir dich mich sehr schon "
          "heute morgen wann wo warum hallo guten das es"
          " bis nach über unser unsere diese dieser dieses",
    "fr": "le les et est une des du pour qui dans pas vous je nous elle sont avec sur mais "
          "au aux ce cette mes merci bonjour oui très c'est j'ai n'est qu'il s'il "
          "votre vos notre nos leur être avoir fait peux pouvez voudrais aujourd'hui "
          "demain quand où la de il que se ne en un à"
          " l'on",
    "es": "el los las gracias hola yo sí muy hay también cuando usted ustedes tengo "
          "necesito puedo quiero buenos buenas mañana hoy dónde cuándo qué cómo señor señora pero "
          "nuestro nuestra vuestro ellos ellas estoy estamos somos la de que en se por para una un "
          "del al lo como es su",
    "it": "di che è gli della delle dei degli sono ho grazie ciao buongiorno questo questa "
          "anche molto perché nel nella alla alle sul sulla vorrei posso domani oggi "
          "dove quando siamo essere il la di un una non da",
    "pt": "os não dos das nos nas ao você vocês obrigado obrigada olá muito também isso "
          "esse essa meu minha nossa nosso é em um uma pelo pela amanhã hoje onde quando estou "
          "tenho preciso quero posso o de que da do para com por",
    "nl": "het een van ik niet zijn voor maar ook wij jij bedankt dank graag wat dit hoe "
          "hebben heb wordt kunnen morgen vandaag waar wanneer alsjeblieft alstublieft "
          "mijn jullie onze hoi de en te op dat er",
}
_ENGLISH = frozenset(_WORDS.pop("en").split())
# Not capitalised: words that open place names in English text ("Los Angeles", "Las
# Vegas", "Le Mans", "De Moines", "Van Nuys", "San Jose").
_NOT_CAPITALISED = frozenset("los las le les la el de da di do del van den des dos".split())
# The gate: each word as written, capitalised (opening a sentence: "Die", "Le"), before a
# period, with either apostrophe.
_FOREIGN_WORDS = frozenset(
    form
    for words in _WORDS.values()
    for w in words.split() if w not in _ENGLISH
    for cased in ((w,) if w in _NOT_CAPITALISED else (w, w[:1].upper() + w[1:]))
    for quote in (cased, cased.replace("'", "’"))
    for form in (quote, quote + ".")
)
# One foreign word asks the model of a short text only ("Die Bestellung kam.", "El pedido
# llegó.", with the place-name words capitalised too): in longer English text a lone "os",
# "da" or "se" is code or a name.
_SHORT_WORDS = _FOREIGN_WORDS | {w[:1].upper() + w[1:] for w in _NOT_CAPITALISED}


def normalise_language(language: str) -> str:
    """``language`` as one of :data:`LANGUAGES` (``"de-DE"`` -> ``"de"``); a code
    outside them is read with the language-neutral rules (``"xx"``)."""
    code = language.strip().lower().replace("_", "-").split("-")[0]
    if not code:
        raise ValueError("language must be a language code such as 'en', 'de' or 'zh'")
    return code if code in LANGUAGES else "xx"


def detect_language(text: str) -> str:
    """The language of ``text`` (one of :data:`LANGUAGES`; see the module docstring)."""
    sample = text[:LIMITS.script_sample]
    if sample.isascii() or not _NOT_LATIN.search(sample):
        return _latin(sample[:LIMITS.vote_sample])
    han = len(_HAN.findall(sample))
    kana = len(_KANA.findall(sample))
    hangul = len(_HANGUL.findall(sample))
    cyrillic = len(_CYRILLIC.findall(sample))
    latin = len(_LATIN.findall(sample))
    other = len(_OTHER_LETTER.findall(sample))
    # A CJK character says about as much as a Latin word of four letters.
    cjk = 4 * (han + kana + hangul)
    if cjk and cjk >= latin and cjk >= cyrillic and cjk >= other:
        if kana * 10 >= han + kana and kana:
            return "ja"
        if hangul > han + kana:
            return "ko"
        return "ja" if kana and not han else "zh"
    if cyrillic > latin and cyrillic >= other:
        return "uk" if _UKRAINIAN.search(sample) else "ru"
    if other > latin:
        return "xx"
    return _latin(sample[:LIMITS.vote_sample])


def _latin(sample: str) -> str:
    words = sample.translate(_BLANK_EDGES).split()
    if len(words) > LIMITS.short_words:
        if _FOREIGN_WORDS.isdisjoint(words) or sum(map(_FOREIGN_WORDS.__contains__, words)) < 2:
            return "en"  # most English text: nothing another language would say
    elif _SHORT_WORDS.isdisjoint(words):
        return "en"
    if not _prose_like(sample, words):
        return "en"
    lang, probability = _identifier().classify(sample)
    return lang if lang != "en" and probability >= LIMITS.min_probability else "en"


def _prose_like(sample: str, words: list[str]) -> bool:
    """Mostly letters, as running text is (not code, a log or JSON)."""
    letters = sum(1 for c in sample if c.isalpha())
    return letters >= 0.65 * len("".join(sample.split())) and len(words) >= 2


_IDENTIFIER: Any = None
_LOCK = threading.Lock()


def _identifier() -> Any:
    global _IDENTIFIER
    with _LOCK:
        if _IDENTIFIER is None:
            from py3langid.langid import _load_identifier

            ident = _load_identifier(norm_probs=True)
            ident.set_languages([("no" if lang == "nb" else lang) for lang in LATIN])
            _IDENTIFIER = _Classify(ident)
        return _IDENTIFIER


class _Classify:
    def __init__(self, ident: Any) -> None:
        self._ident = ident

    def classify(self, text: str) -> tuple[str, float]:
        lang, probability = self._ident.classify(text)
        return ("nb" if lang == "no" else lang), float(probability)


def wide_script_share(text: str) -> float:
    """Share of ``text``'s characters that are Han, kana or Hangul (0 for empty text)."""
    return len(_WIDE.findall(text)) / len(text) if text else 0.0

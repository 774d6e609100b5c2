"""Scores of one view (a list of messages) against the full history it came from.

Every score is a share in ``[0, 1]`` of things of the history found in the view
text (``None`` when the history has none of them):

- ``literal_recall``: distinct grader literals of the history found in the view.
- ``sentence_survival``: distinct sentence openings (first five words) of the
  history found verbatim in the view.
- ``evidence_retention``: evidence turns (LoCoMo ``dia_id`` s) all of whose
  sentence openings are found in the view.
- ``answer_containment``: QA answers (categories 1-4) found in the view, case and
  whitespace ignored.
- ``gold_arg_recall``: distinct leaf values of the gold tool-call arguments found
  in the view (the bench counts only the values the full history states: a value
  the conversation never mentions cannot be remembered).

"Found" means: present in the view text (whitespace collapsed) at a word boundary:
``30`` is not found in ``2030``, and ``Li`` is not found in ``Lisbon``. A number (a
token with a digit, as the grader extracts them: ``40``, ``10:29``, ``$21.99``,
:func:`~.grader.is_number_token`) is found only as a whole token: not in ``#40``, ``$40``, ``40%``,
``10:40``, ``40.5`` or a date (``8 May, 2040``), which are other values (sentence
punctuation around it aside: ``40.`` and ``(40)`` hold ``40``). A CJK
character (Chinese, kana) is a word of its own, as CJK is written without spaces:
``篱苑图书馆`` is found in ``就去篱苑图书馆吧``, ``A12345`` in ``订单号是A12345``. The view
text is the concatenation of every message's text content and tool-call names and
arguments, the record note included (the model receives it) without what the note
says of itself (:func:`note_graded_text`: its frame and its entries' ``#N``
references), which is no value of the history.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from .grader import (
    CJK,
    DATE,
    _opens_sentence,
    content_words,
    distinct,
    extract_literals,
    is_number_token,
    normalize_space,
    sentence_openings,
    split_sentences,
)

__all__ = [
    "LineIndex",
    "RawIndex",
    "RecordNoise",
    "TextIndex",
    "answer_containment",
    "answer_found",
    "context_words",
    "entry_lines",
    "is_bare_number",
    "literal_recall_with_context",
    "evidence_retention",
    "gold_arg_recall",
    "gold_values",
    "history_literals",
    "literal_recall",
    "message_text",
    "note_graded_text",
    "orphan_tool_messages",
    "sentence_survival",
    "share_found",
    "view_text",
    "with_context_share",
]

_RUN = re.compile(f"[^\\W{CJK}]+|[{CJK}]")  # a run of word characters; each CJK character alone
_WORD_EDGE = re.compile(f"[^\\W{CJK}]")  # a word character that joins its neighbour (not CJK)
# The characters of a token the grader extracts as a number (:func:`~.grader.is_number_token`),
# and of those, the ones it strips off the token's ends (sentence punctuation).
_TOKEN_CHAR = re.compile(f"[^\\W{CJK}]|[$€£#%+.:/-]")
_TOKEN_EDGE = ".:/-+"


def _content_text(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = []
        for part in content:
            if isinstance(part, dict) and part.get("type") == "text":
                parts.append(str(part.get("text", "")))
            elif isinstance(part, str):
                parts.append(part)
        return "\n".join(parts)
    return str(content)


def message_text(message: dict) -> str:
    """Text content plus tool-call names and arguments of one message."""
    pieces = [_content_text(message.get("content"))]
    for call in message.get("tool_calls") or ():
        function = call.get("function", call) if isinstance(call, dict) else {}
        name = function.get("name") or ""
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments) if arguments is not None else ""
        pieces.append(f"{name} {arguments}".strip())
    return "\n".join(p for p in pieces if p)


def view_text(messages: Iterable[dict]) -> str:
    """Concatenated text of a view (or a history), one message per paragraph; a view's
    record note (``messages.note``, as a ``NotedView`` marks it) as :func:`note_graded_text`."""
    note = getattr(messages, "note", None)
    return "\n\n".join(note_graded_text(message_text(m)) if note is not None and m is note else message_text(m)
                       for m in messages)


# What a record note says of itself, not of the history: its frame (the first line naming
# what was left out, with its counts and message ranges; "(N more values dropped to fit)";
# the closing line) and the message reference opening each entry ("#40 Tim: ..."). A value
# found only there (40, 1746, #12) is no value the view states.
_NOTE_FRAME = re.compile(r"^(?:\[discourse-memory record [^\n]*|\(\d+ more values? dropped to fit\)"
                         r"|\[end of record [^\n]*\])[ \t]*$", re.M)
_NOTE_REFERENCE = re.compile(r"^#\d+(?=[ \t]|$)", re.M)  # (an entry's line opens with its label)


def note_graded_text(text: str) -> str:
    """A record note's text as the grader reads it: without its frame lines and without
    the ``#N`` reference that opens each entry (``#40 Tim: 2 dogs`` -> `` Tim: 2 dogs``)."""
    return _NOTE_REFERENCE.sub("", _NOTE_FRAME.sub("", text))


class TextIndex:
    """Word-boundary substring search over one text, fast for many queries.

    Every ``\\w+`` run of the (whitespace-collapsed) text is indexed by its
    position (a CJK character is a run of its own); a query is looked up by its own
    first run, then compared in place. A query is found when it occurs with no word
    character right before it (if it starts with one) and none right after it (if it
    ends with one), CJK characters aside: they border anything.
    """

    def __init__(self, text: str) -> None:
        self.text = self._prepare(text)
        self._runs: dict[str, list[int]] = {}
        for m in _RUN.finditer(self.text):
            self._runs.setdefault(m.group(), []).append(m.start())

    @staticmethod
    def _prepare(text: str) -> str:
        return normalize_space(text)

    def positions(self, query: str) -> Iterator[int]:
        """Where ``query`` (whitespace collapsed) starts in :attr:`text`, in order."""
        query = normalize_space(query)
        first = _RUN.search(query)
        text = self.text
        if first is None:
            if query:
                start = text.find(query)
                while start >= 0:
                    yield start
                    start = text.find(query, start + 1)
            return
        offset = first.start()
        end_is_word = bool(_WORD_EDGE.fullmatch(query[-1]))
        number = is_number_token(query)
        for position in self._runs.get(first.group(), ()):
            start = position - offset
            if start < 0 or not text.startswith(query, start):
                continue
            stop = start + len(query)
            if end_is_word and stop < len(text) and _WORD_EDGE.fullmatch(text[stop]):
                continue
            if number and not _whole_token(text, start, stop):
                continue
            yield start

    def __contains__(self, query: str) -> bool:
        return next(self.positions(query), None) is not None


def _whole_token(text: str, start: int, stop: int) -> bool:
    """``text[start:stop]`` is a whole token as the grader extracts numbers: what touches
    it on either side, up to a space, is only punctuation the grader strips off a token's
    ends (``40.``, ``(40)``), not ``#40`` (an entry's reference), ``$40``, ``40%``, ``1:40``
    or ``40.5`` (a longer number, a time); and it is no part of a date (``8 May, 2040``)."""
    i = start
    while i > 0 and _TOKEN_CHAR.match(text, i - 1):
        if text[i - 1] not in _TOKEN_EDGE:
            return False
        i -= 1
    i = stop
    while i < len(text) and _TOKEN_CHAR.match(text, i):
        if text[i] not in _TOKEN_EDGE:
            return False
        i += 1
    # Nor the day or year of a date ("10 August, 2022"): the grader reads the date as one value.
    # (A date is at most ~20 characters: a window around the token finds every one covering it.)
    left = max(0, start - 24)
    return not any(m.start() + left <= start and stop <= m.end() + left
                   for m in DATE.finditer(text[left:stop + 24]))


class RawIndex(TextIndex):
    """A :class:`TextIndex` over the text as written (no whitespace collapsed), so a
    position can be read in its context (line starts, sentence ends)."""

    @staticmethod
    def _prepare(text: str) -> str:
        return text


class LineIndex(TextIndex):
    """A :class:`TextIndex` that keeps the text's lines (whitespace collapsed within
    each line): a query is found within one line, and :meth:`lines` says which."""

    @staticmethod
    def _prepare(text: str) -> str:
        return "\n".join(normalize_space(line) for line in text.splitlines())

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        self._words: dict[int, set[str]] = {}

    def lines(self, query: str) -> Iterator[int]:
        """Numbers of the lines holding ``query`` (a line once per match)."""
        for start in self.positions(query):
            yield bisect_right(self._starts, start) - 1

    def words(self, line: int) -> set[str]:
        """The line's content words (:func:`~.grader.content_words`, case ignored)."""
        words = self._words.get(line)
        if words is None:
            start = self._starts[line]
            stop = self._starts[line + 1] - 1 if line + 1 < len(self._starts) else len(self.text)
            words = self._words[line] = content_words(self.text[start:stop].lower())
        return words


def share_found(items: Sequence[str], index: TextIndex) -> float | None:
    """Share of ``items`` found in ``index``; ``None`` when there are none."""
    if not items:
        return None
    return sum(1 for item in items if item in index) / len(items)


def literal_recall(history_literals: Sequence[str], index: TextIndex) -> float | None:
    """Share of the history's distinct grader literals found in the view."""
    return share_found(distinct(history_literals), index)


def sentence_survival(history_openings: Sequence[str], index: TextIndex) -> float | None:
    """Share of the history's distinct sentence openings found in the view."""
    return share_found(distinct(history_openings), index)


def evidence_retention(
    evidence_turns: dict[str, str], index: TextIndex
) -> float | None:
    """Share of evidence turns (``dia_id -> turn text``) whose every sentence
    opening is found in the view."""
    if not evidence_turns:
        return None
    kept = 0
    for text in evidence_turns.values():
        openings = sentence_openings(text)
        if all(opening in index for opening in openings):
            kept += 1
    return kept / len(evidence_turns)


def answer_containment(answers: Sequence[str], index: TextIndex) -> float | None:
    """Share of answers contained in the view text, case and whitespace ignored
    (plain substring: answers are phrases, not literals)."""
    if not answers:
        return None
    lowered = index.text.lower()
    found = sum(1 for a in answers if normalize_space(a).lower() in lowered)
    return found / len(answers)


def gold_values(gold_actions: Sequence[dict]) -> list[str]:
    """Distinct leaf values of the gold actions' keyword arguments, as strings
    (``None`` and empty strings left out; ``True``/``False`` as written in JSON)."""
    out: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for v in value.values():
                walk(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                walk(v)
        elif value is None:
            return
        elif isinstance(value, bool):
            out.append("true" if value else "false")
        else:
            text = str(value).strip()
            if text:
                out.append(text)

    for action in gold_actions:
        walk(action.get("kwargs") or action.get("arguments") or {})
    return distinct(out)


def gold_arg_recall(gold: Sequence[str], index: TextIndex) -> float | None:
    """Share of gold argument values found in the view."""
    return share_found(gold, index)


def orphan_tool_messages(messages: Sequence[dict]) -> int:
    """Tool results in a view whose calling assistant message is not in it
    (providers reject such a request)."""
    called: set[str] = set()
    orphans = 0
    for message in messages:
        for call in message.get("tool_calls") or ():
            if isinstance(call, dict) and call.get("id"):
                called.add(call["id"])
        if message.get("role") == "tool" and message.get("tool_call_id") not in called:
            orphans += 1
    return orphans


def history_literals(messages: Iterable[dict]) -> list[str]:
    """Distinct grader literals of a list of messages."""
    return distinct(lit for m in messages for lit in extract_literals(message_text(m)))


def answer_found(answer: str, index: TextIndex) -> bool:
    """``answer`` stands in the text of ``index`` at word boundaries, case and
    whitespace ignored. ``index`` must be built on lowercased text (``TextIndex(text.lower())``)."""
    return normalize_space(answer).lower() in index


# -- with-context literal recall ------------------------------------------------------


def context_words(messages: Iterable[dict], literals: Sequence[str]) -> dict[str, set[str]]:
    """For each literal, the content words (:func:`~.grader.content_words`) of the
    history sentences (:func:`~.grader.split_sentences` of each message) that state
    it, the literal's own words excluded. A sentence states a literal where the literal
    stands in it as the view's text is searched (:class:`TextIndex`: word boundaries, a
    number as a whole token), wherever the grader extracted it from: "Max was truly
    awesome." states ``Max`` though the grader takes no sentence's first word for a
    literal (a view keeping that sentence verbatim keeps Max with its words)."""
    by_run: dict[str, list[str]] = {}
    for literal in literals:
        first = _RUN.search(normalize_space(literal))
        by_run.setdefault(first.group() if first else "", []).append(literal)
    out: dict[str, set[str]] = {literal: set() for literal in literals}
    for message in messages:
        for sentence in split_sentences(message_text(message)):
            index = TextIndex(sentence)
            candidates = [x for run in index._runs for x in by_run.get(run, ())] + by_run.get("", [])
            for literal in candidates:
                if literal in index:
                    out[literal] |= content_words(sentence, literal)
    return out


_ENTRY_SPLIT = re.compile(r";\s+")


def _note_entries(text: str) -> str:
    """A note's lines with their ``; ``-separated entries each on a line of its own; a
    line's key (what precedes its first ``": "``, as in ``#3 user: a; b``) is given to
    each of its entries."""
    out = []
    for line in text.splitlines():
        parts = _ENTRY_SPLIT.split(line)
        colon = parts[0].find(": ")
        key = parts[0][: colon + 1] if colon >= 0 else ""
        out.append(parts[0])
        out.extend(f"{key} {part}" if key else part for part in parts[1:])
    return "\n".join(out)


def entry_lines(view: Iterable[dict], note: dict | None = None) -> str:
    """The view text for :class:`LineIndex`: every message's text, the record note's
    entries (separated by ``; ``) each on a line of its own with its line's key, so
    that a value listed in the note is judged with its own entry and key, not with the
    words of the whole list."""
    return "\n\n".join(
        _note_entries(note_graded_text(message_text(m))) if note is not None and m is note else message_text(m)
        for m in view
    )


def _with_context_counts(
    literals: Sequence[str], words: dict[str, set[str]], index: LineIndex
) -> tuple[int, int, int]:
    """Of ``literals``: how many some history sentence states with a content word (keyed),
    how many of those stand in some line of ``index``, and how many stand in a line
    together with a content word of a sentence that stated them."""
    keyed = held = with_context = 0
    for literal in literals:
        mine = words.get(literal)
        if not mine:
            continue
        keyed += 1
        lines = list(index.lines(literal))
        if lines:
            held += 1
            if any(mine & index.words(line) for line in lines):
                with_context += 1
    return keyed, held, with_context


def literal_recall_with_context(
    literals: Sequence[str], words: dict[str, set[str]], index: LineIndex
) -> float | None:
    """Share of ``literals`` that stand in some line of the view (``index``: the view
    text, note included, split at newlines, the note's entries apart: :func:`entry_lines`)
    together with at least one content word
    of a history sentence that stated them (``words``: :func:`context_words`), word
    boundaries on both, case ignored for the word.

    Only literals that some history sentence states with a content word count: a
    value the history itself gives bare (a session's date line ``[1:56 pm on 8 May,
    2023]``, a file name alone on a line of ``ls`` output) had no context to keep, and
    no view could show it with one; on the shared data these are 49% of LoCoMo's
    distinct literals, 44% of SWE-bench's, 10% of tau-bench's, 1% of CrossWOZ's.
    ``None`` when there is none."""
    keyed, _, with_context = _with_context_counts(literals, words, index)
    return with_context / keyed if keyed else None


def with_context_share(
    literals: Sequence[str], words: dict[str, set[str]], index: LineIndex
) -> float | None:
    """Of the values the view holds, the share that stand with their context: among
    ``literals`` that some history sentence states with a content word
    (:func:`literal_recall_with_context`'s) and that stand in some line of the view
    (``index``, as there), the share standing in a line together with a content word
    of a sentence that stated them. A view that keeps values bare (a list of values,
    a clause cut before its value's words) scores low however many it keeps; a view
    that keeps few values, each in its sentence, scores high: read it beside the
    recall. ``None`` when the view holds none of them."""
    _, held, with_context = _with_context_counts(literals, words, index)
    return with_context / held if held else None


# -- noise in the record ------------------------------------------------------------------

_CAPITALISED_WORDS = re.compile(r"[A-Z][A-Za-z'’-]*(?: [A-Z][A-Za-z'’-]*)*")
# A markdown field label up to the value after it: "- **Cabin Class:** ", "2. Payment method: ".
_FIELD_LABEL = re.compile(r"[ \t]{0,8}(?:(?:[-*+]|\d{1,3}[.)])[ \t]+[*_]{0,2}|[*_]{2})[^:\n]{1,80}:[*_]{0,2}[ \t]{1,3}[*_]{0,2}$")
# What continues a sentence after its first word: a lower-case word (after a comma or bracket).
_SENTENCE_GOES_ON = re.compile(r"[*_]{0,2}[,;]?[ \t]{1,3}[(\"“]?[a-z]")


def _keyed_value(text: str, start: int, end: int) -> bool:
    """The word at ``start:end`` is a markdown field's value ("- **Cabin:** Business",
    "- **Passenger:** Mia Li (Date of Birth ..."), not the opening of a sentence after a
    label ("**Note**: Unfortunately, compensation is ...")."""
    line = text.rfind("\n", 0, start) + 1
    if start - line > 120 or not _FIELD_LABEL.match(text, line, start):
        return False
    return _SENTENCE_GOES_ON.match(text, end) is None


def is_bare_number(value: str) -> bool:
    """Digits and punctuation only (no letter): ``4``, ``$21.99``, ``0.5%``, ``2023-05-08``."""
    return any(c.isdigit() for c in value) and not any(c.isalpha() for c in value)


# A message's speaker label, after a leading date line ("[1:10 pm on 27 March, 2023] Audrey: ").
_SPEAKER_OPENING = re.compile(r"\s*(?:\[[^\[\]\n]{1,60}\]\s*)?([A-Z][\w'\-]{0,20}(?: [A-Z][\w'\-]{0,20}){0,2}):[ \t]")
# A note line listing values: "#12 Audrey: ..." (not its frame, a date group's line or "(N more ...)").
_NOTE_ENTRY_LINE = re.compile(r"#\d+ [^\n]*?: ")
_QUOTED = re.compile(r"\"[^\"\n]{2,}[\"…]|“[^”\n]{2,}[”…]|`[^`\n]{2,}`|(?<!\w)'[^'\n]{2,60}'(?!\w)|‘[^’\n]{2,60}’")  # a quoted string (its quote cut at …)
# A session's date line opening an entry, with what follows it ("[1:10 pm on 27 March, 2023] Audrey"):
# a bracket holding a time of day or a month's name, then more text. (Any other bracket is part of
# the value: "[GCC 7.3.0]", "['numerical_column'])", an array's row.)
# An error's or a warning's name ("ImportError", "DeprecationWarning"): the issue counts an error
# message of code and tool output as a value, though it opens its line wherever it stands.
_ERROR_NAME = re.compile(r"\b[A-Z]\w*(?:Error|Exception|Warning)\b")
_LEADING_BRACKET = re.compile(r"\s*\[(?=[^\[\]\n]{0,60}?(?:\d:\d\d|\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\b))"
                              r"[^\[\]\n]{1,60}\](?=\s*\S)")


def note_entries(note_text: str) -> list[str]:
    """The entries of a record note: each ``; ``-separated item of each ``#N label:``
    line, without the label (a line lists one message's values)."""
    out = []
    for line in note_text.splitlines():
        hit = _NOTE_ENTRY_LINE.match(line)
        if hit:
            out.extend(part for part in _ENTRY_SPLIT.split(line[hit.end():]) if part.strip())
    return out


def states_value(entry: str, noise: "RecordNoise") -> bool:
    """Whether a record entry states a value a reader could use: a number, a quoted string
    (in double or single quotes or backticks), an error's name (``ImportError``), or a grader literal of the history (an id, date, amount, name, quoted string, a code identifier)
    standing in it, that is not a sentence opener (``Woohoo``, ``Bye``), not a speaker's
    name (``Audrey``), and not the date of a session's date line the entry opens with
    (``[1:10 pm on 27 March, 2023] Audrey``: a date line listed for a name after it)."""
    bracket = _LEADING_BRACKET.match(entry)
    rest = entry[bracket.end():] if bracket else entry
    if any(c.isdigit() for c in rest) or _QUOTED.search(rest) or _ERROR_NAME.search(rest):
        return True
    index = TextIndex(rest)
    found = {x for run in index._runs for x in noise.literals_from(run) if x in index}
    found.update(extract_literals(rest))
    return any(not noise.opener(x) and not noise.speaker(x) for x in found)


def valueless_share(note_text: str | None, noise: "RecordNoise") -> float | None:
    """Share of a note's entries (:func:`note_entries`) that state no value
    (:func:`states_value`); None without entries."""
    entries = note_entries(note_text or "")
    if not entries:
        return None
    return sum(not states_value(e, noise) for e in entries) / len(entries)


class RecordNoise:
    """Classifies record values against one history (cached: a conversation's
    records at several budgets share most values).

    - *opener*: capitalised words only (``Wow``, ``Door Dash``), and everywhere the
      history uses it, it opens a sentence, a line or the text after a colon (the
      grader's :func:`~.grader._opens_sentence` rule): a sentence's first word, not a
      name. A markdown field's value is no opening ("- **Cabin:** Business",
      "- **Passenger:** Mia Li"): after a list or bold label, a word opens a sentence
      only if a lower-case word follows it ("**Note**: Unfortunately, compensation");
    - *system-only*: stands in the history's system messages and in no other message
      (noise when the view keeps the system prompt, which states it anyway);
    - *bare number*: digits and punctuation only (:func:`is_bare_number`).
    """

    def __init__(self, messages: Sequence[dict]) -> None:
        self._raw = RawIndex("\n\n".join(message_text(m) for m in messages))
        system = [m for m in messages if m.get("role") in ("system", "developer")]
        self._system = TextIndex(view_text(system)) if system else None
        self._other = TextIndex(view_text(m for m in messages if m.get("role") not in ("system", "developer")))
        self.system_texts = [message_text(m) for m in system]
        self._openers: dict[str, bool] = {}
        self._messages = messages
        self._by_run: dict[str, list[str]] | None = None
        uses: dict[str, int] = {}
        for m in messages:
            hit = _SPEAKER_OPENING.match(message_text(m))
            if hit:
                uses[hit.group(1)] = uses.get(hit.group(1), 0) + 1
        self.speakers = frozenset(name for name, n in uses.items() if n >= 2)

    def literals_from(self, run: str) -> list[str]:
        """The history's grader literals whose first word run is ``run``."""
        if self._by_run is None:
            self._by_run = {}
            for x in history_literals(self._messages):
                first = _RUN.search(normalize_space(x))
                if first is not None:
                    self._by_run.setdefault(first.group(), []).append(x)
        return self._by_run.get(run, [])

    def speaker(self, value: str) -> bool:
        """``value`` is a speaker label the history opens two messages or more with
        ("Audrey: ...", after a leading date line): who spoke, no value of what was said."""
        return value in self.speakers

    def opener(self, value: str) -> bool:
        known = self._openers.get(value)
        if known is None:
            known = False
            if _CAPITALISED_WORDS.fullmatch(value):
                starts = list(self._raw.positions(value))
                text = self._raw.text
                known = bool(starts) and all(_opens_sentence(text, i) and not _keyed_value(text, i, i + len(value))
                                             for i in starts)
            self._openers[value] = known
        return known

    def system_only(self, value: str) -> bool:
        return self._system is not None and value in self._system and value not in self._other

    def shares(self, record: Sequence[str], system_kept: bool) -> dict[str, float | None]:
        """Shares of ``record``'s entries that are openers, system-only (counted only
        when ``system_kept``: the view keeps every system message verbatim), bare
        numbers; ``None`` each for an empty record."""
        if not record:
            return {"record_openers": None, "record_system_only": None, "record_bare_numbers": None}
        n = len(record)
        return {
            "record_openers": sum(self.opener(v) for v in record) / n,
            "record_system_only": sum(self.system_only(v) for v in record) / n if system_kept else 0.0,
            "record_bare_numbers": sum(is_bare_number(v) for v in record) / n,
        }

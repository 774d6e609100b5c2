"""The record: what a view left out, as entries with their keys.

The note the model reads lists, for each message that lost values, who said it (the
speaker or role; for tool output, the tool and its call) and the values with their
keys: the field's key (``Total: $21.99``), the JSON key (``user_id: mia_li_3668``), the
table's column header, for prose the nearest content word of the sentence that
stated it (``last Saturday``), for a line of code or output the line itself (``1969
fk_name = None``: a sentence's rules cut ``self.verbose_name = self.model._meta.x`` at
its dot into ``self.verbose_name = self``). Dialogue keeps its session dates as group
lines. Not values, so never listed: capitalised words only ever seen opening a sentence
(``Really``, ``Check``), the words of a Title Case heading, values that only stand in
the system prompt or a prompt's examples, text caught between two string literals of
code, and numbers without a key.

The record's text comes from user and tool messages, so it is presented as quoted data:
every item is a short span (quoted strings are capped), line breaks of every kind are
neutralised, and the note says where each entry came from (see docs/record.md).

Pure functions of a conversation's columns: :mod:`.fit` chooses which items to list,
:func:`render_note` writes them.
"""

from __future__ import annotations

import functools
import importlib
import itertools
import json
import re
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from .actions import answers_action, argv_command, last_command, main_step
from .columns import CODE, UNIT_KINDS, Columns
from .labels import LIST_MARK, date_line
from .language import CJK, CJK_CHAR, detect_language
from .literals import _COMMON_STARTERS, PATTERN_KINDS, Literal
from .messages import SYSTEM_ROLES, Message, ToolCall
from .outline import head_text, is_attribute, list_heads
from .replies import asks, near_place, own_names, question_message, question_places, reply_topic
from .json_units import json_members, unescaped
from .units import Unit

__all__ = ["Entry", "Item", "Record", "date_headers", "is_date_header", "first_statements", "item_for", "message_label",
           "NAMED_NUMBER", "comment_units", "example_units", "harness_units", "line_text", "list_row", "not_values", "render_note", "sanitize", "system_only_literals"]

_FIELD = UNIT_KINDS.index("field")
_TABLE_ROW = UNIT_KINDS.index("table_row")
_CALL = UNIT_KINDS.index("tool_call")
_LINE = UNIT_KINDS.index("line")
_CODE = UNIT_KINDS.index("code")
_HEADING = UNIT_KINDS.index("heading")

# Every line break Unicode knows, and other controls: a value must stay on its line.
_BREAKS = re.compile(r"[\r\n\v\f\x1c-\x1e\x85\u2028\u2029\x00-\x08\x0e-\x1b\x7f]+")
_SPACES = re.compile(r"\s+")
_JSON_KEY_BEFORE = re.compile(r"""["']([A-Za-z_][\w\-.]{0,40})["']\s{0,3}:\s{0,3}["']?$""")
_WORD = re.compile(r"[^\W\d_]{3,}|[\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af]{2,}")  # CJK words are short
_CJK_LINKS = "是在为的了也有就约达到共"  # particles and verbs that join a key to its value
_CJK_CONTEXT = 4  # characters of a run of CJK text before a value that stand for its word
# Keys a CJK value is stated under: the first in the characters kept before it starts its context.
_CJK_KEY = re.compile(r"电话|地址|价格|票价|门票|人均|消费|评分|营业时间|游玩时间|游玩时长|号码|邮箱")
# A short label opening the value's line: "- **Total Price**: $189", "   - Price: $364".
# A list item's or a bold label, not a plain "Melanie: 5 years" (a speaker, or a sentence
# ending in a colon).
_LABEL_BEFORE = re.compile(r"(?<![^\n])[ \t]{0,8}(?:" + LIST_MARK + r"[*_]{0,2}|[*_]{2})"
                           r"([^\W\d_][\w .\-/()#']{0,39}?)[*_]{0,2}[ \t]{0,3}[:：][ \t]{0,3}[*_]{0,2}[ \t]{0,3}$")
# A line of a test runner's progress: "tests/lint/unittest_lint.py ......F.. [ 80%]".
_PROGRESS = re.compile(r"(?:\S+[ \t]+)?[.FEsxX]+[ \t]*\[[ \t]*\d{1,3}%\]")
# A label's second value, after its first and a word that joins them: "- Departure: 10:00 PM
# EST on May 20, 2024" (the date is the departure's too, not "EST on May 20, 2024"), "-
# **Departure:** May 20, 2024, at 06:00 AM EST" (a comma inside the first value or before the word).
_LABEL_THEN = re.compile(_LABEL_BEFORE.pattern[:-1]
                         + r"(?=[^\n]{0,30}?\d)[^\n;]{1,30}?[ \t,](?:on|at|from|until|by)[ \t]+$")
_FIELD_KEY = re.compile(r"[^\W\d][\w .\-/()#]{0,39}")
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
VALUES_LINE = "; values left out, quoted as data:]"
"""How the note's first line ends when it lists values."""
_COMMON_WORDS = _STOP | {w.lower() for w in _COMMON_STARTERS} | {"not", "must", "should", "do", "no", "never"}
QUOTED_WORDS = 8
"""A quoted string longer than this many words is cut (…) in the record."""
MAX_ITEM_CHARS = 80


@dataclass(frozen=True, slots=True)
class Item:
    """One listed value with its key: ``text`` is what the note shows."""

    literal: int
    """Literal id in the conversation's columns (the first of ``covers``)."""
    unit: int
    """The unit the key was read from."""
    message: int
    text: str
    span: tuple[int, int] | None = None
    """Where ``text`` stands in the unit's text, when it is a verbatim span of it (items of
    one unit whose spans touch are shown as one span)."""
    covers: tuple[int, ...] = ()
    """Every literal id the item lists (a session's date line lists its date and time)."""
    header: bool = False
    """A session's date line: shown once above the entries it dates, not as an entry."""
    key: str | None = None
    """The structural key (``key: value`` items): values of one entry under the same key
    are shown as one ``key: v1, v2``."""
    value: str = ""
    """The value as shown after its key (for items with a key)."""
    row: str | None = None
    """When the unit is one record of a list, what heads the record as shown: a JSON
    object's first field (``flight_number: HAT110``), a nested list item's head (``Flight
    HAT136 (JFK to ATL)``, :mod:`.outline`). The record's values are listed together under
    it (``{flight_number: HAT110, price: 105}``), not merged by key with other records'
    (``flight_number: HAT110, HAT206; price: 105, 102`` no longer says whose price is whose)."""
    group: int = -1
    """The unit that heads the record ``row`` names (the JSON object's own unit, a list
    item's head): items of one group are listed together."""


@dataclass(frozen=True, slots=True)
class Entry:
    """The listed values of one message."""

    message: int
    label: str
    """``#12 Melanie``, ``#9 tool get_reservation_details(M05KNL)``."""
    items: tuple[Item, ...]
    header: str | None = None
    """The session date line this message falls under, if the conversation has them."""


@dataclass(frozen=True, slots=True)
class Record:
    """What the note lists, and what it could not."""

    entries: tuple[Entry, ...]
    dropped: tuple[int, ...]
    """Literal ids of values left out of both the view and the note (the note was cut)."""
    unlisted: tuple[int, ...]
    """Literal ids not shown and not values (openers, system-only, code glue, keyless numbers)."""

    @property
    def listed(self) -> tuple[int, ...]:
        """Literal ids the note lists, in its order (a session's date line counts once)."""
        return tuple(dict.fromkeys(c for entry in self.entries for item in entry.items for c in item.covers))


def sanitize(text: str) -> str:
    """One line: every kind of line break and control character becomes a space."""
    return _SPACES.sub(" ", _BREAKS.sub(" ", text)).strip()


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
    glue = cols.derived.setdefault("code_glue", {})
    quoted = cols.kind_code("quoted")
    if quoted >= 0:
        for i in np.flatnonzero(kinds == quoted).tolist():
            hit = glue.get(i)
            if hit is None:
                hit = glue[i] = _code_glue(cols.lit_text[i])
            out[i] = out[i] or bool(hit)
    # Emphasis in capitals ("IMPORTANT", "MUST") and an abbreviation's plural ("IDs",
    # "URLs") where the text also writes the word in lower case: a label or a common noun
    # ("here are the reservation IDs"), not a value; "RPGs" in a chat about games stays.
    identifier = cols.kind_code("identifier")
    caps = cols.derived.setdefault("capitals", {})
    seen = caps.setdefault(-1, 0)  # literals looked at so far (ids grow in order)
    for i in range(seen, n):
        text = cols.lit_text[i]
        if kinds[i] == identifier and len(text) >= 2 and text.isalpha() and text.isupper():
            # Longer than a code ("JFK", "NASA", "USD"): a word in capitals for emphasis or a
            # heading ("IMPORTANT", "CRITICAL REQUIREMENTS", "FAILURE"); a code only ever
            # opening its sentence is a chat's abbreviation ("BTW, I finished").
            # (None: a code, read against ``lit_mid`` at each view: a later message may
            # write it mid-sentence, and the memo must not keep what the first view saw)
            caps[i] = None if CODE.fullmatch(text) else ()
        elif names[kinds[i]] and _PLURAL_ABBREVIATION.fullmatch(text):
            caps[i] = (text[:-1].lower(), text.lower())
    caps[-1] = n
    noise = cols.derived.setdefault("encoded", [0, []])  # literals looked at, the encoded ones and addresses
    for i in range(noise[0], n):
        if _encoded(cols.lit_text[i]) or _ADDRESS.fullmatch(cols.lit_text[i]):
            noise[1].append(i)
    noise[0] = n
    out[noise[1]] = True
    if len(caps) > 1:
        # Written in lower case elsewhere (its own content word is its lower case: "jfk"
        # of "JFK" says nothing about the text writing "jfk").
        lower_words = lowercase_words(cols)
        mid = cols.lit_mid.view
        for i, forms in caps.items():
            if forms is None:
                forms = (cols.lit_text[i].lower(),) if mid[i] else ()
            if i >= 0 and (not forms or any(f in _COMMON_WORDS or lower_words.get(f, 0) >= LOWER_USES
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
    memo = cols.derived.setdefault("short_speaker_names", {"messages": 0, "heads": {}, "literals": 0, "found": []})
    heads: dict[str, str] = memo["heads"]
    grew = False
    for m in range(memo["messages"], len(cols)):
        label = cols.opening_label(m)
        if label and label.isalpha() and len(label) >= 4 and heads.get(label[:3]) != label:
            heads[label[:3]] = label
            grew = True
    memo["messages"] = len(cols)
    if grew:
        memo["literals"], memo["found"] = 0, []
    n = len(cols.lit_text)
    for i in range(memo["literals"], n):
        text = cols.lit_text[i]
        label = heads.get(text[:3]) if len(text) >= 3 and text.isalpha() else None
        if label is not None and text != label and len(text) <= len(label):
            memo["found"].append(i)
    memo["literals"] = n
    return memo["found"]


_PLURAL_ABBREVIATION = re.compile(r"[A-Z]{2,12}s")
_BASE64 = re.compile(r"[+/]?[A-Za-z0-9+/]{20,}={0,2}")
_CLASS_CHANGE = re.compile(r"(?<=[a-z])[A-Z0-9+/]|(?<=[A-Z])[a-z0-9+/]|(?<=[0-9])[A-Za-z+/]|(?<=[+/])[A-Za-z0-9]")
ENCODED_CHANGES = 0.4
"""A run of base64 (``Hi3yYJ0wTsyEheIszx6e/jarM3c…``: a binary file in a ``git diff``, a
key or a certificate) changes between upper case, lower case, digits and ``+/`` at this
share of its characters at least; names and identifiers do far less (``ModelChoiceIteratorValue``
0.17, ``EUCKR_TABLE_SIZE`` none, hexadecimal ids have no upper case)."""


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
    return len(text) >= 20 and _base64(text, ENCODED_CHANGES)


_ADDRESS = re.compile(r"0x[0-9a-f]{9,16}")
"""A memory address (``<Query object at 0x7d9b3d66ef98>``): another in every run, no value
for the model, a mark of the process that printed it (a hexadecimal constant of code,
``0xFFFF``, ``0x7fffffff``, is shorter or in capitals)."""


ENCODED_SCAN = 200
"""How far around a value its line is read for base64 (a diff's lines are 76 characters)."""
ENCODED_LINE_CHARS = 40
"""A line of base64 at least this long, with half the case changes of
:data:`ENCODED_CHANGES`, is encoded data (its pieces, split at ``+`` and ``/``, may read
like words: ``p7JSeKdghDRUNGTETUua``)."""


def _encoded_line(line: str) -> bool:
    """Whether a line of code or output is base64 (a ``git diff`` of a binary file)."""
    return len(line) >= ENCODED_LINE_CHARS and _base64(line, ENCODED_CHANGES / 2)


_LOWER_WORD = re.compile(r"(?<![\w\-.@/])[a-z][a-z'’]+(?![\w\-@/]|\.\w)")  # not in an id, address or path
LOWER_USES = 3
"""How often a word must be written in lower case for its capitals (``ID`` where tool
output writes ``"id"``) to be emphasis or a label, not an identifier."""


def lowercase_words(cols: Columns) -> Counter[str]:
    """The words the conversation writes in lower case, standing alone (``chen`` of
    ``chen_lee_6825`` is not one), read once per message."""
    state = cols.derived.setdefault("lowercase_words", [0, Counter()])
    seen, words = state
    for m in cols.messages[seen:]:
        for tf in m.texts:
            words.update(_LOWER_WORD.findall(tf.text))
    state[0] = len(cols.messages)
    return words


def _code_glue(text: str) -> bool:
    """A "quoted string" that is the code between two string literals: it opens or
    closes on code punctuation, or holds escaped line breaks."""
    inner = text[1:-1].strip()
    return not inner or inner[0] in ")]},;.|&+=" or inner[-1] in "([{,=+&|" or "\\n" in inner or "\\t" in inner


# A prompt's examples (``<example>``, ``<examples>``, ``<format_example>``,
# ``<example_response>``) show a form with placeholders (``your_command_here``,
# ``filename.py``): their values are not the conversation's. (A harness's
# ``<instructions>`` are not examples: the command that submits an agent's work stands
# there, and the agent's last step needs it.)
_EXAMPLE = re.compile(r"<((?:\w+[-_])?examples?(?:[-_]\w+)?)(?:\s[^<>]*)?>.*?</\1\s*>", re.S | re.I)
_HEADING_LINE = re.compile(r"(#{1,6})[ \t]+(.*)")
_FENCE_LINE = re.compile(r"[ \t]{0,3}(```|~~~)")
_EXAMPLE_TITLE = re.compile(r"(?<![\w@./-])examples?(?![\w@/-]|\.\w)", re.I)  # not of user@example.com


def _markdown_examples(text: str) -> list[tuple[int, int]]:
    """The sections of a markdown text under a heading that names examples (``## Useful
    Command Examples``), each up to the next heading of its level or above; a ``#`` line
    inside a code block is a comment, not a heading."""
    spans: list[tuple[int, int]] = []
    open_at: tuple[int, int] | None = None  # (level, start) of the example section being read
    fence = None
    at = 0
    for line in text.splitlines(keepends=True):
        f = _FENCE_LINE.match(line)
        if f:
            fence = None if fence == f.group(1) else fence or f.group(1)
        elif fence is None and line.startswith("#"):
            h = _HEADING_LINE.match(line)
            if h:
                level = len(h.group(1))
                if open_at is not None and level <= open_at[0]:
                    spans.append((open_at[1], at))
                    open_at = None
                if open_at is None and _EXAMPLE_TITLE.search(h.group(2)):
                    open_at = (level, at)
        at += len(line)
    if open_at is not None:
        spans.append((open_at[1], at))
    return spans


def _example_spans(text: str) -> list[tuple[int, int]]:
    """A message text's example sections: tagged (``_EXAMPLE``) and under a heading."""
    spans = [x.span() for x in _EXAMPLE.finditer(text)] if "</" in text else []
    if "#" in text:
        spans += _markdown_examples(text)
    return spans


def example_units(cols: Columns) -> tuple[np.ndarray, Counter[int]]:
    """Per unit, whether it reaches into an example section of its message (see
    ``_EXAMPLE``); and for those units, how often each literal stands outside every
    section (a sentence may run past a section's end). Found once per message (columns
    only grow)."""
    state = cols.derived.setdefault("example_units", [0, [], Counter()])
    seen, found, outside = state
    starts = cols.msg_start.view
    for m in cols.messages[seen:]:
        regions = {tf.field: _example_spans(tf.text) for tf in m.texts if "</" in tf.text or "#" in tf.text}
        if not any(regions.values()):
            continue
        for u in range(int(starts[m.index]), int(starts[m.index + 1])):
            unit = cols.units[u]
            spans = [(a, b) for a, b in regions.get(unit.field, ()) if a < unit.end and unit.start < b]
            if not spans:
                continue
            found.append(u)
            for x in unit.literals:
                at = unit.start + x.start
                if not any(a <= at < b for a, b in spans):
                    outside[cols.lit_ids[x.text]] += 1
    state[0] = len(cols.messages)
    mask = np.zeros(len(cols.u_msg.view), dtype=bool)
    mask[found] = True
    return mask, outside


# A harness's own text inside a user message: the instructions mini-swe-agent and SWE-agent
# wrap around a task, the reminders and environment Claude Code and Codex add to a turn.
# The user did not say it, and it is the same in every run ("command1 && command2",
# "MY_ENV_VAR=MY_VALUE"); the agent still reads it (the command that submits its work
# stands there), so the view ranks it as any text, and only the record passes it by.
_HARNESS = re.compile(r"<((?:\w+[-_])?instructions|system[-_]reminder|environment[-_]context)(?:\s[^<>]*)?>"
                      r".*?</\1\s*>", re.S | re.I)


def harness_units(cols: Columns) -> np.ndarray:
    """Per unit, whether it stands inside a harness's block of a user message or a tool's
    result (Claude Code appends a ``<system-reminder>`` to a file it read; see ``_HARNESS``).
    Found once per message (columns only grow)."""
    return _units_inside(cols, "harness_units", _HARNESS, "</", ("user", "tool"))


# An HTML comment: what an issue or PR template asks of its author ("<!-- A short summary
# of the issue, if appropriate -->"), hidden from every reader of the rendered text.
_COMMENT = re.compile(r"<!--.*?(?:-->|\Z)", re.S)


def comment_units(cols: Columns) -> np.ndarray:
    """Per unit, whether it stands inside an HTML comment of its message (a unit that only
    opens or closes one, ``<!--``, too). Found once per message (columns only grow)."""
    return _units_inside(cols, "comment_units", _COMMENT, "<!--")


def _units_inside(cols: Columns, name: str, regions_of: re.Pattern[str], marker: str,
                  roles: tuple[str, ...] | None = None) -> np.ndarray:
    """Per unit, whether it stands wholly inside a match of ``regions_of`` in its text field
    (a text without ``marker`` has none; with ``roles``, only those roles' messages are read).
    Found once per message, under ``name`` (columns only grow)."""
    state = cols.derived.setdefault(name, [0, []])
    seen, found = state
    starts = cols.msg_start.view
    for m in cols.messages[seen:]:
        if roles is not None and m.role not in roles:
            continue
        regions = {tf.field: [x.span() for x in regions_of.finditer(tf.text)] for tf in m.texts if marker in tf.text}
        if not any(regions.values()):
            continue
        for u in range(int(starts[m.index]), int(starts[m.index + 1])):
            unit = cols.units[u]
            if any(a <= unit.start and unit.end <= b for a, b in regions.get(unit.field, ())):
                found.append(u)
    state[0] = len(cols.messages)
    mask = np.zeros(len(cols.u_msg.view), dtype=bool)
    mask[found] = True
    return mask


def system_messages(cols: Columns) -> np.ndarray:
    """Per message: a system or developer message. Read once per message."""
    memo = cols.derived.setdefault("system_messages", [])
    memo.extend(m.role in SYSTEM_ROLES for m in cols.messages[len(memo):])
    return cols.grown("system_messages", memo, bool)[:len(cols)]


def prompt_units(cols: Columns) -> np.ndarray:
    """Per unit: part of a prompt, a system message's or an example of another message's
    (:func:`example_units`)."""
    return system_messages(cols)[cols.u_msg.view] | example_units(cols)[0]


def talk_counts(cols: Columns) -> np.ndarray:
    """Per literal, how many units outside every prompt (:func:`prompt_units`) state it.
    Read once per size of the columns (they only grow): a view asks twice."""
    key = (len(cols.units), len(cols.lit_text))
    memo = cols.derived.get("talk_counts")
    if memo is None or memo[0] != key:
        memo = cols.derived["talk_counts"] = (key, cols.literal_counts(~prompt_units(cols)))
    return memo[1]


def system_only_literals(cols: Columns) -> np.ndarray:
    """Per literal: stated only in system/developer messages and in the examples of other
    messages (:func:`example_units`)."""
    if not prompt_units(cols).any():
        return np.zeros(len(cols.lit_text), dtype=bool)
    counts = talk_counts(cols)
    outside = example_units(cols)[1]
    if outside:
        counts = counts.copy()
        counts[list(outside)] += list(outside.values())
    return ~(counts > 0)


def message_label(cols: Columns, m: Message) -> str:
    """Who a message is from, as the record names it: made once per message and speaker
    (columns only grow: an edited message starts new ones; a speaker label may start to
    count when a second message opens with it)."""
    labels = cols.derived.setdefault("message_labels", {})
    speaker = cols.speaker(m.index)
    known = labels.get(m.index)
    if known is None or known[0] != speaker:
        known = labels[m.index] = (speaker, _message_label(cols, m, speaker))
    return known[1]


def _message_label(cols: Columns, m: Message, speaker: str | None) -> str:
    if m.role == "tool":
        call = result_call(cols, m)
        if call is not None:
            return f"#{m.index} {_call_label(call.name, call.arguments)}"
        return f"#{m.index} tool"
    command = output_command(cols, m)
    if command is not None:  # a text agent's output: keyed by the command that printed it
        return f"#{m.index} {command_label(command)}"
    name = m.raw.get("name")
    if isinstance(name, str) and name.strip():
        return f"#{m.index} {sanitize(name)[:40]}"
    about = asked_about(cols, m)
    key = "" if about is None else " re " + about
    if speaker:
        return f"#{m.index} {speaker}{key}"
    if m.tool_calls and not any(tf.text.strip() for tf in m.texts):
        return f"#{m.index} {m.role} called " + ", ".join(dict.fromkeys(sanitize(c.name)[:40] for c in m.tool_calls))
    return f"#{m.index} {m.role}{key}"


def result_call(cols: Columns, m: Message) -> ToolCall | None:
    """The call a tool message is the result of, or None (an orphan)."""
    owner = cols.pairs.owner.get(m.index)
    if owner is None:
        return None
    return next((c for c in cols.messages[owner].tool_calls if c.id == m.tool_call_id), None)


def output_command(cols: Columns, m: Message) -> str | None:
    """The command whose output a text agent's user message is (the last command of the
    assistant's shell block just before it), or None."""
    if answers_action(cols.messages, m.index):
        return last_command(cols.messages[m.index - 1])
    return None


def asked_about(cols: Columns, m: Message) -> str | None:
    """The name a reply's question asks about when the reply does not state it: the key of
    the reply's record entry (``#109 assistant re 天安门广场: 电话是010-65666606。``; without it
    the number is the phone of nothing). The question is the message just before, from the
    other side (:func:`.replies.question_message`), in a sentence that asks; a name opening
    its sentence or naming a speaker (``Hey Mel!``) is not what it asks about. Read from
    these two messages only, so the label is the same however the conversation grew."""
    q = question_message(cols, m)
    own = " ".join(tf.text for tf in m.texts)
    if CJK_CHAR.search(own):
        # its values are that place's ("推荐你去钓鱼台国宾馆尝尝吧，这里人均消费1842元"), the place
        # its question asked about too when it names no other ("北京鹏润国际大酒店的电话您记好
        # 010-62165588，价格为685元" to "北京鹏润国际大酒店的电话告诉我一下，他家的价格咋样？"):
        # the entry's text, cut near the value, does not name it
        names = own_names(cols, m.index, None if q is None else q.index, own) or own_names(cols, m.index, None, own)
        if len(names) == 1:
            return sanitize(names[0])[:LABEL_CHARS]
        if names and q is not None and m.role == "assistant":
            # several: an enumeration answering its question ("周边景点有北京动物园、恭王府、…" to
            # "海碗居北京菜(增光路总店)…周边有什么景点吗？") is keyed by the one place the question
            # names, not a dish it asks for; a route between two names neither
            asked = question_places(cols, q.index, m.index)
            return sanitize(asked[0])[:LABEL_CHARS] if len(asked) == 1 else None
    if q is None:
        return None
    speakers = [s for s in (cols.opening_label(q.index), cols.opening_label(m.index)) if s]
    starts = cols.msg_start.view
    for k in range(int(starts[q.index]), int(starts[q.index + 1])):
        u = cols.units[k]
        if u.kind != "sentence" or not asks(u.text, requests=True):
            continue
        for lit in u.literals:
            if lit.kind != "name" or lit.text in own or near_place({lit.text}, u.text):
                continue  # ("在冶仙塔旅游风景区附近另外找一个景点": the place found is another)
            before = u.text[:lit.start]
            for s in speakers:  # "Melanie: Tell me about it.": the label is no part of the sentence
                if before.startswith(s):
                    before = before[len(s):].lstrip(" \t:：")
            if not CJK_CHAR.search(lit.text) and not before.strip(" \t\"'“([*_-"):
                continue  # "Did Tom ...?", "Tell me ...": a capitalised opener ("7天优品酒店…" is none)
            if any(s in lit.text or lit.text in s for s in speakers):
                continue
            return sanitize(lit.text)[:LABEL_CHARS]
    about = reply_topic(cols, m, q)
    return None if about is None else sanitize(about[1])[:LABEL_CHARS]


LABEL_CHARS = 40
"""A command in a record label: at most this many characters (its head and its tail,
where a file name stands: ``sed -n 280,330p …/models/deletion.py``)."""


def command_label(command: str) -> str:
    """``command`` as a record label shows it: one line, at most :data:`LABEL_CHARS`
    characters (the middle cut), in backticks; no ``": "`` or ``"; "`` (which separate a
    label from its values and the values from each other) and no backtick inside."""
    text = sanitize(command)
    text = main_step(text) or text
    text = text.replace("`", "'").replace(": ", ":").replace("; ", ";")
    if len(text) > LABEL_CHARS:
        tail = LABEL_CHARS * 2 // 3
        head = LABEL_CHARS - tail - 1
        text = text[:head].rstrip() + "…" + text[-tail:].lstrip()
    return f"`{text}`"


_NAMING_ARGUMENT = re.compile(r"(?:^|_)(?:id|name|number|code|service|path|file|url|host|ticket)$", re.I)
"""An argument whose key says it names what a call is about (``service``, ``user_id``,
``path``), before a qualifier such as ``region`` that a sorted argument list puts first."""


def _call_label(name: str, arguments: str) -> str:
    """``get_reservation_details(M05KNL)``: the call's name and the value of its argument that
    names what it is about (``get_service_status(payments-gw)`` of ``{"region": "eu-west-1",
    "service": "payments-gw"}``: :data:`_NAMING_ARGUMENT`), else of its first."""
    value = ""
    try:
        parsed = json.loads(arguments) if arguments else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and parsed:
        first = next((v for k, v in parsed.items() if isinstance(k, str) and _NAMING_ARGUMENT.search(k)
                      and isinstance(v, (str, int)) and not isinstance(v, bool)), next(iter(parsed.values())))
        if isinstance(first, list):  # a command's argv (Codex's shell): its command
            first = argv_command(first)
        if isinstance(first, (str, int, float)) and not isinstance(first, bool):
            value = sanitize(str(first))
    elif arguments:
        value = sanitize(arguments)
    if len(value) > 40:
        value = value[:39] + "…"
    return f"{sanitize(name)[:40]}({value})"


def date_headers(cols: Columns) -> list[str | None]:
    """For each message, the session date line it falls under: the latest message at or
    before it that opens with a date line (``[1:56 pm on 8 May, 2023]``)."""
    # (a message's session never changes as the conversation grows: the list is extended,
    # not rebuilt, so a turn of a long history reads only its new messages)
    known: list[str | None] = cols.derived.setdefault("date_headers", [])
    if len(known) < len(cols):
        dates = cols.msg_date
        known.extend(dates[i] if i >= 0 else None for i in cols.msg_session.view[len(known):].tolist())
    return known


def is_date_header(u: Unit) -> bool:
    """A unit that only states a date or time (a session's date line, when it opens its message)."""
    return date_line(u.text, u.literals)


def first_statements(u: Unit) -> dict[str, Literal]:
    """Each literal text of ``u`` -> where ``u`` first states it (one line of a 1 MB JSON
    states tens of thousands: a scan per value would be quadratic)."""
    first: dict[str, Literal] = {}
    for x in u.literals:
        first.setdefault(x.text, x)
    return first


def json_field(cols: Columns, message: int, field: str) -> bool:
    """Whether a message's text field is a JSON document split into members (read once)."""
    known = cols.derived.setdefault("json_fields", {})
    hit = known.get((message, field))
    if hit is None:
        text = next((tf.text for tf in cols.messages[message].texts if tf.field == field), "")
        hit = known[message, field] = json_members(text) is not None
    return hit


def as_read(cols: Columns, u: Unit) -> Unit:
    """``u`` with its text as it reads: a unit of a JSON document (a tool's result) is read
    with its escapes read (``json_units.unescaped``: the same length, so its literals'
    places hold), as its values were found (see ``segment``); a call's text is read so
    already. The record cuts every item from this text."""
    if "\\" in u.text and u.kind != "tool_call" and json_field(cols, u.message, u.field):
        return u._replace(text=unescaped(u.text))
    return u


def item_for(cols: Columns, index: int, u: Unit, literal: int, first: bool = False,
             stated: dict[str, Literal] | None = None) -> Item | None:
    """The record item of literal ``literal`` as unit ``u`` (number ``index``) states
    it: the value with its key (see the module docstring). None for a number without a
    key: a bare number out of its text says nothing. ``first``: the unit opens its
    message (so a unit stating only a date is the session's date line). ``stated``: the
    unit's :func:`first_statements`, for a caller listing many values of one unit."""
    value = cols.lit_text[literal]
    u = as_read(cols, u)
    if first and is_date_header(u):
        covers = tuple(cols.lit_ids[x.text] for x in u.literals)
        return Item(covers[0], index, u.message, sanitize(u.text), (0, len(u.text)), covers, True)
    lit = (stated.get(value) if stated is not None
           else next((x for x in u.literals if x.text == value), None))
    kind = cols.lit_kind_names[int(cols.lit_kind.view[literal])]
    text = _quoted(value) if kind == "quoted" else value
    if lit is None:  # a tool call's name
        return Item(literal, index, u.message, sanitize(text), None, (literal,))
    if kind not in PATTERN_KINDS and (_in_label(u.text, lit.start, lit.end, u.kind in _PROSE_KINDS)
                                      or u.kind == "heading" and title_case(u.text)):
        return None  # "- Additional Cost: $600", "## Important Boundaries": Title Case of a label, no name
    # A line of base64 (a binary file in a diff): its pieces are no values either. (Read
    # within a bounded window: a unit can be one 5 MB line with many values.)
    lo, hi = max(0, lit.start - ENCODED_SCAN), lit.end + ENCODED_SCAN
    line_start = u.text.rfind("\n", lo, lit.start) + 1 or lo
    line_end = u.text.find("\n", lit.end, hi)
    line = u.text[line_start:line_end if line_end >= 0 else hi]
    if len(line) < 2 * ENCODED_SCAN and _encoded_line(line.strip("+-> \t")):
        return None
    if kind == "percent" and _PROGRESS.fullmatch(line.strip()):
        return None  # "tests/test_lint.py ........ [ 80%]": how far a test run had got, no value
    span: tuple[int, int] | None = None
    key = _key(u, lit.start, lit.end)
    if key is not None and key.rsplit(".", 1)[-1].strip("\"'").lower() == value.strip("\"'").lower():
        key = None  # '"can_change": can_change,' in code: a key that names its value says nothing of it
    json_row = row_key(u)
    row, group = (json_row, index) if json_row is not None else list_row(cols, index, u)
    inline = key is not None and u.kind in _PROSE_KINDS and inline_key(u.text, lit.start) == key
    if inline:
        # "{Flight HAT136, Departure: 07:00 PM EST, Arrival: 09:30 PM EST}": which flight's times
        held = line_row(u.text, lit.start)
        if held is not None:
            row, group = sanitize(held), index
    whole = short_item_span(u) if text == value else None  # (a short list item: a prose kind)
    if key is not None and (whole is None or inline):
        outer = key.rsplit(".", 1)[0] if "." in key else ""
        if outer != value and value.lower() in outer.lower():
            return None  # "gift_card_7344518.source: gift_card": its key says it already
        value_shown = sanitize(text)
        return Item(literal, index, u.message, f"{sanitize(key)}: {value_shown}", None, (literal,), False,
                    sanitize(key), value_shown, row, group)
    if key is None and u.kind in _PROSE_KINDS:
        head = line_head(u.text, lit.start)
        if head is not None:
            # "PHX to IAH on 2024-05-19" of "- PHX to IAH on 2024-05-19, Flight Number: HAT152"
            # heads the values its labels key: listed as that row, not as the whole line again
            # beside "{PHX to IAH on 2024-05-19, Flight Number: HAT152}".
            shown = sanitize(head[1])
            return Item(literal, index, u.message, shown, head[0], (literal,), row=shown, group=index)
    if whole is not None:  # "Flight HAT192 from MIA to EWR on 2024-05-24", not "…MIA; EWR on 2024-05-24"
        shown = sanitize(_unbolded(u.text[whole[0]:whole[1]]))
        return Item(literal, index, u.message, shown, whole, (literal,), row=row, group=group)
    if kind == "number":
        if u.kind not in _PROSE_KINDS:
            path = _line_number_file(cols, u, lit.start, lit.end)
            if path is None:
                return None
            return Item(literal, index, u.message, f"{path}: {text}", None, (literal,), False, path, text)
        after = _WORD.match(u.text, lit.end + 1) if u.text[lit.end:lit.end + 1] == " " else None
        if after is None or after.group().lower() in _STOP or after.group().lower() in _own_stop_words(u.text):
            # (five digits or more: an id; "Python 3", "Line 1185", "Cyberpunk 2077" are no ids)
            named = _NAMED_BEFORE.search(u.text, max(0, lit.start - 48), lit.start) \
                if len(value) >= NAMED_DIGITS and value.isdigit() else None
            if named is None or named.group(1).split()[-1].lower() in _COMMON_WORDS \
                    or _LABEL_END.match(u.text, lit.end):
                return None  # (not in a label: "Gift Card 1: $39" keys the amount)
            # "$100 from Certificate 4856383": the number a capitalised noun names (a
            # certificate, a room, a gate), keyed by it
            return Item(literal, index, u.message, sanitize(u.text[named.start(1):lit.end]), (named.start(1), lit.end),
                        (literal,), row=row, group=group)
        span = (lit.start, after.end())
        before = _context_before(u.text, lit.start, lit.end, _own_stop_words(u.text))
        if before is not None:  # "family for 10 years", not "10 years"
            span = (before[0], after.end())
        shown = u.text[span[0]:span[1]]
    elif u.kind in LINE_KINDS and text == value:
        span = code_line(u.text, lit.start, lit.end)
        shown = line_text(u.text, span)
    else:
        own = _own_stop_words(u.text)
        span = _in_context(u.text, lit.start, lit.end, own)
        if u.kind == "sentence" and text == value:
            span = _sentence_head(u.text, span, cols.opening_label(u.message), own)
        shown = u.text[span[0]:span[1]] if text == value else text
    shown = sanitize(shown)
    if len(shown) > MAX_ITEM_CHARS:
        shown = shown[:MAX_ITEM_CHARS - 1] + "…"
        span = None
    return Item(literal, index, u.message, shown, span if text == value else None, (literal,), row=row, group=group)


SHORT_ITEM_CHARS = 64
_ITEM_MARK = re.compile(r"[ \t]*" + LIST_MARK)


def short_item_span(u: Unit) -> tuple[int, int] | None:
    """The span of a list item of at most :data:`SHORT_ITEM_CHARS` without its marker, when
    it states two values or more and opens with no label: one item lists them all ("Flight
    HAT192 from MIA to EWR on 2024-05-24", where two context spans read "Flight HAT192 from
    MIA; EWR on 2024-05-24"), as a line of code does."""
    if u.kind != "list_item" or len(u.literals) < 2 or len(u.text) > 2 * SHORT_ITEM_CHARS:
        return None
    mark = _ITEM_MARK.match(u.text)
    lo, hi = mark.end() if mark else 0, len(u.text.rstrip())
    body = u.text[lo:hi]
    if hi - lo > SHORT_ITEM_CHARS or "\n" in body or body.endswith(":"):
        return None
    bold = _BOLD_HEAD.match(body)
    if bold is not None:
        # A bold item alone heads the items under it ("1. **Flight HAT101 (JFK to SEA)**"); a
        # bold name with a value of its own and more after it is one record of a list, listed
        # whole: "**Reservation 7WPL39**: DEN to EWR, Basic Economy" (its values apart read
        # "Reservation 7WPL39; DEN to EWR", whose route of which reservation?).
        a, b = lo + bold.start(2), len(u.text[:lo + bold.end(2)].rstrip(" \t:："))
        if bold.end() >= len(body) or not any(
                a <= x.start and x.end <= b and x.kind in _NAMING_KINDS and _RECORD_NAME.fullmatch(u.text, a, x.start)
                and _AFTER_ID.fullmatch(u.text, x.end, b) for x in u.literals):
            # A label: "**Cabin Class**: Economy", "**p99 latency:** 378 ms", "**Certificate 1**:
            # $500" (an ordinal); a record's name is its id after a few capitalised words.
            return (lo, hi) if _values_after(u, lo + bold.end(), hi) else None
        return lo, hi
    label = _LABEL_BEFORE.search(u.text, 0, u.text.find(":", lo) + 1)
    if label is not None:
        return (lo, hi) if _values_after(u, label.end(), hi) else None
    return lo, hi


def _values_after(u: Unit, at: int, hi: int) -> bool:
    """Whether a label's value (``at`` to ``hi``) states two values or more and labels none
    of them: "Outbound: Flight HAT069 from JFK to SEA on May 20, 2024" is listed whole, not as
    "Outbound: JFK; Outbound: May 20, 2024; Flight HAT069"."""
    return sum(at <= x.start for x in u.literals) >= 2 and _INLINE_KEY.search(u.text, at, hi) is None


def _unbolded(body: str) -> str:
    """``body`` without the emphasis of the bold head it opens with, as a head is shown
    ("Reservation 7WPL39: DEN to EWR"); nothing else in it changes (``__init__.py``)."""
    bold = _BOLD_HEAD.match(body)
    if bold is None:
        return body
    return body[:bold.start(1)] + bold.group(2) + body[bold.end(2) + len(bold.group(1)):]


_RECORD_NAME = re.compile(r"(?:[A-Z][\w'\-]{0,24} ){0,3}")  # "Reservation ", "Connecting Flight "
_AFTER_ID = re.compile(r"(?: ?\([^()\n]{1,40}\))?")  # "(JFK to SEA)"
_NAMING_KINDS = PATTERN_KINDS - {"number"}  # (a capitalised word is no id: "Cabin Class")
_BOLD_HEAD = re.compile(r"(\*\*|__)([^*_\n]{1,60}?)\1[ \t]{0,3}[:：]?[ \t]{0,3}")


_NAMING_WORDS = r"(?:[A-Z][a-z]{1,20} ){0,2}[A-Z][a-z]{2,20}"  # "Certificate", "Gift Card"
_NAMED_BEFORE = re.compile(r"(?<![\w.\-/])(" + _NAMING_WORDS + r")[ \t]$")
NAMED_NUMBER = re.compile(_NAMING_WORDS + r" \d{1,40}")
"""An item that is a number with the capitalised words naming it (``item_for``)."""
_LABEL_END = re.compile(r"[*_]{0,2}[ \t]{0,2}[:：]")
NAMED_DIGITS = 5
HEAD_WORDS = 5
"""A value this near its sentence's start is listed with the sentence's head: its first
this many words through the value ("Melanie: We went camping last Saturday", not
"Melanie: last Saturday", the date of nothing)."""
_WORD_END = re.compile(r"\S+")
CLAUSE_WORDS = 3
"""A head grows through the end of its clause when that is at most this many words on."""
_CLAUSE_END = frozenset(",;:.!?")
_HANGING = frozenset(
    "a an the and or but nor so yet to of in on at by for with from into as is are was were be been am "
    "do does did have has had it its he she they we you i my your our their his her this that these those "
    "not no if when while because since about than then just also always never very really definitely "
    "probably which who whose whom where can could will would shall should may might must "
    "what it's i'm i've i'll i'd that's there's we're you're they're he's she's we've let's what's".split())
_OPENS_PHRASE = frozenset({"a", "an"})  # an article whose noun a few words may not reach ("a great …")


def _sentence_head(text: str, span: tuple[int, int], speaker: str | None,
                   own: frozenset[str] = frozenset()) -> tuple[int, int]:
    """``span`` of a value's context grown to the head of its sentence ``text`` when the
    value stands among the first :data:`HEAD_WORDS` words (after the speaker's label), and
    the head is short enough for an item; else ``span``. CJK text has no words to count."""
    start = 0
    if speaker and text.startswith(speaker + ":"):
        start = len(speaker) + 1
    while start < span[0] and text[start].isspace():
        start += 1
    if span[0] - start > MAX_ITEM_CHARS or CJK_CHAR.search(text, start, span[1]) \
            or sum(1 for _ in itertools.islice(_WORD_END.finditer(text, start, span[0]), HEAD_WORDS)) >= HEAD_WORDS:
        return span
    words = list(itertools.islice(_WORD_END.finditer(text, start), HEAD_WORDS + CLAUSE_WORDS))
    if not words:
        return span
    last = min(HEAD_WORDS, len(words)) - 1
    # To the end of the value's clause when that comes first ("On your NYC trip", not "On
    # your NYC trip, did"); through its clause when that ends a few words on ("I've never
    # been to Jasper"), else without the function words a cut leaves hanging ("The Hobbit
    # is great", not "… great, but").
    # (Not for a value that opens its sentence: "Last year, I went" keeps its clause after.)
    value_word = next((k for k, w in enumerate(words) if w.end() >= span[1]), last)
    first = last if words[0].start() >= span[0] else next(
        (k for k in range(max(value_word, 2), last) if words[k].group()[-1] in _CLAUSE_END), last)
    for k in range(first, min(last + CLAUSE_WORDS, len(words) - 1) + 1):
        if words[k].group()[-1] in _CLAUSE_END:
            last = k
            break
    else:
        # A function word after words of the clause leads on to what it names, a few words
        # on ("Last August I told you about my dream", not "Last August I told").
        ahead = None
        if last > 0 and words[last].end() > span[1] and _hanging(words[last].group(), own) \
                and words[last - 1].group()[-1] not in _CLAUSE_END:
            for k in range(last + 1, min(last + CLAUSE_WORDS, len(words) - 1) + 1):
                word = words[k].group()
                if "—" in word or "–" in word:
                    break  # a dash ends the clause
                if word.strip("\"'“”‘’(").lower() in _OPENS_PHRASE:
                    break  # a phrase opens whose end is not in sight ("had a great": a great what?)
                if _leads_to(word, own):
                    ahead = k
                    break
        if ahead is not None:
            last = ahead
        while ahead is None and last > 0 and words[last].end() > span[1] and _hanging(words[last].group(), own):
            last -= 1
    end = max(span[1], words[last].end())
    while end > span[1] and text[end - 1] in ",;:-–—":
        end -= 1
    if end - start > MAX_ITEM_CHARS:
        return span
    return start, end


def _hanging(word: str, own: frozenset[str] = frozenset()) -> bool:
    """A word a cut may not end on: a function word (of English, or ``own``: the text's
    language's), or a dash."""
    bare = word.strip(",;:-–—\"'“”‘’()").lower()
    return not bare or bare in _HANGING or bare in own


_FILLERS = frozenset("all just also even still only so too quite pretty much".split())


def _leads_to(word: str, own: frozenset[str]) -> bool:
    """A word a function word may lead a head on to: a content word, no adverb ("My Unity
    strategy game is finally" read worse than "My Unity strategy game")."""
    bare = word.strip(",;:-–—\"'“”‘’()").lower()
    return not _hanging(word, own) and bare not in _FILLERS and not bare.endswith("ly")


@functools.lru_cache(maxsize=4096)
def _own_stop_words(text: str) -> frozenset[str]:
    """The stop words of ``text``'s language when that is a spaced language other than
    English (none else): no value is keyed by, nor a head cut on, a German "vom" or a
    French "les" ("Der Zug fährt um 14:30 Uhr", not "14:30 Uhr vom")."""
    language = detect_language(text)
    return frozenset() if language == "en" or language in CJK else _stop_words(language)


@functools.lru_cache(maxsize=None)
def _stop_words(language: str) -> frozenset[str]:
    # The list alone: importing it builds no pipeline.
    try:
        return frozenset(importlib.import_module(f"spacy.lang.{language}.stop_words").STOP_WORDS)
    except ImportError:  # a language spaCy has no list for ("xx")
        return frozenset()


def list_row(cols: Columns, index: int, u: Unit) -> tuple[str | None, int]:
    """The head of the nested list item or field ``u`` (number ``index``) as a record row,
    and its unit (``(None, -1)`` when it has none): see :mod:`.outline`. Under a heading,
    only attributes (``key: value``) are listed in the heading's braces."""
    heads = list_heads(cols)
    parent = int(heads[index]) if index < len(heads) else -1
    if parent < 0 or cols.u_kind.view[parent] == _HEADING and not is_attribute(u):
        return None, -1
    texts = cols.derived.setdefault("head_texts", {})

    def text_of(k: int) -> str | None:
        text = texts.get(k, _UNSEEN)
        if text is _UNSEEN:
            text = texts[k] = head_text(cols.units[k])
        return text  # type: ignore[return-value]

    text = text_of(parent)
    if text is None:
        return None, -1
    above = int(heads[parent])
    if above >= 0 and text_of(above) is not None:
        # "First Leg: JFK to ATL" heads the legs of both options of a search: the row is
        # named by the option it falls under too ("Flight HAT136 & HAT039 › First Leg: …"),
        # as "Cabin Prices" is by its section ("Return Flight (SEA to JFK) › Cabin Prices").
        start, end = (int(x) for x in cols.msg_start.view[cols.u_msg.view[parent]:cols.u_msg.view[parent] + 2])
        if any(k != parent and int(heads[k]) >= 0 and text_of(k) == text for k in set(heads[start:end].tolist())
               if k >= 0):
            text = f"{text_of(above)} › {text}"
    return sanitize(text), parent


_UNSEEN = object()


_FIRST_MEMBER = re.compile(r"""\{\s*"([A-Za-z_][\w\-.]{0,40})"\s*:\s*"""
                           r"""(?:"((?:[^"\\\n]|\\.){1,60})"|(-?\d[\d.eE+\-]{0,20}|true|false))\s*[,}]""")


ONE_ELEMENT_CHARS = 20_000
"""A whole document up to this long is read as JSON to see whether it is a list of one object."""


def row_key(u: Unit) -> str | None:
    """``key: value`` of the first member of a unit that is a JSON object standing alone (an
    element of a list: a search result's flight, ``flight_number: HAT110``; or the one object
    of a whole document's list) whose first member is a scalar, else None."""
    at = 0
    if not (u.depth or u.start):
        # A whole document is keyed by its call, but a search that found one flight is a list
        # of one object: "search_direct_flight(MCO): scheduled_departure_time_est: 03:00:00"
        # said which search, not which flight.
        at = _one_object(u.text)
        if at < 0:
            return None
    elif not u.text.startswith("{"):
        return None  # (a member "address": {...} is keyed by its fields)
    m = _FIRST_MEMBER.match(u.text, at)
    if m is None:
        return None
    value = m.group(2) if m.group(2) is not None else m.group(3)
    return sanitize(f"{m.group(1)}: {_quoted(value) if ' ' in value else value}")


@functools.lru_cache(maxsize=256)
def _one_object(text: str) -> int:
    """Where the object of ``text`` starts if it is a JSON list of one object, else -1 (read
    once per document: ``row_key`` asks for each value it states)."""
    if len(text) > ONE_ELEMENT_CHARS or not text.startswith("["):
        return -1
    try:
        doc = json.loads(text)
    except ValueError:
        return -1
    if not (isinstance(doc, list) and len(doc) == 1 and isinstance(doc[0], dict)):
        return -1
    return text.index("{")


LINE_KINDS = frozenset({"code", "line"})
_WORD_CHAR = re.compile(r"[\w-]")  # (a hyphen joins a name: "payments-gw" is not cut to "…-gw")
LINE_CHARS = 40
"""A code or output line longer than this is shown as this many characters around the value."""
LINE_SCAN = 400


def _line_start(text: str, at: int) -> tuple[int, bool]:
    """Where the line holding ``at`` starts, looked for within :data:`LINE_SCAN` characters
    (a value of a 1 MB line must not cost a scan of it), and whether that is the line's start."""
    cut = max(0, at - LINE_SCAN)
    lo = text.rfind("\n", cut, at) + 1
    return (lo, True) if lo or not cut else (cut, False)


def line_text(text: str, span: tuple[int, int]) -> str:
    """A :func:`code_line` span as the note shows it: ``…`` where it cuts its line, after
    the line's number when a listing numbered it (``1962 … self.db_table = self.model…``)."""
    lo, whole = _line_start(text, span[0])
    hi = text.find("\n", span[1], span[1] + LINE_SCAN)
    shown = text[span[0]:span[1]]
    before = text[lo:span[0]]
    if before.strip() and not _BANNER.fullmatch(before):
        number = _LINE_NUMBER.match(before) if whole else None
        shown = (number.group(1) + " " if number else "") + ("…" if not number or before[number.end():].strip()
                                                           else "") + shown
    after = text[span[1]:span[1] + LINE_SCAN if hi < 0 else hi]
    if after.strip() and not _BANNER.fullmatch(after):
        shown += "…"
    return sanitize(shown)


_BANNER = re.compile(r"[ \t]*[=*#~_+-]{4,}[ \t]*")  # (one run: linear however long the line)
_BANNER_CHARS = frozenset("=*#~_+-")


def _banner_before(text: str, end: int, hi: int) -> int | None:
    """Where a banner that ends ``text[end:hi]`` starts (None: no banner), read back from
    ``hi`` (a pattern anchored at the end was quadratic on a long line of dashes)."""
    j = hi
    while j > end and text[j - 1] in " \t":
        j -= 1
    k = j
    while k > end and text[k - 1] in _BANNER_CHARS:
        k -= 1
    if j - k < 4:
        return None
    while k > end and text[k - 1] in " \t":
        k -= 1
    return k


def code_line(text: str, start: int, end: int) -> tuple[int, int]:
    """The span of the line holding ``start:end`` without its indent, or a window of about
    :data:`LINE_CHARS` around the value that starts and ends between words. A line of code
    is its own context: the words around a value are code, and a sentence's boundaries
    (the dot of ``self.model._meta``) cut it into something it does not say."""
    lo, whole = _line_start(text, start)
    hi = text.find("\n", end, end + LINE_SCAN)
    hi = min(len(text), end + LINE_SCAN) if hi < 0 else hi
    while lo < start and text[lo] in " \t":
        lo += 1
    while hi > end and text[hi - 1] in " \t\r":
        hi -= 1
    # A banner around a line ("===== 12 passed in 0.15s =====") is no part of what it says.
    head, tail = _BANNER.match(text, lo, start), _banner_before(text, end, hi)
    if head is not None and tail is not None:
        lo, hi = head.end(), tail
    if hi - lo <= LINE_CHARS or (hi - lo <= 4 * LINE_CHARS and len(sanitize(text[lo:hi])) <= LINE_CHARS):
        return lo, hi  # (an indent inside counts once)
    number = _LINE_NUMBER.match(text, lo, start) if whole else None
    if number is not None:  # the window is of the code, after its number (shown by line_text)
        lo = number.end()
        while lo < start and text[lo] in " \t":
            lo += 1
    room = max(LINE_CHARS - (end - start), 0)
    a = max(lo, start - room // 3)
    b = min(hi, end + room - (start - a))
    a = max(lo, min(a, b - LINE_CHARS))
    # Start and end between words, not inside one ("…= Permission.objects.get(…", not
    # "…= Permission.objects.get(content_t…").
    while lo < a < start and _WORD_CHAR.match(text, a - 1) and _WORD_CHAR.match(text, a):
        a += 1
    while end < b < hi and _WORD_CHAR.match(text, b - 1) and _WORD_CHAR.match(text, b):
        b -= 1
    return a, b


_LINE_NUMBER = re.compile(r"[ \t]*(\d{1,7})(?:[ \t]*[:|\t→-]|[ \t]{2})")  # (→: Claude Code's Read, `cat -n` style)
_GREP_LINE = re.compile(r"((?:[\w.\-]+/)*[\w.\-]+\.\w{1,10}):(\d{1,7})[:\-]")


def _line_number_file(cols: Columns, u: Unit, start: int, end: int) -> str | None:
    """The file whose line the number at ``start:end`` numbers, if it is a line number:
    ``path:1312:`` (grep), or a number opening a line of a listing (``nl``, ``cat -n``,
    a traceback) of the file the tool call or command names."""
    grep = _GREP_LINE.match(u.text)
    if grep is not None and grep.start(2) == start and grep.end(2) == end:
        return grep.group(1)
    line = _LINE_NUMBER.match(u.text)
    if line is None or line.start(1) != start or line.end(1) != end:
        return None
    return source_path(cols, u.message)


def source_path(cols: Columns, message: int) -> str | None:
    """The first path named by what produced a tool output: the call a tool result
    answers, or the assistant message before a text agent's observation."""
    memo = cols.derived.setdefault("source_path", {})
    if message in memo:
        return memo[message]
    src = cols.pairs.owner.get(message)
    if src is None and message > 0 and cols.messages[message - 1].role == "assistant":
        src = message - 1
    path = None
    if src is not None:
        lptr, lidx = cols.lit_ptr.view, cols.lit_idx.view
        s, e = int(cols.msg_start.view[src]), int(cols.msg_start.view[src + 1])
        code = cols.kind_code("path")
        for lit in lidx[lptr[s]:lptr[e]].tolist():
            if cols.lit_kind.view[lit] == code:
                path = cols.lit_text[lit]
                break
    memo[message] = path
    return path


# A label opening a line: a list item's, a heading's or a bold one, up to its colon.
_LABEL_LINE = re.compile(r"[ \t]{0,8}(?:" + LIST_MARK + r"|#{1,6}[ \t]{1,3}|(?=[*_]{2}))[^:\n]{1,80}?:")


def title_case(text: str) -> bool:
    """Every word capitalised: a section's title (``Important Boundaries``), not a
    sentence naming something (``Trip to Paris``)."""
    words = _WORD.findall(text)
    return bool(words) and all(w[0].isupper() for w in words)


def _in_label(text: str, start: int, end: int, inline: bool = True) -> bool:
    """The span ``start:end`` stands in a label that opens its line, before the colon, or
    in a label inside it (``…, Departure: 07:00 PM EST``, ``(Date of Birth: …)``: see
    ``_INLINE_KEY``), or is Title Case words naming the code after them ("changed to
    Flight Number HAT266")."""
    line = text.rfind("\n", 0, start) + 1
    label = _LABEL_LINE.match(text, line)
    if label is not None and end < label.end():
        return True
    if inline and text[end:end + 1] in ":*_ " and any(k.start(1) <= start and end <= k.end(1) for k in _INLINE_KEY.finditer(
            text, max(line, start - INLINE_KEY_CHARS), min(len(text), end + 4))):
        return True
    return _TITLE_WORDS.fullmatch(text, start, end) is not None and _CODE_AFTER.match(text, end) is not None


# A label inside a line, after a comma, a semicolon or an opening bracket: "- **Flight
# HAT136:** JFK to ATL, Departure: 07:00 PM EST, Arrival: 09:30 PM EST", "Mia Li (Date of
# Birth: …)". Capitalised, a few words. (Not at a line's start: "Melanie: 5 years" is a
# speaker; a list item's label is ``_LABEL_BEFORE``'s.)
_INLINE_KEY = re.compile(r"(?<=[,;(])[ \t]{0,3}[*_]{0,2}([A-Z][\w'\-]{0,24}(?: [\w'\-]{1,24}){0,3}?)[*_]{0,2}[ \t]{0,2}:"
                         r"(?=[ \t])")
INLINE_KEY_CHARS = 60
_TITLE_WORDS = re.compile(r"[A-Z][a-z]+(?: [A-Z][a-z]+)+")
_CODE_AFTER = re.compile(r"[ \t]+(?=[A-Z0-9-]*\d)(?=[A-Z0-9-]*[A-Z])[A-Z0-9-]{3,}\b")


def _quoted(value: str) -> str:
    words = value.split()
    if len(words) <= QUOTED_WORDS:
        return value
    return " ".join(words[:QUOTED_WORDS]) + "…" + value[-1]


def _key(u: Unit, start: int, end: int) -> str | None:
    """The structural key of the value at ``start:end`` of unit ``u``: a field's key, a
    JSON key right before it, or a table column's header (not known here: None)."""
    text = u.text
    match = _JSON_KEY_BEFORE.search(text, max(0, start - 60), start)
    if match:
        holder = _enclosing_key(text, match.start())
        # "saved_passengers.first_name: Lei", not "first_name: Lei" beside the user's own
        # name; "certificate_7473723.amount: 150", not an amount of no payment method; a
        # field of one object of an array keyed by its place ("passengers[1].first_name").
        key = match.group(1)
        if holder is None or key.startswith(holder[0]):
            return key
        outer, element, opened = holder
        if element is None and outer == text[start:end].strip("\"'"):
            # "payment_methods: certificate_7473723", not "certificate_7473723.id:
            # certificate_7473723": the id of an object named by it is listed under what holds it
            above = _enclosing_key(text, opened)
            if above is not None and above[1] is None:
                return above[0]
        if element is None:
            return f"{outer}.{key}"
        # An object of an array is named by its first field ("flights: {flight_number:
        # HAT271, price: 105}", not "{price: 105}": which flight's price?).
        head = _element_head(text, opened, start)
        if head is None or head[0] == key:
            return f"{outer}[{element}].{key}"
        return f"{outer}[{element}; {sanitize(head[0])}: {head[1]}].{key}"
    # "- **Total Price**: $189", "   - Certificate 1: $500", "- Departure: 10:00 PM EST on May 20"
    label = _LABEL_BEFORE.search(text, max(0, start - 60), start) or _LABEL_THEN.search(text, max(0, start - 90), start)
    if label is not None:
        return label.group(1).strip()
    inline = inline_key(text, start) if u.kind in _PROSE_KINDS else None  # (not "(AND: GreaterThan(…" of a log)
    if inline is not None:  # "…, Departure: 07:00 PM EST"
        return inline
    if u.kind == "field":
        colon = text.find(":")
        if 0 < colon < start:
            key = text[:colon].strip(" \t-*#\"'`")
            if _FIELD_KEY.fullmatch(key):
                return key
    return None


def inline_key(text: str, start: int) -> str | None:
    """The label inside a line that the value at ``start`` follows (see ``_INLINE_KEY``)."""
    line = text.rfind("\n", 0, start) + 1
    for k in _INLINE_KEY.finditer(text, max(line, start - INLINE_KEY_CHARS), start):
        if text[k.end():start].strip(" \t*_") == "":
            return k.group(1).strip()
    return None


def line_row(text: str, start: int) -> str | None:
    """What a line's inline labels are the fields of: the line before its first one, without
    its list mark, emphasis and closing colon ("Flight HAT136: JFK to ATL" of "- **Flight
    HAT136:** JFK to ATL, Departure: …"; "ORD to DEN on 2024-05-14" of "1. ORD to DEN on
    2024-05-14, Flight Number: HAT238"); None when that is empty or long."""
    line = text.rfind("\n", 0, start) + 1
    first = _INLINE_KEY.search(text, line, start)
    return None if first is None else _row_text(text[line:first.start()])


def _row_text(lead: str) -> str | None:
    """A line's text before its first inline label as a row's head (see :func:`line_row`)."""
    head = _LINE_MARK.sub("", lead, count=1).replace("**", "").replace("__", "")
    head = " ".join(head.split()).strip(" ,;(").rstrip(":：").strip()
    return head if head and len(head) <= LINE_ROW_CHARS else None


_LINE_MARK = re.compile(r"^[ \t]*(?:" + LIST_MARK + r")?")
LINE_ROW_CHARS = 60


def line_head(text: str, at: int) -> tuple[tuple[int, int], str] | None:
    """The span and text of the line head (see :func:`line_row`) that the value at ``at``
    stands in, before the line's first inline label; None when it stands elsewhere or the
    line has none."""
    # (bounded reads: a unit can be one 5 MB line with many values)
    floor = max(0, at - 2 * LINE_ROW_CHARS)
    line = text.rfind("\n", floor, at) + 1
    if line == 0 and floor > 0:
        return None  # its line starts further back: no head is that long
    reach = at + LINE_ROW_CHARS + INLINE_KEY_CHARS
    end = text.find("\n", at, reach)
    first = _INLINE_KEY.search(text, at, end if end >= 0 else min(len(text), reach))
    if first is None or first.start() - line > 2 * LINE_ROW_CHARS or _INLINE_KEY.search(text, line, at) is not None:
        return None
    lead = text[line:first.start()]
    head = _row_text(lead)
    if head is None:
        return None
    start = line + _LINE_MARK.match(lead).end()  # type: ignore[union-attr]  # (it matches "" at least)
    return (start, line + len(lead.rstrip(" \t,;(*_"))), head


def _element_head(text: str, opened: int, before: int) -> tuple[str, str] | None:
    """The field that names an object of an array: its first whose key says it is a name,
    a number or an id (``flight_number: HAT271``, ``first_name: Chen``, ``payment_id: …``)
    among its first few, else its first; a scalar, short, before ``before``."""
    first = None
    pos = opened + 1
    for _ in range(HEAD_FIELDS):
        m = _JSON_MEMBER.match(text, pos)
        if m is None or m.start(1) >= before or not m.group(2):
            break  # (a member holding an object or array names nothing, and ends the scan)
        field = (m.group(1), m.group(2).strip('"'))
        if _NAMING_KEY.search(field[0]):
            return field
        first = first or field
        pos = m.end()
    return first


HEAD_FIELDS = 6
_NAMING_KEY = re.compile(r"(?:^|_)(?:id|number|name|code)$")
_JSON_MEMBER = re.compile(r'[\s,]{0,20}"([A-Za-z_][\w\-]{0,40})"\s{0,3}:\s{0,3}'
                          r'("[^"\\\]\[;\n]{1,40}"|-?\d{1,15}(?:\.\d{1,6})?|true|false|null|'
                          r'(?=[\[{]))\s{0,3}')
JSON_PATH_CHARS = 2000
"""How far into a unit the key of a JSON value's container is looked for."""
_JSON_START = re.compile(r"\s{0,200}[{\[\"]")
_JSON_TOKEN = re.compile(r'"([^"\\]*(?:\\.[^"\\]*)*)"\s*(:)?|[{}\[\]]')  # (unrolled: see json_units._STRING)


def _enclosing_key(text: str, at: int) -> tuple[str, int | None, int] | None:
    """The key of the JSON object or array that holds the member whose key starts at
    ``at`` in ``text`` (a JSON unit: a document or one of its members), or None at the top
    or when ``text`` is no JSON there; with it, when that key's value is an array of
    objects and the member is a field of one, that object's place in the array (the
    fields of one passenger stand together: ``passengers: {first_name: Chen, dob: …},
    {first_name: Noah, dob: …}``, not ``passengers.first_name: Chen, Noah``); and where
    the innermost container starts."""
    if at > JSON_PATH_CHARS or _JSON_START.match(text) is None:
        return None  # (a JSON unit is short: a long text is read no further than its key)
    # per open container: the key it is the value of, whether it is an array, the
    # elements opened in it so far, and its own place in its parent array
    open_: list[list] = []
    pending: str | None = None
    for m in _JSON_TOKEN.finditer(text, 0, at):
        token = m.group()
        if token in "{[":
            place = None
            if open_ and open_[-1][1]:
                place = open_[-1][2]
                open_[-1][2] += 1
            open_.append([pending, token == "[", 0, place, m.start()])
            pending = None
        elif token in "}]":
            if open_:
                open_.pop()
            pending = None
        elif m.group(2):  # a key
            pending = m.group(1)
        else:
            pending = None
    for depth in range(len(open_) - 1, -1, -1):
        key = open_[depth][0]
        if key is not None:
            element = open_[-1][3] if depth == len(open_) - 2 and open_[depth][1] and not open_[-1][1] else None
            return sanitize(key)[:LABEL_CHARS], element, open_[-1][4]
    return None


_CLOSER = {"(": ")", "[": "]", '"': '"', "'": "'", "`": "`", "“": "”", "‘": "’"}


def _closed(text: str, lo: int, start: int, end: int) -> int:
    """Where a context ``text[lo:end]`` of the value at ``start`` ends: past the closing
    quote or bracket of one opened before the value ("Chicago (ORD)", 'File "setup.py"')."""
    opener = text[start - 1:start] if start > lo else ""
    closer = _CLOSER.get(opener)
    if closer is not None and text[end:end + 1] == closer:
        return end + 1
    if text.count("(", lo, end) > text.count(")", lo, end):
        if text[end:end + 1] == ")":
            return end + 1
        # "files (pyproject.toml, setup.cfg, etc.)", not "files (pyproject.toml": a
        # bracket opened in the context closes in it, when it closes near
        close = text.find(")", end, end + BRACKET_REACH)
        if close >= 0 and "(" not in text[end:close] and not any(c in text[end:close] for c in "\n!?;"):
            return close + 1
    return end


BRACKET_REACH = 40
"""How far after a value a bracket its context opened may close for the context to reach it."""


QUOTE_SCAN = 1000
"""How far back a value's line is read to pair the quotes its context may start inside."""


def _in_context(text: str, start: int, end: int, own: frozenset[str] = frozenset()) -> tuple[int, int]:
    """The span of the value with the nearest content word of its sentence: the word
    before it (and what lies between), else the word after it, within a few words; the
    word after it when that one touches the value and the one before does not, unless only a
    preposition stands between ("LGBT pride", not "time at the LGBT"; "Hawaiian pizza", not
    "thing is Hawaiian"; but "shelter in Stamford", not "Stamford last"). A context that
    starts inside a code span or quote opens it ("`migrate`, or just `migrate --run-syncdb`",
    not "migrate`, or just …"; '"The Name of the Wind" by Patrick Rothfuss', not 'Wind" by
    Patrick Rothfuss'), when it opens within :data:`BRACKET_REACH` characters."""
    lo, hi = _context_span(text, start, end, own)
    # (quotes are paired from the line's start, read at most QUOTE_SCAN back: a unit can be
    # one 5 MB line with many values)
    line = text.rfind("\n", max(0, lo - QUOTE_SCAN), lo) + 1 or max(0, lo - QUOTE_SCAN)
    for opening, closing in (("`", "`"), ('"', '"'), ("“", "”")):
        if opening == closing:
            inside = text.count(opening, line, lo) % 2 and text.count(closing, lo, hi) % 2
        else:
            inside = text.rfind(opening, line, lo) > text.rfind(closing, line, lo) and closing in text[lo:hi]
        if inside:
            at = text.rfind(opening, line, lo)
            if lo - at <= BRACKET_REACH:
                lo = at
            break
    return lo, hi


def _context_span(text: str, start: int, end: int, own: frozenset[str]) -> tuple[int, int]:
    appositive = _APPOSITIVE.match(text, end)
    if appositive is not None:  # "Oscar, my guinea pig", "Bailey, our new puppy"
        words = [w for w in ("more", "noun") if appositive.group(w) and appositive.group(w) not in _STOP]
        if words:
            return start, appositive.end(words[0])
    before, after = _context_before(text, start, end, own), _context_after(text, start, end, own)
    if before is None:
        return after[:2] if after else (start, end)
    if after is not None and after[2] and not before[2] and not _linked(text[before[0]:start]):
        return after[:2]
    if after is not None and after[2] and before[2] and not CJK_CHAR.search(text, before[0], after[1]) \
            and _modified(text, end, after[1]):
        return _inside_bracket(text, before[0], after[1])  # "real Potter places", not "real Potter"
    return _inside_bracket(text, *before[:2])


_OBJECT = re.compile(r"\s+(?:me|you|him|her|us|them|it|the|a|an|my|your|his|our|their|its|to|that)\b", re.I)


def _modified(text: str, end: int, hi: int) -> bool:
    """The lower-case word at ``end:hi`` after a value is the noun the value modifies ("Potter
    places", "vintage guitar"), not a verb it is the subject of ("Rob invited me", "Tim
    asked"): no past tense, no object after it."""
    word = text[end:hi].strip()
    return word[:1].islower() and not word.endswith("ed") and _OBJECT.match(text, hi) is None


_APPOSITIVE = re.compile(r",[ \t]+(?:my|our|his|her|their|your)[ \t]+(?P<noun>[a-z][a-z'’-]{2,24})"
                         r"(?:[ \t]+(?P<more>[a-z][a-z'’-]{2,24}))?(?![\w'’-])")
"""A value's appositive that says what it is: "Oscar, my guinea pig", "Sara, our youngest"."""


def _inside_bracket(text: str, lo: int, hi: int) -> tuple[int, int]:
    """A context that opens a bracket it does not close starts inside it ("see src/a.py",
    not "files (see src/a.py")."""
    if text.count("(", lo, hi) <= text.count(")", lo, hi):
        return lo, hi
    inner = text.rfind("(", lo, hi) + 1
    while inner < hi and text[inner].isspace():
        inner += 1
    return inner, hi


_LINKS = frozenset("to in at from of on with for by near into onto named called".split())


def _linked(span: str) -> bool:
    """A content word, then one preposition, up to the value: "shelter in Stamford"."""
    words = span.split()
    return len(words) == 2 and words[1].lower() in _LINKS


_LETTER = re.compile(r"[^\W\d_]")
_NUMBER_BEFORE = re.compile(r"\d[\d.,]{0,12}(?:[-~～至到]\d[\d.,]{0,12})?$")


def _context_before(text: str, start: int, end: int,
                    own: frozenset[str] = frozenset()) -> tuple[int, int, bool] | None:
    """The span from the nearest content word before the value, and whether that word
    touches it (no other word between); from the word before it when that word names the
    value or is a verb's particle (``_NAMING``, ``_PARTICLES``)."""
    lo = max(0, start - 40)
    before = text[lo:start]
    boundary = max(before.rfind(c) for c in _BOUNDARY)  # stay in the value's sentence, after a label
    if boundary >= 0:
        lo += boundary + 1
        before = text[lo:start]
    words = [m for m in _WORD.finditer(before) if m.group().lower() not in _STOP and m.group().lower() not in own]
    if not words:
        return None
    at = words[-1].start()
    word = words[-1].group()
    touches = CJK_CHAR.match(word[-1]) is not None or not _LETTER.search(before[words[-1].end():])
    if CJK_CHAR.match(word[-1]):
        # No spaces to count: the last few characters, not counting the particles
        # between the key and its value ("人均消费是74元", not "均消费是74元").
        tail = len(word) - len(word.rstrip(_CJK_LINKS))
        if len(word) > _CJK_CONTEXT:
            at = max(words[-1].start(), words[-1].end() - tail - _CJK_CONTEXT)
            # the first key word in those characters starts the context ("一下电话是…": "电话是…")
            key = _CJK_KEY.search(word, at - words[-1].start())
            if key is not None:
                at = words[-1].start() + key.start()
        possessive = text.rfind("的", lo + at, start - tail)
        if possessive >= 0:  # "景点的评分是4分": the key is what follows 的
            at = possessive + 1 - lo
        else:
            # a run opening on a number's unit ("门票100-150元能玩3小时") brings its number:
            # "100-150元能玩3小时", not "元能玩3小时"
            number = _NUMBER_BEFORE.search(before, 0, at)
            if number is not None:
                at = number.start()
    closer = before.find(")", at)
    if closer >= 0 and "(" not in before[at:closer]:
        # "Atlanta (ATL) to Philadelphia", not "ATL) to Philadelphia": a context
        # never opens inside a bracket it closes.
        opening = before.rfind("(", 0, at)
        outer = [m for m in words if m.end() <= opening]
        at = outer[-1].start() if outer else (opening if opening >= 0 else closer + 1)
    if word.lower() in _NAMING or word.lower() in _PARTICLES:
        # "someone named David", "his name is Kyle": a name with what it names, not "named David";
        # "broke down last Fri": a verb's particle with its verb
        previous = [m for m in _ANY_WORD.finditer(before, 0, at)]
        if previous and not before[previous[-1].end():at].strip() and before[previous[-1].start():].count(" ") <= 3:
            at = previous[-1].start()
    if before[at:].count(" ") <= 3 and before[at:].strip():
        return lo + at, _closed(text, lo + at, start, end), touches
    return None


_NAMING = frozenset("named called name nicknamed titled".split())
_PARTICLES = frozenset("down up out off away back over".split())
_ANY_WORD = re.compile(r"[^\W\d_][\w'’-]*")


_NUMBER_WORDS = frozenset("one two three four five six seven eight nine ten eleven twelve twenty thirty forty "
                          "fifty hundred thousand million first second third few several".split())
_NEXT_NOUN = re.compile(r" ([a-z][a-z'’-]{2,24})(?![\w'’-])")


def _context_after(text: str, start: int, end: int,
                   own: frozenset[str] = frozenset()) -> tuple[int, int, bool] | None:
    """The span to the nearest content word after the value, and whether it touches it."""
    after = text[end:end + 40]
    stop = min((i for i in (after.find(c) for c in _BOUNDARY) if i >= 0), default=len(after))
    for m in _WORD.finditer(after[:stop]):
        if m.group().lower() in _STOP or m.group().lower() in own:
            continue
        if after[:m.end()].count(" ") <= 3:
            limit, stop = stop, m.end()
            # The noun a modifier goes with: "Perseid meteor shower", "ER with a severe stomachache".
            noun = _NEXT_NOUN.match(text, end + stop)  # (in the text: the window may cut a word)
            if noun is not None and noun.start() - end < limit and noun.group(1) not in _STOP \
                    and noun.group(1) not in _NUMBER_WORDS:  # "18th birthday", not "… birthday ten (years ago)"
                stop = noun.end() - end
            if after[:stop].count("(") > after[:stop].count(")"):  # "Chicago (ORD)", not "Chicago (ORD"
                stop = after.find(")", stop) + 1
                if not stop:
                    return None
            # A comma between parts them: "RB-2024-118, falls" is no key of the id.
            return start, end + stop, not _LETTER.search(after[:m.start()]) and "," not in after[:m.start()]
        break
    return None


LONE_SESSIONS = "other sessions: "
"""Opens the line of date lines whose sessions lost values none of which is listed (a date
line alone on its line would read as the header of the entries after it)."""


def render_note(tag: str, omitted: int, clipped: int, deduplicated: int, record: Record,
                dropped: int | None = None, recall: int | None = None,
                beyond: tuple[int, int] | None = None, lines_cache: dict[Any, Any] | None = None) -> str:
    """The note: a frame naming what was left out, then one line per entry (a session
    date line before the entries it dates), then what could not be listed. ``recall``:
    the number of messages, when the model can recall them (the frame says how).
    ``beyond``: the first and the end of the messages before the view's horizon (see
    :mod:`.horizon`), named in the frame: nothing of them is shown or listed.
    ``lines_cache``: entry lines by label and items, kept between the notes of one
    conversation (each pass and turn lists mostly the same entries)."""
    hint = "" if recall is None else RECALL_HINT
    # Only the counts that are not zero: on a short agent view every token of the frame
    # is a token of text or of a value less.
    counts = [f"messages #{beyond[0]}-#{beyond[1] - 1} beyond the horizon"] if beyond else []
    counts += [f"{omitted} part{'' if omitted == 1 else 's'} omitted"] \
        if omitted or not (clipped or deduplicated or beyond) else []
    if clipped:
        counts.append(f"{clipped} cut at …")
    if deduplicated:
        counts.append("1 repeat shown where it last occurs" if deduplicated == 1
                      else f"{deduplicated} repeats shown where they last occur")
    lines = [f"[discourse-memory record {tag}: " + ", ".join(counts) + hint
             + (VALUES_LINE if record.entries else "]")]
    header: str | None = None
    lone: list[str] = []  # date lines of sessions none of whose values is listed

    def flush() -> None:
        if lone:
            lines.append(LONE_SESSIONS + "; ".join(lone))
            lone.clear()

    for entry in record.entries:
        line = _entry_line(entry, lines_cache)
        if line is None:
            if entry.header is not None and entry.header != header and entry.header not in lone:
                lone.append(entry.header)
            continue
        flush()
        if entry.header is not None and entry.header != header:
            lines.append(entry.header)
            header = entry.header
        lines.append(line)
    flush()
    dropped = len(record.dropped) if dropped is None else dropped
    if dropped:
        lines.append(f"({dropped} more values dropped to fit)")
    lines.append(f"[end of record {tag}]")
    return "\n".join(lines)


ENTRY_LINES = 50_000
"""Entry lines a ``lines_cache`` holds before it starts over."""


def _entry_line(entry: Entry, cache: dict[Any, Any] | None) -> str | None:
    """An entry's line in the note (None: it lists only date lines)."""
    key = None
    if cache is not None:
        # (the items are held with the line: an id is not reused while its item is cached)
        key = (entry.label, tuple(map(id, entry.items)))
        hit = cache.get(key)
        if hit is not None:
            return hit[1]
    texts = _merged(it for it in entry.items if not it.header)
    line = None
    if texts:
        label = _about_unsaid(entry.label, texts)
        texts = _unkeyed(texts, label)
        # "#7 get_reservation_details(NM1VX1): reservation_id: NM1VX1" said it twice
        told = [t for t in texts if not _in_call_label(t, label)]
        line = f"{label}: " + "; ".join(told) if told else label
    if cache is not None:
        if len(cache) >= ENTRY_LINES:
            cache.clear()
        cache[key] = (entry.items, line)
    return line


def _about_unsaid(label: str, texts: list[str]) -> str:
    """The label without its ``re`` key when a listed value already names it (``#287
    assistant: 大德祥老北京炸酱面大王(兴隆街店)，推荐菜有炒疙瘩``, not the name twice)."""
    head, sep, about = label.partition(" re ")
    return head if sep and any(about in t for t in texts) else label


def _in_call_label(text: str, label: str) -> bool:
    """The value of ``text`` (``key: value``, or a value alone) is the argument its entry's
    label names the call by (``#7 get_reservation_details(NM1VX1)``): listed, it says it
    twice."""
    if not label.endswith(")") or "(" not in label:
        return False
    value = text.partition(": ")[2] or text
    return value == label[label.index("(") + 1:-1]


def _unkeyed(texts: list[str], label: str) -> list[str]:
    """Values without a file key the entry's label already names: ``#17 `nl -ba a/b.py`:
    line 207, 208``, not ``#17 `nl -ba a/b.py`: a/b.py: 207, 208`` (nor a bare ``207``, a
    number of nothing)."""
    if "`" not in label:
        return texts
    out = []
    for text in texts:
        key, sep, rest = text.partition(": ")
        if sep and rest and ("/" in key or "." in key) and key in label:
            text = f"line {rest}" if rest[:1].isdigit() else rest
        out.append(text)
    return out


RECALL_HINT = "; recall #N for a message in full"
"""How the note tells the model about recall: the references are the entry labels and
the ``…#N`` marks that name messages (9 tokens: on a short tau-bench note a range
``(#0-#23)`` made the clause a tenth of the note)."""


_NESTED = re.compile(r"([A-Za-z_][\w\-]{0,40})(?:\[(\d{1,6})(?:; ([^\]]{1,90}))?\])?\.([A-Za-z_][\w\-]{0,40}): (.*)",
                     re.S)


def _nested(texts: list[str]) -> list[str]:
    """Values keyed inside one JSON object as one text under its key
    (``saved_passengers: {first_name: Lei, last_name: Ito}``), where it holds two or more,
    each of one value; the fields of the objects of an array, one pair of braces per
    object, always (``passengers: {first_name: Chen, dob: 1967-12-12}, {first_name:
    Noah}``: a place in the array is no key a reader needs)."""
    groups: dict[str, list[int]] = {}
    for at, text in enumerate(texts):
        m = _NESTED.fullmatch(text)
        if m is not None:
            groups.setdefault(m.group(1), []).append(at)
    for outer, ats in groups.items():
        fields = [(at, m) for at, m in ((at, _NESTED.fullmatch(texts[at])) for at in ats) if m is not None]
        placed = [(at, m) for at, m in fields if m.group(2) is not None]
        plain = [(at, m) for at, m in fields if m.group(2) is None]
        if placed:
            objects: dict[str, list[re.Match[str]]] = {}
            for _, m in placed:
                objects.setdefault(m.group(2), []).append(m)
            braces = []
            for ms in objects.values():
                fields = [f"{m.group(4)}: {m.group(5)}" for m in ms]
                head = next((m.group(3) for m in ms if m.group(3)), None)
                if head is not None and head not in fields:  # the object's first field names it
                    fields.insert(0, head)
                braces.append("{" + ", ".join(fields) + "}")
            texts[placed[0][0]] = f"{outer}: " + ", ".join(braces)
            for at, _ in placed[1:]:
                texts[at] = ""
        # A key of several values stays dotted: "{flight_number: HAT271, HAT197, date: …}"
        # reads as three fields.
        if len(plain) < 2 or any(", " in m.group(5) or " / " in m.group(5) for _, m in plain):
            continue
        texts[plain[0][0]] = f"{outer}: {{" + ", ".join(f"{m.group(4)}: {m.group(5)}" for _, m in plain) + "}"
        for at, _ in plain[1:]:
            texts[at] = ""
    return [t for t in texts if t]


def _merged(items: Iterable[Item]) -> list[str]:
    """Item texts: values under the same key as one ``key: v1, v2``, and without an item
    that another item of the entry already contains."""
    texts: list[str] = []
    by_key: dict[tuple[int, str], int] = {}
    values: dict[int, list[str]] = {}  # text index -> the values of its key
    rows: dict[int, list[int]] = {}  # a record's group -> its texts
    heads: dict[int, str] = {}  # a record's group -> its head
    items = list(items)
    # A record listing only its first field is one more value of that key
    # ("flight_number: HAT132, HAT206"); one listing others lists them under it.
    records = {it.group for it in items if it.row is not None and it.text != it.row}
    for item in items:
        scope = item.group if item.group in records else -1
        if item.key is not None:
            at = by_key.get((scope, item.key))
            if at is not None:
                if item.value not in values[at]:
                    values[at].append(item.value)
                continue
            by_key[scope, item.key] = len(texts)
            values[len(texts)] = [item.value]
        if scope >= 0:
            rows.setdefault(scope, []).append(len(texts))
            heads[scope] = item.row  # type: ignore[assignment]
        texts.append(item.text)
    for at, vs in values.items():
        if len(vs) > 1:  # "Date: May 27, 2024 / May 10, 2024": a comma inside a value
            joiner = " / " if any("," in v for v in vs) else ", "
            texts[at] = texts[at].split(": ", 1)[0] + ": " + joiner.join(vs)
    for group, ats in rows.items():  # a record's values as one text, under its head
        fields = [heads[group]] + [texts[at] for at in ats if texts[at] != heads[group]]
        texts[ats[0]] = "{" + ", ".join(fields) + "}" if len(fields) > 1 else fields[0]
        for at in ats[1:]:
            texts[at] = ""
    texts = _nested([t for t in dict.fromkeys(texts) if t])
    if len(texts) < 2:
        return texts
    # A text another one contains occurs twice in them all (one C scan each, not a
    # comparison with every other item: an entry of a long table lists hundreds).
    joined = "\x00".join(texts)
    return [t for t in texts if joined.count(t) < 2]


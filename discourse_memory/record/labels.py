"""Who a message is from, as the record's entry label names it: the speaker or role, the
tool and its call, the command a text agent's output answers, the name a reply's question
asks about; and the session date lines entries are grouped under.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from ..actions import answers_action, argv_command, last_command, main_step
from ..columns import Columns
from ..json_units import json_value
from ..labels import date_line
from ..lang import marks
from ..language import CJK_CHAR
from ..messages import Message, ToolCall
from ..replies import asks, near_place, own_names, question_message, question_places, reply_topic
from ..units import Unit
from .limits import LIMITS
from .text import sanitize


@dataclass(slots=True)
class LabelsMemo:
    """What this module found of the messages already read (columns only grow)."""

    labels: dict[int, tuple[str | None, str]] = field(default_factory=dict)
    """Message -> its speaker when labelled, and its label."""
    date_headers: list[str | None] = field(default_factory=list)
    """Per message, the session date line it falls under."""


def message_label(cols: Columns, m: Message) -> str:
    """Who a message is from, as the record names it: made once per message and speaker
    (columns only grow: an edited message starts new ones; a speaker label may start to
    count when a second message opens with it)."""
    labels = cols.memo(LabelsMemo).labels
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
    the reply's record entry (``#109 assistant re <the place>: <its phone number>``, in a
    Chinese reply that states the number alone; without it the number is the phone of
    nothing). The question is the message just before, from the
    other side (:func:`.replies.question_message`), in a sentence that asks; a name opening
    its sentence or naming a speaker (``Hey Mel!``) is not what it asks about. Read from
    these two messages only, so the label is the same however the conversation grew."""
    q = question_message(cols, m)
    own = " ".join(tf.text for tf in m.texts)
    if CJK_CHAR.search(own):
        # its values are that place's ("I recommend X; a meal there is 1842 yuan"), the place
        # its question asked about too when it names no other ("X's phone is 010-62165588,
        # its price 685 yuan" to "X's phone, please, and how about its price?"): the
        # entry's text, cut near the value, does not name it
        names = own_names(cols, m.index, None if q is None else q.index, own) or own_names(cols, m.index, None, own)
        if len(names) == 1:
            return sanitize(names[0])[:LIMITS.label_chars]
        if names and q is not None and m.role == "assistant":
            # several: an enumeration answering its question ("the sights around are A, B, ..."
            # to "X ... what sights are around it?") is keyed by the one place the question
            # names, not a dish it asks for; a route between two names neither
            asked = question_places(cols, q.index, m.index)
            return sanitize(asked[0])[:LIMITS.label_chars] if len(asked) == 1 else None
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
                continue  # ("find another sight near X": the place found is another)
            before = u.text[:lit.start]
            for s in speakers:  # "Melanie: Tell me about it.": the label is no part of the sentence
                if before.startswith(s):
                    before = before[len(s):].lstrip(" \t:" + marks.COLON)
            if not CJK_CHAR.search(lit.text) and not before.strip(" \t\"'“([*_-"):
                continue  # "Did Tom ...?", "Tell me ...": a capitalised opener (a CJK name is none)
            if any(s in lit.text or lit.text in s for s in speakers):
                continue
            return sanitize(lit.text)[:LIMITS.label_chars]
    about = reply_topic(cols, m, q)
    return None if about is None else sanitize(about[1])[:LIMITS.label_chars]


def command_label(command: str) -> str:
    """``command`` as a record label shows it: one line, at most ``LIMITS.label_chars``
    characters (the middle cut), in backticks; no ``": "`` or ``"; "`` (which separate a
    label from its values and the values from each other) and no backtick inside."""
    text = sanitize(command)
    text = main_step(text) or text
    text = text.replace("`", "'").replace(": ", ":").replace("; ", ";")
    if len(text) > LIMITS.label_chars:
        tail = LIMITS.label_chars * 2 // 3
        head = LIMITS.label_chars - tail - 1
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
    parsed = json_value(arguments) if arguments else None
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
    known = cols.memo(LabelsMemo).date_headers
    if len(known) < len(cols):
        dates = cols.msg_date
        known.extend(dates[i] if i >= 0 else None for i in cols.msg_session.view[len(known):].tolist())
    return known


def is_date_header(u: Unit) -> bool:
    """A unit that only states a date or time (a session's date line, when it opens its message)."""
    return date_line(u.text, u.literals)

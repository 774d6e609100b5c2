"""Writing the note: the frame naming what was left out, one line per entry under its
session's date line (values of one key merged, a record's fields in braces, nested JSON
keys folded), and what could not be listed.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from .entries import Entry, Item, Record
from .limits import LIMITS

VALUES_LINE = "; values left out, quoted as data:]"
"""How the note's first line ends when it lists values."""

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
    return "\n".join(note_lines(tag, omitted, clipped, deduplicated, record, dropped, recall, beyond, lines_cache))


def note_lines(tag: str, omitted: int, clipped: int, deduplicated: int, record: Record,
               dropped: int | None = None, recall: int | None = None,
               beyond: tuple[int, int] | None = None, lines_cache: dict[Any, Any] | None = None) -> list[str]:
    """:func:`render_note`'s lines (counted line by line: ``tokens.count_lines``)."""
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
    return lines


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
        told = [t for t in texts if not _in_call_label(t, label)] if _names_a_call(label) else texts
        line = f"{label}: " + "; ".join(told) if told else label
    if cache is not None:
        if len(cache) >= LIMITS.entry_lines:
            cache.clear()
        cache[key] = (entry.items, line)
    return line


def _about_unsaid(label: str, texts: list[str]) -> str:
    """The label without its ``re`` key when a listed value already names it (``#287
    assistant: <the restaurant's name>, its dishes are ...``, not the name twice)."""
    head, sep, about = label.partition(" re ")
    return head if sep and any(about in t for t in texts) else label


def _names_a_call(label: str) -> bool:
    """Whether an entry's label names a call by its argument (``#7 get_reservation_details(NM1VX1)``)."""
    return label.endswith(")") and "(" in label


def _in_call_label(text: str, label: str) -> bool:
    """The value of ``text`` (``key: value``, or a value alone) is the argument its entry's
    label names the call by (``#7 get_reservation_details(NM1VX1)``): listed, it says it
    twice."""
    if not _names_a_call(label):
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
        m = _NESTED.fullmatch(text) if "." in text else None  # (its key is dotted: most texts are not)
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

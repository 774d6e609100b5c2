"""Generators of hostile text and messages for the fuzz tests (imported by path)."""

from __future__ import annotations

import json
import random
from typing import Any

ATOMS = [
    "", " ", "  ", "\t", "\n", "\n\n", "\r\n", "\r", "\x00", "\x0b", "\x0c", "\x1b[31m", "\x7f",
    "\ufeff", "\u200b", "\u200c", "\u200d", "\u2060", "\u202e", "\u202d", "\u2066", "\u2067", "\u2069",
    "\u00a0", "\u2028", "\u2029", "\u0301", "\u0300\u0301\u0302",
    "שלום", "مرحبا بالعالم", "עברית 123", "東京", "Ελληνικά", "Ǆemal", "İstanbul", "ß", "ﬁ",
    "🙂", "👍🏽", "👨‍👩‍👧", "🏳️‍🌈", "\U0001f600" * 3, "\ud800", "\udfff", "\udbff\udc00", "\ud83d",
    "```", "````python", "~~~", "   ```", "| a | b |", "|---|---|", "| :-- | --: |", "|", "||", "| x",
    "- ", "* ", "+ ", "1. ", "2) ", "  - ", "    * ", "\t- ", "> ", ">>>", "> > > ", "# ", "## ",
    "######", "####### ", "===", "---", "***", "___", "- - -",
    "key: value", "Owner: Dana", '"quoted": x', "a: b: c", "http://x.y/z", "https://example.org/a?b=c#d",
    "www.example.com/path", "ftp://", "mailto:x@y.z", "user@example.com", "@@", "a@b", ".@.",
    '"', "'", "`", "“", "”", "‘", "’", "«", "»", '"two words"', "'single quoted text'",
    "$", "$1,250.00", "€5", "¥", "100%", "-3.5%", "1e9", "0x1F", "123,456,789", "1,2,3,4", "9" * 30,
    "v1.2.3", "v", "1.2.3.4-rc.1+b7", "2024-05-01", "2024-05-01T10:30:00Z", "31/12/1999", "7 May 2023",
    "May 7, 2023", "10:30 PM", "12pm", "25:99", "OPS-4412", "ABC-", "snake_case_name", "a.b.c.d",
    "getUserDetails()", "CamelCaseName", "x/y/z.py", "/etc/gw/config.yaml", "~/x", "../../..",
    "C:\\Program Files\\x", "\\\\server\\share", "e.g.", "i.e.", "Mr.", "Dana Whitfield", "New York City",
    "The", "True", "None", ".", "!", "?", "...", "…", ";", ",", ":", "(", ")", "[", "]", "{", "}", "<", ">",
    "&amp;", "<script>alert(1)</script>", "{{template}}", "%s%n", "\\", "/", "-", "_", "=", "#", "*",
    "[discourse-memory record 0000beef: earlier turns compacted]", "[end of record 0000beef]",
    "Values from parts not shown: x; y",
    # Unified diffs: headers, hunk headers with any counts, added/removed/context lines.
    "diff --git a/x.py b/x.py", "diff -r a b", "--- a/x.py", "+++ b/x.py", "--- ", "+++ ", "@@ -1,2 +1,3 @@",
    "@@ -0,0 +1 @@", "@@ -1,999999999 +1,999999999 @@", "@@ -1 +1 @@ def f():", "\\ No newline at end of file",
    "+added line", "-removed line", " context line", "+", "-", "index 3b2c1d0..9f8e7a6 100644",
]
RUN_CHARS = ["a", "A", "1", " ", "\t", "-", "_", ".", "/", "\\", ":", ",", "|", "`", "~", "#", "*", ">",
             "'", '"', "@", "$", "%", "(", "[", "\n", "a-", "a.", "1,", "a/", "aB", "- ", "> ", "  ",
             "\u200b", "🙂", "\ud800", "ab ", "1.", "$1", "x@", "v1."]


def hostile_text(rng: random.Random, max_atoms: int = 40) -> str:
    """A string of hostile atoms, random code points and long runs of one atom."""
    roll = rng.random()
    if roll < 0.08:
        return rng.choice(["", " ", "\n", "\t \n\r\n ", "\u200b", "\x00"])
    if roll < 0.2:  # a long run of what a pattern repeats
        return rng.choice(RUN_CHARS) * rng.randint(50, 600) + rng.choice(["", "x", "@", "/a.b", "\n", "1"])
    parts = []
    for _ in range(rng.randint(1, max_atoms)):
        r = rng.random()
        if r < 0.7:
            parts.append(rng.choice(ATOMS))
        elif r < 0.8:
            parts.append("".join(chr(rng.randint(0, 0x2FFF)) for _ in range(rng.randint(1, 8))))
        elif r < 0.85:
            parts.append("".join(chr(rng.randint(0xD800, 0xDFFF)) for _ in range(rng.randint(1, 3))))
        elif r < 0.9:
            parts.append(bytes(rng.getrandbits(8) for _ in range(rng.randint(1, 16))).decode("latin-1"))
        else:
            parts.append(rng.choice(["the", "deploy", "rollback", "Dana", "Paris", "ok", "and"]))
        if rng.random() < 0.3:
            parts.append(rng.choice([" ", "\n", " ", "\n\n", "\t"]))
    return "".join(parts)


def hostile_content(rng: random.Random) -> Any:
    r = rng.random()
    if r < 0.1:
        return None
    if r < 0.75:
        return hostile_text(rng)
    parts: list[Any] = []
    for _ in range(rng.randint(0, 4)):
        k = rng.random()
        if k < 0.5:
            parts.append({"type": "text", "text": hostile_text(rng)})
        elif k < 0.6:
            parts.append(hostile_text(rng))
        elif k < 0.7:
            parts.append({"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA"}})
        elif k < 0.8:
            parts.append({"type": rng.choice(["input_audio", "file", "🙂", "", "text_v2"]), "data": hostile_text(rng)})
        elif k < 0.9:
            parts.append({"type": "text"})  # a text part without text
        else:
            parts.append({"no_type": True, "text": hostile_text(rng)})
    return parts


ROLES = ["user", "assistant", "system", "developer", "tool", "function", "narrator", "USER", "🙂", "x" * 50]


def hostile_conversation(rng: random.Random, max_messages: int = 12) -> list[dict[str, Any]]:
    """Valid-shaped but hostile: odd contents, unknown roles, tool results without calls,
    calls without results, duplicate call ids, unknown keys."""
    msgs: list[dict[str, Any]] = []
    call_ids: list[str] = []
    for _ in range(rng.randint(0, max_messages)):
        r = rng.random()
        if r < 0.15:
            calls = []
            for _ in range(rng.randint(1, 3)):
                cid = rng.choice([f"call_{rng.randint(0, 5)}", hostile_text(rng, 3) or "c", "dup"])
                call_ids.append(cid)
                args: Any = rng.choice([json.dumps({"q": hostile_text(rng, 5)}), hostile_text(rng, 5), "", None,
                                        {"nested": [1, {"a": hostile_text(rng, 3)}]}])
                calls.append({"id": cid, "type": "function",
                              "function": {"name": rng.choice(["lookup", "", "🙂", "x" * 80]), "arguments": args}})
            msgs.append({"role": "assistant", "content": hostile_content(rng), "tool_calls": calls})
        elif r < 0.3:
            tid = rng.choice(call_ids) if call_ids and rng.random() < 0.6 else f"orphan_{rng.randint(0, 9)}"
            m: dict[str, Any] = {"role": "tool", "content": hostile_content(rng)}
            if rng.random() < 0.9:
                m["tool_call_id"] = tid
            msgs.append(m)
        else:
            m = {"role": rng.choice(ROLES), "content": hostile_content(rng)}
            if rng.random() < 0.1:
                m["id"] = rng.randint(0, 10**9)
                m["name"] = hostile_text(rng, 2)
            msgs.append(m)
    if msgs and rng.random() < 0.8:
        msgs.append({"role": "user", "content": hostile_text(rng, 6)})
    return msgs


MALFORMED_MESSAGES: list[Any] = [
    {"role": "user", "content": 5},
    {"role": "user", "content": {"type": "text", "text": "x"}},
    {"role": "user", "content": b"bytes"},
    {"role": "user", "content": [5]},
    {"role": "user", "content": [None]},
    {"role": "user", "content": [["nested"]]},
    {"role": None, "content": "x"},
    {"role": "", "content": "x"},
    {"role": 3, "content": "x"},
    {"content": "no role"},
    {"role": "assistant", "content": None, "tool_calls": "call"},
    {"role": "assistant", "content": None, "tool_calls": {"id": "x"}},
    {"role": "assistant", "content": None, "tool_calls": [5]},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "a"}]},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "function": 5}]},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "a", "function": {"name": 5}}]},
    {"role": "assistant", "content": None,
     "tool_calls": [{"id": "a", "function": {"name": "f", "arguments": {"x": object()}}}]},
    "a string, not a message",
    None,
    42,
    ["role", "user"],
]

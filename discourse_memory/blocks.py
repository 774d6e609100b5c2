"""Line rules that split a text into markdown blocks, with exact character spans.

Hand-written instead of markdown-it-py: compaction parses every message of a
long history, and these rules cost ~1/20 of a CommonMark parse while giving
character offsets directly. The markdown they recognise (anything else is a
paragraph):

========== ===================================================================
heading    ATX (``# Title`` .. ``###### Title``) and setext (a single text line
           underlined by ``===`` or ``---``)
list_item  ``-``, ``*``, ``+`` or ``1.``/``1)`` items at any indent; an item runs
           over its continuation lines (indented past its marker, or lazy lines
           that read as running text) and stops at the next item, a blank line
           followed by unindented text, a lazy line that is not text (code, output)
           or another block; nested items are items of their own
table_row  lines of a pipe table (``| a | b |``, or a header row with pipes
           followed by a ``---|---`` separator); the separator row is not a unit
code       fenced blocks (```````` or ``~~~``, closed by a fence of the same
           character at least as long; an unclosed fence runs to the end)
field      a ``key: value`` line, the key being 1-5 words (optionally quoted) and
           the value a single sentence
rule       a thematic break (``---``, ``***``, ``___``): skipped, not a unit
diff       a unified diff outside a fence (``git diff`` in a tool result, an
           agent's patch): from a ``diff --git``/``diff -`` line, a ``---``/``+++``
           header pair or an ``@@ -a,b +c,d @@`` hunk header, over its file headers
           and hunks (a hunk runs for the lines its header counts, blank context
           lines included); split later into lines, so that ``+ added`` or
           ``- removed`` lines are not read as list items
paragraph  other consecutive non-blank lines; split later into sentences (prose)
           or lines (logs, code without fences, tool output)
========== ===================================================================
"""

from __future__ import annotations

import re
from typing import NamedTuple

from .lang import marks
from .limits import LIMITS

__all__ = ["Block", "is_prose_line", "split_blocks"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_ATX = re.compile(r"^ {0,3}#{1,6}(?:[ \t]|$)")
_SETEXT = re.compile(r"^ {0,3}(?:=+|-+)[ \t]*$")
_RULE = re.compile(r"^ {0,3}(?:(?:-[ \t]*){3,}|(?:\*[ \t]*){3,}|(?:_[ \t]*){3,})$")
_LIST = re.compile(r"^([ \t]*)(?:[-*+]|\d{1,9}[.)])(?:[ \t]+|$)")
# Written so that no two repeats can match the same blanks: linear on any line.
_TABLE_SEP = re.compile(r"^[ \t]*(?:\|[ \t]*)?:?-{2,}:?[ \t]*(?:\|[ \t]*:?-{2,}:?[ \t]*)*(?:\|[ \t]*)?$")
_FIELD = re.compile(
    r"""^[ \t]*["']?[A-Za-z_][\w.\-/()# ]{0,40}?["']?[ \t]*:[ \t]+\S"""
)
_MULTI_SENTENCE = re.compile(r"[.!?][\"')\]]?\s+[A-Z\"'(\[]")
_WORD = re.compile(r"[A-Za-z]{2,}")
# Lines with other letters: words of any script, and each CJK character as a word's worth
# of letters (a Chinese line is one run of characters between its commas).
_WORD_ANY = re.compile(r"[^\W\d_]{2,}")
_END_MARKS = ".!?" + marks.END_MARKS
_CJK_CHAR = re.compile(r"[\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af]")
_HUNK = re.compile(r"@@ -\d{1,9}(?:,(\d{1,9}))? \+\d{1,9}(?:,(\d{1,9}))? @@")
_DIFF_HEADER = (
    "diff ", "index ", "--- ", "+++ ", "new file mode", "deleted file mode", "old mode", "new mode",
    "similarity index", "dissimilarity index", "rename from", "rename to", "copy from", "copy to", "Binary files",
)


class Block(NamedTuple):
    """A block of a text: ``text[start:end]`` is the block, without its final newline.
    (A named tuple: one per block of every message of a long history.)"""

    kind: str
    start: int
    end: int
    depth: int = 0
    """Nesting depth of a list item (0 = top level)."""


def _lines(text: str) -> list[tuple[int, int]]:
    """(start, end) of each line, ``end`` excluding the newline."""
    out = []
    pos = 0
    n = len(text)
    while pos <= n:
        nl = text.find("\n", pos)
        if nl == -1:
            out.append((pos, n))
            break
        end = nl - 1 if nl > pos and text[nl - 1] == "\r" else nl
        out.append((pos, end))
        pos = nl + 1
    return out


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _is_field(line: str) -> bool:
    if not _FIELD.match(line):
        return False
    key, _, value = line.partition(":")
    if len(key.split()) > 5 or "://" in line[: len(key) + 3]:
        return False
    return not _MULTI_SENTENCE.search(value)


_FILE_NAME = re.compile(r"(?=[^._-]*[._-])[\w.@~%-]*[\w@~%-]")  # one token with a dot, dash or underscore


def is_prose_line(line: str) -> bool:
    """Whether a line reads as running text (blank lines do): three or more words, or a
    shorter sentence, mostly letters, not indented as code. Letters are ASCII ones in an
    ASCII line; in another, those of any script, a CJK character counting twice."""
    stripped = line.strip()
    if not stripped:
        return True
    if line[:2] in ("  ", "\t ") or line.startswith("\t"):
        return False
    if not stripped.isascii():
        words = _WORD_ANY.findall(stripped)
        if len(words) < 3 and not (words and stripped[-1] in _END_MARKS):
            return False
        letters = sum(map(len, words)) + len(_CJK_CHAR.findall(stripped))
        return letters >= 0.6 * len(stripped)
    words = _WORD.findall(stripped)
    if len(words) < 3 and not (words and stripped[-1] in ".!?"):
        return False
    if _FILE_NAME.fullmatch(stripped):
        return False  # one name ("dependency_links.txt", "not-zip-safe"): a listing's line, no sentence
    letters = sum(map(len, words))
    return letters >= 0.6 * len(stripped)


def _diff_starts(lines: list[str], i: int) -> bool:
    line = lines[i]
    if line[:1] not in ("d", "-", "@"):  # most lines: no diff header can start here
        return False
    return (line.startswith(("diff --git ", "diff -")) or _HUNK.match(line) is not None
            or line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "))


def _diff_end(lines: list[str], i: int) -> int:
    """Index of the first line after the diff that starts at line ``i``."""
    n = len(lines)
    j = i
    while j < n:
        line = lines[j]
        hunk = _HUNK.match(line)
        if hunk:
            # The header counts the hunk's lines: old (context and removed) and new
            # (context and added); a blank line is context whose space was trimmed.
            old = int(hunk.group(1) or 1)
            new = int(hunk.group(2) or 1)
            j += 1
            while j < n and (old > 0 or new > 0):
                mark = lines[j][:1]
                if mark in (" ", ""):
                    old, new = old - 1, new - 1
                elif mark == "-":
                    old -= 1
                elif mark == "+":
                    new -= 1
                elif mark != "\\":  # "\ No newline at end of file"
                    break  # a cut or edited hunk: it ends here
                j += 1
            while j < n and lines[j].startswith("\\"):
                j += 1
            continue
        if j > i and not line.startswith(_DIFF_HEADER) or j == i and not _diff_starts(lines, j):
            break
        j += 1
    return j


def split_blocks(text: str) -> list[Block]:
    """Split ``text`` into blocks (see the module docstring for the rules)."""
    spans = _lines(text)
    lines = [text[s:e] for s, e in spans]
    n = len(lines)
    blocks: list[Block] = []
    i = 0
    while i < n:
        line = lines[i]
        start, end = spans[i]
        stripped = line.strip()
        if not stripped:
            i += 1
            continue
        if _diff_starts(lines, i):
            j = _diff_end(lines, i)
            while j > i + 1 and not lines[j - 1].strip():
                j -= 1  # trailing blank context lines are blank lines
            blocks.append(Block("diff", start, spans[j - 1][1]))
            i = j
            continue
        fence = _FENCE.match(line)
        if fence:
            mark = fence.group(1)
            j = i + 1
            close = re.compile(r"^ {0,3}" + re.escape(mark[0]) + "{" + str(len(mark)) + r",}[ \t]*$")
            while j < n and not close.match(lines[j]):
                j += 1
            last = min(j, n - 1)
            blocks.append(Block("code", start, spans[last][1]))
            i = last + 1
            continue
        if _ATX.match(line):
            blocks.append(Block("heading", start, end))
            i += 1
            continue
        if _RULE.match(line):
            i += 1
            continue
        lm = _LIST.match(line)
        if lm:
            base = _indent(lm.group(1).replace("\t", "    "))
            j = i + 1
            while j < n:
                nxt = lines[j]
                if not nxt.strip():
                    # A blank line ends the item unless an indented continuation follows.
                    if j + 1 < n and lines[j + 1].strip() and _indent(lines[j + 1]) > base \
                            and not _LIST.match(lines[j + 1]) and not _FENCE.match(lines[j + 1]):
                        j += 1
                        continue
                    break
                if _LIST.match(nxt) or _FENCE.match(nxt) or _ATX.match(nxt) or _RULE.match(nxt) \
                        or "|" in nxt and nxt.lstrip().startswith("|") or _diff_starts(lines, j):
                    break
                # A lazy line (not indented past the marker) continues the item only as
                # wrapped text: code or output after an item in a docstring is not part of it.
                if _indent(nxt.replace("\t", "    ")) <= base and not is_prose_line(nxt.lstrip()):
                    break
                j += 1
            blocks.append(Block("list_item", start, spans[j - 1][1], depth=min(base // 2, LIMITS.list_depth)))
            i = j
            continue
        if stripped.startswith("|") or (
            "|" in line and i + 1 < n and _TABLE_SEP.match(lines[i + 1]) and "-" in lines[i + 1]
        ):
            j = i
            while j < n and lines[j].strip() and ("|" in lines[j]):
                if not _TABLE_SEP.match(lines[j]):
                    blocks.append(Block("table_row", spans[j][0], spans[j][1]))
                j += 1
            i = j
            continue
        # Setext heading: one text line underlined.
        if i + 1 < n and _SETEXT.match(lines[i + 1]) and not _is_field(line):
            blocks.append(Block("heading", start, spans[i + 1][1]))
            i += 2
            continue
        if _is_field(line):
            blocks.append(Block("field", start, end))
            i += 1
            continue
        # Paragraph: up to a blank line or the start of another block.
        j = i + 1
        while j < n:
            nxt = lines[j]
            if not nxt.strip() or _FENCE.match(nxt) or _ATX.match(nxt) or _LIST.match(nxt) \
                    or nxt.lstrip().startswith("|") or _SETEXT.match(nxt) and j == i + 1 \
                    or _diff_starts(lines, j):
                break
            if _RULE.match(nxt):
                break
            j += 1
        if j < n and j == i + 1 and _SETEXT.match(lines[j]):
            blocks.append(Block("heading", start, spans[j][1]))
            i = j + 1
            continue
        blocks.append(Block("paragraph", start, spans[j - 1][1]))
        i = j
    return blocks

"""An HTML page that shows what a compaction kept, clipped, deduplicated and left out.

    >>> result = compact(messages, budget=4000)
    >>> Path("view.html").write_text(result.to_html(messages))   # or render_html(result, messages)

The page is one self-contained file: inline CSS, no JavaScript, no network. It holds

- a header: tokens before and after, the budget, and the number of units per
  decision (also as ``data-*`` attributes of ``<header id="summary">``);
- the original conversation, message by message, each unit a
  ``<span class="u" data-decision="<decision>" id="u-<key>-<occurrence>">``
  (:func:`unit_anchor`), its literals in ``<mark>`` elements (``class="k"``: the view
  shows it, ``"r"``: listed in the record, ``"x"``: in neither). To keep big pages
  small the class is left out where it is the default: ``k`` in kept units, and in
  the others the page's commonest status, named by ``<main data-unmarked-literals>``.
  A decision is shown by a pattern and a glyph as well as a colour (colour-blind
  safe); a unit not kept has a ``title`` with its tokens before and after. A run of
  left-out units longer than ``LIMITS.fold_chars`` characters is folded to its two ends and a
  ``<span class=fold data-units data-chars>`` line between them;
- each message's reference (``#12``, what ``Compaction.recall`` takes) in its header,
  ``<article data-ref="#12">``; the references the view hands out (``Compaction.references``)
  also get ``data-handed-out`` and a "recall #12" tag, and are listed under the record
  (``<p id="references">``, each a link to its message);
- the pages a reference gives, when a recall of it (at ``Compaction.recall``'s default
  ``max_tokens``, what a recall tool gets) gives its message a page at a time: the tag says
  "recall #12 · 5 pages" (``data-pages``), and under the record ``<ul id="pages">`` lists,
  per such reference, each page's reference (``#12``, ``#12@5120``, …) and where it is
  (``lines 1-40 of 1600``), as the model would follow them;
- the record note exactly as the model receives it;
- the compacted messages exactly as sent to the model;
  in tabs (CSS-only radio buttons), or side by side.

Every text from the conversation is escaped with :func:`html.escape`.
"""

from __future__ import annotations

import json
import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass, field
from html import escape
from typing import Any, Iterator, Mapping, Sequence

from .keys import content_key
from .messages import Message, validate_messages
from .limits import LIMITS

__all__ = ["render_html", "unit_anchor", "DECISIONS"]

DECISIONS = ("kept", "clipped", "deduplicated", "omitted")

# Literal marks: in the record, shown in the view, or in neither.
_MARK = {"recorded": "<mark class=r>", "kept": "<mark class=k>", "dropped": "<mark class=x>"}
_MARK_CODE = {"recorded": "r", "kept": "k", "dropped": "x"}
_MARK_TITLE = {
    "recorded": "literal listed in the record",
    "kept": "literal the view still shows",
    "dropped": "literal left out of the view and of the record (the record was cut to fit)",
}
_LEGEND = (
    ("kept", "shown to the model verbatim."),
    ("clipped", "only its opening is shown, ending with “…”; the faded tail after ✂ was cut."),
    ("deduplicated", "the same text appears again later; only the newer copy (↪ link) is shown."),
    ("omitted", "not shown; its literals are listed in the record unless the record was cut."),
)


def unit_anchor(unit_id: str) -> str:
    """The HTML id of a unit's element: ``u-<key>-<occurrence>`` (``#`` is awkward in URLs)."""
    return "u-" + unit_id.replace("#", "-")


def _t(text: str) -> str:
    return escape(text, quote=False)


def _a(text: str) -> str:
    return escape(text, quote=True)


_CSS = """
:root{--kept:#009E73;--clip:#E69F00;--dup:#0072B2;--omit:#D55E00;--fg:#1b1b1b;--mut:#5f6368;--bg:#fff;--line:#d9d9d9}
*{box-sizing:border-box}
body{margin:0;font:14px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
header#summary{background:#f7f7f7;border-bottom:1px solid var(--line);padding:8px 16px}
h1{font-size:16px;margin:0 0 4px}
.nums{display:flex;flex-wrap:wrap;gap:4px 18px;margin:0;padding:0;list-style:none}
.nums b{font-variant-numeric:tabular-nums}
.counts{display:flex;flex-wrap:wrap;gap:6px 10px;margin:6px 0 0;padding:0;list-style:none}
.counts li{padding:1px 8px 1px 4px;border:1px solid var(--line);border-radius:4px;background:#fff}
.msgmap{display:flex;flex-wrap:wrap;gap:1px;margin:6px 0 0;max-height:38px;overflow:auto}
.msgmap a{display:block;width:7px;height:12px;background:#c8e6da;border:1px solid #8fbfac}
.msgmap a.p{background:repeating-linear-gradient(90deg,#c8e6da 0 3px,#f5c48b 3px 6px);border-color:#b98a3c}
.msgmap a.o{background:repeating-linear-gradient(45deg,#f7d2bd 0 2px,#fff 2px 4px);border-color:var(--omit)}
.msgmap a.g{background:#e6e6e6;border-color:#9a9a9a}
.msgmap a.pr{border-bottom:3px solid #333}
.tabsel{position:absolute;opacity:0;pointer-events:none}
nav.tabs{position:sticky;top:0;z-index:3;display:flex;flex-wrap:wrap;gap:4px;align-items:center;padding:6px 16px 0;border-bottom:1px solid var(--line);background:#fafafa}
nav.tabs label{padding:4px 12px;border:1px solid var(--line);border-bottom:0;border-radius:5px 5px 0 0;cursor:pointer;background:#eee}
nav.tabs .opt{margin-left:auto;font-size:13px;color:var(--mut);padding:4px 0}
#tab-orig:checked~nav label[for=tab-orig],#tab-out:checked~nav label[for=tab-out],#tab-rec:checked~nav label[for=tab-rec],#tab-both:checked~nav label[for=tab-both]{background:#fff;font-weight:600;position:relative;top:1px}
.tabsel:focus-visible~nav{outline:2px solid var(--dup)}
main{padding:10px 16px 40px}
.pane{display:none;min-width:0}
#tab-orig:checked~main #pane-orig,#tab-out:checked~main #pane-out,#tab-rec:checked~main #pane-rec{display:block}
#tab-both:checked~main{display:grid;grid-template-columns:1fr 1fr;gap:16px}
#tab-both:checked~main #pane-orig,#tab-both:checked~main #pane-out{display:block}
#hide-kept:checked~main .msg.allkept{display:none}
#full-height:checked~main .mb{max-height:none}
h2{font-size:15px;margin:4px 0 8px}
.msg{border:1px solid var(--line);border-left:4px solid #999;border-radius:4px;margin:0 0 8px;content-visibility:auto;contain-intrinsic-size:auto 120px}
.msg.r-user{border-left-color:#56B4E9}.msg.r-assistant{border-left-color:#CC79A7}.msg.r-system,.msg.r-developer{border-left-color:#333}.msg.r-tool{border-left-color:#999}
.msg.note{border-left-color:#F0E442;border-left-width:8px}
.msg.notin{background:repeating-linear-gradient(45deg,#fff 0 8px,#f6f6f6 8px 16px)}
.mh{display:flex;flex-wrap:wrap;gap:4px 10px;align-items:baseline;padding:3px 8px;background:#f4f4f4;border-bottom:1px solid var(--line);font-size:12px;color:var(--mut)}
.mh .role{color:var(--fg);font-weight:700;text-transform:uppercase;letter-spacing:.03em}
.mh .tag{border:1px solid #999;border-radius:3px;padding:0 4px;color:var(--fg)}
.mh .tag.ref{border-color:var(--dup);color:var(--dup);font-weight:600}
#references a{margin-right:6px}
.mh .mc{margin-left:auto}
.mb{padding:6px 8px;white-space:pre-wrap;overflow-wrap:anywhere;font:12.5px/1.5 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;max-height:36em;overflow:auto}
.fl{display:block;font:11px system-ui,sans-serif;color:var(--mut);margin-top:4px}
.tc{display:block;margin-top:4px}
.other{color:var(--mut);font-style:italic}
.u{border-radius:2px;scroll-margin-top:60px}
.msg{scroll-margin-top:44px}
nav.tabs .opt label{border:0;background:none;padding:0 2px}
nav.tabs .opt label::before{content:"☐ "}
#hide-kept:checked~nav label[for=hide-kept]::before,#full-height:checked~nav label[for=full-height]::before{content:"☑ "}
:is(.u,.sw)[data-decision=clipped]{text-decoration:underline dotted var(--clip) 2px;background:#fdf0d9}
.u[data-decision=clipped] .cut{color:#8c8c8c;text-decoration:line-through #b0b0b0}
.fold{display:block;margin:.4em 0;padding:.2em .5em;border:1px dashed #8c8c8c;color:#555;font-style:italic}
.u[data-decision=clipped] .cut::before{content:"✂";color:#8a5a00;font-weight:700;text-decoration:none;display:inline-block;padding:0 2px}
:is(.u,.sw)[data-decision=deduplicated]{background:repeating-linear-gradient(0deg,#dcebf7 0 2px,#fff 2px 4px);text-decoration:underline double var(--dup);color:#334}
.u>a{font:11px system-ui,sans-serif;color:#fff;background:var(--dup);padding:0 4px;border-radius:3px;text-decoration:none;margin-left:2px;white-space:nowrap}
:is(.u,.sw)[data-decision=omitted]{background:repeating-linear-gradient(45deg,#fbe3d6 0 3px,#fff 3px 6px);text-decoration:line-through var(--omit);color:#6b3a22}
.u[data-decision=omitted]::before{content:"∅";color:var(--omit);font-weight:700;text-decoration:none;display:inline-block;padding-right:1px}
.u:target{outline:3px solid var(--dup);outline-offset:1px;background:#fff7b0}
mark{color:inherit;padding:0 1px;background:#fff3a8;border:1px solid #b59f00;border-radius:2px;text-decoration:inherit}
mark.k{background:transparent;border:0;border-bottom:1px dotted #6f6f6f;border-radius:0;text-decoration:inherit}
mark.x{background:#fff;border:1px dashed var(--omit);border-radius:2px;text-decoration:underline wavy var(--omit)}
main.dr .u mark{background:#fff3a8;border:1px solid #b59f00;border-radius:2px;text-decoration:inherit}
main.dk .u mark{background:transparent;border:0;border-bottom:1px dotted #6f6f6f;border-radius:0;text-decoration:inherit}
main.dx .u mark{background:#fff;border:1px dashed var(--omit);border-radius:2px;text-decoration:underline wavy var(--omit)}
main .u[data-decision=kept] mark{background:transparent;border:0;border-bottom:1px dotted #6f6f6f;border-radius:0;text-decoration:inherit}
main .u mark.r{background:#fff3a8;border:1px solid #b59f00;border-radius:2px;text-decoration:inherit}
main .u mark.k{background:transparent;border:0;border-bottom:1px dotted #6f6f6f;border-radius:0;text-decoration:inherit}
main .u mark.x{background:#fff;border:1px dashed var(--omit);border-radius:2px;text-decoration:underline wavy var(--omit)}
.sw{display:inline-block;min-width:1.6em;padding:0 4px;margin-right:4px;border:1px solid #999;text-align:center;font-weight:700}
.legend{margin:6px 0 0;padding:0;list-style:none;font-size:12px;color:var(--mut);display:flex;flex-wrap:wrap;gap:2px 16px}
.legend mark{font-size:11px}
pre.record{white-space:pre-wrap;overflow-wrap:anywhere;border:1px solid var(--line);border-left:8px solid #F0E442;padding:8px;font:12.5px/1.5 ui-monospace,Menlo,Consolas,monospace;margin:0}
.muted{color:var(--mut)}
.droplist{font:12px ui-monospace,Menlo,Consolas,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
"""

_GLYPH = {"kept": "✓", "clipped": "✂", "deduplicated": "↪", "omitted": "∅"}


def _locate_literals(body: str, groups: Sequence[tuple[str, Sequence[str]]]) -> list[tuple[int, int, str]]:
    """Non-overlapping ``(start, end, status)`` of each listed literal in ``body``.

    The report lists a unit's literals by text, in order; each is found left to
    right from the previous one of its list, skipping places already claimed.
    """
    starts: list[int] = []
    spans: list[tuple[int, int, str]] = []
    for status, texts in groups:
        cursor = 0
        for lit in texts:
            if not lit:
                continue
            p = body.find(lit, cursor)
            while p != -1:
                e = p + len(lit)
                i = bisect_left(starts, p)
                if (i > 0 and spans[i - 1][1] > p) or (i < len(starts) and starts[i] < e):
                    p = body.find(lit, p + 1)
                    continue
                starts.insert(i, p)
                spans.insert(i, (p, e, status))
                cursor = e
                break
    return spans


def _folded(body: str, a: int, b: int, spans: list[tuple[int, int, str]], default: str,
            out: list[str]) -> None:
    """``_marked``, with the middle of a stretch longer than ``LIMITS.fold_chars`` folded (a 5 MB
    line without a break is one unit)."""
    if b - a <= LIMITS.fold_chars:
        _marked(body, a, b, spans, default, out)
        return
    _marked(body, a, a + LIMITS.fold_keep, spans, default, out)
    chars = b - a - 2 * LIMITS.fold_keep
    out.append(f"<span class=fold data-chars={chars}>" + _t(f"⋯ {chars:,} characters folded on this page ⋯")
               + "</span>")
    _marked(body, b - LIMITS.fold_keep, b, spans, default, out)


def _marked(body: str, a: int, b: int, spans: list[tuple[int, int, str]], default: str,
            out: list[str]) -> None:
    """Append ``body[a:b]``, escaped, with the literal spans inside it marked
    (a bare ``<mark>`` for the ``default`` status: pages stay small)."""
    cur = a
    for s, e, status in spans:
        if e <= a or s >= b:
            continue
        s, e = max(s, a), min(e, b)
        if s > cur:
            out.append(_t(body[cur:s]))
        out.append("<mark>" if status == default else _MARK[status])
        out.append(_t(body[s:e]))
        out.append("</mark>")
        cur = e
    if cur < b:
        out.append(_t(body[cur:b]))


def _unit_title(u: Any) -> str:
    return f"{u.tokens_before}→{u.tokens_after} tokens"


def _unit_html(u: Any, body: str | None, ctx: _Ctx, out: list[str]) -> None:
    d = u.decision
    out.append(f"<span class=u data-decision={d} id={unit_anchor(u.id)}")
    if d != "kept":
        out.append(f' title="{_a(_unit_title(u))}"')
    out.append(">")
    if body is None:  # no original text: say where the unit was
        out.append(_t(f"[{u.kind} {u.field} {u.start}–{u.end}, {u.tokens_before} tokens]"))
    else:
        default = "kept" if d == "kept" else ctx.other
        spans = ctx.spans.get(u.id) or []
        cut = getattr(u, "head_end", None) if d == "clipped" else None
        if cut is not None and 0 <= cut < len(body):
            _folded(body, 0, cut, spans, default, out)
            out.append('<span class="cut">')
            _folded(body, cut, len(body), spans, default, out)
            out.append("</span>")
        else:
            _folded(body, 0, len(body), spans, default, out)
    if d == "deduplicated" and u.duplicate_of:
        out.append(f"<a href=#{unit_anchor(u.duplicate_of)}>↪ newer copy</a>")
    out.append("</span>")


@dataclass
class _Ctx:
    spans: dict[str, list[tuple[int, int, str]]] = field(default_factory=dict)
    """Literal spans of each unit, by unit id."""
    other: str = "recorded"
    """The literal status left unmarked (the commonest) in units that are not kept."""


def _bodies(text: str, units: list[Any]) -> Iterator[tuple[Any, int, str]]:
    """``(unit, start, its text)`` in order; a unit overlapping the one before starts after it."""
    cur = 0
    for u in units:
        start = min(max(u.start, cur), len(text))
        yield u, start, text[start:max(start, u.end)]
        cur = max(cur, u.end)


def _context(msgs: list[Message], by_field: Mapping[tuple[int, str], list[Any]]) -> _Ctx:
    ctx = _Ctx()
    tally: Counter[str] = Counter()
    for (i, fld), units in by_field.items():
        text = _field_text(msgs[i], fld)
        for u, _, body in _bodies(text, units):
            spans = _locate_literals(body, (("recorded", u.literals_recorded),
                                            ("dropped", u.literals_dropped),
                                            ("kept", u.literals_kept)))
            ctx.spans[u.id] = spans
            if u.decision != "kept":
                tally.update(status for _, _, status in spans)
    if tally:
        ctx.other = max(tally, key=lambda k: (tally[k], k))
    return ctx


def _field_text(m: Message, fld: str) -> str:
    if fld.startswith("tool_calls."):
        return m.tool_calls[int(fld.split(".")[1])].arguments
    return next(tf.text for tf in m.texts if tf.field == fld)


def _field_html(text: str, units: list[Any], ctx: _Ctx, out: list[str]) -> None:
    cur = 0
    run: list[tuple[Any, int, str]] = []  # left-out units in a row, not yet written

    def write(u: Any, start: int, body: str) -> None:
        nonlocal cur
        if start > cur:
            out.append(_t(text[cur:start]))
        _unit_html(u, body, ctx, out)
        cur = start + len(body)

    def flush() -> None:
        nonlocal cur
        if run and run[-1][1] + len(run[-1][2]) - run[0][1] > LIMITS.fold_chars:
            head = tail = 0
            while head < len(run) - 1 and run[head][1] - run[0][1] < LIMITS.fold_keep:
                head += 1
            while tail < len(run) - head - 1 and run[-1][1] + len(run[-1][2]) - run[-1 - tail][1] < LIMITS.fold_keep:
                tail += 1
            tail = max(tail, 1)
            folded = run[head:len(run) - tail]
            for item in run[:head]:
                write(*item)
            if folded:
                chars = folded[-1][1] + len(folded[-1][2]) - folded[0][1]
                tokens = sum(u.tokens_before for u, _, _ in folded)
                out.append(f"<span class=fold data-units={len(folded)} data-chars={chars}>"
                           + _t(f"⋯ {len(folded):,} more units left out of the view ({chars:,} characters, "
                                f"{tokens:,} tokens) are folded on this page ⋯") + "</span>")
                cur = folded[-1][1] + len(folded[-1][2])
            for item in run[len(run) - tail:]:
                write(*item)
        else:
            for item in run:
                write(*item)
        run.clear()

    for u, start, body in _bodies(text, units):
        if u.decision in ("omitted", "deduplicated"):
            run.append((u, start, body))
            continue
        flush()
        write(u, start, body)
    flush()
    if cur < len(text):
        out.append(_t(text[cur:]))


def _check(msgs: list[Message], by_field: Mapping[tuple[int, str], list[Any]]) -> None:
    """Raise if ``msgs`` are not the messages this compaction was made from."""
    for (i, where), units in by_field.items():
        if i >= len(msgs):
            raise ValueError(f"original_messages do not match this compaction: it has units in message {i}, "
                             f"but only {len(msgs)} messages were given")
        m = msgs[i]
        if where.startswith("tool_calls."):
            c = int(where.split(".")[1])
            if c >= len(m.tool_calls):
                raise ValueError(f"original_messages do not match this compaction: message {i} has no {where}")
            call = m.tool_calls[c]
            expected = content_key(f"{call.name}\x00{call.arguments}")
            if units[0].id.split("#")[0] != expected:
                raise ValueError(f"original_messages do not match this compaction: message {i} {where} differs")
            continue
        text = next((tf.text for tf in m.texts if tf.field == where), None)
        if text is None:
            raise ValueError(f"original_messages do not match this compaction: message {i} has no text {where}")
        for u in units:
            if u.end > len(text) or content_key(text[u.start:u.end]) != u.id.split("#")[0]:
                raise ValueError(f"original_messages do not match this compaction: message {i} {where} "
                                 f"[{u.start}:{u.end}] is not the text of unit {u.id}")


def _message_counts(units: list[Any]) -> Counter[str]:
    return Counter(u.decision for u in units)


def _counts_text(c: Counter[str]) -> str:
    return " · ".join(f"{c[d]} {d}" for d in DECISIONS if c[d])


_WHERE = re.compile(r"\[([^\]]*)\]:$")  # a page's header line ends with where the page is


def _pages(compaction: Any) -> dict[str, list[tuple[str, str]]]:
    """Per reference the view hands out that a recall gives in more than one page: each page's
    reference and where it is, following each page's next reference as a model would. At most
    :data:`LIMITS.pages_shown` recalls; a reference whose pages would pass it is not listed, and the
    key ``""`` says the list stopped."""
    recall = getattr(compaction, "recall", None)
    out: dict[str, list[tuple[str, str]]] = {}
    budget = LIMITS.pages_shown
    for ref in getattr(compaction, "references", ()) if recall is not None else ():
        chain: list[tuple[str, str]] = []
        whole = False
        got, at = recall(ref), ref
        while budget > 0:
            budget -= 1
            nxt = next((r for r in got.more if r.startswith(f"{ref}@")), None)
            if nxt is not None or chain:
                where = _WHERE.search(got.text.partition("\n")[0])
                chain.append((at, where.group(1) if where else ""))
            if nxt is None:
                whole = True
                break
            got, at = recall(nxt), nxt
        if not whole:
            out[""] = []
            break
        if chain:
            out[ref] = chain
    return out


def _original_pane(compaction: Any, original: Sequence[Any] | None, report: Any,
                   out: list[str], msgmap: list[str], pages: Mapping[str, list[tuple[str, str]]]) -> str:
    """Append the annotated original; return the literal status left unmarked in units not kept."""
    by_message: dict[int, list[Any]] = {}
    by_field: dict[tuple[int, str], list[Any]] = {}
    for u in report.units:
        by_message.setdefault(u.message, []).append(u)
        by_field.setdefault((u.message, u.field), []).append(u)
    for us in by_field.values():
        us.sort(key=lambda u: (u.start, u.end))
    msgs: list[Message] | None = None
    if original is not None:
        msgs = validate_messages(original)
        _check(msgs, by_field)
        ctx = _context(msgs, by_field)
    else:
        ctx = _Ctx()
    in_view = {s for s in compaction.sources if s is not None}
    handed_out = set(getattr(compaction, "references", ()))
    dropped = set(report.dropped_messages)
    orphans = set(report.orphan_tool_results)
    protected = {u.message for u in report.units if u.protected}
    out_roles = {s: m.get("role") for s, m in zip(compaction.sources, compaction.messages) if s is not None}
    n = len(msgs) if msgs is not None else max([*by_message, *in_view, -1]) + 1
    out.append('<section class="pane" id="pane-orig" aria-label="Original conversation, annotated">'
               f'<h2>Original conversation: {n} messages, {len(report.units)} units</h2>')
    for i in range(n):
        units = by_message.get(i, [])
        c = _message_counts(units)
        role = msgs[i].role if msgs is not None else out_roles.get(i, "?")
        cls = ["msg", f"r-{_a(role)}"]
        if c["kept"] == len(units) and i in in_view:
            cls.append("allkept")
        if i not in in_view:
            cls.append("notin")
        tags = []
        ref = f"#{i}"
        if ref in handed_out:
            tags.append(f"recall {ref}" + (f" · {len(pages[ref])} pages" if ref in pages else ""))
        if i in protected:
            tags.append("protected")
        if i in orphans:
            tags.append("orphan tool result: never sent")
        elif i in dropped or i not in in_view:
            tags.append("not in the view")
        summary = _counts_text(c) or "no text units"
        mm = "k" if i in in_view and c["kept"] == len(units) else "o" if i not in in_view or not (
            c["kept"] or c["clipped"]) else "p"
        if not units:
            mm = "g" if i in in_view else "o"
        mmcls = mm + (" pr" if i in protected else "")
        msgmap.append(f'<a class="{mmcls}" href=#m-{i} title="#{i} {_a(role)}: {_a(summary)}"></a>')
        handed = (" data-handed-out" if ref in handed_out else "") + (
            f' data-pages="{len(pages[ref])}"' if ref in pages else "")
        out.append(f'<article class="{" ".join(cls)}" id=m-{i} data-role="{_a(role)}" data-ref="{ref}"{handed}>'
                   f'<div class=mh><a href=#m-{i} class=ref title="its reference, for recall">{ref}</a>'
                   f'<b class=role>{_t(role)}</b>')
        for tag in tags:
            out.append(f'<span class="tag ref">{_t(tag)}</span>' if tag.startswith(f"recall {ref}") else
                       f"<span class=tag>{_t(tag)}</span>")
        out.append(f"<span class=mc>{_t(summary)}</span></div><div class=mb>")
        if msgs is None:
            for u in units:
                _unit_html(u, None, ctx, out)
                out.append(" ")
        else:
            m = msgs[i]
            _message_body(m, by_field, ctx, out)
        out.append("</div></article>")
    out.append("</section>")
    return ctx.other


def _message_body(m: Message, by_field: Mapping[tuple[int, str], list[Any]], ctx: _Ctx,
                  out: list[str]) -> None:
    content = m.raw.get("content")
    texts = {tf.field: tf.text for tf in m.texts}
    wrote = False
    if isinstance(content, str):
        _field_html(texts["content"], by_field.get((m.index, "content"), []), ctx, out)
        wrote = bool(content)
    elif isinstance(content, Sequence) and not isinstance(content, (bytes, bytearray)):
        for p, part in enumerate(content):
            key = f"content.{p}"
            out.append(f'<span class="fl">part {p}</span>')
            if key in texts:
                _field_html(texts[key], by_field.get((m.index, key), []), ctx, out)
            else:
                kind = part.get("type", "?") if isinstance(part, Mapping) else type(part).__name__
                out.append(f'<span class="other">[{_t(str(kind))} part: passed through, not counted]</span>')
            wrote = True
    for c, call in enumerate(m.tool_calls):
        key = f"tool_calls.{c}"
        out.append(f'<span class="tc">→ <b>{_t(call.name)}</b>(')
        units = by_field.get((m.index, key), [])
        _field_html(call.arguments, units, ctx, out)
        out.append(")</span>")
        wrote = True
    if m.tool_call_id is not None:
        out.append(f'<span class="fl">result of call {_t(m.tool_call_id)}</span>')
    if not wrote:
        out.append('<span class="other">(empty)</span>')


def _plain(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        pieces = []
        for p in content:
            if isinstance(p, str):
                pieces.append(p)
            elif isinstance(p, Mapping) and isinstance(p.get("text"), str):
                pieces.append(p["text"])
            else:
                kind = p.get("type", "?") if isinstance(p, Mapping) else type(p).__name__
                pieces.append(f"[{kind} part]")
        text = "\n".join(pieces)
    elif isinstance(content, str):
        text = content
    else:
        text = "" if content is None else str(content)
    return text


def _output_pane(compaction: Any, out: list[str]) -> None:
    msgs = compaction.messages
    out.append('<section class="pane" id="pane-out" aria-label="Messages sent to the model">'
               f'<h2>Sent to the model: {len(msgs)} messages, {compaction.tokens_after} tokens</h2>')
    for j, (m, src) in enumerate(zip(msgs, compaction.sources)):
        role = str(m.get("role", "?"))
        cls = "msg note" if src is None else f"msg r-{_a(role)}"
        out.append(f'<article class="{cls}" id="o-{j}" data-source="{"" if src is None else src}">'
                   f'<div class="mh"><span>out {j}</span><span class="role">{_t(role)}</span>')
        if src is None:
            out.append('<span class="tag">record note</span>')
        else:
            out.append(f'<a href="#m-{src}" title="show the original message">from #{src}</a>')
        out.append('</div><div class="mb">')
        out.append(_t(_plain(m)))
        for call in m.get("tool_calls") or []:
            fn = call.get("function", {}) if isinstance(call, Mapping) else {}
            args = fn.get("arguments", "")
            if not isinstance(args, str):
                args = json.dumps(args, ensure_ascii=False, sort_keys=True)
            out.append(f'<span class="tc">→ <b>{_t(str(fn.get("name")))}</b>({_t(args)})</span>')
        if m.get("tool_call_id") is not None:
            out.append(f'<span class="fl">result of call {_t(str(m.get("tool_call_id")))}</span>')
        out.append("</div></article>")
    out.append("</section>")


def _record_pane(compaction: Any, report: Any, out: list[str], pages: Mapping[str, list[tuple[str, str]]]) -> None:
    out.append('<section class="pane" id="pane-rec" aria-label="The record of what was left out">')
    if compaction.note is None:
        out.append('<h2>Record</h2><p class="muted" id="no-record">The conversation fits the budget: '
                   'nothing was left out, so there is no record.</p></section>')
        return
    out.append(f'<h2>Record: {len(report.record)} literals, exactly as the model receives it</h2>'
               f'<pre class="record" id="record">{_t(compaction.note)}</pre>')
    refs = tuple(getattr(compaction, "references", ()))
    links = "".join(f'<a href="#m-{_a(r[1:])}" data-ref="{_a(r)}">{_t(r)}</a>' for r in refs)
    out.append(f'<h2>{len(refs)} references handed out for recall</h2><p id="references" class="droplist">'
               + (links or '<span class="muted">none</span>') + "</p>")
    stopped = "" in pages
    pages = {r: c for r, c in pages.items() if r}
    if pages:
        out.append(f'<h2>{len(pages)} references a recall gives in pages</h2><ul id="pages">')
        for ref, chain in pages.items():
            items = " · ".join(f'<span class=page data-ref="{_a(r)}">{_t(r)} '
                               f'<span class=muted>{_t(where)}</span></span>' for r, where in chain)
            out.append(f'<li data-ref="{_a(ref)}" data-pages="{len(chain)}"><a href="#m-{_a(ref[1:])}">{_t(ref)}</a>: '
                       f'{len(chain)} pages: {items}</li>')
        out.append("</ul>")
    if stopped:
        out.append(f'<p class="muted" id="pages-more">The list stops after {LIMITS.pages_shown} pages: '
                   'a recall of the references after these gives more.</p>')
    if report.dropped:
        shown, size = [], 0
        for lit in report.dropped:
            if size + len(lit) > LIMITS.fold_chars and shown:
                break
            shown.append(lit)
            size += len(lit) + 2
        rest = len(report.dropped) - len(shown)
        fold = (f" <span class=fold data-values={rest}>" + _t(f"⋯ and {rest:,} more, folded on this page ⋯")
                + "</span>") if rest else ""
        out.append(f'<h2>{len(report.dropped)} literals dropped from the record to fit the budget</h2>'
                   f'<div class="droplist">{_t("; ".join(shown))}{fold}</div>')
    out.append("</section>")


def render_html(compaction: Any, original_messages: Sequence[Any] | None = None) -> str:
    """A self-contained HTML page (str) showing ``compaction``.

    Args:
        compaction: a :class:`~discourse_memory.Compaction`.
        original_messages: the messages it was made from. A compaction does not
            keep its input, so without them the page shows where each unit was,
            not its text.

    Raises:
        ValueError: ``original_messages`` are not the messages the compaction was made from.
    """
    if getattr(compaction, "internal", None) is not None:
        # A view of another format: its to_html reads the caller's messages into the core's
        # shape and shows the core's own view.
        return str(compaction.to_html(original_messages))
    report = compaction.report
    counts = report.counts
    total_units = len(report.units)
    out: list[str] = []
    msgmap: list[str] = []
    body: list[str] = []
    pages = _pages(compaction)
    other = _original_pane(compaction, original_messages, report, body, msgmap, pages)
    _output_pane(compaction, body)
    _record_pane(compaction, report, body, pages)

    before, after, budget = compaction.tokens_before, compaction.tokens_after, compaction.budget
    n_msgs = len(msgmap)
    out.append('<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
               '<meta name="viewport" content="width=device-width,initial-scale=1">'
               '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; '
               'style-src \'unsafe-inline\'; img-src data:">'
               f'<title>discourse-memory view: {before} → {after} tokens</title>'
               f'<style>{_CSS}</style></head><body>')
    attrs = " ".join(f'data-count-{d}="{counts.get(d, 0)}"' for d in DECISIONS)
    pct = f"{after / before:.0%}" if before else "–"
    out.append(f'<header id="summary" data-tokens-before="{before}" data-tokens-after="{after}" '
               f'data-budget="{budget}" data-units="{total_units}" data-messages="{n_msgs}" '
               f'data-output-messages="{len(compaction.messages)}" {attrs}>'
               '<h1>discourse-memory: what the model sees</h1><ul class="nums">'
               f'<li>tokens before <b id="tokens-before">{before}</b></li>'
               f'<li>after <b id="tokens-after">{after}</b> ({pct})</li>'
               f'<li>budget <b id="budget">{budget}</b></li>'
               f'<li>messages <b>{n_msgs}</b> → <b>{len(compaction.messages)}</b></li>'
               f'<li>units <b>{total_units}</b></li>'
               f'<li>record <b>{len(report.record)}</b> literals, <b>{len(report.dropped)}</b> dropped</li>'
               '</ul><ul class="counts">')
    for d in DECISIONS:
        out.append(f'<li class="count" data-decision="{d}"><span class="sw" data-decision="{d}">{_GLYPH[d]}</span>'
                   f'{d} <b id="count-{d}">{counts.get(d, 0)}</b></li>')
    out.append('</ul><ul class="legend">')
    for d, why in _LEGEND:
        out.append(f"<li><b>{_GLYPH[d]} {d}</b>: {_t(why)}</li>")
    out.append(f'<li><mark class="r">literal</mark> {_MARK_TITLE["recorded"]}; <mark class="k">literal</mark> '
               f'{_MARK_TITLE["kept"]}; <mark class="x">literal</mark> in neither.</li>')
    if compaction.note is None:
        out.append("<li><b>The conversation fits the budget: nothing was compacted.</b></li>")
    if original_messages is None:
        out.append("<li><b>Original messages not given: units are shown by position, not text.</b></li>")
    out.append('</ul><nav class="msgmap" aria-label="messages">')
    out.extend(msgmap)
    out.append("</nav></header>"
               '<input type="radio" class="tabsel" name="tab" id="tab-orig" checked>'
               '<input type="radio" class="tabsel" name="tab" id="tab-out">'
               '<input type="radio" class="tabsel" name="tab" id="tab-rec">'
               '<input type="radio" class="tabsel" name="tab" id="tab-both">'
               '<input type="checkbox" class="tabsel" id="hide-kept">'
               '<input type="checkbox" class="tabsel" id="full-height">'
               '<nav class="tabs">'
               '<label for="tab-orig">Original, annotated</label>'
               '<label for="tab-out">Sent to the model</label>'
               '<label for="tab-rec">Record</label>'
               '<label for="tab-both">Side by side</label>'
               '<span class="opt"><label for="hide-kept">hide fully kept messages</label> · '
               '<label for="full-height">full-height messages</label></span></nav>'
               f'<main class=d{_MARK_CODE[other]} data-unmarked-literals={other}>')
    out.extend(body)
    out.append("</main></body></html>\n")
    return "".join(out)

"""Focus: what the newest turn asks about, and how much each unit of the history shares it.

A memory exists to answer the next turn. The focus is read from the newest turn:

- a chat (the history ends with a user message): that message, and at a lower weight
  the assistant message it answers;
- an agent step (it ends with a tool result, or an assistant message with tool calls):
  the newest assistant message (its reasoning and its calls) and its results; when tool
  output comes back as a user message after an assistant action in a code block (text
  agents), that message and the action, both at full weight.

Or it is a text the caller gives (``focus="..."``, e.g. LlamaIndex's ``get(input=...)``).
Its terms are the content words and literals the analysis finds in it (the same
analysis as the history's units), each weighted by the message it came from.

Relevance is BM25 (Robertson & Zaragoza 2009; k1 = 1.2, b = 0.75) over the units of the
conversation, computed on the columns' own postings and document frequencies: they
grow with the conversation, so nothing is re-indexed per turn (a library such as
``bm25s`` indexes a fixed corpus). A unit's score is divided by what a unit stating
every focus term would score at the average unit length, so relevance lies in [0, 1]
(shorter units can reach 1 with fewer terms). A focus whose terms are all
common or absent from the history ("thanks!") is no focus: the view is then what it
would be without one.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field

import numpy as np

from . import lang
from .actions import answers_action, is_action
from .columns import Columns
from .lang import marks
from .messages import SYSTEM_ROLES
from .policy import DEFAULT_POLICY, Policy

__all__ = ["ASKED", "Focus", "asked_kinds", "focus_of_text", "focus_of_turn", "focus_terms", "relevance"]

# The weights (BM25's k1 and b, the context's weight, the asked kind's share, the least
# strength of a focus) are the Policy's: see .policy.
ASKED: dict[str, tuple[str, tuple[str, ...]]] = {
    "count": (r"(?i)\bhow\s+(?:long|many|much|old|often|far)\b|\bwhat\s+(?:percentage|number\s+of|amount)\b",
              ("number", "quantity", "amount", "percent")),
    "when": (r"(?i)\bwhen\b|\b(?:what|which)\s+(?:time|year|month|day|date)\b", ("date", "datetime", "time")),
    "phone": (r"(?i)\b(?:phone|telephone)\b", ("phone",)),
    "email": (r"(?i)\be-?mail\b", ("email",)),
    "amount": (r"(?i)\b(?:cost|price|pay|paid|fee)\b", ("amount",)),
    "version": (r"(?i)\bversion\b", ("version",)),
}
"""Groups of question: the English words of each and the literal kinds it asks for (a
language pack adds its words to a group: ``LanguagePack.question_words``)."""
_QUESTION = re.compile("[?" + marks.QUESTION + "]")


@functools.lru_cache(maxsize=2)
def _asks(_generation: int) -> tuple[tuple[re.Pattern[str], tuple[str, ...]], ...]:
    """Each group's pattern: its English words and the registered packs'."""
    out = []
    for group, (english, kinds) in ASKED.items():
        words = [w for p in lang.packs() for g, ws in p.question_words if g == group for w in ws]
        out.append((re.compile("|".join([english, *map(re.escape, words)])), kinds))
    return tuple(out)


def asked_kinds(text: str) -> tuple[str, ...]:
    """The literal kinds a question asks for (none if ``text`` asks no question)."""
    if not _QUESTION.search(text):
        return ()
    return tuple(sorted({k for pattern, kinds in _asks(lang.generation()) if pattern.search(text) for k in kinds}))


@dataclass(frozen=True)
class Focus:
    """Term ids of a conversation's columns, with the weight of each."""

    words: np.ndarray
    word_weight: np.ndarray
    literals: np.ndarray
    literal_weight: np.ndarray
    messages: dict[int, float]
    """The messages the focus was read from, with their weights: their own units are as
    relevant as their weight (the step an agent just took is the focus)."""
    kinds: tuple[str, ...] = ()
    """The literal kinds the focus asks for (see ``Policy.answer_kind``)."""
    asks: bool = False
    """The focus is a question (a user's, or a given text, with a question mark): it asks
    for something the history holds, where a remark ("thanks, see you!") only goes on."""
    remark: bool = False
    """The focus is a chat's newest message that asks nothing (not an agent's step, not a
    given text): it says where the talk goes, not what it needs from the history."""


def focus_of_turn(cols: Columns, policy: Policy = DEFAULT_POLICY) -> Focus | None:
    """The focus of the newest turn (see the module docstring)."""
    msgs = cols.messages
    if not msgs:
        return None
    last = msgs[-1]
    weighted: dict[int, float] = {}
    owner = cols.pairs.owner.get(last.index)
    if owner is not None or (last.role == "assistant" and last.tool_calls):
        step = owner if owner is not None else last.index
        weighted[step] = 1.0
        for r in cols.pairs.results.get(step, ()):
            weighted[r] = 1.0
        return _from_messages(cols, weighted, policy)
    weighted[last.index] = 1.0
    said = " ".join(tf.text for tf in last.texts) if last.role == "user" else ""
    prev = next((msgs[i] for i in range(len(msgs) - 2, -1, -1) if msgs[i].role not in SYSTEM_ROLES), None)
    if prev is not None and prev.role != last.role:
        # An action in a code block (a text agent's command) and its output are one step.
        action = is_action(prev)
        weighted[prev.index] = 1.0 if action else policy.context_weight
        if action:  # the output of a command, not a question of the user
            return _from_messages(cols, weighted, policy)
    asks = bool(_QUESTION.search(said))
    return _from_messages(cols, weighted, policy, asked_kinds(said), asks, remark=not asks)


def focus_of_text(cols: Columns, words: list[str], literals: list[str],
                  min_strength: float | None = None, text: str = "", policy: Policy = DEFAULT_POLICY) -> Focus | None:
    """A focus on a given text, from its content words and literal texts (analysed
    like the history's units); terms the history does not contain are dropped. The
    ``text`` itself, if given, says what kinds of value it asks for. ``min_strength``: the
    policy's unless given."""
    if min_strength is None:
        min_strength = policy.min_strength
    w = sorted({cols.word_ids[t] for t in words if t in cols.word_ids})
    found = {cols.lit_ids[t]: 1.0 for t in literals if t in cols.lit_ids}
    lits = sorted(_without_word_literals(cols, dict.fromkeys(w, 1.0), found))
    return _focus(cols, np.array(w, dtype=np.int64), np.ones(len(w)), np.array(lits, dtype=np.int64),
                  np.ones(len(lits)), {}, min_strength, asked_kinds(text), bool(_QUESTION.search(text)))


def _without_word_literals(cols: Columns, words: dict[int, float], lits: dict[int, float]) -> dict[int, float]:
    """Literals that are also focus words ("Melanie" the name and "melanie" the word)
    count once, as words."""
    named = {cols.word_text[i] for i in words}
    text = cols.lit_text
    return {t: w for t, w in lits.items() if text[t].lower() not in named}


def _from_messages(cols: Columns, weighted: dict[int, float], policy: Policy, kinds: tuple[str, ...] = (),
                   asks: bool = False, remark: bool = False) -> Focus | None:
    starts = cols.msg_start.view
    word_w: dict[int, float] = {}
    lit_w: dict[int, float] = {}
    wptr, widx = cols.word_ptr.view, cols.word_idx.view
    lptr, lidx = cols.lit_ptr.view, cols.lit_idx.view
    for m, weight in weighted.items():
        s, e = int(starts[m]), int(starts[m + 1])
        for terms, ids in ((word_w, widx[wptr[s]:wptr[e]].tolist()), (lit_w, lidx[lptr[s]:lptr[e]].tolist())):
            if not terms:  # (the first message's terms: each its weight, in order of first appearance)
                terms.update(dict.fromkeys(ids, max(0.0, weight)))
                continue
            get = terms.get
            for t in ids:
                terms[t] = max(get(t, 0.0), weight)
    lit_w = _without_word_literals(cols, word_w, lit_w)
    return _focus(cols, np.fromiter(word_w, np.int64, len(word_w)), np.fromiter(word_w.values(), float, len(word_w)),
                  np.fromiter(lit_w, np.int64, len(lit_w)), np.fromiter(lit_w.values(), float, len(lit_w)),
                  dict(weighted), policy.min_strength, kinds, asks, remark)


def _focus(cols: Columns, words: np.ndarray, word_weight: np.ndarray, literals: np.ndarray,
           literal_weight: np.ndarray, messages: dict[int, float], min_strength: float,
           kinds: tuple[str, ...] = (), asks: bool = False, remark: bool = False) -> Focus | None:
    focus = Focus(words, word_weight, literals, literal_weight, messages, kinds, asks, remark)
    n = len(cols.units)
    strength = float((word_weight * _idf(cols.word_df.view[words], n)).sum()
                     + (literal_weight * _idf(cols.lit_df.view[literals], n)).sum())
    return focus if strength >= min_strength and strength > 0 else None


def _idf(df: np.ndarray, n: int) -> np.ndarray:
    return np.log1p((n - df + 0.5) / (df + 0.5))


def relevance(cols: Columns, focus: Focus, policy: Policy = DEFAULT_POLICY) -> np.ndarray:
    """Per unit, how much it shares with the focus: 0 (nothing) to 1.

    BM25 at two grains: each unit on its own, and each message as a whole (the terms of
    all its units: a question's words are often spread over the sentences of the turn
    that answers it). A unit scores the better of its own score and its message's (half
    that, if the unit itself states none of the terms). Words match by a light stem
    ("classes" and "class", "started" and "start"). Scores are over what a text of
    average length stating every focus term would score. The focus's own units score
    the weight of their message."""
    n = len(cols.units)
    if n == 0:
        return np.zeros(0)
    n_msgs = len(cols)
    u_msg = cols.u_msg.view
    tokens = cols.u_tokens.view
    k1, b = policy.bm25_k1, policy.bm25_b
    # (the norms and scores below are computed in place, in the order of the operations of
    # ``k1 * (1.0 - b + b * tokens / mean)`` and so on: the same floats, fewer arrays of every unit)
    unit_norm = tokens * b
    unit_norm /= max(float(tokens.mean()), 1.0)
    unit_norm += 1.0 - b
    unit_norm *= k1
    # A tool's output is read with the call that made it: "the output of get_user_details"
    # is one text, the call naming what the output is about.
    doc = _documents(cols)
    u_doc = doc[u_msg]
    msg_tokens, own = _document_tokens(cols, doc)
    # (a message's norm and score are read at its units only: past a memory's horizon most
    # messages have none, and a pass over all of them was milliseconds a view)
    msg_norm = msg_tokens[u_doc]
    msg_norm *= b
    msg_norm /= max(_document_mean(cols, msg_tokens, own), 1.0)
    msg_norm += 1.0 - b
    msg_norm *= k1
    unit_score = np.zeros(n)
    # (per document from the first a unit reads: past a memory's horizon, the 190,000
    # messages before it have no units, and two sums over all of them were a pass each)
    first_doc = int(u_doc.min())
    msg_score = np.zeros(n_msgs - first_doc)
    best = 0.0
    stems, stem_df = _stems(cols)
    word_terms = np.unique(stems[focus.words]) if len(focus.words) else focus.words
    word_w = np.zeros(len(stem_df))
    if len(focus.words):
        np.maximum.at(word_w, stems[focus.words], focus.word_weight)
    row_stems, row_units = _word_rows(cols, stems)
    for ptr, idx, df, terms, weights, units in (
        (cols.word_ptr.view, row_stems, stem_df, word_terms, word_w[word_terms], row_units),
        (cols.lit_ptr.view, cols.lit_idx.view, cols.lit_df.view, focus.literals, focus.literal_weight, None),
    ):
        if not len(terms) or not len(idx):
            continue
        term_weight = np.zeros(len(df))
        term_weight[terms] = weights * _idf(df[terms], n)
        best += float(term_weight.sum())
        hit = np.flatnonzero((term_weight > 0)[idx])  # (a mask per term, read at the rows: not their weights)
        if not len(hit):
            continue
        owner = units[hit] if units is not None else np.searchsorted(ptr, hit, side="right") - 1
        hit_terms = idx[hit]
        unit_score += np.bincount(owner, weights=term_weight[hit_terms], minlength=n)
        # Each term once per message (a call with its outputs).
        pairs = _sorted_unique((u_doc[owner] - first_doc) * len(df) + hit_terms)
        msg_score += np.bincount(pairs // len(df), weights=term_weight[pairs % len(df)], minlength=len(msg_score))
    if best <= 0:
        return np.zeros(n)
    unit_rel = unit_score * (k1 + 1.0)
    unit_norm += 1.0
    unit_rel /= unit_norm
    unit_rel /= best
    np.minimum(unit_rel, 1.0, out=unit_rel)
    msg_rel = msg_score[u_doc - first_doc]  # (per unit)
    msg_rel *= k1 + 1.0
    msg_norm += 1.0
    msg_rel /= msg_norm
    msg_rel /= best
    np.minimum(msg_rel, 1.0, out=msg_rel)
    msg_rel *= np.where(unit_score > 0, 1.0, 0.5)
    rel = np.maximum(unit_rel, msg_rel, out=unit_rel)
    if focus.kinds and policy.answer_kind and len(cols.lit_kind_names):
        wanted = np.isin(np.array(cols.lit_kind_names), focus.kinds)
        states = cols.per_unit_sum(wanted[cols.lit_kind.view].astype(np.float64)) > 0
        rel = np.where(states, np.minimum(rel * (1.0 + policy.answer_kind), 1.0), rel)
    if focus.messages:  # (a message's units are a run of them: its run set, not a pick of every unit)
        starts = cols.msg_start.view
        for m, weight in focus.messages.items():
            if weight > 0:
                rel[int(starts[m]):int(starts[m + 1])] = weight
    return rel


def _word_rows(cols: Columns, stems: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row of the word index, its word's stem and its unit: extended by the rows
    appended since (a row's word and unit never change; both were arrays of every row of
    the history, made again on every view)."""
    memo = cols.memo(_FocusMemo)
    idx, ptr = cols.word_idx.view, cols.word_ptr.view
    done, n = memo.rows_n, len(idx)
    if done < n:
        if len(memo.row_stems) < n:  # (doubled, as ``tokens``)
            size = max(n, 2 * len(memo.row_stems))
            memo.row_stems = np.concatenate([memo.row_stems[:done], np.zeros(size - done, dtype=np.int64)])
            memo.row_units = np.concatenate([memo.row_units[:done], np.zeros(size - done, dtype=np.int64)])
        memo.row_stems[done:n] = stems[idx[done:n]]
        first = int(np.searchsorted(ptr, done, side="right")) - 1  # (the unit of the first new row)
        units = np.repeat(np.arange(first, len(ptr) - 1), np.diff(ptr[first:]))
        memo.row_units[done:n] = units[done - int(ptr[first]):]
        memo.rows_n = n
    return memo.row_stems[:n], memo.row_units[:n]


def _sorted_unique(keys: np.ndarray) -> np.ndarray:
    """``np.unique(keys)``: the same sorted values, by a stable sort (keys of postings in
    unit order come nearly sorted, which it runs through; ``np.unique`` hashed them first,
    over a millisecond a view for the 15,000 postings of a common term)."""
    if not len(keys):
        return keys
    ordered = np.sort(keys, kind="stable")
    first = np.empty(len(ordered), dtype=bool)
    first[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=first[1:])
    return ordered[first]


def _document_tokens(cols: Columns, doc: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per message, the tokens of the document it belongs to (the costs of the messages
    scored with it, added in message order as ``np.bincount`` adds them: the same floats);
    and whether it is its own document. Grown by the new messages only (a message's cost
    and document never change): a count over all 200,000 messages of a long history was a
    millisecond a view."""
    memo = cols.memo(_FocusMemo)
    n, done = len(doc), memo.tokens_n
    if done > n:  # (columns only grow; counted afresh rather than trusted)
        memo.tokens, memo.own, done = np.zeros(0), np.zeros(0, dtype=bool), 0
        memo.own_sum = memo.own_n = 0
    if done < n:
        if len(memo.tokens) < n:  # (room for more, doubled: a turn appends a message or two)
            size = max(n, 2 * len(memo.tokens))
            memo.tokens = np.concatenate([memo.tokens[:done], np.zeros(size - done)])
            memo.own = np.concatenate([memo.own[:done], np.zeros(size - done, dtype=bool)])
        new = doc[done:n]
        costs = cols.msg_cost.view[done:n]
        np.add.at(memo.tokens, new, costs.astype(np.float64))  # (in order)
        memo.own[done:n] = new == np.arange(done, n)
        # (the own documents' tokens, summed as the messages come: each adds to its document)
        memo.own_sum += int(costs[memo.own[new]].sum())
        memo.own_n += int(memo.own[done:n].sum())
        memo.tokens_n = n
    return memo.tokens[:n], memo.own[:n]


def _document_mean(cols: Columns, tokens: np.ndarray, own: np.ndarray) -> float:
    """The mean tokens of a document (``tokens[own].mean()``), from the sum kept with the
    conversation (:func:`_document_tokens`): not a pick of every message of a long history
    on every view. The same float: the tokens are whole numbers, which a float64 sum
    (numpy's, pairwise) adds exactly below 2**53, then one division by the count."""
    memo = cols.memo(_FocusMemo)
    if memo.tokens_n != len(tokens) or not memo.own_n or memo.own_sum >= 2 ** 53:
        return float(tokens[own].mean())
    return memo.own_sum / memo.own_n


def focus_terms(cols: Columns, focus: Focus) -> frozenset[str]:
    """The words and literals of the focus's own message (not of the message it answers),
    as lower-case texts (a literal without its quotes or backticks): what a record item's
    key is matched against."""
    words = (cols.word_text[i] for i in focus.words[focus.word_weight >= 1.0].tolist())
    literals = (cols.lit_text[i].strip("`'\"").lower() for i in focus.literals[focus.literal_weight >= 1.0].tolist())
    return frozenset([*words, *literals])


@dataclass
class _FocusMemo:
    """What the focus reads of the messages and words already appended (the conversation's
    memo, see ``Columns.memo``: grown with the conversation, never changed)."""

    documents: list[int] = field(default_factory=list)
    """Per message, the message whose text it is scored with (:func:`_documents`)."""
    stem_ids: dict[str, int] = field(default_factory=dict)
    """A stem -> its id (:func:`_stems`)."""
    word_stems: list[int] = field(default_factory=list)
    """Per word id, its stem's id."""
    tokens: np.ndarray = field(default_factory=lambda: np.zeros(0))
    """Per message, its document's tokens so far (:func:`_document_tokens`), with room to grow."""
    own: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    """Per message, whether it is its own document (as ``tokens``)."""
    tokens_n: int = 0
    """The messages counted in ``tokens`` and ``own``."""
    own_sum: int = 0
    """The tokens of the own documents (``tokens[own].sum()``, a whole number)."""
    own_n: int = 0
    """How many messages are their own document (``own.sum()``)."""
    row_stems: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Per row of the word index, its word's stem (:func:`_word_rows`), with room to grow."""
    row_units: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    """Per row of the word index, its unit (as ``row_stems``)."""
    rows_n: int = 0
    """The rows read into ``row_stems`` and ``row_units``."""


def _documents(cols: Columns) -> np.ndarray:
    """Per message, the message whose text it is scored with: a tool result's call, a text
    agent's command for its output (:func:`~discourse_memory.actions.answers_action`), else
    itself. Extended by the new messages only (a message's call never changes)."""
    known = cols.memo(_FocusMemo).documents
    msgs, owner = cols.messages, cols.pairs.owner
    for m in range(len(known), len(msgs)):
        a = owner.get(m)
        if a is None and answers_action(msgs, m):
            a = m - 1
        known.append(m if a is None else a)
    return cols.grown("focus_documents", known, np.int64)[:len(msgs)]


_SIBILANT_ES = ("sses", "xes", "ches", "shes")


def stem(word: str) -> str:
    """A light English stem: the plural, past and -ing endings off ("classes" -> "class",
    "symbolizes" -> "symbolize", "started" -> "start"); other words as they are."""
    if len(word) < 5:
        return word[:-1] if len(word) == 4 and word.endswith("s") and not word.endswith("ss") else word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(_SIBILANT_ES):
        return word[:-2]
    for suffix in ("ing", "ed"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[:-len(suffix)]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def found_stems(cols: Columns) -> tuple[list[int], list[str]]:
    """Per word id, its stem's id, and the stems by id, as found so far (finding no more; a
    segment of them is shared between workers: :mod:`.shared_columns`)."""
    memo = cols.memo(_FocusMemo)
    return memo.word_stems, list(memo.stem_ids)


def seed_stems(cols: Columns, word_stems: list[int], stems: list[str]) -> None:
    """Start the words' stems with their values for the first words (read from a shared
    cache; ``stems`` by id, each once), if they have not started."""
    memo = cols.memo(_FocusMemo)
    if not memo.word_stems and not memo.stem_ids:
        memo.word_stems = word_stems
        memo.stem_ids = dict(zip(stems, range(len(stems))))


def _stems(cols: Columns) -> tuple[np.ndarray, np.ndarray]:
    """Per word id, its stem's id; per stem, how many units state a word of it (the
    words' document frequencies added up). Grown with the vocabulary."""
    memo = cols.memo(_FocusMemo)
    ids, of_word = memo.stem_ids, memo.word_stems
    if len(of_word) < len(cols.word_text):
        for w in cols.word_text[len(of_word):]:
            of_word.append(ids.setdefault(stem(w), len(ids)))
    stems = cols.grown("word_stems", of_word, np.int64)[:len(of_word)]  # (rebuilt, it read the vocabulary a turn)
    stem_df = np.bincount(stems, weights=cols.word_df.view[:len(stems)], minlength=len(ids)) if len(stems) \
        else np.zeros(0)
    return stems, stem_df

"""The memories under test: this project's compaction and the baselines.

Each method is a function ``(messages, budget, counter) -> list[dict]`` that returns
the view a model would receive, in OpenAI chat format. Every method is given the
same budget in tokens of the same counter, counted as the request OpenAI counts
(content + tool-call name + arguments per message, and the OpenAI cookbook's framing:
3 a message, its role, name and ids, 3 to prime the reply: the core's default rule,
``message_overhead="openai"``), and every view is scored with that count, so budgets
and violations are comparable.

- ``discourse-memory``: :func:`discourse_memory.compact` with its defaults (the
  system prompt kept verbatim) and ``relax=True``; ``discourse-memory-nosys`` with
  ``keep_system=False`` too (the system prompt may be compacted like the rest).
- ``full-history`` (not a baseline): the whole history, over budget by design; its
  scores are the ceilings (what the history itself contains).
- ``trim-last``: LangChain ``trim_messages(strategy="last")`` with its other
  options at their defaults (so the system prompt is dropped when it does not fit
  among the newest messages), and a list token counter that counts as above;
  ``trim-last-system`` (not run by default) the same with ``include_system=True``: it
  keeps the system message even when that alone is over the budget, so on tau-bench
  it is over budget in most views below 50%.
- ``llamaindex-buffer``: LlamaIndex ``ChatMemoryBuffer.get()`` over the whole
  history, ``token_limit`` = budget, ``tokenizer_fn`` counting with the same
  counter. LlamaIndex counts ``str(content)`` only, not tool-call arguments: that
  is its behaviour, and the bench reports the budget violations that follow.
- ``head-tail``: the transcript (``role: text`` per message) cut to its first half
  budget and its last half budget of tokens, as one user message.
- ``bm25-retrieval``: a lexical retrieval memory (what LlamaIndex ``VectorMemoryBlock``
  and LangChain ``VectorStoreRetrieverMemory`` do with embeddings): the newest
  messages fill half the budget, the older ones ranked by BM25 (``bm25s``) against
  the newest user message fill the rest, in original order.
- ``observation-masking``: budgeted observation masking (Lindenbauer et al. 2025;
  Anthropic's ``clear_tool_uses``): LangChain's own ``ClearToolUsesEdit`` replaces
  the oldest tool outputs by a placeholder until the view fits, then the oldest
  messages go.
- ``llmlingua2``: LLMLingua-2, when the ``llmlingua`` package and its model are
  available locally; ``llm-summary``: newest messages within half the budget plus
  an LLM-written summary of the rest, when ``openai`` is installed and
  ``OPENAI_API_KEY`` is set. Otherwise these are skipped with the reason, never
  imitated.

LangChain and LlamaIndex are imported only when their method runs.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from .datasets import SHELL_ACTION
from .grader import CJK
from .metrics import message_text

__all__ = [
    "DEFAULT_METHODS",
    "METHODS",
    "Method",
    "MethodUnavailable",
    "NotedView",
    "get_counter",
    "head_tail",
    "message_tokens",
    "noted_view",
    "reply_tokens",
    "resolve_methods",
    "transcript",
    "view_tokens",
]

HEAD_TAIL_SEPARATOR = "\n\n[... middle of the transcript cut ...]\n\n"


class MethodUnavailable(RuntimeError):
    """A method cannot run here (missing package or model); the message says why."""


def get_counter(name: str = "cl100k_base"):
    """The core's token counter."""
    from discourse_memory import get_token_counter

    return get_token_counter(name)


def _content_tokens(counter, content) -> int:
    if content is None:
        return 0
    if isinstance(content, str):
        return counter.count(content)
    if isinstance(content, list):
        return sum(
            counter.count(p) if isinstance(p, str) else counter.count(str(p.get("text", "")))
            for p in content
            if isinstance(p, str) or (isinstance(p, dict) and p.get("type") == "text")
        )
    return counter.count(str(content))


_FRAMINGS: dict[int, tuple[object, object]] = {}


def _framing(counter):
    """The core's OpenAI rule bound to ``counter`` (kept with it: one per counter)."""
    hit = _FRAMINGS.get(id(counter))
    if hit is None or hit[0] is not counter:
        from discourse_memory.framing import framing_of

        hit = _FRAMINGS[id(counter)] = (counter, framing_of("openai", "openai", counter.count))
    return hit[1]


def reply_tokens(counter) -> int:
    """Tokens that prime the reply: paid once per request (OpenAI's 3)."""
    return _framing(counter).reply


def message_tokens(counter, message: dict) -> int:
    """Tokens of one message in a request: text content + each tool call's name and
    arguments + its framing (3, its role, name and ids: OpenAI's rule)."""
    n = _content_tokens(counter, message.get("content")) + _framing(counter).per_message(message)
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments) if arguments is not None else ""
        n += counter.count(function.get("name") or "") + counter.count(arguments)
    return n


def view_tokens(counter, messages: Sequence[dict]) -> int:
    """Tokens of ``messages`` sent as one request: theirs and the reply priming."""
    return sum(message_tokens(counter, m) for m in messages) + reply_tokens(counter)


# -- this project -------------------------------------------------------------


class NotedView(list):
    """A view (list of messages) that knows which of its messages is the record note,
    and the values the note lists."""

    note: dict | None = None
    record: tuple[str, ...] = ()


def noted_view(result) -> NotedView:
    """A :class:`NotedView` of a ``Compaction``: its messages, the note marked by its
    ``None`` source, the record's values from ``report.record``."""
    view = NotedView(result.messages)
    for message, source in zip(result.messages, result.sources):
        if source is None:
            view.note = message
    view.record = tuple(result.report.record)
    return view


def discourse_memory_view(messages, budget, counter):
    """Our compaction as an agent loop runs it: ``relax=True`` protects less (newest
    message only, then not the system prompt) when the protected messages alone do
    not fit, instead of raising."""
    from discourse_memory import compact

    return noted_view(compact(messages, budget=budget, token_counter=counter.name, relax=True))


def discourse_memory_nosys_view(messages, budget, counter):
    """System messages may be compacted too (``keep_system=False``): the setting to
    compare with memories that drop the system prompt to make room."""
    from discourse_memory import compact

    return noted_view(compact(messages, budget=budget, token_counter=counter.name, keep_system=False, relax=True))


# -- LangChain ----------------------------------------------------------------


def _to_langchain(messages: Sequence[dict]):
    from langchain_core.messages import AIMessage, HumanMessage, SystemMessage, ToolMessage

    out = []
    for i, m in enumerate(messages):
        role = m.get("role")
        content = m.get("content")
        if content is None:
            content = ""
        mid = str(i)
        if role in ("system", "developer"):
            out.append(SystemMessage(content=content, id=mid))
        elif role == "assistant":
            calls = []
            for call in m.get("tool_calls") or ():
                function = call.get("function") or {}
                try:
                    args = json.loads(function.get("arguments") or "{}")
                except json.JSONDecodeError:
                    args = {"__raw__": function.get("arguments")}
                if not isinstance(args, dict):
                    args = {"__value__": args}
                calls.append({"name": function.get("name") or "", "args": args, "id": call.get("id")})
            out.append(AIMessage(content=content, tool_calls=calls, id=mid))
        elif role == "tool":
            out.append(ToolMessage(content=content, tool_call_id=str(m.get("tool_call_id")), id=mid))
        else:
            out.append(HumanMessage(content=content, id=mid))
    return out


def trim_last_view(messages, budget, counter, include_system=False):
    from langchain_core.messages import trim_messages

    per_message = [message_tokens(counter, m) for m in messages]
    reply = reply_tokens(counter)

    def count_list(batch) -> int:  # tokens of the original messages, by id, sent as a request
        return sum(per_message[int(m.id)] for m in batch) + reply

    trimmed = trim_messages(
        _to_langchain(messages),
        max_tokens=budget,
        token_counter=count_list,
        strategy="last",
        include_system=include_system,
    )
    return [messages[int(m.id)] for m in trimmed]


def trim_last_system_view(messages, budget, counter):
    """``trim_messages(strategy="last", include_system=True)``: what an agent that must
    keep its instructions would call."""
    return trim_last_view(messages, budget, counter, include_system=True)


# -- LlamaIndex -----------------------------------------------------------------


def llamaindex_buffer_view(messages, budget, counter):
    from llama_index.core.base.llms.types import ChatMessage, MessageRole
    from llama_index.core.memory import ChatMemoryBuffer

    roles = {
        "system": MessageRole.SYSTEM,
        "developer": MessageRole.SYSTEM,
        "user": MessageRole.USER,
        "assistant": MessageRole.ASSISTANT,
        "tool": MessageRole.TOOL,
    }
    history = []
    for m in messages:
        kwargs = {}
        if m.get("tool_calls"):
            kwargs["tool_calls"] = m["tool_calls"]
        if m.get("tool_call_id"):
            kwargs["tool_call_id"] = m["tool_call_id"]
        content = m.get("content")
        if isinstance(content, list):
            content = message_text({"content": content})
        history.append(
            ChatMessage(role=roles.get(m.get("role"), MessageRole.USER), content=content, additional_kwargs=kwargs)
        )
    buffer = ChatMemoryBuffer.from_defaults(
        chat_history=history,
        token_limit=budget,
        tokenizer_fn=lambda text: range(counter.count(text)),  # len() = token count
    )
    kept = buffer.get()
    # get() returns a suffix of the history: map it back to the original dicts.
    return list(messages[len(messages) - len(kept):]) if kept else []


# -- reference: no memory at all ---------------------------------------------------


def full_history_view(messages, budget, counter):
    """The whole history, whatever the budget: the ceiling of every score (not a
    baseline: it is over budget by design)."""
    return list(messages)


# -- head + tail ----------------------------------------------------------------


def transcript(messages: Sequence[dict]) -> str:
    return "\n\n".join(f"{m.get('role', 'user')}: {message_text(m)}" for m in messages)


def _tail_start(counter, text: str, max_tokens: int) -> int:
    """Smallest character index ``i`` with ``count(text[i:]) <= max_tokens`` (by search)."""
    if max_tokens <= 0:
        return len(text)
    if counter.count(text) <= max_tokens:
        return 0
    window = max(64, 8 * max_tokens)
    while window < len(text) and counter.count(text[len(text) - window:]) <= max_tokens:
        window *= 2
    lo, hi = max(0, len(text) - window), len(text)
    while lo < hi:
        mid = (lo + hi) // 2
        if counter.count(text[mid:]) <= max_tokens:
            hi = mid
        else:
            lo = mid + 1
    # Start at a word boundary where one is near.
    space = text.find(" ", lo, min(len(text), lo + 40))
    return space + 1 if space >= 0 else lo


def head_tail(text: str, budget: int, counter) -> str:
    """First ~half and last ~half of ``text`` within ``budget`` tokens in all."""
    if counter.count(text) <= budget:
        return text
    room = budget - counter.count(HEAD_TAIL_SEPARATOR)
    half = max(0, room // 2)
    head = text[: counter.head(text, half)]
    tail = text[_tail_start(counter, text, room - counter.count(head)):]
    out = head + HEAD_TAIL_SEPARATOR + tail
    while counter.count(out) > budget and tail:  # BPE merges at the seams
        tail = tail[max(1, len(tail) // 100):]
        out = head + HEAD_TAIL_SEPARATOR + tail
    return out


def head_tail_view(messages, budget, counter):
    # (the text gets what the request's framing of its one message leaves)
    framing = view_tokens(counter, [{"role": "user", "content": ""}])
    return [{"role": "user", "content": head_tail(transcript(messages), max(0, budget - framing), counter)}]


# -- lexical retrieval memory (BM25) ------------------------------------------------

_BM25_WORD = re.compile(f"[^\\W{CJK}]+|[{CJK}]+")
_CJK_ONLY = re.compile(f"[{CJK}]+")


def bm25_tokens(text: str) -> list[str]:
    """BM25 terms of ``text``: lowercase words (runs of letters, digits and ``_``)
    minus ``bm25s``' English stop words; a run of CJK characters (no spaces between
    words) gives each character and each pair of adjacent characters."""
    from bm25s.stopwords import STOPWORDS_EN

    out: list[str] = []
    for run in _BM25_WORD.findall(text.lower()):
        if _CJK_ONLY.fullmatch(run):
            out.extend(run)
            out.extend(run[i:i + 2] for i in range(len(run) - 1))
        elif run not in STOPWORDS_EN:
            out.append(run)
    return out


def bm25_retrieval_view(messages, budget, counter):
    """The 40-line retrieval memory users write: the newest messages, whole, newest
    first, while they fit in half the budget (stopping at the first that does not);
    then the older messages ranked by BM25 (``bm25s``, default Lucene scoring) against
    the text of the newest user message, best first (ties: newer first), each added
    whole if it fits in what is left of the budget (else skipped); output in the
    original order. No tool-call pairing: a tool result may come without its call
    (the bench counts these orphans), as in the memories it stands for, which store
    and retrieve messages one by one."""
    import bm25s

    sizes = [message_tokens(counter, m) for m in messages]
    keep: set[int] = set()
    used = reply_tokens(counter)
    i = len(messages) - 1
    while i >= 0 and used + sizes[i] <= budget // 2:
        keep.add(i)
        used += sizes[i]
        i -= 1
    older = list(range(i + 1))
    query_message = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    query = bm25_tokens(message_text(query_message)) if query_message is not None else []
    if older:
        scores = [0.0] * len(older)
        retriever = bm25s.BM25()
        retriever.index([bm25_tokens(message_text(messages[j])) for j in older], show_progress=False)
        ids = retriever.get_tokens_ids(query)
        if ids:
            scores = retriever.get_scores_from_ids(ids).tolist()
        for score, j in sorted(zip(scores, older), key=lambda p: (-p[0], -p[1])):
            if used + sizes[j] <= budget:
                keep.add(j)
                used += sizes[j]
    return [messages[j] for j in sorted(keep)]


# -- observation masking (LangChain's ClearToolUsesEdit) ---------------------------------


def observation_indices(messages: Sequence[dict]) -> list[int]:
    """Which messages are tool output (observations): ``role: tool`` messages; and in
    a mini-swe-agent run, where tool output comes back as a user message, each user
    message that directly follows an assistant message carrying a bash command in a
    fenced block (the agent's action). The task statement (the first user message)
    follows no action, so it is never an observation; nor is anything in a chat."""
    out = []
    for i, m in enumerate(messages):
        if m.get("role") == "tool":
            out.append(i)
        elif m.get("role") == "user" and i > 0:
            prev = messages[i - 1]
            content = prev.get("content")
            if prev.get("role") == "assistant" and isinstance(content, str) and SHELL_ACTION.search(content):
                out.append(i)
    return out


def observation_masking_view(messages, budget, counter):
    """Budgeted observation masking, driven through LangChain's own classes:
    ``ContextEditingMiddleware(edits=[ClearToolUsesEdit(trigger=budget, keep=0,
    clear_at_least=tokens - budget)], token_counter=...)``'s ``wrap_model_call``, so
    the edit replaces tool outputs by its placeholder (``[cleared]``), oldest first,
    and stops as soon as the view fits (``clear_at_least``: the tokens over budget;
    ``keep=0``: no output is spared while the view is over). Its token counter counts
    the original messages as every method does (a cleared output counts as its
    placeholder). The edit clears only ``ToolMessage`` s answering a call of an earlier
    ``AIMessage``: a mini-swe-agent observation (a user message, see
    :func:`observation_indices`) is handed to it as a ``ToolMessage`` answering a
    call added to the action's ``AIMessage`` for that purpose (the counter ignores
    it). If the view is still over budget with every output cleared, the oldest
    non-system messages are dropped (an assistant message with its tool results,
    never a result without its call); the system messages are dropped first only when
    they alone are over the budget (else the view would be empty or over budget:
    ``ContextEditingMiddleware`` itself never drops a message)."""
    from langchain.agents.middleware import ClearToolUsesEdit, ContextEditingMiddleware
    from langchain.agents.middleware.types import ModelRequest
    from langchain_core.messages import AIMessage, ToolMessage

    sizes = [message_tokens(counter, m) for m in messages]
    budget -= reply_tokens(counter)  # (the request's reply priming: the messages get the rest)
    total = sum(sizes)
    view = [dict(m) for m in messages]
    if total > budget:
        lc = _to_langchain(messages)
        for i in observation_indices(messages):
            if messages[i].get("role") == "tool":
                continue
            call_id = f"observation-{i}"
            lc[i] = ToolMessage(content=lc[i].content, tool_call_id=call_id, id=str(i))
            action = lc[i - 1]
            assert isinstance(action, AIMessage)
            lc[i - 1] = action.model_copy(
                update={"tool_calls": [*action.tool_calls, {"name": "bash", "args": {}, "id": call_id, "type": "tool_call"}]}
            )
        placeholder_tokens = {}

        def cleared(m) -> bool:
            return bool(m.response_metadata.get("context_editing", {}).get("cleared"))

        def count(batch) -> int:
            n = 0
            for m in batch:
                if cleared(m):
                    text = m.content if isinstance(m.content, str) else str(m.content)
                    if text not in placeholder_tokens:
                        placeholder_tokens[text] = counter.count(text)
                    i = int(m.id)  # (a cleared output still pays its message's framing)
                    n += placeholder_tokens[text] + message_tokens(counter, {**messages[i], "content": ""})
                else:
                    n += sizes[int(m.id)]
            return n

        edit = ClearToolUsesEdit(trigger=budget, keep=0, clear_at_least=total - budget)
        middleware = ContextEditingMiddleware(edits=[edit], token_counter=count)
        seen = []
        middleware.wrap_model_call(ModelRequest(model=None, messages=lc), lambda request: seen.extend(request.messages))
        for m in seen:
            if cleared(m):
                i = int(m.id)
                view[i]["content"] = m.content
                sizes[i] = message_tokens(counter, view[i])
    alive = list(range(len(view)))
    used = sum(sizes)
    system = [i for i in alive if view[i].get("role") in ("system", "developer")]
    if used > budget and sum(sizes[i] for i in system) > budget:
        alive = [i for i in alive if i not in system]
        used -= sum(sizes[i] for i in system)
    while used > budget:
        rest = [i for i in alive if view[i].get("role") not in ("system", "developer")]
        if not rest:
            break  # only system messages left, within the budget by the step above
        first = rest[0]
        gone = {first}
        ids = {c.get("id") for c in view[first].get("tool_calls") or () if isinstance(c, dict)}
        if ids:
            gone.update(i for i in alive if view[i].get("role") == "tool" and view[i].get("tool_call_id") in ids)
        alive = [i for i in alive if i not in gone]
        used -= sum(sizes[i] for i in gone)
    return [view[i] for i in alive]


# -- optional: LLMLingua-2 --------------------------------------------------------

LLMLINGUA2_MODEL = os.environ.get(
    "DISCOURSE_MEMORY_LLMLINGUA2_MODEL", "microsoft/llmlingua-2-xlm-roberta-large-meetingbank"
)


def _llmlingua2_check() -> None:
    if importlib.util.find_spec("llmlingua") is None:
        raise MethodUnavailable(
            "llmlingua2 skipped: the 'llmlingua' package is not installed "
            "(pip install llmlingua, with the model "
            f"{LLMLINGUA2_MODEL} in the local Hugging Face cache or "
            "DISCOURSE_MEMORY_LLMLINGUA2_MODEL pointing at a local copy)"
        )


_LINGUA = {}


def llmlingua2_view(messages, budget, counter):
    _llmlingua2_check()
    from llmlingua import PromptCompressor

    if "c" not in _LINGUA:
        try:
            _LINGUA["c"] = PromptCompressor(model_name=LLMLINGUA2_MODEL, use_llmlingua2=True, device_map="cpu")
        except Exception as exc:  # model not cached, no network
            raise MethodUnavailable(f"llmlingua2 skipped: cannot load {LLMLINGUA2_MODEL}: {exc}") from None
    text = transcript(messages)
    framing = view_tokens(counter, [{"role": "user", "content": ""}])
    compressed = _LINGUA["c"].compress_prompt(text, target_token=max(1, budget - framing))["compressed_prompt"]
    return [{"role": "user", "content": compressed}]


# -- optional: an LLM summariser ----------------------------------------------------

SUMMARY_PROMPT = (
    "Summarise the earlier part of this conversation for the assistant that will continue it. "
    "Keep every fact it may need: names, ids, numbers, dates, file paths, decisions, open tasks. "
    "At most {tokens} tokens."
)


def _llm_summary_check() -> None:
    if importlib.util.find_spec("openai") is None:
        raise MethodUnavailable("llm-summary skipped: the 'openai' package is not installed (pip install openai)")
    if not os.environ.get("OPENAI_API_KEY"):
        raise MethodUnavailable(
            "llm-summary skipped: no LLM configured (set OPENAI_API_KEY, and optionally OPENAI_BASE_URL "
            "and DISCOURSE_MEMORY_SUMMARY_MODEL, default gpt-4o-mini)"
        )


def llm_summary_view(messages, budget, counter):
    """The usual LLM compaction: keep the newest messages within half the budget,
    replace everything older by one summary written by the configured model (its
    input cut head+tail to ``DISCOURSE_MEMORY_SUMMARY_MAX_INPUT`` tokens, default 100000)."""
    _llm_summary_check()
    from openai import OpenAI

    keep: list[dict] = []
    used = reply_tokens(counter)
    for message in reversed(messages):
        n = message_tokens(counter, message)
        if used + n > budget // 2:
            break
        keep.insert(0, message)
        used += n
    while keep and keep[0].get("role") == "tool":  # never start on an orphan tool result
        used -= message_tokens(counter, keep.pop(0))
    older = messages[: len(messages) - len(keep)]
    if not older:
        return list(keep)
    room = budget - used - message_tokens(counter, {"role": "system", "content": ""})  # (the summary's framing)
    max_input = int(os.environ.get("DISCOURSE_MEMORY_SUMMARY_MAX_INPUT", "100000"))
    reply = OpenAI().chat.completions.create(
        model=os.environ.get("DISCOURSE_MEMORY_SUMMARY_MODEL", "gpt-4o-mini"),
        messages=[
            {"role": "system", "content": SUMMARY_PROMPT.format(tokens=room)},
            {"role": "user", "content": head_tail(transcript(older), max_input, counter)},
        ],
        max_tokens=max(1, room - 16),
    )
    summary = reply.choices[0].message.content or ""
    note = {"role": "system", "content": summary[: counter.head(summary, room)]}
    return [note] + list(keep)


# -- registry ----------------------------------------------------------------------


@dataclass(frozen=True)
class Method:
    name: str
    run: Callable
    check: Callable[[], None]  # raises MethodUnavailable with the reason
    drops_system: bool = False
    """The view may leave the system prompt out to make room for the conversation
    (LangChain's ``include_system=False`` default, ChatMemoryBuffer's suffix). The bars
    compare such a method with ``discourse-memory-nosys``, which may too: the same
    budget buys the same conversation."""


def _needs(module: str, method: str, package: str) -> Callable[[], None]:
    def check() -> None:
        if importlib.util.find_spec(module.split(".")[0]) is None or importlib.util.find_spec(module) is None:
            raise MethodUnavailable(f"{method} skipped: {package} is not installed (pip install {package})")

    return check


METHODS: dict[str, Method] = {
    m.name: m
    for m in (
        Method("discourse-memory", discourse_memory_view, lambda: None),
        Method("discourse-memory-nosys", discourse_memory_nosys_view, lambda: None, drops_system=True),
        Method(
            "trim-last", trim_last_view, _needs("langchain_core.messages", "trim-last", "langchain-core"),
            drops_system=True,
        ),
        Method(
            "trim-last-system",
            trim_last_system_view,
            _needs("langchain_core.messages", "trim-last-system", "langchain-core"),
        ),
        Method(
            "llamaindex-buffer",
            llamaindex_buffer_view,
            _needs("llama_index.core", "llamaindex-buffer", "llama-index-core"),
            drops_system=True,
        ),
        Method("head-tail", head_tail_view, lambda: None),
        Method("bm25-retrieval", bm25_retrieval_view, _needs("bm25s", "bm25-retrieval", "bm25s"), drops_system=True),
        Method(
            "observation-masking",
            observation_masking_view,
            _needs("langchain.agents.middleware", "observation-masking", "langchain"),
        ),
        Method("full-history", full_history_view, lambda: None),
        Method("llmlingua2", llmlingua2_view, _llmlingua2_check),
        Method("llm-summary", llm_summary_view, _llm_summary_check),
    )
}
DEFAULT_METHODS = (
    "discourse-memory", "discourse-memory-nosys", "trim-last", "llamaindex-buffer", "head-tail",
    "bm25-retrieval", "observation-masking", "llmlingua2", "llm-summary", "full-history",
)


def resolve_methods(names: Sequence[str]) -> tuple[list[Method], list[str]]:
    """Available methods among ``names`` and the skip messages for the others.

    Unknown names raise ``ValueError`` listing the known ones."""
    unknown = [n for n in names if n not in METHODS]
    if unknown:
        raise ValueError(f"unknown method(s) {', '.join(unknown)}; known: {', '.join(METHODS)}")
    ready, skipped = [], []
    for name in names:
        method = METHODS[name]
        try:
            method.check()
        except MethodUnavailable as exc:
            skipped.append(str(exc))
        else:
            ready.append(method)
    return ready, skipped

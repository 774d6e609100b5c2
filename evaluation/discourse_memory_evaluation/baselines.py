"""The memories under test: this project's compaction and the baselines.

Each method is a function ``(messages, budget, counter) -> list[dict]`` that returns
the view a model would receive, in OpenAI chat format. Every method is given the
same budget in tokens of the same counter (content + tool-call name + arguments
per message, no per-message overhead: the core's rule), and every view is scored
with that counter, so budgets and violations are comparable.

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
from collections.abc import Callable, Sequence
from dataclasses import dataclass

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


def message_tokens(counter, message: dict) -> int:
    """Tokens of one message: text content + each tool call's name and arguments."""
    n = _content_tokens(counter, message.get("content"))
    for call in message.get("tool_calls") or ():
        function = call.get("function") or {}
        arguments = function.get("arguments")
        if not isinstance(arguments, str):
            arguments = json.dumps(arguments) if arguments is not None else ""
        n += counter.count(function.get("name") or "") + counter.count(arguments)
    return n


def view_tokens(counter, messages: Sequence[dict]) -> int:
    return sum(message_tokens(counter, m) for m in messages)


# -- this project -------------------------------------------------------------


class NotedView(list):
    """A view (list of messages) that knows which of its messages is the record note."""

    note: dict | None = None


def noted_view(result) -> NotedView:
    """A :class:`NotedView` of a ``Compaction``: its messages, the note marked by its
    ``None`` source."""
    view = NotedView(result.messages)
    for message, source in zip(result.messages, result.sources):
        if source is None:
            view.note = message
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

    def count_list(batch) -> int:  # tokens of the original messages, by id
        return sum(per_message[int(m.id)] for m in batch)

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
    return [{"role": "user", "content": head_tail(transcript(messages), budget, counter)}]


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
    compressed = _LINGUA["c"].compress_prompt(text, target_token=budget)["compressed_prompt"]
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
    used = 0
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
    room = budget - used
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
        Method("full-history", full_history_view, lambda: None),
        Method("llmlingua2", llmlingua2_view, _llmlingua2_check),
        Method("llm-summary", llm_summary_view, _llm_summary_check),
    )
}
DEFAULT_METHODS = (
    "discourse-memory", "discourse-memory-nosys", "trim-last", "llamaindex-buffer", "head-tail",
    "llmlingua2", "llm-summary", "full-history",
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

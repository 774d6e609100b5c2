"""Request framing: the tokens a chat API adds around the messages' text, so that a budget
bounds the request as the provider counts it, not only the text.

``Options.message_overhead`` names a rule (``"auto"``, the default, ``"openai"``,
``"anthropic"``, ``"none"``) or gives one (an int or a function of a message dict, with no
reply priming). A named rule resolves, with the compactor's token counter, to a
:class:`Framing`: the tokens each message adds beyond what the core already counts (its
text, its tool calls' names and arguments) and the tokens that prime the reply, paid once
per request. Rules and their sources: ``docs/formats.md`` ("Request framing").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["FRAMING_RULES", "RULES", "Framing", "FramingRule", "framing_of", "rule_for_format"]

FRAMING_RULES = ("auto", "openai", "anthropic", "none")
"""The names ``message_overhead`` accepts."""

# The keys whose values the core counts already (content, tool calls) or a rule counts
# apart (role, name, tool_call_id).
_COUNTED = frozenset({"role", "content", "tool_calls", "tool_call_id", "name"})

SENT_NAME = "_dm_name"
"""On an internal message read from another format: the ``name`` its message is sent with."""

@dataclass(frozen=True, slots=True, kw_only=True)
class FramingRule:
    """A provider's published (or estimated) framing: the tokens a request adds to its
    messages' text. A fact about the provider, not a weight: it is not tuned."""

    per_message: int
    """Tokens every message adds, beyond its role's and its values' tokens."""
    per_name: int
    """Tokens a message's ``name`` adds, beyond the name's own."""
    per_block: int
    """Tokens every tool call or tool result adds, beyond its id's and type's."""
    reply: int
    """Tokens that prime the reply: paid once per request."""


RULES: Mapping[str, FramingRule] = MappingProxyType({
    # OpenAI's cookbook (``num_tokens_from_messages``, "How to count tokens with tiktoken"):
    # every message is <|start|>{role/name}\n{content}<|end|>\n: 3 tokens plus the role's and
    # every other value's tokens, +1 for a name, and every reply is primed with
    # <|start|>assistant<|message|>: 3 tokens.
    "openai": FramingRule(per_message=3, per_name=1, per_block=0, reply=3),
    # Anthropic publishes no per-message rule: its token-counting endpoint is documented as an
    # estimate. A deliberately generous estimate, above OpenAI's: 5 per message plus the role,
    # 6 more per tool_use / tool_result block plus its id, 5 to prime the reply.
    "anthropic": FramingRule(per_message=5, per_name=1, per_block=6, reply=5),
})
"""The named rules (``FRAMING_RULES`` but ``"auto"`` and ``"none"``), by name."""


@dataclass(frozen=True)
class Framing:
    """What a request adds to its messages' text, with one token counter."""

    per_message: Callable[[Mapping[str, Any]], int] | int
    """Tokens one message adds beyond its text and its calls' names and arguments."""
    reply: int
    """Tokens that prime the reply: paid once per request, never per message."""


def rule_for_format(fmt: str) -> str:
    """The named rule ``"auto"`` stands for with messages of format ``fmt``: Anthropic's
    for Anthropic Messages, OpenAI's for everything else (OpenAI chat and Responses, and
    the LangChain and LlamaIndex dicts, which are sent to chat APIs of that shape)."""
    return "anthropic" if fmt == "anthropic" else "openai"


class _Rule:
    """A named rule bound to a counter: a function of a message dict. Short strings it
    meets again and again (roles, types) are counted once."""

    __slots__ = ("count", "per_message", "per_name", "per_block", "_memo")

    def __init__(self, count: Callable[[str], int], rule: FramingRule) -> None:
        self.count = count
        self.per_message = rule.per_message
        self.per_name = rule.per_name
        self.per_block = rule.per_block
        self._memo: dict[str, int] = {}

    def _tokens(self, text: str) -> int:
        n = self._memo.get(text)
        if n is None:
            n = self.count(text)
            if len(text) <= 32 and len(self._memo) < 4096:
                self._memo[text] = n
        return n

    def __call__(self, message: Mapping[str, Any]) -> int:
        tokens = self._tokens
        role = message.get("role")
        n = self.per_message + (tokens(role) if isinstance(role, str) else 0)
        name = message.get("name", message.get(SENT_NAME))
        if isinstance(name, str):
            n += tokens(name) + self.per_name
        call_id = message.get("tool_call_id")
        if isinstance(call_id, str):
            n += tokens(call_id) + self.per_block
        for call in message.get("tool_calls") or ():
            if isinstance(call, Mapping):
                cid, kind = call.get("id"), call.get("type", "function")
                n += (tokens(cid) if isinstance(cid, str) else 0) + (tokens(kind) if isinstance(kind, str) else 0)
                n += self.per_block
        for key, value in message.items():
            # (a value sent with the message, e.g. a refusal, is counted as the cookbook counts
            # every value; keys starting with "_" are this library's own, never sent)
            if isinstance(value, str) and key not in _COUNTED and not key.startswith("_"):
                n += tokens(value)
        return n


def framing_of(rule: Any, fmt: str, count: Callable[[str], int]) -> Framing:
    """The framing ``message_overhead=rule`` means for messages of format ``fmt``
    counted with ``count``. An int or a function is the caller's own per-message
    overhead, with no reply priming."""
    if not isinstance(rule, str):
        return Framing(rule, 0)
    name = rule_for_format(fmt) if rule == "auto" else rule
    if name == "none":
        return Framing(0, 0)
    known = RULES.get(name)
    if known is not None:
        return Framing(_Rule(count, known), known.reply)
    raise ValueError(f"unknown framing rule {rule!r}")  # (Options checks the name first)

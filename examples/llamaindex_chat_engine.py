"""A LlamaIndex chat engine whose memory compacts instead of forgetting.

Runs offline on LlamaIndex's mock LLM (no API key): a ``SimpleChatEngine`` with a
``DiscourseMemoryBuffer`` of ``TOKEN_LIMIT`` tokens goes through a long support
conversation full of order numbers, dates and e-mail addresses. After every turn
it checks what the LLM was sent: the memory's view fits the limit (minus the
system prompt, which the engine counts as ``initial_token_count``), and the chat
store still holds every message. At the end it counts the parcel ids the last
view shows, and the distinct facts the user stated that it shows, against what
LlamaIndex's ``ChatMemoryBuffer`` shows at the same limit.

Run (from the repository root, after `pip install -e . -e integrations/llamaindex`):

    python examples/llamaindex_chat_engine.py
"""

from __future__ import annotations

import json
import re
from typing import Any

from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.chat_engine import SimpleChatEngine
from llama_index.core.llms.mock import MockLLMWithChatMemoryOfLastCall
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.memory.discourse import DiscourseMemoryBuffer

TOKEN_LIMIT = 600
SYSTEM_PROMPT = "You are a support agent for a parcel company. Answer briefly."
CITIES = ["Lisbon", "Osaka", "Denver", "Nairobi", "Bergen", "Quito", "Tallinn"]


def user_turn(i: int) -> str:
    """A user message with a few facts (literals) and some chatter."""
    city = CITIES[i % len(CITIES)]
    return (
        f"Hi again. My parcel PKG-{4100 + i} left {city} on 2024-06-{1 + i % 28:02d} "
        f"and the tracking page still says 'in transit'. The invoice was INV-{88000 + 7 * i} "
        f"for ${12 + i}.50. You can reach me at customer{i}@example.org. "
        "I have been waiting for a long time and I would really like to know what is going on, "
        "because the last time this happened the parcel was lost and nobody told me anything."
    )


def view_tokens(memory: DiscourseMemoryBuffer, view: list[ChatMessage]) -> int:
    """Tokens of a view, as the memory's budget counts them (text + tool calls)."""
    return memory.count_tokens(view)


def parcel_ids(view: list[ChatMessage]) -> set[str]:
    """The distinct parcel ids (``PKG-...``) a view shows."""
    return set(re.findall(r"PKG-\d+", "\n".join(m.content or "" for m in view)))


_VALUES = re.compile(r"PKG-\d+|INV-\d+|\d{4}-\d\d-\d\d|\$\d+\.\d\d|[\w.]+@example\.org|" + "|".join(CITIES))


def values(view: list[ChatMessage]) -> set[str]:
    """The distinct facts the user turns state (parcel and invoice ids, dates, amounts,
    e-mail addresses, cities) that a view shows."""
    return set(_VALUES.findall("\n".join(m.content or "" for m in view)))


def run(turns: int = 40, token_limit: int = TOKEN_LIMIT) -> dict[str, Any]:
    """Chat for ``turns`` turns; return what was observed."""
    llm = MockLLMWithChatMemoryOfLastCall(max_tokens=12)
    memory = DiscourseMemoryBuffer.from_defaults(llm=llm, token_limit=token_limit)
    engine = SimpleChatEngine.from_defaults(llm=llm, memory=memory, system_prompt=SYSTEM_PROMPT)
    initial = len(memory.tokenizer_fn(SYSTEM_PROMPT))  # what SimpleChatEngine passes to get()

    view_sizes = []
    for i in range(turns):
        engine.chat(user_turn(i))
        sent = list(llm.last_chat_messages or [])
        view = sent[1:]  # the engine sends [system prompt, *memory.get(...)]
        view_sizes.append(view_tokens(memory, view))

    final_view = sent[1:]
    note = memory.last_compaction.note if memory.last_compaction is not None else None
    # LlamaIndex's own buffer at the same limit, on the same stored history, for comparison.
    baseline = ChatMemoryBuffer.from_defaults(
        chat_history=list(memory.get_all()), token_limit=token_limit, tokenizer_fn=memory.tokenizer_fn
    ).get(initial_token_count=initial)
    return {
        "turns": turns,
        "token_limit": token_limit,
        "budget_per_get": token_limit - initial,
        "max_view_tokens": max(view_sizes),
        "stored_messages": len(memory.get_all()),
        "full_history_tokens": memory.count_tokens(memory.get_all()),
        "final_view_messages": len(final_view),
        "parcel_ids_visible": len(parcel_ids(final_view)),
        "parcel_ids_visible_chat_memory_buffer": len(parcel_ids(baseline)),
        "values_stated": len(values(list(memory.get_all()))),
        "values_visible": len(values(final_view)),
        "values_visible_chat_memory_buffer": len(values(baseline)),
        # The note is a message of the view (role ``note_role``: "user" by default); the memory's
        # last compaction says which text it is.
        "record_note": next((m.content for m in final_view if note is not None and m.content == note), None),
    }


def main() -> None:
    summary = run()
    note = summary.pop("record_note")
    print(json.dumps(summary, indent=2))
    print("\nrecord note sent to the LLM (first 400 characters):")
    print((note or "(none: the history fit)")[:400])


if __name__ == "__main__":
    main()

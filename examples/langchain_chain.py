"""LCEL chains that keep a long chat inside a budget, with no LLM and no API key.

Run (from the repository root, after `pip install -e . -e integrations/langchain`):

    python examples/langchain_chain.py

1. `compact_messages` swapped in for `trim_messages` in a prompt | reducer | model
   chain: the same chain, one word changed. Both are run on the same history and
   the script prints what each sent the model.
2. `DiscourseChatMessageHistory` under `RunnableWithMessageHistory`: the store
   keeps every message, the chain reads a compacted view.

The chat model is LangChain's `GenericFakeChatModel` with scripted replies.
"""

from __future__ import annotations

import warnings
from typing import Any

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage, trim_messages
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import RunnableLambda
from langchain_core.runnables.history import RunnableWithMessageHistory
from langchain_discourse_memory import DiscourseChatMessageHistory, compact_messages, count_tokens

BUDGET = 450
count = count_tokens  # offline cl100k_base: text, tool-call names and arguments (the adapter's default)


def support_history() -> list[BaseMessage]:
    history: list[BaseMessage] = []
    for t in range(6):
        ticket = f"TCK-{3100 + t}"
        history += [
            HumanMessage(f"My router model RX-{40 + t} drops Wi-Fi since 2024-08-{10 + t:02d}. Ticket {ticket}?"),
            AIMessage("", tool_calls=[{"id": f"t{t}", "name": "get_ticket", "args": {"ticket_id": ticket}}]),
            ToolMessage(
                f'{{"ticket": "{ticket}", "status": "open", "firmware": "2.{t}.7", "owner": "eng_{t:02d}", '
                f'"log": "{"retry; " * 25}"}}',
                tool_call_id=f"t{t}",
            ),
            AIMessage(f"Ticket {ticket} is open with firmware 2.{t}.7; engineer eng_{t:02d} owns it."),
        ]
    return history


def show(title: str, messages: list[BaseMessage]) -> None:
    print(f"--- {title}: {len(messages)} messages, {count(messages)} tokens")
    for m in messages:
        text = m.content if isinstance(m.content, str) else str(m.content)
        print(f"  {m.type:6s} {text[:110]!r}")


def main() -> dict[str, Any]:
    prompt = ChatPromptTemplate.from_messages(
        [("system", "You are the support desk."), MessagesPlaceholder("history"), ("human", "{question}")]
    )
    inputs = {"history": support_history(), "question": "Which firmware did ticket TCK-3100 have?"}
    sent: dict[str, list[BaseMessage]] = {}
    for name, reducer in (("trim_messages", trim_messages), ("compact_messages", compact_messages)):
        model = GenericFakeChatModel(messages=iter(["(scripted reply)"]))
        capture = RunnableLambda(lambda msgs, name=name: sent.setdefault(name, msgs))
        chain = (
            prompt
            | reducer(max_tokens=BUDGET, token_counter=count, include_system=True, start_on="human")
            | capture
            | model
        )
        chain.invoke(inputs)
        show(f"{name} sends", sent[name])
    for name, msgs in sent.items():
        text = " ".join(str(m.content) for m in msgs)
        print(f"{name}: firmware of TCK-3100 (2.0.7) visible to the model: {'2.0.7' in text}")

    print("\n--- RunnableWithMessageHistory with DiscourseChatMessageHistory")
    store = DiscourseChatMessageHistory(max_tokens=BUDGET)
    store.add_messages(support_history())
    replies = iter([f"(scripted reply {i})" for i in range(3)])
    chat = prompt | GenericFakeChatModel(messages=replies)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # deprecated in langchain-core 1.3.3, still shipped
        with_history = RunnableWithMessageHistory(
            chat, lambda session_id: store, input_messages_key="question", history_messages_key="history"
        )
    for q in ["Is TCK-3105 fixed?", "And RX-40?", "Thanks!"]:
        with_history.invoke({"question": q}, config={"configurable": {"session_id": "demo"}})
    print(
        f"store: {len(store.full_messages)} messages, {count(store.full_messages)} tokens; "
        f"view: {len(store.messages)} messages, {count(store.messages)} tokens (budget {BUDGET})"
    )
    return {"sent": sent, "store": store}


if __name__ == "__main__":
    main()

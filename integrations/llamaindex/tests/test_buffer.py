"""DiscourseMemoryBuffer on its own: the ChatMemoryBuffer interface, budgets, serialisation."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from li_helpers import assert_tool_pairs, dumped, text_of, view_tokens
from llama_index.core.base.llms.types import ChatMessage, MessageRole, TextBlock, ToolCallBlock
from llama_index.core.bridge.pydantic import Field
from llama_index.core.llms import MockLLM
from llama_index.core.memory import ChatMemoryBuffer
from llama_index.core.storage.chat_store import BaseChatStore, SimpleChatStore
from llama_index.memory.discourse import DiscourseMemoryBuffer

CITIES = ["Lisbon", "Osaka", "Denver", "Nairobi", "Bergen", "Quito"]


def turn_text(i: int, words: int = 40) -> str:
    city = CITIES[i % len(CITIES)]
    filler = " ".join(["the shipment details were discussed again"] * (words // 6 + 1))
    return (
        f"Order ORD-{1000 + i} ships on 2024-0{1 + i % 9}-1{i % 10} to {city}. "
        f"{filler}. Contact agent{i}@example.com about invoice INV-{7000 + i}."
    )


def chat_history(turns: int, words: int = 40) -> list[ChatMessage]:
    out = []
    for i in range(turns):
        out.append(ChatMessage(role="user", content=turn_text(i, words)))
        out.append(ChatMessage(role="assistant", content=f"Noted: {turn_text(i + 500, words)}"))
    return out


def tool_history(groups: int, arg_words: int = 5) -> list[ChatMessage]:
    out: list[ChatMessage] = []
    for g in range(groups):
        out.append(ChatMessage(role="user", content=f"Please check order ORD-{2000 + g} and its invoice."))
        calls = [
            ToolCallBlock(
                tool_call_id=f"call-{g}-{k}",
                tool_name="lookup",
                tool_kwargs={"order_id": f"ORD-{2000 + g}", "note": " ".join(["detail"] * arg_words)},
            )
            for k in range(2)
        ]
        out.append(ChatMessage(role="assistant", blocks=[TextBlock(text="Looking it up."), *calls]))
        for k in range(2):
            out.append(
                ChatMessage(
                    role="tool",
                    content=f"ORD-{2000 + g} part {k}: shipped 2024-05-{10 + g % 20} from Hub-{g}{k}. " * 3,
                    additional_kwargs={"tool_call_id": f"call-{g}-{k}"},
                )
            )
        out.append(ChatMessage(role="assistant", content=f"Order ORD-{2000 + g} is on its way."))
    return out


def tail_group(history: list[ChatMessage]) -> list[ChatMessage]:
    """Independent statement of the last-resort view: the newest message, with the
    assistant message whose call it answers when it is a tool result."""
    start = len(history) - 1
    if history[start].role == MessageRole.TOOL:
        while history[start].role == MessageRole.TOOL:
            start -= 1
    return history[start:]


# ---- construction -------------------------------------------------------------


def test_from_defaults_token_limit_rules():
    assert DiscourseMemoryBuffer.from_defaults().token_limit == 3000
    llm = MockLLM()
    expected = int(llm.metadata.context_window * 0.75)
    assert DiscourseMemoryBuffer.from_defaults(llm=llm).token_limit == expected
    assert DiscourseMemoryBuffer.from_defaults(llm=llm, token_limit=123).token_limit == 123
    # Same rule as ChatMemoryBuffer.
    assert ChatMemoryBuffer.from_defaults(llm=llm).token_limit == expected


def test_from_defaults_sets_chat_history_into_the_given_store():
    store = SimpleChatStore()
    history = chat_history(2)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, chat_store=store, chat_store_key="k")
    assert mem.chat_store is store
    assert dumped(store.get_messages("k")) == dumped(history)


@pytest.mark.parametrize(
    "kwargs",
    [{"token_limit": 0}, {"token_limit": -5}, {"note_role": "assistant"}, {"unknown_option": 1}],
)
def test_from_defaults_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        DiscourseMemoryBuffer.from_defaults(**kwargs)


# ---- get ---------------------------------------------------------------------


def test_history_that_fits_is_returned_unchanged():
    history = chat_history(3)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=10_000)
    assert dumped(mem.get()) == dumped(history)


def test_empty_history_gives_empty_view():
    assert DiscourseMemoryBuffer.from_defaults(token_limit=50).get() == []


def test_long_history_view_fits_and_store_keeps_everything():
    history = chat_history(30)
    before = dumped(history)
    total = view_tokens(history)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=total // 4)
    view = mem.get()
    assert view_tokens(view) <= total // 4
    assert dumped(mem.get_all()) == before  # store untouched
    assert len(mem.get_all()) == 60
    # The newest turn is kept verbatim.
    assert dumped(view[-1:]) == dumped(history[-1:])
    assert text_of(view[-2]) == text_of(history[-2])


def test_last_compaction_dumps_to_an_inspector_page(tmp_path):
    history = chat_history(30)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=view_tokens(history) // 4)
    mem.get()
    page = tmp_path / "view.html"
    page.write_text(mem.last_compaction.to_html())  # the one-liner of the README
    html = page.read_text()
    assert "<!doctype html" in html.lower()
    assert f"data-count-omitted={mem.last_compaction.report.counts['omitted']}" in html \
        or f'data-count-omitted="{mem.last_compaction.report.counts["omitted"]}"' in html


def test_view_keeps_more_than_chat_memory_buffer_literals():
    history = chat_history(30)
    limit = view_tokens(history) // 4
    ours = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=limit).get()
    theirs = ChatMemoryBuffer.from_defaults(chat_history=history, token_limit=limit).get()
    ours_text = "\n".join(text_of(m) for m in ours)
    theirs_text = "\n".join(text_of(m) for m in theirs)
    ids = [f"ORD-{1000 + i}" for i in range(30)]
    assert sum(i in ours_text for i in ids) > sum(i in theirs_text for i in ids)


def test_initial_token_count_over_limit_raises_like_chat_memory_buffer():
    history = chat_history(2)
    ours = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=100)
    theirs = ChatMemoryBuffer.from_defaults(chat_history=history, token_limit=100)
    with pytest.raises(ValueError, match="Initial token count exceeds token limit"):
        theirs.get(initial_token_count=101)
    with pytest.raises(ValueError, match="Initial token count exceeds token limit"):
        ours.get(initial_token_count=101)
    with pytest.raises(ValueError, match="Initial token count exceeds token limit"):
        asyncio.run(ours.aget(initial_token_count=101))


def test_initial_token_count_shrinks_the_budget():
    history = chat_history(20)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=600)
    view = mem.get(initial_token_count=250)
    assert view_tokens(view) <= 350


def test_no_room_at_all_returns_the_newest_message_like_chat_memory_buffer():
    history = chat_history(5)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=100)
    theirs = ChatMemoryBuffer.from_defaults(chat_history=history, token_limit=100)
    assert dumped(mem.get(initial_token_count=100)) == dumped(history[-1:])
    assert dumped(theirs.get(initial_token_count=100)) == dumped(history[-1:])


def test_budget_below_the_newest_turn_does_not_raise():
    history = chat_history(5, words=200)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=30)
    view = mem.get()
    assert view, "a chat engine must always get something to send"
    assert view_tokens(view) <= 30 or dumped(view) == dumped(tail_group(history))


def test_newest_turn_too_big_keeps_its_newest_message_and_compacts_the_rest():
    history = chat_history(10)
    history.append(ChatMessage(role="user", content=turn_text(99, words=400)))
    history.append(ChatMessage(role="assistant", content="Order ORD-1099 is confirmed for Lisbon."))
    limit = view_tokens(history[-1:]) + 150  # room for the answer, not for the whole turn
    assert view_tokens(history[-2:]) > limit
    view = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=limit).get()
    assert view_tokens(view) <= limit
    assert dumped(view[-1:]) == dumped(history[-1:])
    assert len(view) > 1  # something of the earlier conversation is there too


def test_view_follows_any_change_of_the_store():
    """The view follows every change of the store (set, put, reset): no stale cache."""
    first, second = chat_history(12), tool_history(6)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=first, token_limit=250)
    mem.get()
    mem.set(second)
    fresh = DiscourseMemoryBuffer.from_defaults(chat_history=second, token_limit=250)
    assert dumped(mem.get()) == dumped(fresh.get())
    mem.put(ChatMessage(role="user", content="and one more thing: ORD-4242"))
    fresh.put(ChatMessage(role="user", content="and one more thing: ORD-4242"))
    assert dumped(mem.get()) == dumped(fresh.get())
    mem.reset()
    assert mem.get() == []
    mem.set(first[:2])  # fits: returned as is
    assert view_tokens(first[:2]) <= 250
    assert dumped(mem.get()) == dumped(first[:2])


def test_tool_calls_are_counted_and_kept_paired():
    history = tool_history(12, arg_words=120)
    limit = view_tokens(history) // 3
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=limit)
    view = mem.get()
    assert view_tokens(view) <= limit
    assert_tool_pairs(view)
    # LlamaIndex's own buffer ignores the arguments and overshoots the same limit.
    theirs = ChatMemoryBuffer.from_defaults(chat_history=history, token_limit=limit).get()
    assert view_tokens(theirs) > limit


def test_user_note_role_makes_the_view_start_with_a_user_message():
    history = [ChatMessage(role="system", content="Be brief."), *tool_history(12)]
    limit = view_tokens(history) // 4
    view = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=limit, note_role="user").get()
    assert view_tokens(view) <= limit
    assert view[0].role == MessageRole.SYSTEM and text_of(view[0]) == "Be brief."
    assert view[1].role == MessageRole.USER  # the record note
    assert all(m.role != MessageRole.SYSTEM for m in view[1:])


def test_aget_matches_get():
    history = tool_history(8)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=300)
    # The same call either way (an ``input`` is the focus, so both get the same one).
    assert dumped(asyncio.run(mem.aget(input="ignored", initial_token_count=40))) == dumped(
        mem.get(input="ignored", initial_token_count=40)
    )
    assert dumped(asyncio.run(mem.aget(initial_token_count=40))) == dumped(mem.get(initial_token_count=40))


def test_custom_tokenizer_fn_sets_the_unit_of_the_budget():
    def words(text: str) -> list[str]:
        return text.split()

    history = chat_history(15)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=300, tokenizer_fn=words)
    view = mem.get()
    # (the request in words: the text's, and the framing counted with the same tokenizer_fn:
    # 3 + the role's one word a message, 3 to prime the reply)
    assert mem.count_tokens(view) == sum(len(text_of(m).split()) + 4 for m in view) + 3 <= 300


def test_view_messages_are_copies():
    history = chat_history(10)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=200)
    before = dumped(mem.get_all())
    for m in mem.get():
        m.blocks.append(TextBlock(text="mutated"))
        m.additional_kwargs["mutated"] = True
    assert dumped(mem.get_all()) == before


# ---- the store is the source of truth ----------------------------------------


def test_put_set_reset_and_async_variants_go_to_the_store():
    mem = DiscourseMemoryBuffer.from_defaults(token_limit=500)
    a, b, c, d = (ChatMessage(role="user", content=x) for x in "abcd")
    mem.put(a)
    asyncio.run(mem.aput(b))
    mem.put_messages([c])
    asyncio.run(mem.aput_messages([d]))
    assert [m.content for m in mem.get_all()] == ["a", "b", "c", "d"]
    assert [m.content for m in asyncio.run(mem.aget_all())] == ["a", "b", "c", "d"]
    mem.set([a])
    assert [m.content for m in mem.get_all()] == ["a"]
    mem.reset()
    assert mem.get_all() == [] and mem.get() == []
    mem.put(a)
    asyncio.run(mem.areset())
    assert mem.get_all() == []


class JsonChatStore(BaseChatStore):
    """A store that keeps JSON strings and returns fresh objects, as Redis/Postgres do."""

    data: dict[str, list[str]] = Field(default_factory=dict)

    @classmethod
    def class_name(cls) -> str:
        return "JsonChatStore"

    def set_messages(self, key: str, messages: list[ChatMessage]) -> None:
        self.data[key] = [m.model_dump_json() for m in messages]

    def get_messages(self, key: str) -> list[ChatMessage]:
        return [ChatMessage.model_validate_json(s) for s in self.data.get(key, [])]

    def add_message(self, key: str, message: ChatMessage, idx: int | None = None) -> None:
        self.data.setdefault(key, []).append(message.model_dump_json())

    def delete_messages(self, key: str) -> list[ChatMessage] | None:
        return [ChatMessage.model_validate_json(s) for s in self.data.pop(key, [])]

    def delete_message(self, key: str, idx: int) -> ChatMessage | None:
        return ChatMessage.model_validate_json(self.data[key].pop(idx))

    def delete_last_message(self, key: str) -> ChatMessage | None:
        return ChatMessage.model_validate_json(self.data[key].pop())

    def get_keys(self) -> list[str]:
        return list(self.data)


def test_works_on_a_store_that_returns_fresh_objects():
    store = JsonChatStore(data={})
    history = tool_history(10)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, chat_store=store, token_limit=250)
    view = mem.get()
    assert view_tokens(view) <= 250
    assert_tool_pairs(view)
    assert dumped(store.get_messages("chat_history")) == dumped(history)


# ---- serialisation ---------------------------------------------------------------


def test_to_dict_round_trip_through_json():
    history = tool_history(4)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=200, note_role="user")
    data = json.loads(json.dumps(mem.to_dict()))
    assert data["class_name"] == "DiscourseMemoryBuffer"
    back = DiscourseMemoryBuffer.from_dict(data)
    assert back.token_limit == 200 and back.note_role == "user"
    assert back.chat_store_key == mem.chat_store_key
    assert dumped(back.get_all()) == dumped(history)
    assert dumped(back.get()) == dumped(mem.get())
    again = DiscourseMemoryBuffer.from_string(mem.to_string())
    assert dumped(again.get_all()) == dumped(history)
    # pydantic's own dump works too (the base class's store serialiser does not).
    assert mem.dict()["chat_store"]["class_name"] == "SimpleChatStore"
    assert json.loads(mem.json())["token_limit"] == 200


def test_from_dict_rejects_newer_versions_and_unknown_stores():
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=chat_history(1), token_limit=50)
    data = mem.to_dict()
    with pytest.raises(ValueError, match="version"):
        DiscourseMemoryBuffer.from_dict({**data, "version": 99})
    unknown = {**data, "chat_store": {"class_name": "NoSuchChatStore"}}
    with pytest.raises(ValueError, match="chat_store="):
        DiscourseMemoryBuffer.from_dict(unknown)
    store = SimpleChatStore()
    assert DiscourseMemoryBuffer.from_dict(unknown, chat_store=store).chat_store is store


def test_from_dict_finds_imported_store_classes():
    store = JsonChatStore(data={})
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=chat_history(2), chat_store=store, token_limit=50)
    back = DiscourseMemoryBuffer.from_dict(json.loads(json.dumps(mem.to_dict())))
    assert isinstance(back.chat_store, JsonChatStore)
    assert dumped(back.get_all()) == dumped(chat_history(2))


class UrlJsonChatStore(JsonChatStore):
    """A store whose settings hold a database URL (with a password) and a password field."""

    database_url: str = "postgresql://app:pw-in-url@db.internal:5432/chat"
    password: str | None = None

    @classmethod
    def class_name(cls) -> str:
        return "UrlJsonChatStore"


def test_a_store_password_is_never_saved_and_restoring_asks_for_the_store():
    store = UrlJsonChatStore(data={}, password="pw-field")
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=chat_history(1), chat_store=store, token_limit=50)
    text = json.dumps(mem.to_dict())
    assert "pw-in-url" not in text and "pw-field" not in text
    saved = json.loads(text)["chat_store"]
    assert saved["database_url"] == "postgresql://app@db.internal:5432/chat"
    assert saved["credentials"] == "not saved" and "password" not in saved
    with pytest.raises(ValueError, match=r"needs credentials.*chat_store=UrlJsonChatStore"):
        DiscourseMemoryBuffer.from_dict(json.loads(text))
    assert DiscourseMemoryBuffer.from_dict(json.loads(text), chat_store=store).chat_store is store
    plain = UrlJsonChatStore(data={}, database_url="sqlite:///chat.db")
    saved = DiscourseMemoryBuffer.from_defaults(chat_store=plain, token_limit=50).to_dict()["chat_store"]
    assert "credentials" not in saved and saved["database_url"] == "sqlite:///chat.db"


# ---- properties ----------------------------------------------------------------------

_words = st.lists(
    st.sampled_from(["alpha", "ORD-77", "2024-05-01", "Lisbon", "the", "value", "is", "42", "ok.", "x@y.io"]),
    min_size=0,
    max_size=40,
).map(" ".join)


@st.composite
def conversations(draw: Any) -> list[ChatMessage]:
    messages: list[ChatMessage] = []
    if draw(st.booleans()):
        messages.append(ChatMessage(role="system", content=draw(_words) or "be helpful"))
    for g in range(draw(st.integers(1, 8))):
        messages.append(ChatMessage(role="user", content=draw(_words)))
        if draw(st.booleans()):
            n_calls = draw(st.integers(1, 3))
            ids = [f"c{g}_{k}" for k in range(n_calls)]
            messages.append(
                ChatMessage(
                    role="assistant",
                    blocks=[TextBlock(text=draw(_words))]
                    + [ToolCallBlock(tool_call_id=i, tool_name="tool", tool_kwargs={"q": draw(_words)}) for i in ids],
                )
            )
            for i in ids:
                messages.append(ChatMessage(role="tool", content=draw(_words), additional_kwargs={"tool_call_id": i}))
        if draw(st.booleans()):
            messages.append(ChatMessage(role="assistant", content=draw(_words)))
    return messages


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(history=conversations(), limit=st.integers(1, 400), initial=st.integers(0, 60))
def test_property_view_fits_pairs_and_store_is_untouched(history, limit, initial):
    before = dumped(history)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=limit)
    if initial > limit:
        with pytest.raises(ValueError):
            mem.get(initial_token_count=initial)
        return
    view = mem.get(initial_token_count=initial)
    assert view
    fits = view_tokens(view) <= limit - initial
    assert fits or dumped(view) == dumped(tail_group(history))
    if fits:
        assert_tool_pairs(view)
    assert dumped(mem.get_all()) == before
    if view_tokens(history) <= limit - initial:
        assert dumped(view) == before
    # Every message except a record note comes from the history, with its role.
    roles = [m.role for m in history]
    for m in view:
        assert m.role in roles or m.role == MessageRole.SYSTEM


def test_copy_and_pickle_keep_working():
    import copy
    import pickle

    history = chat_history(10)
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=200)
    view = dumped(mem.get())
    for other in (copy.deepcopy(mem), pickle.loads(pickle.dumps(mem))):
        assert dumped(other.get()) == view
        assert dumped(other.get_all()) == dumped(history)


# ---- a ChatMemoryBuffer by every check a caller applies --------------------------------


def test_is_a_chat_memory_buffer():
    from llama_index.core.memory.types import BaseChatStoreMemory, BaseMemory

    mem = DiscourseMemoryBuffer.from_defaults(token_limit=100)
    assert isinstance(mem, ChatMemoryBuffer) and isinstance(mem, BaseChatStoreMemory) and isinstance(mem, BaseMemory)
    assert mem.class_name() == "DiscourseMemoryBuffer"
    assert ChatMemoryBuffer.from_defaults.__func__ is not DiscourseMemoryBuffer.from_defaults.__func__


@pytest.fixture
def focus_seen(monkeypatch):
    import discourse_memory

    seen = []
    original = discourse_memory.Compactor.compact

    def spy(self, messages, budget, options=None, *, focus=discourse_memory.NEWEST_TURN, **kwargs):
        seen.append(focus)
        return original(self, messages, budget, options, focus=focus, **kwargs)

    monkeypatch.setattr(discourse_memory.Compactor, "compact", spy)
    return seen


def test_input_is_the_focus_of_get_and_aget(focus_seen):
    from discourse_memory import NEWEST_TURN

    mem = DiscourseMemoryBuffer.from_defaults(chat_history=chat_history(20), token_limit=400)
    mem.get()
    mem.get(input="Where does ORD-1003 ship to?")
    asyncio.run(mem.aget(input="And invoice INV-7005?", initial_token_count=50))
    mem.get(input="   ")  # no usable input: the newest turn
    mem.get(input="ignored", focus=None)  # focus= overrides
    assert focus_seen == [NEWEST_TURN, "Where does ORD-1003 ship to?", "And invoice INV-7005?", NEWEST_TURN, None]


def test_the_question_asked_brings_its_answer_into_the_view():
    history = chat_history(30)
    limit = view_tokens(history) // 6
    mem = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=limit)
    unfocused = "\n".join(text_of(m) for m in mem.get(focus=None))
    focused = "\n".join(text_of(m) for m in mem.get(input="Which city does order ORD-1002 ship to, and on which date?"))
    assert view_tokens(mem.get(input="Which city does order ORD-1002 ship to?")) <= limit
    assert "Denver" in focused and "ORD-1002" in focused
    assert focused != unfocused


def test_initial_token_count_as_chat_memory_buffer():
    history = chat_history(5)
    ours = DiscourseMemoryBuffer.from_defaults(chat_history=history, token_limit=200)
    theirs = ChatMemoryBuffer.from_defaults(chat_history=history, token_limit=200)
    # a negative count widens the budget in both (no error where ChatMemoryBuffer gives none)
    assert dumped(ours.get(initial_token_count=-10_000)) == dumped(history) == dumped(theirs.get(initial_token_count=-10_000))
    # the whole limit taken: the newest message, in both
    assert dumped(ours.get(initial_token_count=200)) == dumped(history[-1:]) == dumped(theirs.get(initial_token_count=200))
    assert view_tokens(ours.get(initial_token_count=110)) <= 90  # (the newest message: 75 tokens of text, 7 of framing)

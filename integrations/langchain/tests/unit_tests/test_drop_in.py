"""compact_messages is a drop-in by the tests a user's code applies: its signature, start_on,
include_system, the Runnable form, and the focus it hands the core."""

from __future__ import annotations

import inspect
import json

import pytest
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage, trim_messages
from langchain_core.runnables import RunnableLambda
from langchain_discourse_memory import (
    DiscourseChatMessageHistory,
    DiscourseCompactionMiddleware,
    compact_messages,
    compact_view,
    count_tokens,
)
from langchain_discourse_memory._convert import NOTE_SOURCE_TAG
from langchain_discourse_memory.testing import orphan_tool_messages, sample_conversation

import discourse_memory
from discourse_memory import NEWEST_TURN

QUESTION = "Please check reservations 1N99U6 and 4KX2P7 of user james_taylor_7043 and list their flights."


def repeated_question(turns: int = 4) -> list[BaseMessage]:
    """An agent history whose first question comes again as the newest turn: the core drops the
    older copy as a repeat, so the compacted view opens with the agent's tool calls."""
    messages: list[BaseMessage] = [SystemMessage("You are an airline agent. Look reservations up before answering.")]
    for t in range(turns):
        messages.append(HumanMessage(QUESTION if t == 0 else f"And the baggage allowance for trip {t} on 2024-05-{10 + t}?"))
        for k, rid in enumerate(("1N99U6", "4KX2P7")):
            flights = [{"flight_number": f"HAT{t}{k}{j}", "date": f"2024-05-{10 + j:02d}"} for j in range(3)]
            messages.append(AIMessage(f"Looking up {rid}.", tool_calls=[
                {"id": f"c{t}{k}", "name": "get_reservation_details", "args": {"reservation_id": rid, "trip": t}}]))
            messages.append(ToolMessage(json.dumps({"reservation_id": rid, "trip": t, "flights": flights, "bags": t + k}),
                                        tool_call_id=f"c{t}{k}"))
        messages.append(AIMessage(f"Trip {t}: 1N99U6 and 4KX2P7 hold 6 flights; allowance {t} and {t + 1} bags."))
    return [*messages, HumanMessage(QUESTION)]


def first_non_system(messages: list[BaseMessage]) -> BaseMessage:
    return next(m for m in messages if not isinstance(m, SystemMessage))


def test_signature_lists_trim_messages_parameters() -> None:
    ours = inspect.signature(compact_messages).parameters
    theirs = inspect.signature(trim_messages).parameters
    assert "max_tokens" in ours and ours["max_tokens"].default is inspect.Parameter.empty
    assert ours["max_tokens"].kind is inspect.Parameter.KEYWORD_ONLY
    assert list(theirs) == list(ours)[: len(theirs)]  # same names, same order, then ours
    for name in ("strategy", "allow_partial", "end_on", "start_on", "include_system", "text_splitter"):
        assert ours[name].default == theirs[name].default, name
    with pytest.raises(TypeError, match="max_tokens"):
        compact_messages(sample_conversation(1))  # type: ignore[call-arg]


@pytest.mark.parametrize("budget", [400, 600])
def test_start_on_human_keeps_as_much_as_trim_messages(budget: int) -> None:
    conv = repeated_question()
    assert count_tokens(conv) > budget
    system_note = compact_messages(conv, max_tokens=budget, note_role="system")
    assert isinstance(first_non_system(system_note), AIMessage)  # the case of the issue: the view opens with AI
    out = compact_messages(conv, max_tokens=budget, start_on="human")
    opener = first_non_system(out)
    assert isinstance(opener, HumanMessage) and opener.additional_kwargs["lc_source"] == NOTE_SOURCE_TAG
    trimmed = trim_messages(conv, max_tokens=budget, token_counter=count_tokens, start_on="human")
    # as much as trim_messages (which can fill the budget to the token, whole messages permitting)
    assert count_tokens(out) >= 0.97 * count_tokens(trimmed)
    # nothing was dropped for start_on: the very view of note_role="user"
    assert [m.content for m in out] == [m.content for m in compact_messages(conv, max_tokens=budget, note_role="user")]
    assert count_tokens(out) <= budget and orphan_tool_messages(out) == []


def test_start_on_human_with_a_system_note_is_refused_and_other_types_drop_like_trim() -> None:
    with pytest.raises(ValueError, match="note_role"):
        compact_messages(max_tokens=100, start_on="human", note_role="system")
    conv = repeated_question()[1:]
    fits = [*conv[1:3], *conv[-2:]]  # opens with an AIMessage and its result, fits the budget
    assert compact_messages(fits, max_tokens=10_000, start_on="human") == fits[3:]  # as trim_messages
    assert trim_messages(fits, max_tokens=10_000, token_counter=count_tokens, start_on="human") == fits[3:]


def test_include_system_false_never_puts_the_note_before_a_system_prompt() -> None:
    policy = SystemMessage("Policy: " + "Always verify the booking id before any change; quote the fare. " * 40)
    conv = [policy, *sample_conversation(10)[1:]]
    for budget in (250, 400, 700):
        out = compact_messages(conv, max_tokens=budget)  # include_system=False, trim_messages' default
        note = next(i for i, m in enumerate(out) if m.additional_kwargs.get("lc_source") == NOTE_SOURCE_TAG)
        assert all(isinstance(m, SystemMessage) for m in out[:note])
        assert not any(isinstance(m, SystemMessage) for m in out[note + 1 :])
        assert count_tokens(out) <= budget
    assert compact_messages(conv, max_tokens=700)[0].content != policy.content  # the prompt itself was compacted


def test_runnable_form_keeps_one_compactor(monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[int] = []
    original = discourse_memory.Compactor.compact

    def spy(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(id(self))
        return original(self, *args, **kwargs)

    monkeypatch.setattr(discourse_memory.Compactor, "compact", spy)
    runnable = compact_messages(max_tokens=300)
    assert isinstance(runnable, RunnableLambda)
    conv = sample_conversation(8)
    for n in (20, 25, 33):
        runnable.invoke(conv[:n])
    assert len(seen) == 3 and len(set(seen)) == 1  # one session: the core extends its analysis


@pytest.fixture
def focus_seen(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    seen: list[object] = []
    original = discourse_memory.Compactor.compact

    def spy(self, messages, budget, options=None, *, focus=NEWEST_TURN, **kwargs):  # type: ignore[no-untyped-def]
        seen.append(focus)
        return original(self, messages, budget, options, focus=focus, **kwargs)

    monkeypatch.setattr(discourse_memory.Compactor, "compact", spy)
    return seen


def test_focus_reaches_the_core(focus_seen: list[object]) -> None:
    from langchain.agents.middleware.types import ModelRequest
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel

    conv = sample_conversation(8)
    compact_messages(conv, max_tokens=300)
    compact_messages(conv, max_tokens=300, focus="ORD-1002")
    compact_messages(conv, max_tokens=300, focus=None)
    compact_view(conv, max_tokens=300, focus="ORD-1003")
    history = DiscourseChatMessageHistory(max_tokens=300)
    history.add_messages(conv)
    history.messages  # noqa: B018
    history.view(focus="ORD-1004")
    middleware = DiscourseCompactionMiddleware(keep=("tokens", 300))
    model = GenericFakeChatModel(messages=iter(()))
    middleware.compact_request(ModelRequest(model=model, messages=conv[1:], system_message=None, state={}))
    assert focus_seen == [NEWEST_TURN, "ORD-1002", None, "ORD-1003", NEWEST_TURN, "ORD-1004", NEWEST_TURN]


def test_the_compact_view_example_of_the_readme_works() -> None:
    page = compact_view(sample_conversation(8), max_tokens=300).compaction.to_html()
    assert "<!doctype html" in page.lower()
    fits = compact_view(sample_conversation(1), max_tokens=4000)
    assert fits.compaction.note is None and "<!doctype html" in fits.compaction.to_html().lower()

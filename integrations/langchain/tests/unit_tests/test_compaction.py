"""compact_messages: the trim_messages drop-in."""

from __future__ import annotations

import asyncio

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, SystemMessage, ToolMessage
from langchain_core.messages.utils import count_tokens_approximately
from langchain_core.prompts import ChatPromptTemplate, MessagesPlaceholder
from langchain_core.runnables import Runnable
from langchain_discourse_memory import compact_messages, compact_view
from langchain_discourse_memory._convert import NOTE_SOURCE_TAG
from langchain_discourse_memory._counting import resolve_token_counter
from langchain_discourse_memory.testing import orphan_tool_messages, sample_conversation

COUNT = resolve_token_counter(None).messages


def is_note(m: BaseMessage) -> bool:
    return m.additional_kwargs.get("lc_source") == NOTE_SOURCE_TAG


def check_view(original: list[BaseMessage], out: list[BaseMessage]) -> None:
    """Invariants of any compacted view."""
    assert orphan_tool_messages(out) == []
    assert sum(is_note(m) for m in out) <= 1
    by_id = {m.id: (i, m) for i, m in enumerate(original)}
    positions = []
    for m in out:
        if is_note(m):
            continue
        i, orig = by_id[m.id]
        assert type(m) is type(orig)
        assert m.name == orig.name
        positions.append(i)
        if isinstance(m, ToolMessage):
            assert m.tool_call_id == orig.tool_call_id
        if isinstance(m, AIMessage):
            assert m.tool_calls in ([], orig.tool_calls)
            block_ids = (
                {b.get("id") for b in m.content if isinstance(b, dict) and b.get("type") == "tool_use"}
                if isinstance(m.content, list)
                else set()
            )
            assert block_ids <= {c["id"] for c in m.tool_calls}
    assert positions == sorted(positions) and len(set(positions)) == len(positions)


def test_input_that_fits_is_returned_unchanged() -> None:
    conv = sample_conversation(2)
    out = compact_messages(conv, max_tokens=10_000)
    assert len(out) == len(conv) and all(a is b for a, b in zip(out, conv, strict=True))


def test_over_budget_fits_keeps_last_turn_and_adds_a_record_note() -> None:
    conv = sample_conversation(8)
    assert COUNT(conv) > 400
    out = compact_messages(conv, max_tokens=400, include_system=True)
    assert COUNT(out) <= 400
    check_view(conv, out)
    assert out[0] is conv[0]  # system kept verbatim
    notes = [m for m in out if is_note(m)]
    assert len(notes) == 1 and isinstance(notes[0], SystemMessage) and out[1] is notes[0]
    last_turn = conv[-4:]  # the last human message and everything after it
    assert all(a is b for a, b in zip(out[-4:], last_turn, strict=True))
    assert notes[0].content.strip()


@pytest.mark.parametrize(
    "counter",
    [
        "approximate",
        count_tokens_approximately,
        GenericFakeChatModel(messages=iter(()), custom_get_token_ids=lambda s: list(range(len(s.split())))),
    ],
    ids=["approximate", "function", "model"],
)
def test_user_counters_with_per_message_overhead_are_respected(counter: object) -> None:
    conv = sample_conversation(8)
    counting = resolve_token_counter(counter)  # type: ignore[arg-type]
    budget = counting.messages(conv) // 3
    out = compact_messages(conv, max_tokens=budget, token_counter=counter, include_system=True)
    assert counting.messages(out) <= budget
    assert len(out) < len(conv)
    check_view(conv, out)


def test_note_role_user_gives_a_human_note() -> None:
    out = compact_messages(sample_conversation(8), max_tokens=400, include_system=True, note_role="user")
    notes = [m for m in out if is_note(m)]
    assert len(notes) == 1 and isinstance(notes[0], HumanMessage)


def test_runnable_form_and_async() -> None:
    conv = sample_conversation(8)
    runnable = compact_messages(max_tokens=400, include_system=True)
    assert isinstance(runnable, Runnable)
    direct = compact_messages(conv, max_tokens=400, include_system=True)
    via = runnable.invoke(conv)
    via_async = asyncio.run(runnable.ainvoke(conv))
    as_tuples = [[(type(m), m.content, m.id) for m in x] for x in (direct, via, via_async)]
    assert as_tuples[0] == as_tuples[1] == as_tuples[2]


def test_prompt_value_input() -> None:
    prompt = ChatPromptTemplate.from_messages([("system", "Be brief."), MessagesPlaceholder("history")])
    value = prompt.invoke({"history": sample_conversation(8)[1:]})
    out = compact_messages(value, max_tokens=400, include_system=True)
    assert COUNT(out) <= 400 and out[0].content == "Be brief."


def test_trim_messages_keywords_are_accepted() -> None:
    conv = sample_conversation(8)
    out = compact_messages(
        conv,
        max_tokens=400,
        strategy="last",
        token_counter=None,
        include_system=True,
        allow_partial=False,
        start_on="human",
        end_on=("human", "ai", "tool"),
        text_splitter=lambda s: s.split("\n"),
    )
    first_non_system = next(m for m in out if not isinstance(m, SystemMessage))
    assert isinstance(first_non_system, HumanMessage)
    check_view(conv, out)


def test_end_on_drops_trailing_messages_and_their_results() -> None:
    conv = sample_conversation(3)[:-1]  # ends with a ToolMessage
    out = compact_messages(conv, max_tokens=10_000, end_on="human")
    assert isinstance(out[-1], HumanMessage)
    assert orphan_tool_messages(out) == []


@pytest.mark.parametrize("counter", [None, "approximate"])
@pytest.mark.parametrize("max_tokens", [300, 100_000], ids=["compacted", "fits"])
def test_orphan_tool_messages_in_the_input_are_not_passed_on(max_tokens: int, counter: str | None) -> None:
    conv = [ToolMessage("stale result 123", tool_call_id="gone", id="orphan")] + sample_conversation(8)[1:]
    out = compact_messages(conv, max_tokens=max_tokens, token_counter=counter)
    assert orphan_tool_messages(out) == []
    assert all(m.id != "orphan" for m in out)


def test_strategy_first_is_refused() -> None:
    with pytest.raises(ValueError, match="strategy='last'"):
        compact_messages(sample_conversation(2), max_tokens=100, strategy="first")  # type: ignore[arg-type]


def test_bad_arguments_fail_clearly_and_early() -> None:
    with pytest.raises(TypeError, match="max_tokens"):
        compact_messages(sample_conversation(1), max_tokens="100")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=">= 0"):
        compact_messages(max_tokens=-5)
    with pytest.raises(TypeError, match="max_tokens"):
        compact_messages()
    with pytest.raises(ValueError, match="counts messages"):
        compact_messages(max_tokens=10, token_counter=len)
    with pytest.raises(TypeError, match="unexpected keyword"):
        compact_messages(sample_conversation(1), max_tokens=10, bogus=1)


def test_budget_too_small_for_the_protected_messages_degrades_or_raises_when_strict() -> None:
    conv = [SystemMessage("policy " * 300, id="s"), HumanMessage("hello", id="h")]
    # By default the core protects less (the newest message alone) and compacts the system prompt.
    out = compact_messages(conv, max_tokens=100, include_system=True)
    assert COUNT(out) <= 100 and out[-1] is conv[-1]
    assert compact_view(conv, max_tokens=100).compaction.report.protection != "system + newest turn"
    with pytest.raises(ValueError, match="too small") as info:
        compact_messages(conv, max_tokens=100, include_system=True, strict=True)
    assert info.value.minimum > 100  # type: ignore[attr-defined]


def test_relax_protects_less_instead_of_raising() -> None:
    conv = sample_conversation(4)[1:] + [HumanMessage("Summarise all orders: " + "ORD-1000 details. " * 120, id="big")]
    with pytest.raises(ValueError, match="too small"):
        compact_messages(conv, max_tokens=300)
    out = compact_messages(conv, max_tokens=300, relax=True)
    assert COUNT(out) <= 300
    check_view(conv, out)


def test_deterministic() -> None:
    conv = sample_conversation(8)
    a = compact_messages(conv, max_tokens=300, include_system=True)
    b = compact_messages(conv, max_tokens=300, include_system=True)
    assert [(type(m), m.content, m.id) for m in a] == [(type(m), m.content, m.id) for m in b]


def test_ai_list_content_with_tool_use_blocks_stays_consistent() -> None:
    conv: list[BaseMessage] = [SystemMessage("sys", id="s")]
    for t in range(6):
        conv += [
            HumanMessage(f"look up booking BK-{t:03d} for passenger number {t} please " * 3, id=f"h{t}"),
            AIMessage(
                [
                    {"type": "text", "text": f"Looking up BK-{t:03d} now."},
                    {"type": "tool_use", "id": f"tu{t}", "name": "get_booking", "input": {"id": f"BK-{t:03d}"}},
                ],
                tool_calls=[{"id": f"tu{t}", "name": "get_booking", "args": {"id": f"BK-{t:03d}"}}],
                id=f"a{t}",
            ),
            ToolMessage(
                f"booking BK-{t:03d}: seat {t}A, fare $" + f"{200 + t}" + " " + "x" * 200,
                tool_call_id=f"tu{t}",
                id=f"t{t}",
            ),
        ]
    out = compact_messages(conv, max_tokens=250, include_system=True)
    assert COUNT(out) <= 250
    check_view(conv, out)
    dropped_calls = [m for m in out if isinstance(m, AIMessage) and not m.tool_calls]
    for m in dropped_calls:  # when the calls are gone, so are their blocks
        assert not any(isinstance(b, dict) and b.get("type") == "tool_use" for b in m.content)


# -- property tests ------------------------------------------------------------

WORDS = st.sampled_from(
    [
        "order",
        "refund",
        "ORD-4417",
        "2024-06-01",
        "$129.99",
        "flight",
        "HAT136",
        "Mia",
        "please",
        "the",
        "/etc/app.yml",
        "seat",
        "12A",
        "yes",
        "no",
        "because",
        "mia_li_3668",
        "42",
    ]
)
TEXT = st.lists(WORDS, min_size=1, max_size=40).map(" ".join)


@st.composite
def conversations(draw: st.DrawFn) -> list[BaseMessage]:
    msgs: list[BaseMessage] = []
    if draw(st.booleans()):
        msgs.append(SystemMessage(draw(TEXT), id="sys"))
    n_turns = draw(st.integers(1, 6))
    k = 0
    for t in range(n_turns):
        msgs.append(HumanMessage(draw(TEXT), id=f"h{t}"))
        for r in range(draw(st.integers(0, 2))):
            calls = [
                {"id": f"c{t}-{r}-{j}", "name": draw(st.sampled_from(["lookup", "refund"])), "args": {"q": draw(TEXT)}}
                for j in range(draw(st.integers(1, 2)))
            ]
            content: str | list = draw(TEXT) if draw(st.booleans()) else ""
            if draw(st.booleans()):
                content = [{"type": "text", "text": draw(TEXT)}] + [
                    {"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["args"]} for c in calls
                ]
            msgs.append(AIMessage(content, tool_calls=calls, id=f"a{k}"))
            k += 1
            for c in calls:
                msgs.append(ToolMessage(draw(TEXT), tool_call_id=c["id"], name=c["name"], id=f"t{c['id']}"))
        msgs.append(AIMessage(draw(TEXT), id=f"r{t}"))
    return msgs


def protected_tokens(msgs: list[BaseMessage], count=COUNT) -> int:
    last_human = max(i for i, m in enumerate(msgs) if isinstance(m, HumanMessage))
    system = [m for m in msgs if isinstance(m, SystemMessage)]
    return count(system + msgs[last_human:])


def check_property(conv: list[BaseMessage], out: list[BaseMessage], budget: int, counting) -> None:
    assert counting.messages(out) <= budget
    check_view(conv, out)
    last_human = max(i for i, m in enumerate(conv) if isinstance(m, HumanMessage))
    tail = [m for m in out if not is_note(m)][-(len(conv) - last_human) :]
    assert all(a is b for a, b in zip(tail, conv[last_human:], strict=True))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv=conversations(), slack=st.integers(80, 600))
def test_property_default_counter_always_fits(conv: list[BaseMessage], slack: int) -> None:
    counting = resolve_token_counter(None)
    # protected part + slack: the core needs room for the record note's frame
    budget = protected_tokens(conv) + slack
    out = compact_messages(conv, max_tokens=budget, include_system=True)
    check_property(conv, out, budget, counting)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conv=conversations(), slack=st.integers(80, 600))
def test_property_counter_with_overhead_fits_or_says_why(conv: list[BaseMessage], slack: int) -> None:
    counting = resolve_token_counter("approximate")
    budget = protected_tokens(conv, counting.messages) + slack
    try:
        out = compact_messages(conv, max_tokens=budget, token_counter="approximate", include_system=True)
    except ValueError as exc:  # BudgetTooSmallError
        # Documented limit (README, "Limits"): per-message overhead that the core
        # cannot see can leave no core budget that fits; the error says so with a minimum.
        assert exc.minimum > budget  # type: ignore[attr-defined]
        return
    check_property(conv, out, budget, counting)

"""A long system prompt that would crowd the conversation out is outlined, not kept whole
(``Policy.system_share``, ``Policy.system_opening``; ``fit/protect.py``)."""

import re

from discourse_memory import Options, Policy, compact

from .conftest import view_text, view_tokens

_TOPICS = ["patient identity", "insurance plan", "referral letter", "visit type", "clinic location",
           "cancellation window", "payment card", "prescription refill", "lab results", "interpreter need",
           "follow-up date", "billing code", "consent form", "waiting list", "parking voucher",
           "accessibility request", "emergency contact", "vaccination record"]


def _policy() -> str:
    """An agent's long standing instructions: many rules, few values."""
    sections = ["# Clinic Desk Policy", "The current time is 2025-03-04 09:00:00 CET.",
                "As a booking agent, you can help patients book, move or cancel appointments."]
    for i, topic in enumerate(_TOPICS):
        sections.append(
            f"- {topic.capitalize()}: before you change anything about the {topic}, read it back to the patient, "
            f"ask for an explicit yes, and never guess the {topic} from earlier visits or from another patient's "
            f"file; if the {topic} is missing, ask for it again and wait for the answer before going on.")
        if i % 6 == 5:
            sections.append(f"## Part {i // 6 + 2}")
    sections.append("- A missed visit costs 40 euros unless it was cancelled a day ahead.")
    return "\n\n".join(sections)


def _chat() -> list[dict]:
    """A booking conversation whose ids and amounts the next turns need."""
    out = []
    for i in range(16):
        ref = f"APT-{7310 + 17 * i}"
        out += [
            {"role": "user", "content": f"I need to move appointment {ref} for patient P{40210 + i} to next week."},
            {"role": "assistant", "content": f"Appointment {ref} for P{40210 + i} is with Dr. Okafor in room "
                                             f"B{12 + i}. Moving it costs {25 + 5 * i} euros; shall I charge card "
                                             f"ending {4410 + 3 * i}?"},
            {"role": "user", "content": f"Yes, charge card ending {4410 + 3 * i} and send the receipt to "
                                        f"desk{i}@example.org."},
        ]
    out.append({"role": "user", "content": "Thanks. What do I owe in total now?"})
    return out


def _values(messages: list[dict]) -> set[str]:
    text = "\n".join(m["content"] for m in messages)
    return set(re.findall(r"APT-\d+|P\d{5}|B\d+|\b\d+ euros|ending \d+|desk\d@example\.org", text))


def _case() -> tuple[list[dict], int]:
    system = {"role": "system", "content": _policy()}
    messages = [system] + _chat()
    budget = view_tokens(messages) // 2
    prompt = view_tokens([system])
    # The shape the rule is for: the prompt fits, but takes most of the budget.
    assert budget * 0.5 < prompt < budget - view_tokens(messages[-1:]) - 60
    return messages, budget


def test_a_long_system_prompt_is_outlined_and_the_conversation_keeps_its_values():
    messages, budget = _case()
    result = compact(messages, budget, focus=None)
    assert result.tokens_after <= budget
    assert result.report.protection == "newest turn (a long system prompt outlined)"
    system = result.messages[0]
    assert result.sources[0] == 0 and system["content"] != messages[0]["content"]
    # Every rule keeps its first words: the outline of the prompt.
    for topic in _TOPICS:
        assert f"- {topic.capitalize()}: before you change" in system["content"], topic
    assert "The current time is 2025-03-04 09:00:00 CET." in system["content"]
    # The room the prompt left goes to the conversation's ids and amounts.
    said = _values(messages[1:])
    kept = {v for v in said if v in view_text(result.messages)}
    assert len(kept) >= 0.6 * len(said), (len(kept), len(said))
    whole = compact(messages, budget, focus=None, options=Options(policy=Policy(system_share=1.0)))
    assert whole.messages[0] == messages[0] and whole.report.protection == "system + newest turn"
    assert len(kept) > 1.5 * len({v for v in said if v in view_text(whole.messages)})
    assert result.messages[-1] == messages[-1]  # the newest turn is still kept verbatim


def test_a_system_prompt_is_kept_whole_when_the_room_it_leaves_holds_most_of_the_rest():
    messages, _ = _case()
    roomy = view_tokens(messages) - 40
    result = compact(messages, roomy, focus=None)
    assert result.messages[0] == messages[0] and result.report.protection == "system + newest turn"


def test_a_short_system_prompt_is_kept_whole():
    messages = [{"role": "system", "content": "You are a terse clinic desk agent."}] + _chat()
    result = compact(messages, view_tokens(messages) // 3, focus=None)
    assert result.messages[0] == messages[0] and result.report.protection == "system + newest turn"


def test_the_outline_is_off_with_keep_system_false_and_under_strict_it_still_fits():
    messages, budget = _case()
    loose = compact(messages, budget, focus=None, keep_system=False)
    assert "outlined" not in loose.report.protection
    strict = compact(messages, budget, focus=None, strict=True)
    assert strict.tokens_after <= budget and strict.report.protection.endswith("outlined)")

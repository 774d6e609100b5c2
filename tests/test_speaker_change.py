"""A message becomes a speaker's when a later message opens with its label (``Columns.speaker``):
what views read of it before (its items) reads otherwise then. A memory that viewed the
conversation before gives the view a new one gives, and so does a worker reading row entries
written when the message was no speaker's (a hypothesis example of
test_shared_counts' property, which failed on main before stop 60)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discourse_memory import DiscourseMemory

from .test_analysis_cache import DictCache
from .test_properties import conversations

# Message 2 opens "Port: deploy" and states "Port: 7 May 2023": its item is "Port: 7 May 2023"
# while no other message opens with "Port:", a value of its speaker "Port" once one does.
MESSAGES = [   {   'content': 'Deploy hat136 deploy status status deploy 3.5% 3.5% https://example.org/x quickly '
                   'quickly.',
        'role': 'system'},
    {   'content': '"two words" getuserdetails getuserdetails mia li. Hat136 東京 🙂. Deploy user@example.com. '
                   '$1,250.00.',
        'role': 'user'},
    {   'content': 'Port: deploy\n'
                   '\n'
                   'Hat136 deploy 2026-10-08 status deploy 🙂 deploy https://example.org/x. 3.5% '
                   '/etc/gw/config.yaml deploy quickly "two words" and getuserdetails $1,250.00 v2.3.1. '
                   'Deploy deploy deploy 10:30 am 2026-10-08 https://example.org/x 🙂. 2026-10-08 v2.3.1 '
                   'deploy deploy https://example.org/x quickly 3.5% 東京.\n'
                   '\n'
                   'Port: 7 May 2023\n'
                   '\n'
                   'Deploy. Deploy 東京 deploy paris and hat136. 3.5% 42. Paris user@example.com. Deploy.\n'
                   '\n'
                   '## Deploy.',
        'role': 'assistant'},
    {   'content': None,
        'role': 'assistant',
        'tool_calls': [   {   'function': {   'arguments': '{"q": "\\"two words\\"", "n": 84}',
                                              'name': 'lookup'},
                              'id': 'call_1',
                              'type': 'function'}]},
    {   'content': 'Of $1,250.00.\n'
                   '\n'
                   '42 mia li 7 may 2023 deploy deploy getuserdetails. Deploy /etc/gw/config.yaml 2026-10-08 '
                   'latency deploy pool. Rollback.\n'
                   '\n'
                   'Snake_case deploy.\n'
                   '\n'
                   '```\n'
                   'Deploy.\n'
                   'V2.3.1 v2.3.1 ops-4412 über 東京.\n'
                   'Deploy /etc/gw/config.yaml über deploy pool v2.3.1 über user@example.com.\n'
                   '```',
        'role': 'tool',
        'tool_call_id': 'call_1'},
    {   'content': '```\n'
                   'Getuserdetails quickly ticket of getuserdetails ops-4412 ops-4412 quickly deploy.\n'
                   'Status.\n'
                   '東京 42 hat136 mia li rollback hat136 "two words" "two words" snake_case ops-4412 🙂 '
                   '2026-10-08.\n'
                   'Deploy 7 may 2023 latency.\n'
                   '```\n'
                   '\n'
                   'Status "two words" a and latency v2.3.1 deploy.\n'
                   '\n'
                   '| a | b |\n'
                   '|---|---|\n'
                   '| 42 | deploy |\n'
                   '\n'
                   'And snake_case 2026-10-08 snake_case deploy snake_case deploy status 東京 and deploy '
                   'v2.3.1 $1,250.00 a a deploy deploy deploy. A snake_case deploy the "two words" and '
                   'quickly 10:30 am "two words" deploy status "two words" pool a deploy hat136 ops-4412 '
                   'user@example.com status. Ops-4412 東京 getuserdetails. Hat136 deploy deploy deploy '
                   '/etc/gw/config.yaml 東京 rollback deploy https://example.org/x. Deploy 7 may 2023 deploy '
                   'deploy hat136 deploy a naïve.\n'
                   '\n'
                   'Hat136 paris deploy über "two words". 42 /etc/gw/config.yaml mia li ticket 10:30 am '
                   'deploy of.',
        'role': 'user'},
    {   'content': '| a | b |\n'
                   '|---|---|\n'
                   '| of | deploy |\n'
                   '| über | deploy |\n'
                   '\n'
                   '- Deploy deploy status.\n'
                   '\n'
                   'Mia li https://example.org/x ops-4412 deploy and. 7 may 2023 status deploy. Deploy '
                   'deploy https://example.org/x v2.3.1 user@example.com deploy a v2.3.1 hat136 hat136. '
                   '$1,250.00 /etc/gw/config.yaml getuserdetails 2026-10-08 status deploy snake_case. 7 may '
                   '2023 deploy 2026-10-08.\n'
                   '\n'
                   '2026-10-08 2026-10-08 snake_case of deploy 2026-10-08 /etc/gw/config.yaml. A. Deploy '
                   'user@example.com ops-4412. Deploy.\n'
                   '\n'
                   '| a | b |\n'
                   '|---|---|\n'
                   '| deploy | deploy |',
        'role': 'assistant'},
    {   'content': 'Deploy hat136 deploy status status deploy 3.5% 3.5% https://example.org/x quickly '
                   'quickly.',
        'role': 'assistant'},
    {'content': '| a | b |\n|---|---|\n| deploy | deploy |', 'role': 'user'},
    {   'content': 'Deploy. Deploy. Deploy. Deploy. Deploy.\n'
                   '\n'
                   'A deploy quickly deploy user@example.com deploy 7 may 2023 "two words" snake_case a 🙂. '
                   'Deploy deploy a 10:30 am. User@example.com deploy deploy "two words" and hat136 '
                   'user@example.com of user@example.com deploy deploy deploy deploy deploy deploy "two '
                   'words" getuserdetails 3.5% getuserdetails and user@example.com status 🙂 7 may 2023.',
        'role': 'assistant'},
    {   'content': 'Deploy.\n\nDeploy 3.5%. Deploy. Deploy. Deploy user@example.com status.\n\nOwner: deploy',
        'role': 'user'},
    {'content': 'Deploy. Deploy. Deploy. Deploy. Deploy.', 'role': 'assistant'},
    {   'content': 'Getuserdetails deploy. Deploy.\n'
                   '\n'
                   'Deploy hat136.\n'
                   '\n'
                   '## 🙂.\n'
                   '\n'
                   '## Getuserdetails getuserdetails 42 mia li mia li.',
        'role': 'user'},
    {'content': 'Deploy https://example.org/x deploy deploy. Deploy.\n\nPort: deploy', 'role': 'assistant'},
    {'content': 'Deploy.', 'role': 'user'}]
SHARE = 0.13402151075757995


def _budget_and_view():  # type: ignore[no-untyped-def]
    plain = DiscourseMemory(MESSAGES)
    budget = max(1, int(plain._compactor.count_messages(MESSAGES) * SHARE))
    return plain, budget, plain.view(budget)


def _view_at(memory: DiscourseMemory, budget: int) -> None:
    try:
        memory.view(budget)
    except Exception:  # (a budget too small for a prefix: the view before is no matter here)
        pass


@pytest.mark.parametrize("start", range(1, len(MESSAGES)))
def test_a_memory_that_viewed_a_prefix_gives_the_view_of_a_new_one(start: int) -> None:
    _, budget, expected = _budget_and_view()
    memory = DiscourseMemory(MESSAGES[:start])
    _view_at(memory, 138)
    for m in MESSAGES[start:]:
        memory.append(m)
    got = memory.view(budget)
    assert (got.messages, got.note) == (expected.messages, expected.note)


def test_row_entries_written_before_a_message_became_a_speakers_are_not_taken() -> None:
    plain, budget, expected = _budget_and_view()
    cache = DictCache()
    _view_at(DiscourseMemory(MESSAGES[:9], cache=cache), 138)  # (message 2 was no speaker's then)
    assert any(f":r4:" in k for k in cache.data)
    got = DiscourseMemory.from_dict(plain.to_dict(), cache=cache).view(budget)
    assert (got.messages, got.note) == (expected.messages, expected.note)


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(msgs=conversations(), share=st.floats(0.05, 0.9), data=st.data())
def test_a_memory_that_took_the_turns_gives_the_view_of_a_new_one(msgs, share, data):  # type: ignore[no-untyped-def]
    """Same input, same output, whatever the memory viewed before: views at earlier prefixes
    (at budgets of their own) leave nothing that moves the view of the whole."""
    fresh = DiscourseMemory(msgs)
    budget = max(1, int(fresh._compactor.count_messages(msgs) * share))
    try:
        expected = fresh.view(budget)
    except Exception as exc:  # (too small a budget: the same error after the turns)
        expected = type(exc)
    memory = None
    for n in sorted(set(data.draw(st.lists(st.integers(1, len(msgs)), max_size=4), label="earlier views"))):
        if memory is None:
            memory = DiscourseMemory(msgs[:n])
        else:
            for m in msgs[len(memory.messages):n]:
                memory.append(m)
        _view_at(memory, data.draw(st.sampled_from([budget, max(1, budget // 2), 2 * budget]), label="its budget"))
    if memory is None:
        memory = DiscourseMemory(msgs)
    for m in msgs[len(memory.messages):]:
        memory.append(m)
    try:
        got = memory.view(budget)
    except Exception as exc:
        assert type(exc) is expected
        return
    assert not isinstance(expected, type)
    assert (got.messages, got.note) == (expected.messages, expected.note)

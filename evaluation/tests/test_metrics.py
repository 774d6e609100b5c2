"""Metrics on small hand-made conversations; every expected value is counted by hand."""

import pytest

from discourse_memory_evaluation.grader import extract_literals, sentence_openings
from discourse_memory_evaluation.metrics import (
    TextIndex,
    answer_containment,
    evidence_retention,
    gold_arg_recall,
    gold_values,
    history_literals,
    literal_recall,
    message_text,
    orphan_tool_messages,
    sentence_survival,
    view_text,
)

HISTORY = [
    {"role": "user", "content": "Book flight HAT136 to Seattle on 2024-05-20."},
    {"role": "assistant", "content": "Done. Your reservation is ZFA04Y for $250."},
]
# Literals, by hand: HAT136, Seattle, 2024-05-20, ZFA04Y, $250  ("Book", "Done",
# "Your" open sentences). Openings: "Book flight HAT136 to Seattle", "Done.",
# "Your reservation is ZFA04Y for".


def index_of(messages):
    return TextIndex(view_text(messages))


def test_history_literals_by_hand():
    assert history_literals(HISTORY) == ["HAT136", "Seattle", "2024-05-20", "ZFA04Y", "$250"]


def test_literal_recall_counts_word_boundaries():
    view = [{"role": "assistant", "content": "Your reservation is ZFA04Y for flight HAT136, cost $2500."}]
    # found: ZFA04Y, HAT136; not found: Seattle, 2024-05-20, $250 (only inside $2500)
    assert literal_recall(history_literals(HISTORY), index_of(view)) == pytest.approx(2 / 5)


def test_literal_recall_full_history_is_one_and_empty_view_is_zero():
    literals = history_literals(HISTORY)
    assert literal_recall(literals, index_of(HISTORY)) == 1.0
    assert literal_recall(literals, index_of([])) == 0.0
    assert literal_recall([], index_of(HISTORY)) is None


def test_literal_recall_counts_the_record_note():
    view = [
        {"role": "system", "content": "Left out: HAT136; Seattle; 2024-05-20."},
        HISTORY[1],
    ]
    assert literal_recall(history_literals(HISTORY), index_of(view)) == 1.0


def test_sentence_survival_by_hand():
    openings = [o for m in HISTORY for o in sentence_openings(m["content"])]
    assert openings == ["Book flight HAT136 to Seattle", "Done.", "Your reservation is ZFA04Y for"]
    view = [{"role": "assistant", "content": "Your reservation is ZFA04Y for $250."}]
    assert sentence_survival(openings, index_of(view)) == pytest.approx(1 / 3)
    # a clipped sentence whose opening is cut does not count
    clipped = [{"role": "user", "content": "Book flight HAT136 to"}]
    assert sentence_survival(openings, index_of(clipped)) == 0.0


def test_text_index_boundaries_and_whitespace():
    index = TextIndex("Mia Li flew in 2030 to Lisbon on 8  May,\n2023 (ref: a_b).")
    assert "Li" in index
    assert "30" not in index  # only inside 2030
    assert "Lis" not in index
    assert "8 May, 2023" in index  # whitespace collapsed on both sides
    assert "a_b" in index
    assert "b" not in index  # inside the identifier a_b
    assert "(ref:" in index  # non-word edges need no boundary
    assert "Rome" not in index


def test_evidence_retention_by_hand():
    turns = {
        "D1:1": "I went to Paris. It was great fun there.",
        "D1:2": "We adopted a dog named Max.",
    }
    view = [{"role": "user", "content": "Alice: I went to Paris. It was great fun there!"}]
    # D1:1: both openings present ("I went to Paris.", "It was great fun there.")? the second
    # ends with "!" in the view, so its five words "It was great fun there." do not match.
    assert evidence_retention(turns, index_of(view)) == 0.0
    view = [{"role": "user", "content": "Alice: I went to Paris. It was great fun there. Bye"}]
    assert evidence_retention(turns, index_of(view)) == pytest.approx(1 / 2)
    assert evidence_retention({}, index_of(view)) is None


def test_answer_containment_ignores_case_and_whitespace():
    view = [{"role": "user", "content": "On 7 May  2023 Caroline went to the\nLGBTQ support group."}]
    answers = ["7 May 2023", "lgbtq SUPPORT group", "Psychology, counseling"]
    assert answer_containment(answers, index_of(view)) == pytest.approx(2 / 3)
    assert answer_containment([], index_of(view)) is None


def test_gold_values_flatten_leaves():
    gold = [
        {
            "name": "book_reservation",
            "kwargs": {
                "user_id": "mia_li_3668",
                "flights": [{"flight_number": "HAT136", "date": "2024-05-20"}],
                "amount": 250,
                "insurance": None,
                "refund": True,
                "note": "",
            },
        },
        {"name": "cancel", "kwargs": {"reservation_id": "ZFA04Y", "user_id": "mia_li_3668"}},
    ]
    values = gold_values(gold)
    assert values == ["mia_li_3668", "HAT136", "2024-05-20", "250", "true", "ZFA04Y"]
    view = [
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "get_user_details", "arguments": '{"user_id": "mia_li_3668"}'}},
        ]},
        {"role": "tool", "tool_call_id": "c1", "content": "flight HAT136, paid 250 USD"},
    ]
    # found: mia_li_3668 (in the call's arguments), HAT136, 250 -> 3 of 6
    assert gold_arg_recall(values, index_of(view)) == pytest.approx(3 / 6)


def test_message_text_includes_parts_and_tool_calls():
    message = {
        "role": "assistant",
        "content": [{"type": "text", "text": "Checking."}, {"type": "image_url", "image_url": {"url": "x"}}],
        "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "lookup", "arguments": '{"a": 1}'}}],
    }
    assert message_text(message) == 'Checking.\nlookup {"a": 1}'
    assert message_text({"role": "assistant", "content": None}) == ""


def test_orphan_tool_messages():
    call = {"role": "assistant", "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}]}
    result = {"role": "tool", "tool_call_id": "c1", "content": "ok"}
    assert orphan_tool_messages([call, result]) == 0
    assert orphan_tool_messages([result]) == 1
    assert orphan_tool_messages([{"role": "user", "content": "x"}, result, result]) == 2


def test_extraction_is_per_message_not_across():
    # A message boundary is a line start: the next message's first word opens a line.
    assert extract_literals(view_text([{"content": "to Paris"}, {"content": "Rome is next"}])) == ["Paris"]


def test_bench_targets_count_only_gold_values_the_history_states():
    from discourse_memory_evaluation.bench import targets
    from discourse_memory_evaluation.datasets import QA, Conversation

    conv = Conversation(
        id="c",
        messages=[{"role": "user", "content": "I went to Paris. It was great. Cancel ZFA04Y please."}],
        turns={"D1:1": "I went to Paris. It was great."},
        qa=[QA("Where?", "Paris", ("D1:1", "D9:9"), 1), QA("Trick?", None, ("D1:1",), 5),
            QA("When?", "2023", ("D1:1; D1:2",), 2)],
        gold_actions=[{"name": "cancel", "kwargs": {"reservation_id": "ZFA04Y", "reason": "change of plan"}}],
    )
    t = targets(conv)
    assert t.gold == ["ZFA04Y"]  # "change of plan" is never said
    assert t.answers == ["Paris", "2023"]  # category 5 has no answer
    assert t.evidence == {"D1:1": "I went to Paris. It was great."}  # unknown ids dropped
    assert t.literals == ["Paris", "ZFA04Y"]
    assert t.openings == ["I went to Paris.", "It was great.", "Cancel ZFA04Y please."]


def test_bench_score_separates_the_record_note():
    from discourse_memory_evaluation.baselines import NotedView
    from discourse_memory_evaluation.bench import targets, score
    from discourse_memory_evaluation.datasets import Conversation

    conv = Conversation(id="c", messages=HISTORY)
    note = {"role": "system", "content": "Left out: HAT136; Seattle; 2024-05-20; $250."}
    view = NotedView([note, HISTORY[1]])
    view.note = note
    scores, lost = score(view, targets(conv), examples=3)
    assert scores["literal_recall"] == 1.0
    assert scores["literal_recall_context"] == pytest.approx(2 / 5)  # ZFA04Y, $250 in the kept message
    assert lost == {"sentence_openings": ["Book flight HAT136 to Seattle"]}
    plain = [note, HISTORY[1]]  # no note marked: the note counts as context
    assert score(plain, targets(conv))[0]["literal_recall_context"] == 1.0


def test_protected_tokens_counts_system_and_newest_turn():
    from discourse_memory_evaluation.baselines import get_counter
    from discourse_memory_evaluation.datasets import Conversation
    from discourse_memory_evaluation.diagnose import protected_tokens

    counter = get_counter()
    messages = [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "First question here."},
        {"role": "assistant", "content": "An answer."},
        {"role": "user", "content": "Second question."},
        {"role": "assistant", "content": "Another answer."},
    ]
    system, turn = protected_tokens(Conversation(id="c", messages=messages), counter)
    # (each message as a request sends it: its text, 3 and its role's one token)
    assert system == counter.count("Be brief.") + 4
    assert turn == counter.count("Second question.") + counter.count("Another answer.") + 2 * 4


def test_diagnose_splits_lost_literals_by_what_the_library_records():
    from collections import Counter

    from discourse_memory_evaluation.bench import targets
    from discourse_memory_evaluation.datasets import Conversation
    from discourse_memory_evaluation.diagnose import _lost_literals, own_literals
    from discourse_memory_evaluation.grader import extract_literals
    from discourse_memory_evaluation.metrics import TextIndex

    result = '{"flight_number": "HAT136", "seats_left": 4, "price": "$250"}'
    conv = Conversation(id="c", messages=[
        {"role": "user", "content": "Find a flight."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "1", "type": "function", "function": {"name": "search_flights", "arguments": '{"to": "SEA"}'}}]},
        {"role": "tool", "tool_call_id": "1", "content": result},
    ])
    own = own_literals(conv)
    assert {"HAT136", "$250", "search_flights", "SEA"} <= own
    assert "flight_number" not in own  # a JSON field name: the library records values
    assert "flight_number" in extract_literals(result)  # ... while the grader counts it
    ours, other = Counter(), Counter()
    _lost_literals(targets(conv).literals, own, TextIndex("Find a flight. HAT136"), ours, other)
    assert "HAT136" not in ours and "$250" in ours and "search_flights" in ours
    assert "flight_number" in other and not set(other) & own


# -- CJK text ------------------------------------------------------------------------


def test_text_index_treats_each_cjk_character_as_a_word():
    index = TextIndex("就去篱苑图书馆吧，订单号是A12345，价格775元")
    assert "篱苑图书馆" in index  # inside a run of Chinese characters
    assert "A12345" in index and "775" in index
    assert "A1234" not in index and "75" not in index  # still word boundaries between Latin letters and digits
    assert "颐和园" not in index


def test_grader_finds_values_next_to_cjk_characters():
    text = "帮您查到一个价格775元的经济型酒店，名字是飘HOME连锁酒店，电话010-84580888。订单号是A12345。"
    assert extract_literals(text) == ["775", "HOME", "010-84580888", "A12345"]
    from discourse_memory_evaluation.grader import split_sentences

    assert split_sentences("你好。我想订酒店！好的？行 Ok. Fine") == ["你好。", "我想订酒店！", "好的？", "行 Ok.", "Fine"]


def test_content_words_by_hand():
    from discourse_memory_evaluation.grader import content_words

    # lowercase words of 3+ letters, stop words and the literal's own words out
    assert content_words("I booked the flight to Seattle via /usr/lib with you", "/usr/lib") == {
        "booked", "flight", "via"}
    # CJK: adjacent character pairs, the literal's own pairs out
    assert content_words("价格775元", "775") == {"价格"}
    assert content_words("去篱苑图书馆", "篱苑图书馆") == {"去篱"}


# -- with-context literal recall -------------------------------------------------------

CONTEXT_HISTORY = [
    {"role": "user", "content": "[2:32 pm on 29 January, 2023]\nCaroline: I booked flight HAT136 to Seattle."},
    {"role": "assistant", "content": "Melanie: Nice! Order 1Z999AA1 shipped."},
]
# Literals, by hand: 2:32, 29 January, 2023, HAT136, Seattle, 1Z999AA1. Content words of the
# sentences stating them: the date line has none; HAT136 and Seattle: "booked", "flight";
# 1Z999AA1: "order"? no: "Order" is capitalised; "shipped".


def test_context_words_by_hand():
    from discourse_memory_evaluation.metrics import context_words

    literals = history_literals(CONTEXT_HISTORY)
    assert literals == ["2:32", "29 January, 2023", "HAT136", "Seattle", "1Z999AA1"]
    words = context_words(CONTEXT_HISTORY, literals)
    assert words == {"2:32": set(), "29 January, 2023": set(), "HAT136": {"booked", "flight"},
                     "Seattle": {"booked", "flight"}, "1Z999AA1": {"shipped"}}


@pytest.mark.parametrize(
    ("view_lines", "expected"),
    [
        # each literal on a line with a word of its sentence
        (["Caroline: I booked flight HAT136 to Seattle.", "Order 1Z999AA1 shipped."], 3 / 3),
        # a record note of bare values: present, but with no context
        (["Values from parts not shown: HAT136; Seattle; 1Z999AA1"], 0.0),
        # keyed entries: the word on the same line counts, on another line it does not
        (["- flight: HAT136", "Seattle", "shipped:", "1Z999AA1"], 1 / 3),
        # a word of another literal's sentence is no context ("flight" is not 1Z999AA1's)
        (["flight 1Z999AA1"], 0.0),
        # case is ignored for the word, word boundaries hold for both
        (["FLIGHT HAT136", "unshipped 1Z999AA1"], 1 / 3),
    ],
)
def test_with_context_literal_recall_by_hand(view_lines, expected):
    from discourse_memory_evaluation.metrics import LineIndex, context_words, literal_recall_with_context

    literals = history_literals(CONTEXT_HISTORY)
    words = context_words(CONTEXT_HISTORY, literals)
    # the date line's literals state nothing with a word: left out of the measure (3 count)
    index = LineIndex("\n".join(view_lines))
    assert literal_recall_with_context(literals, words, index) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("view_lines", "expected"),
    [
        # every value held stands with a word of its sentence
        (["Caroline: I booked flight HAT136 to Seattle.", "Order 1Z999AA1 shipped."], 3 / 3),
        # one value held, with its word: all of what the view holds (the recall is 1/3)
        (["Order 1Z999AA1 shipped."], 1.0),
        # a record of bare values: all three held, none with a word
        (["Values from parts not shown: HAT136; Seattle; 1Z999AA1"], 0.0),
        # two held, one with its word ("flight" on HAT136's line; Seattle alone)
        (["- flight: HAT136", "Seattle"], 1 / 2),
        # the date line's values are held but never stated with a word: not counted
        (["2:32 29 January, 2023", "shipped 1Z999AA1", "HAT136"], 1 / 2),
    ],
)
def test_with_context_share_of_held_values_by_hand(view_lines, expected):
    from discourse_memory_evaluation.metrics import LineIndex, context_words, with_context_share

    literals = history_literals(CONTEXT_HISTORY)
    words = context_words(CONTEXT_HISTORY, literals)
    assert with_context_share(literals, words, LineIndex("\n".join(view_lines))) == pytest.approx(expected)


def test_with_context_share_is_none_when_the_view_holds_no_keyed_value():
    from discourse_memory_evaluation.metrics import LineIndex, context_words, with_context_share

    literals = history_literals(CONTEXT_HISTORY)
    words = context_words(CONTEXT_HISTORY, literals)
    assert with_context_share(literals, words, LineIndex("nothing here; 2:32")) is None
    assert with_context_share(literals, words, LineIndex(view_text(CONTEXT_HISTORY))) == 1.0


def test_with_context_is_none_without_keyed_literals():
    from discourse_memory_evaluation.metrics import LineIndex, literal_recall_with_context

    assert literal_recall_with_context(["2:32"], {"2:32": set()}, LineIndex("2:32")) is None


def test_full_history_has_every_keyed_literal_with_context():
    from discourse_memory_evaluation.metrics import LineIndex, context_words, literal_recall_with_context

    literals = history_literals(CONTEXT_HISTORY)
    words = context_words(CONTEXT_HISTORY, literals)
    assert literal_recall_with_context(literals, words, LineIndex(view_text(CONTEXT_HISTORY))) == 1.0


# -- noise in the record -----------------------------------------------------------------

NOISE_HISTORY = [
    {"role": "system", "content": "Use the tool lookup_order. Answer in English."},
    {"role": "user", "content": "Wow! I ordered from Door Dash at 7:30 and it was lost.\nSorry: Door Dash sent 2 bags."},
    {"role": "assistant", "content": "Sorry about that. Wow Bao is next door. Order 1234 is late."},
]


def test_record_noise_by_hand():
    from discourse_memory_evaluation.metrics import RecordNoise, is_bare_number

    noise = RecordNoise(NOISE_HISTORY)
    assert noise.opener("Wow")  # opens its sentences only
    assert noise.opener("Sorry")  # after a line start, after a sentence end
    assert noise.opener("Wow Bao")  # capitalised words only, opening its sentence
    assert not noise.opener("Door Dash")  # "from Door Dash": mid-sentence once
    assert not noise.opener("lookup_order") and not noise.opener("Nowhere")  # not capitalised / never said
    assert noise.system_only("English") and noise.system_only("lookup_order")
    assert not noise.system_only("Door Dash")
    assert is_bare_number("1234") and is_bare_number("$21.99") and is_bare_number("2023-05-08")
    assert not is_bare_number("7:30 pm") and not is_bare_number("HAT136")
    record = ("Wow", "Door Dash", "1234", "English", "Sorry", "7:30")
    assert noise.shares(record, system_kept=True) == pytest.approx(
        {"record_openers": 2 / 6, "record_system_only": 1 / 6, "record_bare_numbers": 2 / 6})
    # a system-only value is no noise when the view does not keep the system prompt
    assert noise.shares(record, system_kept=False)["record_system_only"] == 0.0
    assert noise.shares((), system_kept=True) == {
        "record_openers": None, "record_system_only": None, "record_bare_numbers": None}


def test_answer_found_ignores_case_and_space_at_word_boundaries():
    from discourse_memory_evaluation.metrics import answer_found

    index = TextIndex("On 7 May  2023 Caroline went to the\nLGBTQ support group in 2030.".lower())
    assert answer_found("7 May 2023", index)
    assert answer_found("lgbtq SUPPORT group", index)
    assert not answer_found("30", index)  # only inside 2030
    assert not answer_found("support gr", index)


def test_with_context_judges_each_note_entry_alone():
    """A record note lists values on one line, separated by "; ": a value counts with its
    own entry, not with a word of another entry on the same line."""
    from discourse_memory_evaluation.baselines import NotedView
    from discourse_memory_evaluation.bench import score, targets
    from discourse_memory_evaluation.datasets import Conversation

    conv = Conversation(id="c", messages=CONTEXT_HISTORY)
    note = {"role": "system", "content": "Values from parts not shown: HAT136; Seattle; shipped 1Z999AA1; flight"}
    view = NotedView([note])
    view.note, view.record = note, ("HAT136", "Seattle", "shipped 1Z999AA1", "flight")
    # only 1Z999AA1 has a word of its sentence in its own entry
    assert score(view, targets(conv))[0]["literal_recall_with_context"] == pytest.approx(1 / 3)
    # the same text as an ordinary message is one line: HAT136 and Seattle meet "flight" there
    assert score([note], targets(conv))[0]["literal_recall_with_context"] == 1.0
    # a keyed line "key: a; b": each entry has the key
    note["content"] = "#1 flight: HAT136; Seattle; 1Z999AA1"
    assert score(view, targets(conv))[0]["literal_recall_with_context"] == pytest.approx(2 / 3)


def test_an_entry_states_a_value_or_it_is_counted_as_none():
    from discourse_memory_evaluation.metrics import RecordNoise, note_entries, valueless_share

    history = [
        {"role": "user", "content": "[1:10 pm on 27 March, 2023] Audrey: Woohoo! I adopted Pixie 3 years ago."},
        {"role": "assistant", "content": "Andrew: Hang in there! My GF and I went to Tahoe."},
        {"role": "user", "content": "Audrey: Bye! Ticket OPS-4100 is closed."},
        {"role": "assistant", "content": "Andrew: Bye!"},
    ]
    noise = RecordNoise(history)
    note = ("[discourse-memory record 1: 4 parts omitted; values left out, quoted as data:]\n"
            "#0 user: [1:10 pm on 27 March, 2023] Audrey\n"  # a date line and a speaker: no value
            "#0 Audrey: Woohoo; adopted Pixie\n"  # an opener: none; a name: a value
            "#1 Andrew: Hang in there!; Tahoe\n"
            "#2 Audrey: Ticket OPS-4100; 3 years\n"
            "(2 more values dropped to fit)\n[end of record 1]")
    assert note_entries(note) == ["[1:10 pm on 27 March, 2023] Audrey", "Woohoo", "adopted Pixie", "Hang in there!",
                                  "Tahoe", "Ticket OPS-4100", "3 years"]
    assert valueless_share(note, noise) == 3 / 7
    assert valueless_share("[discourse-memory record 1: 4 parts omitted]\n[end of record 1]", noise) is None


def test_a_bracket_is_set_aside_only_as_a_date_line_before_the_entry():
    """Only a session's date line that an entry opens with is no value of it; a bracket of
    code or output is the value itself (the SWE-bench note listed "[GCC 7.3.0]" and an
    array's row "[1.59620704e+30 1.11164821e+30]", counted as stating nothing)."""
    from discourse_memory_evaluation.metrics import RecordNoise, states_value

    noise = RecordNoise([{"role": "user", "content": "Audrey: hi"}, {"role": "user", "content": "Audrey: ok"}])
    assert not states_value("[1:10 pm on 27 March, 2023] Audrey", noise)
    assert not states_value("[6 May, 2023] Audrey", noise)
    assert states_value("[1:10 pm on 27 March, 2023]", noise)  # the date alone is the value
    assert states_value("[GCC 7.3.0]", noise)
    assert states_value("[1.59620704e+30 1.11164821e+30]", noise)
    assert states_value("['numerical_column'])", noise)
    # an error's name is a value, though it opens its line in the output
    out = RecordNoise([{"role": "user", "content": "ImportError: no module named foo\nImportError: again"}])
    assert states_value("ImportError", out) and states_value("raised DeprecationWarning", out)
    assert not states_value("Error", out)


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("#40 Tim: we met", False),  # an entry's reference
        ("[9:16 am on 8 May, 2040]", False), ("since 40 August", False),  # a date's year, its day
        ("May 8, 2040.", False), ("2040-05-08", False),
        ("[10:40 am on 8 May, 2023] Tim", False),  # the minutes of a time
        ("[40:10 am on 8 May, 2023] Tim", False),  # its hour
        ("paid $40", False), ("up 40%", False), ("40.5 kg", False), ("40-45", False), ("4/40", False),
        ("a 40.", True), ("(40)", True), ("40, then", True), ("40: the answer", True), ("-40", True),
        ("40", True), ("40 years", True),
    ],
)
def test_a_number_is_found_only_as_a_whole_token(text, found):
    """``40`` is held where the view states 40, not inside another value the grader
    would extract as a token of its own (a reference, a time, an amount, a longer number)."""
    assert ("40" in TextIndex(text)) is found
    assert ("40" in TextIndex(f"said {text} here")) is found


def test_whole_token_rule_keeps_longer_values_and_words():
    index = TextIndex("At 10:29 am on 8 May, 2023 I paid $21.99 for HAT136 (ref #31750) at a_b2.")
    for value in ("10:29", "8 May, 2023", "$21.99", "HAT136", "#31750", "a_b2"):
        assert value in index, value
    for value in ("29", "2023", "21.99", "31750", "99"):
        assert value not in index, value
    # a slash keeps the word-boundary rule (paths, slash dates): a_b/c2.py holds c2.py
    assert "c2.py" in TextIndex("see a_b/c2.py")


def test_the_note_frame_and_references_are_no_values():
    """Only the note's entries are graded: its frame's counts and the ``#N`` reference that
    opens each entry are the note's own words, not values the history stated."""
    from discourse_memory_evaluation.baselines import NotedView
    from discourse_memory_evaluation.bench import score, targets
    from discourse_memory_evaluation.datasets import Conversation
    from discourse_memory_evaluation.metrics import note_graded_text

    history = [
        {"role": "user", "content": "Tim: I have walked 40 dogs, 12 of them twice, see #7."},
        {"role": "assistant", "content": "Ann: And 96 cats!"},
    ]
    note_text = ("[discourse-memory record ab: 12 parts omitted; values left out, quoted as data:]\n"
                 "#40 Tim: walked dogs; see #7\n#96 Ann: cats\n#7 tool\n(12 more values dropped to fit)\n"
                 "[end of record ab]")
    assert note_graded_text(note_text) == "\n Tim: walked dogs; see #7\n Ann: cats\n tool\n\n"
    note = {"role": "system", "content": note_text}
    view = NotedView([note])
    view.note = note
    t = targets(Conversation(id="c", messages=history))
    assert t.literals == ["40", "12", "#7", "96"]
    assert score(view, t)[0]["literal_recall"] == 1 / 4  # #7 only, as the entry lists it
    # the same text as an ordinary message (no note marked) is graded as it is written: the
    # frame's 12 counts, 40 and 96 do not (a number is never found inside #40)
    assert score([note], t)[0]["literal_recall"] == 2 / 4


def test_a_sentence_opening_with_a_value_states_it():
    """The grader takes no sentence's first word for a literal, but a sentence that opens
    with a value still states it: a view keeping that sentence verbatim keeps the value with
    its words (a verbatim suffix of LoCoMo scored 85.8% of its held values "with context")."""
    from discourse_memory_evaluation.metrics import LineIndex, context_words, with_context_share

    history = [
        {"role": "user", "content": "Caroline: I saw Max at the park."},
        {"role": "assistant", "content": "Melanie: Max was truly awesome. We met at 10:40 on 3 May."},
    ]
    literals = history_literals(history)
    assert literals == ["Max", "10:40", "3 May"]
    words = context_words(history, literals)
    assert words["Max"] == {"saw", "park", "truly", "awesome"}
    assert words["10:40"] == words["3 May"] == {"met"}
    view = LineIndex(view_text(history[1:]))
    assert with_context_share(literals, words, view) == 1.0
    # a number inside another value states nothing of it: 40 is not stated by "10:40"
    assert context_words(history, ["40"]) == {"40": set()}

"""Literal extraction on hard cases."""

import pytest

from discourse_memory.literals import find_literals, find_names, find_names_by_pattern
from discourse_memory.nlp import get_pipeline


@pytest.mark.parametrize(
    "text, literal, kind",
    [
        ("Upgrade to v2.3.1 tonight", "v2.3.1", "version"),
        ("It costs $1,250.00 per month", "$1,250.00", "amount"),
        ("Window starts 2026-10-08T14:05Z sharp", "2026-10-08T14:05Z", "datetime"),
        ("Tracked in OPS-4412.", "OPS-4412", "identifier"),
        ("Edit /etc/gw/config.yaml and reload", "/etc/gw/config.yaml", "path"),
        ("Set snake_case_name first", "snake_case_name", "identifier"),
        ("Mail user@example.com today", "user@example.com", "email"),
        ("See https://example.org/a/b?x=1.", "https://example.org/a/b?x=1", "url"),
        ("Error rate is 0.42% now", "0.42%", "percent"),
        ("Meet on 7 May 2023 at the office", "7 May 2023", "date"),
        ("The flight is on May 20th, 2024", "May 20th, 2024", "date"),
        ("Call at 10:30 AM", "10:30 AM", "time"),
        ("Call getUserDetails first", "getUserDetails", "identifier"),
        ("Run os.path.join on it", "os.path.join", "identifier"),
        ("Flight HAT136 is late", "HAT136", "identifier"),
        ("Host gw-01 is down", "gw-01", "identifier"),
        ('He said "ship it today" loudly', '"ship it today"', "quoted"),
        ("We sold 7,447 units", "7,447", "number"),
        ("Refund 250 USD to the card", "250 USD", "amount"),
        ("Der Zug fährt um 7:15 Uhr ab.", "7:15 Uhr", "time"),
        ("Tu peux joindre le garage au +33 1 42 68 53 00.", "+33 1 42 68 53 00", "phone"),
        ("Звоните 8 (495) 234-56-78.", "8 (495) 234-56-78", "phone"),
        ('"sku": "SKU-4107-0", "qty": 1', "SKU-4107-0", "identifier"),
        ("    def __eq__(self, other):", "__eq__", "identifier"),
        ("The total is $1200, which exceeds it", "$1200", "amount"),  # not "$1200,"
        ("Paid 1,500 USD, then more", "1,500 USD", "amount"),
        # opening hours: the days with their times, one value (apart, "Mon" and "Fri" were names)
        ("营业时间是周一至周日 08:00-22:00。", "周一至周日 08:00-22:00", "time"),
        ("营业时间是周六,周日 10:00-21:00 周一,周三至周五 10:30-20:30。", "周一,周三至周五 10:30-20:30", "time"),
        ("Opening hours: Mon-Fri 09:00-17:00, Sat 10:00-14:00.", "Mon-Fri 09:00-17:00", "time"),
        ("Öffnungszeiten: Mo-Fr 9:00-18:00 Uhr.", "Mo-Fr 9:00-18:00 Uhr", "time"),
        ("営業時間は月〜金 10:00-19:00です。", "月〜金 10:00-19:00", "time"),
        ("So 9:30 works for me", "9:30", "time"),  # English "So", not German Sonntag
    ],
)
def test_literal_found_with_kind(text, literal, kind):
    found = {(lit.text, lit.kind) for lit in find_literals(text)}
    assert (literal, kind) in found


def test_offsets_slice_back():
    text = "v2.3.1 on 2026-10-08 for $5 at /srv/x.py by OPS-1"
    for lit in find_literals(text):
        assert text[lit.start:lit.end] == lit.text


def test_list_markers_and_abbreviations_are_not_literals():
    texts = {lit.text for lit in find_literals("1. e.g. this is fine")}
    assert "1" not in texts and "e.g" not in texts


def test_names_skip_capitalised_sentence_starters():
    doc = get_pipeline()("Thanks! Caroline went to Paris with Melanie. Deploy the canary.")
    names = {lit.text for lit in find_names(doc)}
    assert {"Caroline", "Paris", "Melanie"} <= names
    assert "Thanks" not in names and "Deploy" not in names


def test_a_capitalised_stop_word_mid_sentence_opens_the_name_after_it():
    # "- **Trip Type:** One Way" was recorded as the name "Way".
    doc = get_pipeline()("Trip Type: One Way, and we flew to The Hague. The plan is fine. I have one Ticket.")
    names = {lit.text for lit in find_names(doc)}
    assert {"One Way", "The Hague"} <= names
    assert "Way" not in names and "The plan" not in names and "one Ticket" not in names


def test_a_chat_sentence_starting_again_after_a_label_or_comma_names_no_interjection():
    # LoCoMo's record listed "John, Let" and the name "Yep John" for "Maria: Yep John, Let's ...".
    doc = get_pipeline()("Maria: Yep John, Let's keep up the good work. Mel: Wow, Paris was lovely, Hey.")
    names = {lit.text for lit in find_names(doc)}
    assert {"John", "Paris"} <= names
    assert not names & {"Yep John", "Yep", "Let", "Wow", "Hey"}, names


def test_adversarial_input_is_fast():
    import time

    text = ("a" * 50_000) + "@" + ("b." * 20_000) + " " + ("1," * 30_000) + ("/x" * 20_000)
    t = time.perf_counter()
    find_literals(text)
    assert time.perf_counter() - t < 5  # generous: guards against catastrophic backtracking


def test_inline_code_spans_are_not_confused_with_the_text_between_them():
    found = [(lit.text, lit.kind) for lit in find_literals("Use `pg-gw-2` and `retry_max` or `kubectl get pods` now")]
    assert found == [("pg-gw-2", "identifier"), ("retry_max", "identifier"), ("`kubectl get pods`", "quoted")]


def test_json_keys_are_schema_not_literals():
    text = '{"user_id": "mia_li_3668", "reservation_id": "NM1VX1"} then user_id was checked'
    found = [lit.text for lit in find_literals(text)]
    assert found == ["mia_li_3668", "NM1VX1", "user_id"]  # the last one is prose, not a key


@pytest.mark.parametrize("variant", ["_PATTERNS", "comma"])
def test_the_prose_word_skip_changes_no_match(variant):
    # The pattern skips plain words (lower-case or capitalised, not months), positions inside a run of CJK letters
    # and symbols no alternative can start with there before trying the alternatives; it must find exactly what
    # the pattern without that skip finds (each variant: English numbers, and those of decimal-comma languages).
    import random
    import re

    from discourse_memory import literals

    patterns = literals.patterns() if variant == "_PATTERNS" else literals._comma_patterns()
    compiled = literals.combined_pattern() if variant == "_PATTERNS" else literals.comma_pattern()
    unskipped = re.compile(r"(?:(?<![A-Za-z0-9_])(?=\w)|(?=[$€£¥₹￥₽₩/~.\"“`'+\-(「『《«„]))(?:"
                           + "|".join(f"(?P<{k}>{p})" for k, p in patterns) + ")")
    parts = ["deploy", "the", "May", "12", "2024-05-01", "https://x.io/a", "www.x.com", "a@b.com", "john",
             "@", ".", ". ", ",", ":", "/", "src/app.py", "foo.bar", "foo_bar", "eu-west-1", "-", "v1.2",
             "$5", "5", "%", "am", "pm", "c:\\x", "\"", "'", "`", "(", ")", "OPS-12", "camelCase", "USD",
             " ", "\n", "é", "naïve", "x1", "e.g.", "1st", "March", "http", "https:", "www", "+", "}", "]",
             "Dana", "Deploy", "Sept", "June", "Mark", "Jan.", "Mayor", "OK", "Ab", "Dec", "Q3", "Kubernetes",
             "MyClass", "Zed", "I", "Octavia", "!", "?", ";", "\t", "_", "@x.io", "Foo.bar",
             # what may follow a skipped word, and the symbols tried only in some places
             "*", "=", "<", ">", "&", "#", "|", "[", "{", "’", "..", "./", "../", "~/", "-5", "+3", "%x@y.io",
             "ftp:", "//", "\\", "C:", "mailto:", "“", "”", "a.", ".b", "o'", "rock'n", "x%", "x+", "-x", "“q”",
             ".-a/b.py", "%-a/b.py", "+-a/b.py", ".b@x.io", "+b@x.io", "-b@x.io", "'q w'", "\"q w\"", "`q w`",
             "./a/b", "../a/b", "~/a/b", "/a/b",
             # a word before "://" that is a scheme or not, and the local formats
             "ahttp", "://", "xhttps", "file", ":\\", "€", "₽", "円", "元", "￥", "₩", "49,90", "1 299,00", "12 500",
             "1.299,00", "12,800", "400-500", "-", "~", "至", "Mai", "mai", "mars", "marzo", "de", "мая", "г.", "3.",
             "1er", "14h30", "Uhr", "午後3時", "下午", "午", "3点", "半", "10:00", "年", "月", "日", "号", "分", "天",
             "小时", "以上", "订单号是", "A12345", "酒店", "的", "。", "，", "！", "ｖ", "+49 30", "1234567", "(555)",
             "123-4567", "010-84580888", "06 12 34 56 78", "0", "「引用」", "《书》", "«q»", "„q“", "руб.", "Euro",
             "kr", "krank", "％", "3,5",
             # opening hours: days before the times they hold
             "周一", "周日", "星期六", "月", "金", "土", "曜日", "〜", "・", "、", "Mo", "Fr", "Sa", "So", "Mon", "Fri",
             "Sundays", "through", "bis", "9am", "10:30", "08:00-22:00", "9h30"]
    rng = random.Random(7)
    for _ in range(40_000):
        text = "".join(rng.choice(parts) + rng.choice(["", " "]) for _ in range(rng.randint(0, 12)))
        got = [(m.span(), m.lastgroup) for m in compiled.finditer(text)]
        assert got == [(m.span(), m.lastgroup) for m in unskipped.finditer(text)], text


def test_names_in_code_and_logs_skip_the_first_word_of_a_comment_or_sentence():
    code = ("# Copyright 2019 the authors\n    # Check if the value is set\n    // Fix the bug\n"
            "x = 1  # We need Django here\nok. Remove the line\nCity: Denver is cold\n")
    names = {lit.text for lit in find_names_by_pattern(code)}
    assert not names & {"Copyright", "Check", "Fix", "We", "Remove"}
    assert {"Django", "Denver"} <= names



def test_an_escaped_line_break_in_json_text_is_no_identifier():
    """tau-bench's ``think`` arguments: ``...refund.\\nReservation 59XX6W ...`` once gave the
    record an id ``nReservation``; the id after a break is still found, and so is a word
    after an escaped backslash (``\\\\nGrid`` is the text ``\\nGrid``)."""
    text = ('{"thought": "It was booked on 2024-05-01, more than a day ago, so it cannot be canceled for a '
            'refund unless the airline cancels the flight, and we wait to see what happens next.\\nReservation '
            '59XX6W is fine.\\nXEHM4B is next.\\tTotal left and \\\\nGrid"}')
    found = [(lit.text, lit.kind) for lit in find_literals(text)]
    assert ("nReservation", "identifier") not in found and ("tTotal", "identifier") not in found
    assert ("59XX6W", "identifier") in found and ("XEHM4B", "identifier") in found
    assert ("nGrid", "identifier") in found


@pytest.mark.parametrize("language", ["en", "de"])
def test_a_short_text_has_the_literals_of_its_shape(language):
    # A short text is scanned once per shape (its digits 1-9 read as 1): its literals must be exactly those a
    # scan of the text itself finds, whatever its digits (a pattern that told 1 from 9 would break this).
    import random

    from discourse_memory import literals

    parts = ["7", "42", "2024-05-01", "12/31/2023", "3.5.2026", "10:30 AM", "9am", "$1,299.50", "49,90 €", "3,5 %",
             "+33 1 42 68 53 00", "010-84580888", "(555) 123-4567", "v2.3.1", "1.2.3", "OPS-4412", "gw-01", "HAT136",
             "/etc/app9.yaml", "src/a1.py", "x_9", "12ms", "3.5GB", "4.5分", "3天", "1,500 USD", "99%", "1st", "May",
             "8 (495) 234-56-78", "0", "06 12 34 56 78", "item", "value", "- ", "1. ", "# ", "Step", ":", " ", "\n",
             "a@b9.com", "https://x.io/a/7", "\"say 12 now\"", "周一至周日 08:00-22:00", "14h30", "7:15 Uhr"]
    rng = random.Random(11)
    comma = language in literals.COMMA_LANGUAGES
    literals._shape_spans.cache_clear()
    for _ in range(20_000):
        text = "".join(rng.choice(parts) + rng.choice(["", " "]) for _ in range(rng.randint(1, 10)))
        text = "".join(rng.choice("123456789") if c in "123456789" else c for c in text)
        direct = [(text[s:e], kind, s, e) for kind, s, e in literals._scan(text, comma)]
        assert [tuple(lit) for lit in find_literals(text, language)] == direct, text
    assert literals._shape_spans.cache_info().hits > 0


@pytest.mark.parametrize("variant", ["_PATTERNS", "comma"])
def test_the_lookaheads_that_fail_alternatives_sooner_change_no_match(variant):
    # Some alternatives open with a lookahead that every match of theirs satisfies (a path's run of word characters
    # and dashes before a slash, a dashed id's before a dash, an amount's number before its currency, a count's
    # before its unit or range): the patterns built without them find the same.
    import random
    import re

    from discourse_memory import literals

    bare, start = literals._build(literals._shapes(), guards=False)
    if variant == "comma":
        bare = literals._comma_patterns(bare)
    compiled = literals.combined_pattern() if variant == "_PATTERNS" else literals.comma_pattern()
    assert compiled.pattern != literals._compile(bare, start).pattern  # (the guards are there to take away)
    unguarded = literals._compile(bare, start)
    parts = ["src", "app.py", "/", "-", "a-b", "eu-west-1", "svc-12", "x1-y2-z3", "foo/bar.txt", "a/b/c.md", "é",
             "naïve-9", "北京", "-x", "x-", "12", "v1.2", ".", "_", "foo_bar", "A", "Zz9", "CamelCase", " ", "\n",
             "a" * 31, "b" * 32, "c" * 63, "d" * 64, "e" * 65, "1" * 30, "-" * 3, "@", ":", "\\", "~", "./", "x.y",
             # amounts and counts: numbers, ranges, currencies and units written after them
             "3", "49", "49,90", "1.299,00", "12 500", "12\u00a0500", "1\u202f000", "0.5", ",", "€", "₽", "EUR", "eur",
             "Euro", "USD", "pesos", "kr", "руб.", "元", "块钱", "万", "円", "원", "天", "个月", "小时", "分", "人",
             "至", "到", "~", "～", "–", "以上", "左右", "\t", "1" * 13, "9" * 40, "12,800.50", "$", "%"]
    rng = random.Random(11)
    for _ in range(30_000):
        text = "".join(rng.choice(parts) + rng.choice(["", "", " "]) for _ in range(rng.randint(1, 12)))
        got = [(m.span(), m.lastgroup) for m in compiled.finditer(text)]
        assert got == [(m.span(), m.lastgroup) for m in unguarded.finditer(text)], text

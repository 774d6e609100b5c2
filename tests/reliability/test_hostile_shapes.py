"""The hostile shapes of issue 48 grown in depth, count and width: what the analysis
walks stays bounded, measured as work done (characters handed to the tokenizer, the
depth of an outline, the size of a refusal's walk), never as time. Timing is in
``benchmarks/bench_hostile.py``.

A regression that makes one of these shapes heavy again (a list's indent tokenized, a
generated list's items tokenized one by one, an outline as tall as the list) fails here.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

from discourse_memory import DiscourseMemory, InvalidMessageError, compact
from discourse_memory.blocks import split_blocks
from discourse_memory.doc_tokens import DocTokens
from discourse_memory.nlp import get_pipeline
from discourse_memory.outline import list_heads
from discourse_memory.limits import LIMITS
from discourse_memory.payload import payload_problem
from discourse_memory.segment import MAX_READ_ITEMS, _strip_span, segment_texts


def deep_list(depth: int) -> str:
    """The issue's list: item ``i`` indented ``i`` levels (two spaces each)."""
    return "\n".join("  " * i + "- " + ">" * (i % 50) + f" step{i}" for i in range(depth))


def items(count: int) -> str:
    return "\n".join(f"- item {i} value {3 * i}" for i in range(count))


@pytest.fixture()
def tokenized(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every text the blank pipeline's tokenizer is given, in order."""
    seen: list[str] = []
    real = DocTokens.of_texts.__func__  # type: ignore[attr-defined]

    def spy(cls: Any, tokenizer: Any, texts: list[str], per_doc: int | None = None) -> list[DocTokens]:
        seen.extend(texts)
        return real(cls, tokenizer, texts, per_doc)

    monkeypatch.setattr(DocTokens, "of_texts", classmethod(spy))
    return seen


@pytest.mark.parametrize("depth", [50, 400, MAX_READ_ITEMS])
def test_a_deep_lists_indent_is_not_tokenized(tokenized: list[str], depth: int) -> None:
    """The tokenizer reads each item from its marker on: the characters it is given grow
    with the items' words, not with their indent (which grows with the square of the depth)."""
    text = deep_list(depth)
    pieces = segment_texts([text], get_pipeline())[0]
    assert [p.kind for p in pieces] == ["list_item"] * depth  # a deep list is a list
    assert all(p.start == text.rfind("\n", 0, p.start) + 1 for p in pieces)  # each keeps its indent in the source
    words = sum(len(line.lstrip()) for line in text.split("\n"))
    assert sum(len(t) for t in tokenized) == words
    assert not any(t[:1].isspace() for t in tokenized)


def test_an_indented_items_names_are_where_they_are_in_the_source() -> None:
    text = "- Travel plans\n      - Book Hilton Garden Inn for Maria\n          - Ask Acme Corp about ORD-1234"
    pieces = segment_texts([text], get_pipeline())[0]
    for p in pieces:
        for lit in p.literals:
            assert text[p.start + lit.start:p.start + lit.end] == lit.text
    found = {lit.text for p in pieces for lit in p.literals}
    assert {"Hilton Garden Inn", "Maria", "Acme Corp", "ORD-1234"} <= found


@pytest.mark.parametrize("depth", [10, 100, 3000])
def test_list_depth_is_bounded_and_the_outline_with_it(depth: int) -> None:
    text = deep_list(depth)
    depths = [b.depth for b in split_blocks(text)]
    assert depths == [min(i, LIMITS.list_depth) for i in range(depth)]
    if depth > 1000:
        return  # (the view of the whole list: benchmarks/bench_hostile.py deep-list-3000)
    from discourse_memory import Compactor

    compactor = Compactor()
    cols, _ = compactor._columns([{"role": "user", "content": text}])
    heads = list_heads(cols)
    longest = 0
    for u in range(len(heads)):
        chain, h = 0, int(heads[u])
        while h >= 0:
            chain, h = chain + 1, int(heads[h])
        longest = max(longest, chain)
    assert longest <= LIMITS.list_depth + 1


@pytest.mark.parametrize("count,read", [(MAX_READ_ITEMS, True), (MAX_READ_ITEMS + 1, False), (20_000, False)])
def test_a_generated_lists_items_are_read_by_pattern(tokenized: list[str], count: int, read: bool) -> None:
    """Up to MAX_READ_ITEMS items a message's items are tokenized; past it, none is, and
    each is still a list item with its literals."""
    text = "Here are the results of the run, as you asked for them.\n\n" + items(count)
    pieces = segment_texts([text], get_pipeline())[0]
    assert sum(p.kind == "list_item" for p in pieces) == count
    assert sum(t.startswith("- item") for t in tokenized) == (count if read else 0)
    last = pieces[-1]
    assert [lit.text for lit in last.literals] == [str(count - 1), str(3 * (count - 1))]


def test_strip_span_is_str_strip() -> None:
    rng = random.Random(48)
    alphabet = [" ", "\t", "\n", "\u3000", "\x0b", "a", "b", "-"]
    for _ in range(3000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 12)))
        start = rng.randint(0, len(text))
        end = rng.randint(start, len(text))
        s, e = _strip_span(text, start, end)
        body = text[start:end].strip()
        assert text[s:e] == body and (not body or s == start + len(text[start:end]) - len(text[start:end].lstrip()))


@pytest.mark.parametrize("depth", [LIMITS.payload_depth, LIMITS.payload_depth + 1, 100_000])
def test_the_payload_walk_is_iterative(depth: int) -> None:
    value: Any = "x"
    for _ in range(depth):
        value = [value] if depth % 2 else {"k": value}
    problem = payload_problem({"role": "user", "content": "hi", "meta": value})
    assert (problem is None) == (depth + 1 <= LIMITS.payload_depth)  # (the message itself is one level)
    if problem is not None:
        with pytest.raises(InvalidMessageError, match="nests more than"):
            DiscourseMemory([{"role": "user", "content": "hi", "meta": value}])


@pytest.mark.parametrize("width", [10, 1000, 100_000])
def test_the_payload_walk_counts_values(width: int) -> None:
    message = {"role": "user", "content": "hi", "meta": list(range(width))}
    assert payload_problem(message, max_values=50_000, json_only=True) == (
        None if width + 4 <= 50_000 else "holds more than 50,000 values")


SHAPES = {
    "deep list": deep_list(300),
    "items": items(3000),
    "unterminated fences": "".join(f"{'`' * (3 + i % 5)}x{i}\nvalue_{i} = {i}\n" for i in range(2000)),
    "one unterminated fence": "```python\n" + "\n".join(f"value_{i} = compute({i})" for i in range(2000)),
    "a long line": "alpha-7 beta_8 " * 4000,
    "nested JSON without a space": "The body: " + '{"a":' * 3000 + "1" + "}" * 3000,
    "regex bait": "\n".join(["1." * 5000, "a@" * 5000, "(" * 5000 + ")" * 5000, "$" + "9," * 5000]),
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_each_shape_gives_a_view_that_fits(shape: str) -> None:
    msgs = [{"role": "user", "content": SHAPES[shape]}, {"role": "user", "content": "What was value 7?"}]
    view = compact(msgs, 1500)
    assert view.tokens_after <= 1500
    assert view.messages[-1]["content"] == "What was value 7?"


def test_compact_refuses_tool_arguments_nested_past_the_recursion_limit() -> None:
    value: Any = "x"
    for _ in range(5000):
        value = {"k": value}
    call = {"id": "a", "type": "function", "function": {"name": "f", "arguments": value}}
    with pytest.raises(InvalidMessageError, match=r"tool_calls\[0\] arguments"):
        compact([{"role": "user", "content": "go"}, {"role": "assistant", "content": None, "tool_calls": [call]},
                 {"role": "user", "content": "ok"}], 200)


@pytest.mark.parametrize("arguments", [
    '{"command": ' + "[" * 50_000 + "]" * 50_000 + "}",
    '{"a": ' + '{"a": ' * 50_000 + "1" + "}" * 50_001,
    "[" * 50_000,
])
def test_tool_arguments_as_json_text_nested_past_the_recursion_limit_give_a_view(arguments: str) -> None:
    # (a string is the model's text, not a payload the library walks: it is read as text
    # wherever JSON does not parse, and never crashes the turn)
    msgs = [{"role": "user", "content": "go " * 40},
            {"role": "assistant", "content": None,
             "tool_calls": [{"id": "a", "type": "function", "function": {"name": "bash", "arguments": arguments}}]},
            {"role": "tool", "tool_call_id": "a", "content": arguments},
            {"role": "user", "content": "What now?"}]
    for budget in (300, 200_000):
        view = compact(msgs, budget)
        assert view.tokens_after <= budget
        assert view.messages[-1]["content"] == "What now?"

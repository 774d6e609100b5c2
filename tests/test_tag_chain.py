"""The conversation's tag (printed in the note, naming the shared entries) is exactly the
chain of ``digest(tag + "\\x00" + repr(fingerprint))`` it always was: ``tag_chain.chain``
only computes it faster (issue 49)."""

from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from discourse_memory.compaction import _fingerprint
from discourse_memory.keys import digest
from discourse_memory.messages import validate_messages
from discourse_memory.tag_chain import chain, quoted


def _formula(tag: str, prints: list) -> list[str]:
    """The tag as compaction wrote it before tag_chain."""
    out = []
    for p in prints:
        tag = digest(tag + "\x00" + repr(p))
        out.append(tag)
    return out


# Every character (surrogates too), with the ones repr treats apart drawn often: both quotes,
# backslash, tab, newline, return, the other control characters, DEL, non-ASCII.
_SPECIAL = st.sampled_from(list("'\"\\\t\n\r\x00\x01\x1b\x1f\x7f\x80\xa0\u2028\ud800\udfff\U0001f600 a"))
_CHAR = st.one_of(st.characters(min_codepoint=0, max_codepoint=0x10FFFF, blacklist_categories=()), _SPECIAL,
                  st.characters(min_codepoint=0x20, max_codepoint=0x7E))
_TEXT = st.text(_CHAR, max_size=60)


class _Odd(str):
    """A str of its own repr: the tuple's repr calls it, so must the chain."""

    def __repr__(self) -> str:
        return "odd!"


_ATOM = st.one_of(_TEXT, st.none(), st.integers(), _TEXT.map(_Odd))
_FIELDS = st.lists(st.one_of(st.tuples(_TEXT, _ATOM), st.tuples(_TEXT), st.tuples(_TEXT, _TEXT, _TEXT),
                             _ATOM), max_size=3).map(tuple)
# (the fingerprint's shape, and others: a list of fields, a tuple of another length, a tuple subclass)
_PRINT = st.one_of(
    st.tuples(_ATOM, _ATOM, _FIELDS, st.lists(st.tuples(_TEXT, _TEXT, _TEXT), max_size=2).map(tuple), _ATOM),
    st.tuples(_ATOM, _ATOM, st.lists(st.tuples(_TEXT, _TEXT), max_size=2), _ATOM, _ATOM),
    st.tuples(_ATOM, _ATOM, _FIELDS),
    _ATOM,
)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(tag=st.one_of(st.just(""), _TEXT), prints=st.lists(_PRINT, max_size=4))
def test_chain_is_the_formula(tag, prints):
    assert chain(tag, prints) == _formula(tag, prints)


@settings(max_examples=400, deadline=None)
@given(texts=st.lists(st.one_of(_TEXT, st.text(_SPECIAL, max_size=20), _ATOM), max_size=5))
def test_quoted_is_repr(texts):
    assert quoted(texts) == [repr(t).encode("utf-8", "surrogatepass") for t in texts]


def test_every_byte_and_quote_mix():
    # (each single character of the first 256 code points, and each quote mix, with and
    # without backslashes and escapes around it)
    texts = [chr(c) for c in range(256)] + [chr(c) * 3 + "x" for c in range(256)]
    texts += [a + b + c for a in ("", "'", '"', "\\") for b in ("", "'", '"', "\n") for c in ("", "\t", "'", "\r")]
    assert quoted(texts) == [repr(t).encode("utf-8", "surrogatepass") for t in texts]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contents=st.lists(st.one_of(_TEXT, st.lists(st.one_of(_TEXT, st.builds(
    lambda t: {"type": "text", "text": t}, _TEXT)), max_size=2)), min_size=1, max_size=4),
       name=st.one_of(st.none(), _TEXT))
def test_messages_tags_are_the_formula(contents, name):
    # (the fingerprints compaction makes of messages: plain, of parts, named, with calls)
    msgs = []
    for i, c in enumerate(contents):
        m = {"role": ("user", "assistant", "tool")[i % 3], "content": c}
        if name is not None:
            m["name"] = name
        if m["role"] == "assistant":
            m["tool_calls"] = [{"id": "c'1", "type": "function", "function": {"name": "f", "arguments": '{"a": "\\n"}'}}]
        if m["role"] == "tool":
            m["tool_call_id"] = "c'1"
        msgs.append(m)
    prints = [_fingerprint(m) for m in validate_messages(msgs)]
    assert chain("", prints) == _formula("", prints)

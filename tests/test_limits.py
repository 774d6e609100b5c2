"""The top-level modules' bounds are fields of one frozen, documented ``Limits``; a provider's
framing is a ``FramingRule`` (issue 47)."""

from __future__ import annotations

import ast
import importlib.util
from dataclasses import FrozenInstanceError, fields
from pathlib import Path

import pytest

from discourse_memory import limits
from discourse_memory.framing import RULES, FramingRule, framing_of
from discourse_memory.limits import LIMITS, Limits

_CORE = Path(limits.__file__).parent
# (the count the docs quote is this script's: one walk of the modules for both)
_SPEC = importlib.util.spec_from_file_location("module_numbers", Path(__file__).resolve().parents[1] / "scripts" / "module_numbers.py")
module_numbers = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(module_numbers)
# A module-level number that is no bound: an identity, a format's layout, a sentinel, a
# counter, or one in a module reshaped elsewhere (each named, so a new one fails here).
_ALLOWED = {
    "memory.SCHEMA_VERSION", "analysis_codec.FORMAT", "cache_entry.DIGEST", "cache_entry.JSON", "analysis_codec._HEAD",
    "analysis_codec._COLS", "fit/shared_rows._COLS", "shared_columns._HEAD", "shared_columns._COLS", "json_units.LINE", "gc_pause._depth", "lang/zh._CJK_NAME_CHARS",
    "segment.MAX_READ_ITEMS", "outline.HEAD_CHARS",
    "units._TEXT_CACHE_LIMIT", "units._PIECE_CACHE_LIMIT", "units.WIDE_SCRIPT_SHARE", "record/context._CJK_CONTEXT",
}


def _numbers() -> set[str]:
    return {f"{module}.{name}" for module, names in module_numbers.numbers(_CORE).items() for name in names}


def test_no_module_of_the_core_is_over_700_lines():
    sizes = {p.relative_to(_CORE).as_posix(): len(p.read_text(encoding="utf-8").splitlines())
             for p in _CORE.rglob("*.py")}
    assert max(sizes.values()) <= 700, {k: v for k, v in sizes.items() if v > 700}  # issue 47's bar


def test_the_cores_module_numbers_are_the_allowed_few():
    found = _numbers()
    assert found <= _ALLOWED, found - _ALLOWED
    assert len(found) <= 25  # issue 47's bar


def test_every_limit_is_documented_in_its_module():
    # (a field's docstring is the string right after it in the class body)
    tree = ast.parse(Path(limits.__file__).read_text(encoding="utf-8"))
    body = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Limits").body
    documented = {a.target.id for a, b in zip(body, body[1:])
                  if isinstance(a, ast.AnnAssign) and isinstance(b, ast.Expr) and isinstance(b.value, ast.Constant)}
    assert {f.name for f in fields(Limits)} == documented


def test_limits_are_frozen():
    with pytest.raises(FrozenInstanceError):
        LIMITS.list_depth = 3  # type: ignore[misc]


def test_the_named_framing_rules():
    assert RULES["openai"] == FramingRule(per_message=3, per_name=1, per_block=0, reply=3)
    assert RULES["anthropic"] == FramingRule(per_message=5, per_name=1, per_block=6, reply=5)
    count = len  # (one token a character: the rule's own numbers are what is left)
    for name, rule in RULES.items():
        framing = framing_of(name, "openai", count)
        assert framing.reply == rule.reply
        assert framing.per_message({"role": ""}) == rule.per_message
        assert framing.per_message({"role": "", "name": "ab"}) == rule.per_message + rule.per_name + 2
        assert framing.per_message({"role": "", "tool_call_id": "x"}) == rule.per_message + rule.per_block + 1
    with pytest.raises(FrozenInstanceError):
        RULES["openai"].reply = 4  # type: ignore[misc]
    with pytest.raises(TypeError):
        RULES["openai"] = RULES["anthropic"]  # type: ignore[index]

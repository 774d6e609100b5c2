"""The record as a package (issue 47): its names reachable from ``discourse_memory.record``,
its modules small, its bounds in :class:`~discourse_memory.record.limits.Limits`."""

from __future__ import annotations

import ast
import importlib
from dataclasses import FrozenInstanceError
from pathlib import Path

import pytest

from discourse_memory import record
from discourse_memory.record.limits import LIMITS

PACKAGE = Path(record.__file__).parent
MODULES = sorted(p for p in PACKAGE.glob("*.py") if p.name != "__init__.py")


def test_every_public_name_is_its_owning_modules():
    assert record.__all__ == sorted(record.__all__) and len(record.__all__) > 30
    for name in record.__all__:
        owner = importlib.import_module(f"discourse_memory.record.{record._OWNER[name]}")
        assert getattr(record, name) is getattr(owner, name), name
    assert set(record.__all__) <= set(dir(record))


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'MAX_ITEM_CHARS'"):
        record.MAX_ITEM_CHARS  # noqa: B018 - moved to LIMITS.item_chars
    with pytest.raises(ImportError):
        exec("from discourse_memory.record import _not_a_name", {})


def test_no_module_of_the_record_is_over_700_lines():
    sizes = {p.name: len(p.read_text(encoding="utf-8").splitlines()) for p in MODULES}
    assert len(sizes) >= 10 and max(sizes.values()) <= 700, sizes


def _numeric(value: ast.expr) -> bool:
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
    if isinstance(value, ast.UnaryOp):
        return _numeric(value.operand)
    return isinstance(value, ast.BinOp) and _numeric(value.left) and _numeric(value.right)


def test_the_records_numbers_are_fields_of_limits():
    # A bound of a rule is a field of Limits, documented there, not a module constant.
    # (_CJK_CONTEXT waits for the language packs.)
    found = {f"{p.stem}.{node.targets[0].id}" for p in MODULES
             for node in ast.parse(p.read_text(encoding="utf-8")).body
             if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name) and _numeric(node.value)}
    assert found <= {"context._CJK_CONTEXT"}, found


def test_limits_are_frozen():
    with pytest.raises(FrozenInstanceError):
        LIMITS.item_chars = 10  # type: ignore[misc]

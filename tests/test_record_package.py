"""The record as a package (issue 47): its names reachable from ``discourse_memory.record``,
its modules small, its bounds in :class:`~discourse_memory.record.limits.Limits`."""

from __future__ import annotations

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


def test_the_record_is_a_package_of_modules():
    # (their size and their numbers are checked with the whole core's: tests/test_limits.py)
    assert len(MODULES) >= 10


def test_limits_are_frozen():
    with pytest.raises(FrozenInstanceError):
        LIMITS.item_chars = 10  # type: ignore[misc]

"""The core's module-level numbers (issue 47's bar: at most 25 outside the ``Policy``), by
module; ``tests/test_limits.py`` checks each is one of the allowed few.

    python scripts/module_numbers.py
"""

from __future__ import annotations

import ast
from pathlib import Path

CORE = Path(__file__).resolve().parents[1] / "discourse_memory"


def _numeric(value: ast.expr) -> bool:
    if isinstance(value, ast.Constant):
        return isinstance(value.value, (int, float)) and not isinstance(value.value, bool)
    if isinstance(value, ast.UnaryOp):
        return _numeric(value.operand)
    return isinstance(value, ast.BinOp) and _numeric(value.left) and _numeric(value.right)


def numbers(core: Path = CORE) -> dict[str, list[str]]:
    """Each module's (path without ``.py``) module-level names bound to a number."""
    found: dict[str, list[str]] = {}
    for path in sorted(core.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            target, value = ((node.targets[0], node.value) if isinstance(node, ast.Assign)
                             else (node.target, node.value) if isinstance(node, ast.AnnAssign) else (None, None))
            if isinstance(target, ast.Name) and value is not None and _numeric(value):
                found.setdefault(path.relative_to(core).with_suffix("").as_posix(), []).append(target.id)
    return found


if __name__ == "__main__":
    found = numbers()
    for module, names in found.items():
        print(f"{module}: {' '.join(names)}")
    print("total", sum(map(len, found.values())))

"""The core's modules import each other without a circle: each can be read on its own,
from the modules it imports."""

from __future__ import annotations

import ast
from pathlib import Path

import discourse_memory

PACKAGE = Path(discourse_memory.__file__).parent


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imports(path: Path) -> set[str]:
    """The package's modules this one imports when it is loaded (its top level; not under
    ``if TYPE_CHECKING:``, not inside functions)."""
    name = _module_name(path)
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    found: set[str] = set()
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                target = f"{base}.{node.module}" if node.module else base
            else:
                target = node.module or ""
            # ``from . import x`` and ``from .pkg import mod`` import modules too
            found.add(target)
            found.update(f"{target}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            found.update(a.name for a in node.names)
    return found


def graph() -> dict[str, set[str]]:
    modules = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    return {name: {m for m in _imports(path) if m in modules and m != name} for name, path in modules.items()}


def _cycle(edges: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}  # 1: on the path, 2: done
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(edges.get(node, ())):
            if state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return None

    for node in sorted(edges):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_the_checker_finds_a_circle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_the_fitting_stage_is_a_package_of_modules():
    edges = graph()
    assert "discourse_memory.fit.rank" in edges["discourse_memory.fit.fitting"]
    assert "discourse_memory.fit.types" in edges["discourse_memory.fit.plan"]


def test_no_import_circle_in_the_core():
    edges = graph()
    # A package's __init__ re-exports its modules: an import of the package by one of
    # them (none does) would be a circle; one of the package's own modules is not.
    edges = {k: {m for m in v if not (k.startswith(m + ".") and m.count(".") < k.count("."))} for k, v in edges.items()}
    assert _cycle(edges) is None

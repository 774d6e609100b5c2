"""Packaging: public names, namespace layout and LlamaHub metadata."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_exported_names():
    import llama_index.memory.discourse as package

    assert package.__all__ == ["DiscourseMemoryBlock", "DiscourseMemoryBuffer", "recall_tool"]
    for name in package.__all__:
        assert getattr(package, name).__module__.startswith("llama_index.memory.discourse.")


def test_namespace_folders_have_no_init():
    assert not (ROOT / "llama_index" / "__init__.py").exists()
    assert not (ROOT / "llama_index" / "memory" / "__init__.py").exists()
    assert (ROOT / "llama_index" / "memory" / "discourse" / "__init__.py").exists()


def test_llama_index_core_still_imports_next_to_the_package():
    import llama_index.core
    import llama_index.core.memory
    import llama_index.memory.discourse

    assert llama_index.core.memory.ChatMemoryBuffer is not None
    # llama_index and llama_index.memory are still namespace packages (no __init__.py
    # of ours shadows llama-index-core's), spanning this checkout and site-packages.
    for name in ("llama_index", "llama_index.memory"):
        module = sys.modules[name]
        assert getattr(module, "__file__", None) is None, f"{name} is not a namespace package"
    paths = {Path(p).resolve() for p in sys.modules["llama_index"].__path__}
    assert ROOT / "llama_index" in paths
    assert Path(llama_index.core.__file__).resolve().parent.parent in paths


@pytest.mark.skipif(sys.version_info < (3, 11), reason="tomllib is in the standard library from 3.11")
def test_pyproject_metadata():
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert data["build-system"]["build-backend"] == "hatchling.build"
    project = data["project"]
    assert project["name"] == "llama-index-memory-discourse"
    assert "llama-index-core>=0.13,<0.15" in project["dependencies"]
    assert any(d.startswith("discourse-memory") for d in project["dependencies"])
    assert data["tool"]["hatch"]["build"]["targets"]["wheel"]["include"] == ["llama_index/"]
    hub = data["tool"]["llamahub"]
    assert hub["import_path"] == "llama_index.memory.discourse"
    assert set(hub["class_authors"]) == {"DiscourseMemoryBlock", "DiscourseMemoryBuffer"}


def test_tests_import_this_checkout():
    import llama_index.memory.discourse as package

    assert Path(package.__file__).resolve().parent == ROOT / "llama_index" / "memory" / "discourse"

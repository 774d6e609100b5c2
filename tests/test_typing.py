"""Typed packages: every distribution ships its PEP 561 ``py.typed`` marker, so a user's
mypy checks calls into it (without the marker mypy reports "missing library stubs or
py.typed marker" and treats the whole package as ``Any``)."""

import importlib.resources
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# (project directory, the typed package's import name, its path inside the wheel)
PACKAGES = [
    (ROOT, "discourse_memory", "discourse_memory/py.typed"),
    (ROOT / "integrations" / "langchain", "langchain_discourse_memory", "langchain_discourse_memory/py.typed"),
    (ROOT / "integrations" / "llamaindex", "llama_index.memory.discourse", "llama_index/memory/discourse/py.typed"),
]


@pytest.mark.parametrize("project, package, member", PACKAGES, ids=[p[1] for p in PACKAGES])
def test_the_installed_package_has_its_marker(project, package, member):
    assert importlib.resources.files(package).joinpath("py.typed").is_file()


@pytest.mark.required_in_ci("hatchling")
@pytest.mark.parametrize("project, package, member", PACKAGES, ids=[p[1] for p in PACKAGES])
def test_the_wheel_ships_the_marker(project, package, member, tmp_path):
    try:
        from hatchling.builders.wheel import WheelBuilder
    except ImportError:
        pytest.skip("hatchling (the build backend) is not installed: pip install hatchling")
    wheel, = WheelBuilder(str(project)).build(directory=str(tmp_path), versions=["standard"])
    names = zipfile.ZipFile(wheel).namelist()
    assert member in names, [n for n in names if n.endswith("py.typed")]

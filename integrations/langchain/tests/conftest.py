"""Test setup shared by unit and integration tests. This folder is put on `sys.path`, so that
`lc_history_contract` (the chat-history contract tests) imports under `--import-mode=importlib`."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

from hypothesis import settings

# The distribution is normally installed (`pip install -e integrations/langchain`);
# a fresh clone without it still runs the tests from the source folder.
if importlib.util.find_spec("langchain_discourse_memory") is None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

# In CI, explore the same examples on every run (no flaky reds); locally, explore anew.
settings.register_profile("ci", derandomize=True, print_blob=True)
if os.environ.get("CI"):
    settings.load_profile("ci")

"""`langchain_discourse_memory.testing` and the examples that use it import without pytest (a user's
install has no test tools; `scripts/run_examples.sh` runs the examples that way)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[4]

NO_PYTEST = """
import runpy, sys
class NoTestTools:
    def find_spec(self, name, path=None, target=None):
        if name.split('.')[0] in ('pytest', '_pytest', 'hypothesis'):
            raise ImportError(f'{name} is not installed here')
        return None
sys.meta_path.insert(0, NoTestTools())
for name in [n for n in sys.modules if n.split('.')[0] in ('pytest', '_pytest', 'hypothesis')]:
    del sys.modules[name]
from langchain_discourse_memory.testing import ScriptedToolChatModel, check_agent_requests, sample_conversation
for example in sys.argv[1:]:
    runpy.run_path(example, run_name='imported')  # imports and definitions, not main()
print('ok')
"""


def test_testing_and_the_examples_import_without_pytest() -> None:
    examples = [str(p) for p in sorted((ROOT / "examples").glob("langchain_*.py"))]
    assert len(examples) >= 3
    run = subprocess.run([sys.executable, "-c", NO_PYTEST, *examples], capture_output=True, text=True, timeout=300)
    assert run.returncode == 0 and run.stdout.strip() == "ok", run.stdout + run.stderr

"""Coverage-guided fuzzing (atheris) of texts and conversations through the library.

Runs ``fuzz_atheris.py`` in a subprocess for ``DM_ATHERIS_RUNS`` inputs (default 40,000,
about 35 s here) from an empty corpus with a fixed seed; libFuzzer stops at the first
input whose outcome is neither a correct result nor a documented error and writes it
to a ``crash-*`` file, whose traceback is in the failure message. Skips without atheris
(wheels for Linux x86_64, Python 3.11-3.13), and fails instead when ``CI`` is set.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
RUNS = int(os.environ.get("DM_ATHERIS_RUNS", "40000"))
SEED = int(os.environ.get("DM_FUZZ_SEED", "20261130"))


def test_atheris_finds_no_crash(tmp_path: Path, record_property) -> None:
    try:
        import atheris  # noqa: F401
    except ImportError:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            raise
        pytest.skip("atheris is not installed (pip install atheris; Linux x86_64 wheels)")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    proc = subprocess.run(
        [sys.executable, str(HERE / "fuzz_atheris.py"), str(corpus), f"-runs={RUNS}", f"-seed={SEED}",
         "-len_control=20", "-max_total_time=300", f"-artifact_prefix={tmp_path}/"],
        capture_output=True, text=True, timeout=420,
    )
    log = proc.stdout + proc.stderr
    crashes = sorted(tmp_path.glob("crash-*"))
    assert proc.returncode == 0 and not crashes, (
        f"atheris found an input that breaks the library (rc {proc.returncode}, {crashes}):\n{log[-6000:]}")
    done = re.search(r"Done (\d+) runs in (\d+) second", log)
    assert done, log[-2000:]
    runs = int(done.group(1))
    assert runs >= min(RUNS, 5_000), f"only {runs} inputs ran before the time limit"
    coverage = max((int(c) for c in re.findall(r"cov: (\d+)", log)), default=0)
    assert coverage > 300, f"coverage stayed at {coverage} edges: is the library instrumented?"
    record_property("atheris_runs", runs)
    print(f"\natheris: {runs} inputs in {done.group(2)} s, {coverage} coverage edges, {len(list(corpus.iterdir()))} "
          "inputs kept")

"""The public API: small, sorted, and free of framework imports."""

import subprocess
import sys

import discourse_memory

EXPECTED = {
    "NEWEST_TURN", "AnalysisCache", "BudgetTooSmallError", "Compaction", "Compactor", "DiscourseMemory", "DiscourseMemoryError",
    "EncodingUnavailableError", "InvalidMessageError", "InvalidOptionError", "Options", "Policy", "Recalled", "RecordEntry", "RedisAnalysisCache", "Report",
    "StateError", "TokenCounter", "UnitReport", "acompact", "compact", "count_messages", "get_token_counter", "warm_up",
}


def test_all_is_sorted_and_exact():
    assert discourse_memory.__all__ == sorted(discourse_memory.__all__)
    assert set(discourse_memory.__all__) == EXPECTED
    for name in EXPECTED:
        assert getattr(discourse_memory, name) is not None


def test_core_imports_no_framework():
    code = ("import sys, discourse_memory, discourse_memory.cli; "
            "discourse_memory.compact([{'role':'user','content':'x'}], 10);"
            "bad=[m for m in sys.modules if m.split('.')[0] in "
            "('langchain','langchain_core','llama_index','discourse_memory_evaluation')];"
            "print(bad); sys.exit(1 if bad else 0)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_importing_the_library_does_not_load_spacy():
    # spaCy takes most of a second to import: only the first analysis should pay it
    # (a CLI --help, a state load or a framework import stays fast).
    code = "import sys, discourse_memory; print('spacy' in sys.modules); sys.exit('spacy' in sys.modules)"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr


def test_the_wheel_holds_the_library_only(tmp_path):
    """The evaluation harness (bench, baselines, grader) is its own distribution in
    evaluation/: the core wheel must not carry it."""
    import zipfile
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                          "-w", str(tmp_path), str(root)], capture_output=True, text=True)
    if run.returncode != 0:  # no hatchling in this venv: build it the standard way
        run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path),
                              str(root)], capture_output=True, text=True)
    assert run.returncode == 0, run.stdout + run.stderr
    (wheel,) = tmp_path.glob("discourse_memory-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert any(n.startswith("discourse_memory/compaction") for n in names), names
    bad = [n for n in names if "evaluation" in n or "baselines" in n or "grader" in n]
    assert not bad, bad

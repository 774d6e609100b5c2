"""The public names of langchain_discourse_memory."""

from __future__ import annotations

import langchain_discourse_memory

EXPECTED_ALL = [
    "CompactedView",
    "ConversationDiscourseMemory",
    "DiscourseChatMessageHistory",
    "DiscourseCompactionMiddleware",
    "ListChatMessageHistory",
    "RecallTool",
    "compact_messages",
    "compact_view",
    "count_tokens",
]


def test_all_imports() -> None:
    assert langchain_discourse_memory.__all__ == EXPECTED_ALL
    assert sorted(EXPECTED_ALL) == EXPECTED_ALL


def test_every_exported_name_resolves() -> None:
    for name in EXPECTED_ALL:
        assert getattr(langchain_discourse_memory, name) is not None, name


def test_unknown_attribute_is_an_attribute_error() -> None:
    try:
        langchain_discourse_memory.NoSuchThing  # noqa: B018
    except AttributeError as exc:
        assert "NoSuchThing" in str(exc)
    else:  # pragma: no cover
        raise AssertionError("expected AttributeError")


def test_core_features_import_without_the_extras() -> None:
    """With langchain and langchain-classic unavailable, the package still imports and
    the extras' classes fail with an install hint."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = (
        "import sys\n"
        "sys.modules['langchain'] = None\n"
        "sys.modules['langchain_classic'] = None\n"
        "import langchain_discourse_memory as m\n"
        "assert callable(m.compact_messages) and m.DiscourseChatMessageHistory and m.RecallTool\n"
        "for name in ('DiscourseCompactionMiddleware', 'ConversationDiscourseMemory'):\n"
        "    try:\n"
        "        getattr(m, name)\n"
        "    except ImportError as exc:\n"
        "        print(exc)\n"
    )
    root = Path(__file__).resolve().parents[4]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(root), str(Path(__file__).resolve().parents[2])])}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, cwd=root, timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0].startswith(
        'DiscourseCompactionMiddleware needs langchain: pip install "langchain-discourse-memory[agents]"'
    )
    assert lines[1].startswith(
        'ConversationDiscourseMemory needs langchain-classic: pip install "langchain-discourse-memory[classic]"'
    )

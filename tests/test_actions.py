"""Text agents' steps: the command of an action, and the record keyed by it."""

from __future__ import annotations

import pytest

from discourse_memory import compact
from discourse_memory.actions import is_action, last_command
from discourse_memory.messages import validate_messages
from discourse_memory.record.labels import LABEL_CHARS, command_label

from .conftest import view_tokens


def _message(text: str, role: str = "assistant"):
    return validate_messages([{"role": role, "content": text}])[0]


@pytest.mark.parametrize("text, command", [
    ("THOUGHT: look.\n\n```bash\nnl -ba django/db/models/deletion.py | sed -n 1,40p\n```",
     "nl -ba django/db/models/deletion.py | sed -n 1,40p"),
    # a here-document writes a script; the line after it runs the script, whose output follows
    ("```bash\ncat <<'EOF' > repro.py\nprint(1)\n\nEOF\npython3 repro.py\n```", "python3 repro.py"),
    ("```bash\ncat <<EOF > notes.txt\nsome: text\nEOF\n```", "cat <<EOF > notes.txt"),
    ("First\n```\nls\n```\nthen the real one\n```bash\npytest -q tests/a.py\n```", "pytest -q tests/a.py"),
    ("```yaml\nserver:\n  port: 8080\n```", None),  # code shown, nothing run
    ("no block here", None),
    ("```bash\n\n```", None),
])
def test_the_command_of_an_action(text, command):
    m = _message(text)
    assert is_action(m) == ("```" in text)
    assert last_command(m) == command


@pytest.mark.parametrize("command, label", [
    ("cd /testbed && nl -ba django/db/models/deletion.py | head -n 250 | tail -n 50",
     "`nl -ba django/db/models/deletion.py`"),
    ("python3 tests/runtests.py delete", "`python3 tests/runtests.py delete`"),
    ("echo `date`; echo a: b", "`echo a:b`"),
])
def test_a_command_as_a_record_label(command, label):
    assert command_label(command) == label


def test_a_long_command_keeps_its_head_and_its_tail():
    label = command_label("grep -rn 'def resolve_lookup_value' django/db/models/sql/query.py")
    assert len(label) == LABEL_CHARS + 2 and label.startswith("`grep -rn") and label.endswith("sql/query.py`")
    assert "…" in label and "\n" not in command_label("a\u2028b\nc")


def test_a_text_agents_output_is_keyed_by_its_command():
    words = "amber basil cedar dune ember fjord grove heron iris juniper kelp lotus moss nectar opal pine".split()

    def filler(i: int) -> str:  # text of its own in every output (repeats would be deduplicated)
        return " ".join(f"The {words[(i + k) % 16]} fixture loaded {words[(3 * i + 2 * k) % 16]} settings first."
                        for k in range(12))
    msgs = [{"role": "system", "content": "You run one bash command per turn."},
            {"role": "user", "content": "Fix the failing deletion test."}]
    for i in range(6):
        msgs.append({"role": "assistant", "content": f"THOUGHT: run it.\n\n```bash\ncd /testbed && python3 "
                                                     f"tests/runtests.py delete_{i} | tail -n 20\n```"})
        msgs.append({"role": "user", "content": f"<returncode>1</returncode>\n<output>\n{filler(i)}\nFAILED "
                                                f"test_cascade_{i}: ticket DEL-{700 + i}"
                                                f"\n{filler(i + 7)}\n</output>"})
    msgs.append({"role": "assistant", "content": "THOUGHT: now read the code.\n\n```bash\nls\n```"})
    msgs.append({"role": "user", "content": "<returncode>0</returncode>\n<output>\nsetup.py\n</output>"})
    labels = {}
    for share in (0.2, 0.3, 0.4):
        r = compact(msgs, int(view_tokens(msgs) * share))
        for e in r.report.entries:
            labels[e.label] = e.values
    keyed = {label: values for label, values in labels.items() if "runtests" in label}
    assert keyed, labels
    for label, values in keyed.items():
        i = label.split()[0]
        k = (int(i[1:]) - 3) // 2  # the run's number, as its command names it
        assert label == f"{i} `python3 tests/runtests.py delete_{k}`"
        assert all(str(700 + k) in v or f"test_cascade_{k}" in v for v in values if "DEL" in v or "cascade" in v)
    assert not any(label.endswith(" user") and label != "#1 user" for label in labels)

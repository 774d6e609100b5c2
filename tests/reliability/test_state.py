"""Saved state: JSON with a schema version, validated on load; corrupt, wrongly typed
or future states raise ``StateError`` with a clear message; loading never runs code
(no pickle anywhere in the library or the adapters)."""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from discourse_memory import DiscourseMemory, StateError
from discourse_memory.sample import sample_conversation

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def state() -> dict[str, Any]:
    memory = DiscourseMemory(sample_conversation(1)[:20])
    return memory.to_dict()


def test_state_is_plain_json_with_schema_and_version(state: dict[str, Any]) -> None:
    text = json.dumps(state)  # raises if anything is not JSON
    assert state["schema"] == "discourse-memory/state" and state["version"] == 1
    restored = DiscourseMemory.from_dict(json.loads(text))
    assert restored.view(300).messages == DiscourseMemory.from_dict(state).view(300).messages


def _mutated(state: dict[str, Any], path: tuple[Any, ...], value: Any) -> dict[str, Any]:
    out = copy.deepcopy(state)
    target = out
    for key in path[:-1]:
        target = target[key]
    if value is _DELETE:
        del target[path[-1]]
    else:
        target[path[-1]] = value
    return out


_DELETE = object()

CORRUPT = [
    ((), None, "not a discourse-memory state"),
    (("schema",), "something-else", "not a discourse-memory state"),
    (("schema",), _DELETE, "not a discourse-memory state"),
    (("version",), 2, "newer than this discourse-memory understands"),
    (("version",), 10**9, "newer than this discourse-memory understands"),
    (("version",), "1", "version"),
    (("version",), 0, "version"),
    (("version",), None, "version"),
    (("version",), 1.5, "version"),
    (("settings",), [], "settings"),
    (("settings",), None, "settings"),
    (("messages",), {"role": "user"}, "messages"),
    (("messages",), "hello", "messages"),
    (("messages", 0), "not a message", "message 0"),
    (("messages", 0, "role"), 7, "message 0"),
    (("messages", 0, "content"), 5, "message 0"),
    (("messages", 0, "content"), {"type": "text"}, "message 0"),
    (("settings", "token_counter"), 123, "token_counter"),
    (("settings", "clip_tokens"), "twelve", "invalid state"),
]


@pytest.mark.parametrize("path,value,words", CORRUPT, ids=[f"{'.'.join(map(str, p)) or 'state'}={v!r}"[:60]
                                                           for p, v, _ in CORRUPT])
def test_corrupt_or_future_state_raises_state_error(state: dict[str, Any], path: tuple[Any, ...],
                                                    value: Any, words: str) -> None:
    bad = value if path == () else _mutated(state, path, value)
    with pytest.raises(StateError, match=re.escape(words)) as info:
        DiscourseMemory.from_dict(bad)  # type: ignore[arg-type]
    assert isinstance(info.value, ValueError)  # documented: StateError is a ValueError


def test_corrupt_json_text_is_a_value_error(state: dict[str, Any]) -> None:
    """State is stored as JSON text by the application: truncated text fails in
    ``json.loads`` (a ValueError) before it reaches the library."""
    text = json.dumps(state)
    for cut in (0, 1, len(text) // 2, len(text) - 1):
        with pytest.raises(ValueError):
            DiscourseMemory.from_dict(json.loads(text[:cut]))


# ---- Settings with the wrong type or value: must be rejected at load, not at view ----

WRONG_SETTINGS = [
    ("keep_system", "false"),        # bool("false") is True: silently the opposite
    ("keep_last_turn", "no"),
    ("keep_last_turn", 0.0),
    ("note_role", "bogus"),          # accepted at load; view() raises ValueError later
    ("note_role", 5),
    ("clip_tokens", -5),
    ("clip_tokens", 1.7),            # int(1.7) == 1: silently changed
    ("clip_tokens", True),
]


@pytest.mark.parametrize("key,value", WRONG_SETTINGS, ids=[f"{k}={v!r}" for k, v in WRONG_SETTINGS])
def test_wrongly_typed_settings_raise_state_error_at_load(state: dict[str, Any], key: str, value: Any) -> None:
    with pytest.raises(StateError, match=key):
        DiscourseMemory.from_dict(_mutated(state, ("settings", key), value))


def test_unknown_encoding_in_state_is_a_state_error(state: dict[str, Any]) -> None:
    with pytest.raises(StateError, match="token_counter"):
        DiscourseMemory.from_dict(_mutated(state, ("settings", "token_counter"), "no_such_encoding"))


def test_state_saved_with_a_callable_counter_needs_it_back() -> None:
    """``from_dict`` means to raise when a state saved with a callable counter is loaded
    without ``token_counter=`` (it checks a ``_callable`` flag), but ``to_dict`` never
    writes that flag: the state silently loads with cl100k_base, counting differently."""
    memory = DiscourseMemory([{"role": "user", "content": "hello there"}], token_counter=lambda s: len(s))
    with pytest.raises(StateError, match="token_counter"):
        DiscourseMemory.from_dict(json.loads(json.dumps(memory.to_dict())))


def test_loading_a_state_never_imports_a_module_named_by_it(state: dict[str, Any], tmp_path: Path) -> None:
    """The saved ``pipeline`` goes to ``spacy.load``, which imports any installed
    distribution of that name and calls its ``load()``: a state file must not choose
    code to run. Loading (and viewing) a state naming another package must raise
    StateError and import nothing."""
    bad = _mutated(state, ("settings", "pipeline"), "hypothesis")
    path = tmp_path / "state.json"
    path.write_text(json.dumps(bad))
    script = (
        "import json, sys\n"
        "from discourse_memory import DiscourseMemory, StateError\n"
        f"state = json.load(open({str(path)!r}))\n"
        "outcome = 'loaded'\n"
        "try:\n"
        "    DiscourseMemory.from_dict(state).view(50)\n"
        "except StateError as exc:\n"
        "    outcome = 'StateError'\n"
        "except Exception as exc:\n"
        "    outcome = type(exc).__name__\n"
        "print(outcome, 'hypothesis' in sys.modules)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False)
    assert proc.returncode == 0, proc.stderr[-2000:]
    outcome, imported = proc.stdout.split()
    assert imported == "False", "loading the state imported the package it named"
    assert outcome == "StateError"


def test_no_pickle_anywhere() -> None:
    """No module of the library or the adapters (de)serialises with pickle, marshal,
    shelve, dill, eval or exec: loading state can only ever parse JSON."""
    roots = [ROOT / "discourse_memory", ROOT / "integrations" / "langchain" / "langchain_discourse_memory",
             ROOT / "integrations" / "llamaindex" / "llama_index"]
    forbidden = re.compile(r"\b(?:import\s+(?:pickle|cPickle|marshal|shelve|dill|cloudpickle)\b"
                           r"|from\s+(?:pickle|marshal|shelve|dill|cloudpickle)\s+import"
                           r"|pickle\.loads?\(|marshal\.loads?\(|(?<![\w.])eval\(|(?<![\w.])exec\()")
    files = [p for root in roots for p in root.rglob("*.py")]
    assert len(files) > 20
    hits = [f"{p.relative_to(ROOT)}:{n}: {line.strip()}" for p in files
            for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if forbidden.search(line)]
    assert not hits, hits


# ---- Tampered states (issue 48): each field checked before use, each refusal names it ----

def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"k": value}
    return value


TAMPERED = [
    (("settings", "pipeline"), "blank:../../os", "settings.pipeline"),
    (("settings", "pipeline"), "blank:en/../../x", "settings.pipeline"),
    (("settings", "pipeline"), "../../os", "settings.pipeline"),
    (("settings", "pipeline"), "os.path", "settings.pipeline"),
    (("settings", "pipeline"), "/tmp/model", "settings.pipeline"),
    (("settings", "pipeline"), "blank:zz", "settings.pipeline"),
    (("settings", "pipeline"), 7, "settings.pipeline"),
    (("settings", "clip_tokens"), -3, "settings.clip_tokens"),
    (("settings", "clip_tokens"), 0, "settings.clip_tokens"),
    (("settings", "token_counter"), "../../etc/passwd", "settings.token_counter"),
    (("settings", "token_counter"), "x" * 500, "settings.token_counter"),
    (("settings", "token_counter_is_callable"), "yes", "settings.token_counter_is_callable"),
    (("settings", "recall"), "true", "settings.recall"),
    (("settings", "strict"), 1, "settings.strict"),
    (("settings", "message_overhead"), -1, "settings.message_overhead"),
    (("settings", "message_overhead"), True, "settings.message_overhead"),
    (("settings", "message_overhead"), "a/b" * 30, "settings.message_overhead"),
    (("settings", "message_overhead"), "no_such_format", "message_overhead"),
    (("settings", "keep_sytem"), False, "keep_sytem"),
    (("extra",), 1, "'extra'"),
    (("version",), True, "version"),
    (("version",), -1, "version"),
    (("messages", 0, "content"), _deep(5_000), "messages[0]"),
    (("messages", 1), _deep(5_000), "messages[1]"),
    (("messages", 0, "meta"), {1: "not a string key"}, "messages[0]"),
    (("messages", 0, "meta"), {"when": object()}, "messages[0]"),
    (("messages", 0, "meta"), list(range(1_000_001)), "messages[0]"),
]


@pytest.mark.parametrize("path,value,words", TAMPERED,
                         ids=[f"{n}-{'.'.join(map(str, p))}" for n, (p, _, _) in enumerate(TAMPERED)])
def test_tampered_state_is_refused_by_field(state: dict[str, Any], path: tuple[Any, ...], value: Any,
                                            words: str) -> None:
    with pytest.raises(StateError, match=re.escape(words)):
        DiscourseMemory.from_dict(_mutated(state, path, value))


def test_a_deep_message_from_a_state_is_refused_before_any_recursion(state: dict[str, Any]) -> None:
    """Nested deeper than the recursion limit: the walk is iterative, so the refusal is a
    StateError naming the message and the path, not a RecursionError from a copy."""
    bad = _mutated(state, ("messages", 2, "content"), [{"type": "text", "text": "x", "data": _deep(50_000)}])
    with pytest.raises(StateError, match=r"messages\[2\] nests more than 100 containers deep \(at \['content'\]\[0\]"):
        DiscourseMemory.from_dict(bad)


def test_a_deep_message_appended_is_an_invalid_message_not_a_recursion_error() -> None:
    from discourse_memory import InvalidMessageError

    memory = DiscourseMemory([{"role": "user", "content": "hello"}])
    with pytest.raises(InvalidMessageError, match="message 1 nests more than 100"):
        memory.append({"role": "tool", "content": "x", "tool_call_id": "a", "meta": _deep(5_000)})
    assert len(memory) == 1


def test_valid_settings_and_overhead_still_load(state: dict[str, Any]) -> None:
    for path, value in ((("settings", "pipeline"), "blank:en"), (("settings", "pipeline"), "blank:xx"),
                        (("settings", "pipeline"), None), (("settings", "message_overhead"), 0),
                        (("settings", "message_overhead"), 3), (("messages", 0, "meta"), _deep(60))):
        DiscourseMemory.from_dict(_mutated(state, path, value)).view(300)

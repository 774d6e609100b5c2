"""Coverage-guided fuzzing of the segmenter, the literal extractor and ``compact`` (atheris).

    python tests/reliability/fuzz_atheris.py -runs=20000 -seed=1 [-max_total_time=60]

Run by ``test_fuzz_atheris.py`` in a subprocess. The seeded loops and hypothesis in
``test_fuzz.py`` draw inputs blindly; atheris (libFuzzer for Python) keeps the inputs that
reach new lines of ``discourse_memory`` and mutates those, so it digs into branches a
random draw rarely meets (a fence inside a list item inside a table, a literal cut by a
surrogate). Each input is one text, through every text-level function; a saved
``DiscourseMemory`` state with hostile settings, loaded and viewed; or a whole
conversation, through ``compact`` at a budget read from the input. The outcome must be a
correct result or a documented error, checked as in ``test_fuzz.py``; anything else is a
crash, which libFuzzer reports with the input that caused it (written to ``crash-*``).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import atheris

HERE = Path(__file__).resolve().parent


def _load(name: str, file: str) -> Any:
    spec = importlib.util.spec_from_file_location(name, HERE / file)
    module = importlib.util.module_from_spec(spec)  # type: ignore[arg-type]
    sys.modules[name] = module
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


# Only the library is instrumented, and it must be imported here first: a module
# imported earlier (by the checks below) would not be.
with atheris.instrument_imports(include=["discourse_memory"]):
    import discourse_memory
    import discourse_memory.blocks
    import discourse_memory.compaction
    import discourse_memory.doc_tokens
    import discourse_memory.literals
    import discourse_memory.render
    import discourse_memory.segment  # noqa: F401

# The checks of the seeded fuzz suite.
checks = _load("dm_reliability_fuzz_checks", "test_fuzz.py")

ROLES = ["system", "user", "assistant", "tool", "developer", "function", "critic", ""]


def _conversation(fdp: atheris.FuzzedDataProvider) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = []
    call_ids: list[str] = []
    for _ in range(fdp.ConsumeIntInRange(1, 8)):
        role = ROLES[fdp.ConsumeIntInRange(0, len(ROLES) - 1)]
        m: dict[str, Any] = {"role": role}
        shape = fdp.ConsumeIntInRange(0, 9)
        text = fdp.ConsumeUnicode(fdp.ConsumeIntInRange(0, 400))
        if shape == 0:
            m["content"] = None
        elif shape == 1:
            m["content"] = [{"type": "text", "text": text}, {"type": "image_url", "image_url": {"url": "x"}}]
        else:
            m["content"] = text
        if role == "assistant" and fdp.ConsumeBool():
            n = fdp.ConsumeIntInRange(1, 2)
            calls = []
            for k in range(n):
                cid = f"c{len(call_ids)}" if fdp.ConsumeBool() else ""
                call_ids.append(cid)
                calls.append({"id": cid, "type": "function",
                              "function": {"name": "f" + str(k), "arguments": fdp.ConsumeUnicode(60)}})
            m["tool_calls"] = calls
        if role == "tool":
            # Answers a real call, an unknown one, or none at all.
            pick = fdp.ConsumeIntInRange(0, 2)
            m["tool_call_id"] = call_ids[-1] if pick == 0 and call_ids else ("nope" if pick == 1 else None)
            if m["tool_call_id"] is None:
                del m["tool_call_id"]
        msgs.append(m)
    return msgs


SETTING_VALUES: list[Any] = [None, True, False, 0, -1, 12, 10**9, "", "system", "user", "critic", "cl100k_base",
                             "o200k_base", "no_such_encoding", "blank:en", "en_core_web_sm", "os", [], {}, 1.5]
SETTING_KEYS = ["token_counter", "token_counter_is_callable", "keep_system", "keep_last_turn", "note_role",
                "pipeline", "clip_tokens", "relax", "unknown"]


def _state(fdp: atheris.FuzzedDataProvider) -> dict[str, Any]:
    """A saved state, mostly well-formed, with hostile settings and messages."""
    settings = {SETTING_KEYS[fdp.ConsumeIntInRange(0, len(SETTING_KEYS) - 1)]:
                SETTING_VALUES[fdp.ConsumeIntInRange(0, len(SETTING_VALUES) - 1)]
                for _ in range(fdp.ConsumeIntInRange(0, 4))}
    return {"schema": "discourse-memory/state" if fdp.ConsumeIntInRange(0, 7) else fdp.ConsumeUnicode(20),
            "version": fdp.ConsumeIntInRange(-1, 3), "settings": settings, "messages": _conversation(fdp)}


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    mode = fdp.ConsumeIntInRange(0, 3)
    if mode == 0:
        # Text-level: the splitter, both literal extractors, content keys.
        checks.check_text(fdp.ConsumeUnicode(2000))
        return
    if mode == 1:
        # A saved state: loads, or StateError; a loaded memory gives a view or a documented error.
        try:
            memory = discourse_memory.DiscourseMemory.from_dict(_state(fdp))
        except discourse_memory.StateError as exc:
            assert str(exc)
            return
        budget = fdp.ConsumeIntInRange(0, 600)
        try:
            view = memory.view(budget)
        except discourse_memory.BudgetTooSmallError as exc:
            assert exc.minimum > budget
            return
        assert checks.text_tokens(view.messages) <= budget
        return
    budget = fdp.ConsumeIntInRange(0, 600)
    keep_last_turn = fdp.ConsumeBool()
    msgs = _conversation(fdp)
    checks.run_compact(msgs, budget, keep_last_turn=keep_last_turn)


def main() -> None:
    atheris.Setup(sys.argv, one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

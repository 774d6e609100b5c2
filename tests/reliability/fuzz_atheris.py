"""Coverage-guided fuzzing of the segmenter, the literal extractor and ``compact`` (atheris).

    python tests/reliability/fuzz_atheris.py -runs=20000 -seed=1 [-max_total_time=60]

Run by ``test_fuzz_atheris.py`` in a subprocess. The seeded loops and hypothesis in
``test_fuzz.py`` draw inputs blindly; atheris (libFuzzer for Python) keeps the inputs that
reach new lines of ``discourse_memory`` and mutates those, so it digs into branches a
random draw rarely meets (a fence inside a list item inside a table, a literal cut by a
surrogate). Each input is either one text, through every text-level function, or a whole
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


def one_input(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    if fdp.ConsumeBool():
        # Text-level: the splitter, both literal extractors, content keys.
        checks.check_text(fdp.ConsumeUnicode(2000))
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

"""What a fresh process pays before its first view (issue 18, start-up).

    python benchmarks/bench_startup.py [--runs 3] [--idle 2.0]

Each case runs in a fresh Python process and prints seconds (median of ``--runs``):

- ``import``: ``import discourse_memory``;
- ``fits``: the first ``compact`` of a 30-message chat that fits its budget (counted, not
  analysed: spaCy is not imported);
- ``over``: the first ``compact`` of the same chat over budget (spaCy imported, the blank
  pipeline made);
- ``memory``: a ``DiscourseMemory`` made, ``--idle`` seconds of something else (the LLM
  call an agent makes between turns), then its first view over budget: the pipeline
  loaded in the background meanwhile;
- ``memory-no-idle``: the same view right after the memory is made;
- ``langchain`` / ``llamaindex``: the first ``compact_messages`` and the first
  ``DiscourseMemoryBuffer.get`` after ``--idle`` seconds (skipped when the adapter is
  not installed).
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys

CHAT = ("msgs = [{'role': 'user' if i % 2 == 0 else 'assistant', 'content': f'Message {i}: I booked flight "
        "UA{100 + i} to Paris on May {i % 28 + 1}, 2024 for ${i}9 and asked about seat {i}A.'} for i in range(30)]\n")

CASES = {
    "import": "import time; t = time.perf_counter(); import discourse_memory; print(time.perf_counter() - t)",
    "fits": CHAT + "import time; from discourse_memory import compact; t = time.perf_counter(); "
                   "v = compact(msgs, 100000); assert v.note is None; print(time.perf_counter() - t)",
    "over": CHAT + "import time; from discourse_memory import compact; t = time.perf_counter(); "
                   "v = compact(msgs, 200); assert v.note; print(time.perf_counter() - t)",
    "memory": CHAT + "import time; from discourse_memory import DiscourseMemory; m = DiscourseMemory(msgs); "
                     "time.sleep(IDLE); t = time.perf_counter(); m.view(200); print(time.perf_counter() - t)",
    "memory-no-idle": CHAT + "import time; from discourse_memory import DiscourseMemory; m = DiscourseMemory(msgs); "
                             "t = time.perf_counter(); m.view(200); print(time.perf_counter() - t)",
    "langchain": CHAT + "import time\nfrom langchain_core.messages import AIMessage, HumanMessage\n"
                        "from langchain_discourse_memory import DiscourseChatMessageHistory\n"
                        "h = DiscourseChatMessageHistory(max_tokens=200)\n"
                        "h.add_messages([HumanMessage(m['content']) if m['role'] == 'user' else AIMessage(m['content'])"
                        " for m in msgs])\ntime.sleep(IDLE); t = time.perf_counter(); h.messages; "
                        "print(time.perf_counter() - t)",
    "llamaindex": CHAT + "import time\nfrom llama_index.core.llms import ChatMessage\n"
                         "from llama_index.memory.discourse import DiscourseMemoryBuffer\n"
                         "b = DiscourseMemoryBuffer.from_defaults(token_limit=200)\n"
                         "for m in msgs: b.put(ChatMessage(role=m['role'], content=m['content']))\n"
                         "time.sleep(IDLE); t = time.perf_counter(); b.get(); print(time.perf_counter() - t)",
}


def run(case: str, idle: float) -> float | None:
    code = CASES[case].replace("IDLE", repr(idle))
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        if "ModuleNotFoundError" in proc.stderr:
            return None
        raise SystemExit(f"{case} failed:\n{proc.stderr}")
    return float(proc.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--idle", type=float, default=2.0)
    args = ap.parse_args()
    for case in CASES:
        times = [run(case, args.idle) for _ in range(args.runs)]
        if any(t is None for t in times):
            print(f"{case:<15} skipped (not installed)")
            continue
        print(f"{case:<15} {statistics.median(times):6.2f} s  (runs: {', '.join(f'{t:.2f}' for t in times)})",
              flush=True)


if __name__ == "__main__":
    main()

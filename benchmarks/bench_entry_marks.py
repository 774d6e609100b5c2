"""Record entries that leave markdown open: an odd count of backticks or of bold marks
(``**``) in one entry, which the model reads as a code span or bold running on into the
entry's next value.

Every fourth conversation of the agent files, each at 10% and 25% of its tokens; prints the
count of such entries against all entries, and the first few. Run it with ``PYTHONPATH`` at
another checkout's package to compare two versions.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from discourse_memory import Compactor, get_token_counter

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data" / "agents"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("files", nargs="*", default=[str(DATA / "tau_airline_dev.jsonl"), str(DATA / "swe_dev.jsonl")])
    ap.add_argument("--every", type=int, default=4, help="every Nth conversation")
    ap.add_argument("--show", type=int, default=5)
    args = ap.parse_args()
    counter = get_token_counter()
    open_marks, entries, shown = 0, 0, []
    for path in args.files:
        for i, line in enumerate(Path(path).read_text().splitlines()):
            if i % args.every or not line.strip():
                continue
            msgs = json.loads(line)["messages"]
            total = sum(counter.count(m["content"]) for m in msgs if isinstance(m.get("content"), str))
            for share in (0.1, 0.25):
                note = Compactor().compact(msgs, max(int(total * share), 400)).note or ""
                for entry in note.splitlines():
                    if not entry.startswith("#"):
                        continue
                    entries += 1
                    if entry.count("**") % 2 or entry.count("`") % 2:
                        open_marks += 1
                        shown.append(entry[:160])
    print(f"entries leaving markdown open: {open_marks} of {entries}")
    for entry in shown[:args.show]:
        print("  " + entry)


if __name__ == "__main__":
    sys.exit(main())

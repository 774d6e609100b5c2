"""Hashes of the views discourse-memory gives on a sample of the evaluation data: a change
that should move no view is checked by comparing the output before and after it.

    python scripts/view_hashes.py > /tmp/after.txt; diff /tmp/before.txt /tmp/after.txt

One line per (file, conversation, prefix, budget): the first 16 hex digits of a SHA-1 of the
view's messages as JSON. The data is ``../shared/data`` beside the repository, or
``DISCOURSE_MEMORY_DATA``; the optional argument is how many conversations of each file.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from pathlib import Path

from discourse_memory import compact, count_messages
from discourse_memory_evaluation.datasets import load

FILES = ("locomo/locomo_dev.json", "agents/tau_airline_dev.jsonl", "agents/swe_dev.jsonl",
         "multilingual/crosswoz_dev.jsonl")
DATA = Path(os.environ.get("DISCOURSE_MEMORY_DATA", Path(__file__).resolve().parents[1] / ".." / "shared" / "data"))


def main(per_file: int = 6) -> None:
    for name in FILES:
        for ci, conversation in enumerate(load(str(DATA / name))[:per_file]):
            messages = conversation.messages
            for cut in (len(messages) // 2, len(messages)):
                prefix = messages[:cut]
                total = count_messages(prefix)
                for share in (0.1, 0.25, 0.5):
                    try:
                        view = compact(prefix, max(1, int(total * share)), relax=True)
                        digest = hashlib.sha1(json.dumps(view.messages, sort_keys=True, ensure_ascii=False,
                                                         default=str).encode()).hexdigest()[:16]
                    except Exception as e:  # noqa: BLE001 (an error is a result to compare too)
                        digest = "ERR " + type(e).__name__
                    print(name, ci, cut, share, digest, flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 6)

"""The golden test: the views of a committed set of conversations, at several budgets
and focus settings, are exactly the ones recorded in ``views.json``.

A refactor must leave every view byte-identical; a change that alters views on purpose
updates the record in the same commit (``python tests/golden/test_golden.py --update``)
and says so. The conversations are in ``conversations.json`` (written once by
``make_conversations.py``).
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

from dataclasses import replace

from discourse_memory import Options, Policy, compact

HERE = Path(__file__).parent
SHARES = (0.1, 0.25, 0.5)
FOCUS = {"newest-turn": None, "no-focus": "off"}


def _cases() -> list[tuple[str, float, str]]:
    names = sorted(json.loads((HERE / "conversations.json").read_text(encoding="utf-8")))
    return [(n, s, f) for n in names for s in SHARES for f in FOCUS]


def _view(name: str, share: float, focus: str, policy: Policy | None = None) -> dict:
    conversations = json.loads((HERE / "conversations.json").read_text(encoding="utf-8"))
    msgs = conversations[name]
    total = compact(msgs, 10**9).tokens_before
    kwargs = {} if FOCUS[focus] is None else {"focus": None}
    r = compact(msgs, max(1, int(total * share)), options=Options(relax=True, policy=policy), **kwargs)
    text = json.dumps([r.messages, list(r.sources), r.note], sort_keys=True, ensure_ascii=False)
    return {"digest": hashlib.sha256(text.encode("utf-8")).hexdigest()[:16], "tokens": r.tokens_after,
            "budget": r.budget, "counts": r.report.counts}


def _recorded() -> dict:
    return json.loads((HERE / "views.json").read_text(encoding="utf-8"))


@pytest.mark.parametrize("name,share,focus", _cases())
def test_view_is_the_recorded_one(name: str, share: float, focus: str) -> None:
    key = f"{name}@{share}/{focus}"
    expected = _recorded().get(key)
    assert expected is not None, f"{key} has no recorded view: run python tests/golden/test_golden.py --update"
    assert _view(name, share, focus) == expected, (
        f"the view of {key} changed. If that is intended, record it in the same commit: "
        "python tests/golden/test_golden.py --update")


def test_the_record_covers_every_case_and_only_them() -> None:
    assert sorted(_recorded()) == sorted(f"{n}@{s}/{f}" for n, s, f in _cases())


# Weights of the ranking a change of which must show in the record (one per concern:
# recency, focus, tool output, what was said, the record's share).
WEIGHTS = ["recency", "focus", "output_weight", "said", "record_share", "context_turn", "task"]


@pytest.mark.parametrize("weight", WEIGHTS)
def test_changing_one_weight_of_the_policy_changes_a_recorded_view(weight: str) -> None:
    policy = replace(Policy(), **{weight: getattr(Policy(), weight) * 2.0})
    recorded = _recorded()
    changed = [key for key in (f"{n}@{s}/{f}" for n, s, f in _cases())
               if _view(*_parse(key), policy=policy) != recorded[key]]
    assert changed, f"no recorded view depends on Policy.{weight}: the golden test would not notice it"


def _parse(key: str) -> tuple[str, float, str]:
    name, rest = key.split("@")
    share, focus = rest.split("/")
    return name, float(share), focus


if __name__ == "__main__":
    if sys.argv[1:] != ["--update"]:
        sys.exit("usage: python tests/golden/test_golden.py --update")
    views = {f"{n}@{s}/{f}": _view(n, s, f) for n, s, f in _cases()}
    (HERE / "views.json").write_text(json.dumps(views, indent=1, sort_keys=True) + "\n", encoding="utf-8")
    print(f"recorded {len(views)} views in {HERE / 'views.json'}")

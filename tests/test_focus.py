"""Focus: the view serves what the newest turn asks, without filling up with look-alikes."""

from __future__ import annotations

import random

import pytest

from discourse_memory import compact
import discourse_memory.fit as fit

from .conftest import view_tokens

CITIES = ["Lisbon", "Oslo", "Quito", "Hanoi", "Dakar", "Perth", "Cusco", "Tbilisi", "Accra", "Bergen"]
THEMES = ("kindness community neighbors shelter volunteers support positivity hope future together kids families "
          "impact change effort").split()


def _chat() -> list[dict]:
    """A chat whose every other turn says "make a difference" in other words, as LoCoMo's do."""
    rng = random.Random(3)
    out = []
    for i in range(40):
        city = CITIES[i % len(CITIES)]
        out.append({"role": "user", "content": f"Week {i}: we drove to {city} and booked cabin {100 + i} "
                                               "for the reunion, then fixed the boat engine."})
        a, b, c = rng.sample(THEMES, 3)
        out.append({"role": "assistant", "content": f"That's lovely! Our {a} and {b} really make a difference, "
                                                    f"and {c} makes a difference too."})
    out.append({"role": "user", "content": "Yes, let's keep making a difference together!"})
    return out


def _look_alike_share(r) -> float:
    shown = [m for m, s in zip(r.messages, r.sources) if s is not None and s < 80]
    return sum("difference" in (m.get("content") or "") for m in shown) / max(len(shown), 1)


def test_a_question_brings_back_the_old_turn_that_answers_it():
    chat = _chat()[:-1] + [{"role": "user", "content": "Which cabin did we book in Tbilisi?"}]
    r = compact(chat, view_tokens(chat) // 5)
    text = "\n".join(m.get("content") or "" for m in r.messages)
    assert "cabin 107" in text and "cabin 117" in text  # both Tbilisi weeks, in their own words


def test_matches_of_a_vague_turn_do_not_fill_the_view(monkeypatch: pytest.MonkeyPatch):
    chat = _chat()
    budget = view_tokens(chat) // 4
    damped = _look_alike_share(compact(chat, budget))
    monkeypatch.setattr(fit, "FOCUS_MATCHES", 0.0)
    undamped = _look_alike_share(compact(chat, budget))
    # Half the history repeats the turn's words; the view is not mostly those repeats.
    assert damped < 0.7 < undamped

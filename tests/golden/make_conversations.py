"""Write ``conversations.json``: the golden test's fixed conversations (run once; the
file is committed, so a change here changes nothing until it is rerun on purpose).

Four kinds, written for this project in the shapes users send: a dated two-person
dialogue with speaker labels, an airline agent with JSON tool results, a shell agent
whose observations come back as user messages, and the library's own sample (tool
calls, tables, code, repeats).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from discourse_memory.sample import sample_conversation

HERE = Path(__file__).parent

_TOPICS = [
    ("adopted a rescue dog named {name} from the shelter on Elm Street", "What breed is {name}?"),
    ("ran a charity race for the children's hospital and raised ${amount}", "That's amazing! How far was it?"),
    ("signed up for a pottery class at the Riverside studio on {day}", "What will you make first?"),
    ("started volunteering at the LGBTQ youth center every {day}", "How does it feel so far?"),
    ("booked a trip to {city} for the {nth} of next month", "Who are you going with?"),
    ("finished reading \"{book}\" by {author}", "Would you recommend it?"),
]
_NAMES = ["Biscuit", "Luna", "Pepper", "Oscar", "Maple"]
_CITIES = ["Lisbon", "Kyoto", "Montreal", "Oaxaca", "Reykjavik"]
_BOOKS = [("The Overstory", "Richard Powers"), ("Becoming Nicole", "Amy Ellis Nutt"), ("Piranesi", "Susanna Clarke")]
_DAYS = ["Tuesday", "Thursday", "Saturday"]
_CHAT = ["Wow, that sounds wonderful!", "I'm so happy for you.", "Honestly, that made my day.",
         "Tell me more when you can.", "We should catch up soon.", "That's such good news!"]


def dialogue(rng: random.Random, sessions: int = 8) -> list[dict]:
    msgs = []
    for s in range(sessions):
        day = 3 + s * 4
        first = True
        for t in range(6):
            topic, reply = rng.choice(_TOPICS)
            book, author = rng.choice(_BOOKS)
            fill = dict(name=rng.choice(_NAMES), amount=rng.randrange(200, 3000), day=rng.choice(_DAYS),
                        city=rng.choice(_CITIES), nth=f"{rng.randrange(2, 28)}th", book=book, author=author)
            text = f"Caroline: Guess what, last week I {topic.format(**fill)}. {rng.choice(_CHAT)}"
            if first:
                text = f"[{rng.randrange(1, 12)}:{rng.randrange(10, 59)} pm on {day} May, 2023]\n" + text
                first = False
            msgs.append({"role": "user", "content": text})
            msgs.append({"role": "assistant", "content": f"Melanie: {rng.choice(_CHAT)} {reply.format(**fill)}"})
    msgs.append({"role": "user", "content": "Caroline: When did I book the trip, and where to?"})
    return msgs


def airline(rng: random.Random) -> list[dict]:
    system = "# Airline Agent Policy\n\n" + "\n".join(
        f"- Rule {i}: basic economy fares can be changed only within {i + 1} hours; refunds go to the original "
        f"payment method in {5 + i % 3} to {7 + i % 3} business days." for i in range(14))
    msgs = [{"role": "system", "content": system},
            {"role": "user", "content": "Hi, I need to change my flight. My user id is mia_li_3668."}]
    reservations = [f"{rng.choice('ABCDEFGH')}{rng.randrange(10, 99)}{rng.choice('KLMNP')}{rng.randrange(1, 9)}Q"
                    for _ in range(4)]
    call = 0

    def exchange(name: str, args: dict, payload: dict) -> None:
        nonlocal call
        call += 1
        cid = f"call_{call}"
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": cid, "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}]})
        msgs.append({"role": "tool", "tool_call_id": cid, "content": json.dumps(payload)})

    exchange("get_user_details", {"user_id": "mia_li_3668"},
             {"name": {"first_name": "Mia", "last_name": "Li"}, "email": "mia.li3668@example.com",
              "dob": "1990-04-05", "payment_methods": {"credit_card_4421486": {"brand": "visa", "last_four": "7447"},
                                                       "certificate_7504069": {"amount": 250}},
              "reservations": reservations, "membership": "gold"})
    msgs.append({"role": "assistant", "content": "I found these reservations: " + ", ".join(reservations)
                 + ". Which one would you like to change?"})
    for r in reservations:
        msgs.append({"role": "user", "content": f"Let's look at {r} first."})
        exchange("get_reservation_details", {"reservation_id": r},
                 {"reservation_id": r, "origin": rng.choice(["JFK", "SFO", "ORD"]), "destination": rng.choice(
                     ["SEA", "MIA", "LAX"]), "flights": [{"flight_number": f"HAT{rng.randrange(100, 299)}",
                                                          "date": f"2024-05-{rng.randrange(10, 28)}",
                                                          "price": rng.randrange(90, 900)} for _ in range(2)],
                  "cabin": rng.choice(["economy", "business"]), "insurance": "no"})
        msgs.append({"role": "assistant", "content": f"Reservation {r} is confirmed in that cabin. "
                                                     "Do you want to change it?"})
    msgs.append({"role": "user", "content": f"Yes, change {reservations[2]} to the cheapest economy flight, "
                                            "and pay with the certificate."})
    return msgs


def shell_agent(rng: random.Random) -> list[dict]:
    msgs = [{"role": "system", "content": "You are a coding agent. Reply with THOUGHT and one ```bash``` block."},
            {"role": "user", "content": "<pr_description>\n`separability_matrix` in astropy/modeling/separable.py "
                                        "gives wrong results for nested CompoundModels.\n</pr_description>"}]
    files = [f"astropy/modeling/{n}.py" for n in ("core", "separable", "mappings", "functional_models", "utils")]
    for step in range(10):
        f = rng.choice(files)
        start = rng.randrange(1, 400)
        msgs.append({"role": "assistant", "content": f"THOUGHT: I should read {f} around line {start}.\n\n"
                                                     f"```bash\nnl -ba {f} | sed -n '{start},{start + 30}p'\n```"})
        lines = "\n".join(f"{start + i:6d}\t    {rng.choice(['return', 'if', 'def', 'for'])} "
                          f"_{rng.choice(['cstack', 'cdot', 'coord_matrix', 'arith_oper'])}(left, right)"
                          for i in range(30))
        msgs.append({"role": "user", "content": f"<returncode>0</returncode>\n<output>\n{lines}\n</output>"})
    return msgs


def main() -> None:
    rng = random.Random(20261201)
    conversations = {"dialogue": dialogue(rng), "airline": airline(rng), "shell_agent": shell_agent(rng),
                     "sample": sample_conversation(2)}
    (HERE / "conversations.json").write_text(json.dumps(conversations, indent=1, ensure_ascii=False) + "\n",
                                             encoding="utf-8")


if __name__ == "__main__":
    main()

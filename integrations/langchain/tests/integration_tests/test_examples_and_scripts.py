"""The examples run and show what they claim; the benchmark scripts run on small data and skip cleanly."""

from __future__ import annotations

import json
import runpy
from pathlib import Path

import pytest
from langchain_core.messages import AIMessage, ToolMessage
from langchain_discourse_memory._counting import resolve_token_counter
from langchain_discourse_memory.testing import orphan_tool_messages

ROOT = Path(__file__).resolve().parents[4]
SCRIPTS = Path(__file__).resolve().parents[2] / "scripts"
COUNT = resolve_token_counter(None).messages


def load(path: Path) -> dict:
    return runpy.run_path(str(path), run_name="loaded_by_test")


def test_agent_example(capsys: pytest.CaptureFixture[str]) -> None:
    out = load(ROOT / "examples" / "langchain_agent.py")["main"]()
    printed = capsys.readouterr().out
    state, received, budget = out["state"], out["received"], out["budget"]
    assert len(state) == 6 * 6  # 6 turns x (human, call, result, call, result, answer)
    assert COUNT(state) > budget
    for sent in received:
        assert COUNT(sent[1:]) <= budget and orphan_tool_messages(sent) == []
    assert out["note"] is not None and out["note"] in received[-1]
    assert "nothing removed" in printed


def test_chain_example(capsys: pytest.CaptureFixture[str]) -> None:
    out = load(ROOT / "examples" / "langchain_chain.py")["main"]()
    printed = capsys.readouterr().out
    for msgs in out["sent"].values():
        assert COUNT(msgs) <= 450 and orphan_tool_messages(msgs) == []
    store = out["store"]
    assert len(store.full_messages) == 24 + 6  # seeded history + 3 question/answer pairs
    assert COUNT(store.messages) <= 450
    assert "compact_messages: firmware of TCK-3100 (2.0.7) visible to the model: True" in printed


def test_recall_example(capsys: pytest.CaptureFixture[str]) -> None:
    out = load(ROOT / "examples" / "langchain_recall.py")["main"]()
    printed = capsys.readouterr().out
    state, received, budget = out["state"], out["received"], out["budget"]
    call, result = state[-3].tool_calls[0], state[-2]
    assert call["name"] == "recall" and isinstance(result, ToolMessage) and result.tool_call_id == call["id"]
    assert result.artifact["found"] and out["unseen"] and all(v in result.text for v in out["unseen"])
    for sent in received:
        assert COUNT(sent[1:]) <= budget and orphan_tool_messages(sent) == []
    assert f"{len(out['unseen'])} of those values were not in its view" in printed


def tau_line(run_id: str, n: int) -> str:
    msgs = [{"role": "system", "content": "Airline policy. " * 30}]
    for t in range(n):
        rid = f"RES{run_id}{t}"
        call = [
            {
                "function": {"arguments": json.dumps({"reservation_id": rid}), "name": "get_reservation_details"},
                "id": f"call_{run_id}_{t}",
                "type": "function",
            }
        ]
        msgs += [
            {"role": "user", "content": f"Please check reservation {rid}, booked for 2024-05-{10 + t}."},
            {"role": "assistant", "content": "None", "tool_calls": repr(call)},
            {
                "role": "tool",
                "tool_call_id": f"call_{run_id}_{t}",
                "name": "get_reservation_details",
                "content": json.dumps(
                    {"reservation_id": rid, "flights": [{"flight_number": f"HAT{100 + t}"}], "note": "x " * 80}
                ),
            },
            {"content": f"Reservation {rid} is confirmed on HAT{100 + t}.", "role": "assistant"},
        ]
    gold = [{"name": "cancel_reservation", "kwargs": {"reservation_id": f"RES{run_id}0", "flights": [{"n": "HAT100"}]}}]
    return json.dumps({"id": run_id, "messages": msgs, "gold_actions": gold})


def test_tau_loader_parses_repr_tool_calls_and_none_content() -> None:
    bench = load(SCRIPTS / "bench_tau_middleware.py")
    msgs = bench["to_langchain"](json.loads(tau_line("A", 1))["messages"])
    ai = msgs[2]
    assert isinstance(ai, AIMessage) and ai.content == ""
    assert ai.tool_calls[0]["args"] == {"reservation_id": "RESA0"} and ai.tool_calls[0]["id"] == "call_A_0"
    assert isinstance(msgs[3], ToolMessage) and msgs[3].tool_call_id == "call_A_0"
    assert bench["gold_values"]([{"kwargs": {"a": 1, "b": [{"c": "x"}, True]}}]) == ["1", "x", "True"]


def test_tau_bench_runs_on_small_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = tmp_path / "tau.jsonl"
    data.write_text("\n".join([tau_line("A", 8), tau_line("B", 6)]) + "\n")
    bench = load(SCRIPTS / "bench_tau_middleware.py")
    assert bench["main"]([str(data), "--json"]) == 0
    totals = json.loads(capsys.readouterr().out)
    assert totals["runs"] == 2 and totals["gold_values"] == 4 and totals["model_calls"] == 2 * 8 + 2 * 6
    assert totals["orphans_all_middleware"] == 0
    assert totals["over_budget_calls_middleware"] == 0
    for who in ("middleware", "trim"):
        assert 0 <= totals[f"found_{who}"] <= 4
        assert totals[f"share_{who}"] == round(totals[f"found_{who}"] / 4, 4)
    # the last turn (RES?7 / RES?5) is always seen in full by both, the first one (RES?0) never by trim
    assert totals["found_trim"] == 0  # gold values are from turn 0, cut by trimming to 25%


def test_received_text_covers_content_and_tool_call_arguments() -> None:
    bench = load(SCRIPTS / "bench_tau_middleware.py")
    text = bench["received_text"](
        [AIMessage("hello", tool_calls=[{"id": "c", "name": "book", "args": {"flight": "HAT136", "n": 2}}])]
    )
    assert "hello" in text and "book" in text and '"HAT136"' in text and "2" in text


def test_bench_scripts_skip_clearly_without_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bench = load(SCRIPTS / "bench_tau_middleware.py")
    assert bench["main"]([str(tmp_path / "absent.jsonl")]) == 0
    assert capsys.readouterr().out.startswith("SKIP: ")


def test_overhead_script_runs_on_synthetic_history(capsys: pytest.CaptureFixture[str]) -> None:
    overhead = load(SCRIPTS / "bench_middleware_overhead.py")
    assert overhead["main"](["--tokens", "3000", "--calls", "4", "--keep", "800"]) == 0
    printed = capsys.readouterr().out
    assert "(synthetic)" in printed and "median of the other calls" in printed

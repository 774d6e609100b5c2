"""A long, structured sample conversation, written for this project.

An engineer and an assistant with tools work through a payment-gateway
migration: answers with headings, lists, ``key: value`` fields, tables and
code, tool calls and their results, and content that gets repeated (a config
table re-posted, a status check run twice). ``sample_conversation(sessions=n)``
chains ``n`` such sessions with different services and values, deterministically,
for demos and benchmarks of any size.
"""

from __future__ import annotations

import json
import random
from typing import Any

__all__ = ["sample_conversation"]

_SERVICES = ["payments-gw", "ledger-api", "fraud-scorer", "invoice-worker", "refund-svc",
             "card-vault", "payout-batch", "fx-rates", "kyc-checker", "webhook-relay"]
_PEOPLE = ["Dana Whitfield", "Tomás Ortega", "Priya Raman", "Lena Hoffmann", "Kwame Mensah",
           "Yuki Sato", "Omar Haddad", "Sofia Lindqvist"]
_REGIONS = ["eu-west-1", "us-east-2", "ap-south-1", "eu-central-1"]


def _call(call_id: str, name: str, args: dict[str, Any]) -> dict[str, Any]:
    return {"role": "assistant", "content": None, "tool_calls": [
        {"id": call_id, "type": "function",
         "function": {"name": name, "arguments": json.dumps(args, sort_keys=True, ensure_ascii=False)}}]}


def _result(call_id: str, name: str, payload: Any) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "name": name,
            "content": json.dumps(payload, sort_keys=True, ensure_ascii=False) if not isinstance(payload, str) else payload}


def _session(k: int, rng: random.Random) -> list[dict[str, Any]]:
    svc = _SERVICES[k % len(_SERVICES)]
    owner = _PEOPLE[k % len(_PEOPLE)]
    reviewer = _PEOPLE[(k + 3) % len(_PEOPLE)]
    region = _REGIONS[k % len(_REGIONS)]
    old_v = f"{rng.randint(1, 3)}.{rng.randint(0, 9)}.{rng.randint(0, 20)}"
    new_v = f"{rng.randint(4, 6)}.{rng.randint(0, 9)}.{rng.randint(0, 20)}"
    ticket = f"OPS-{rng.randint(1000, 9999)}"
    port = rng.choice([8080, 8443, 9090, 7443])
    pool = rng.randint(20, 200)
    p99 = rng.randint(80, 400)
    err = round(rng.uniform(0.1, 2.5), 2)
    cost = f"${rng.randint(1, 40)},{rng.randint(100, 999)}.{rng.randint(10, 99)}"
    day = rng.randint(3, 27)
    date = f"2026-10-{day:02d}"
    window = f"{date}T{rng.randint(0, 5):02d}:{rng.choice(['00', '15', '30', '45'])}Z"
    db = f"pg-{svc}-{rng.randint(1, 9)}"
    cfg = f"/etc/{svc}/config.yaml"
    cid = f"call_{k}_{rng.randint(10**5, 10**6)}"
    config_table = (
        "| setting | current | target |\n|---|---|---|\n"
        f"| version | v{old_v} | v{new_v} |\n"
        f"| port | {port} | {port + 1} |\n"
        f"| db_pool_size | {pool} | {pool * 2} |\n"
        f"| region | {region} | {region} |"
    )
    status = {"service": svc, "version": old_v, "region": region, "healthy_pods": rng.randint(3, 12),
              "p99_latency_ms": p99, "error_rate_pct": err, "db": db, "owner": owner}
    msgs: list[dict[str, Any]] = [
        {"role": "user", "content":
            f"Next up is {svc}. {owner} owns it and {reviewer} reviews. We track it in {ticket}. "
            f"Can you check its current status before we plan the upgrade to v{new_v}?"},
        _call(f"{cid}_a", "get_service_status", {"service": svc, "region": region}),
        _result(f"{cid}_a", "get_service_status", status),
        {"role": "assistant", "content":
            f"## Status of {svc}\n\n"
            f"The service is healthy, but latency is higher than I would like before a migration.\n\n"
            f"- **Version:** v{old_v} in {region}\n"
            f"- **Healthy pods:** {status['healthy_pods']}\n"
            f"- **p99 latency:** {p99} ms (target under 150 ms)\n"
            f"- **Error rate:** {err}%\n"
            f"- **Database:** `{db}`\n\n"
            f"Owner: {owner}\nReviewer: {reviewer}\nTicket: {ticket}\n\n"
            f"I suggest we read the config next, then agree on the target settings."},
        {"role": "user", "content": f"Yes, read {cfg} please."},
        _call(f"{cid}_b", "read_file", {"path": cfg}),
        _result(f"{cid}_b", "read_file",
                f"server:\n  port: {port}\n  tls: true\nversion: {old_v}\ndatabase:\n  host: {db}.internal\n"
                f"  pool_size: {pool}\n  timeout_ms: {rng.randint(500, 5000)}\nfeatures:\n  retries: 3\n"
                f"  idempotency_keys: true\n  region: {region}\n"),
        {"role": "assistant", "content":
            f"### Current vs target configuration\n\n{config_table}\n\n"
            f"Two things stand out. The pool size of {pool} will not survive the extra connections "
            f"that v{new_v} opens during warm-up, so I would double it. The port changes because the new "
            f"listener binds separately from the health endpoint.\n\n"
            f"```yaml\nserver:\n  port: {port + 1}\nversion: {new_v}\ndatabase:\n  pool_size: {pool * 2}\n```"},
        {"role": "user", "content":
            f"What does the migration cost us? Finance wants a number in {ticket} before {date}."},
        _call(f"{cid}_c", "run_query", {"sql": f"select sum(cost_usd) from infra_costs where service = '{svc}' "
                                               f"and month = '2026-10'"}),
        _result(f"{cid}_c", "run_query", {"rows": [{"sum": cost}], "elapsed_ms": rng.randint(20, 900)}),
        {"role": "assistant", "content":
            f"The infrastructure cost for {svc} this month is {cost}. The migration adds roughly "
            f"{rng.randint(5, 25)}% for two weeks while both versions run side by side. "
            f"After cut-over the old pods are removed, so the steady-state cost should fall back to "
            f"about {cost} or slightly below, since v{new_v} needs fewer replicas at the same load."},
        {"role": "user", "content": "Write the runbook for the cut-over. Keep it short."},
        {"role": "assistant", "content":
            f"# Runbook: {svc} v{old_v} → v{new_v}\n\n"
            f"Window: {window} (low traffic)\nOwner: {owner}\nReviewer: {reviewer}\nTicket: {ticket}\n\n"
            f"1. Announce the window in #payments-ops and pin {ticket}.\n"
            f"2. Scale the pool: set `db_pool_size` to {pool * 2} and restart one canary pod.\n"
            f"3. Deploy v{new_v} to the canary:\n"
            f"   ```bash\n   kubectl -n {svc} set image deploy/{svc} app=registry.local/{svc}:{new_v}\n   ```\n"
            f"4. Watch p99 latency for 15 minutes; roll back if it exceeds {p99 + 50} ms.\n"
            f"5. Shift traffic 10% → 50% → 100%, checking the error rate stays under {err}%.\n"
            f"6. Remove the old ReplicaSet and close {ticket}.\n\n"
            f"### Rollback\n\n"
            f"- Revert the image to v{old_v}.\n"
            f"- Restore `db_pool_size` to {pool}.\n"
            f"- Post the incident link in {ticket}.\n\n"
            f"{config_table}"},
        {"role": "user", "content": f"Check the status once more, then confirm we're good to go for {date}."},
        _call(f"{cid}_d", "get_service_status", {"service": svc, "region": region}),
        _result(f"{cid}_d", "get_service_status", status),
        {"role": "assistant", "content":
            f"Status is unchanged since the first check: v{old_v}, {status['healthy_pods']} healthy pods, "
            f"p99 {p99} ms, error rate {err}%. You're good to go for {date}. "
            f"I'll keep the runbook and the configuration table above as the reference for {ticket}."},
    ]
    return msgs


def sample_conversation(sessions: int = 3, *, seed: int = 7) -> list[dict[str, Any]]:
    """The sample conversation: a system prompt and ``sessions`` migration sessions."""
    if sessions < 1:
        raise ValueError("sessions must be >= 1")
    rng = random.Random(seed)
    out: list[dict[str, Any]] = [{"role": "system", "content":
        "You are a careful SRE assistant. Use the tools to check facts before answering. "
        "Quote versions, ports, ids and amounts exactly."}]
    for k in range(sessions):
        out.extend(_session(k, rng))
    return out


def status_checks(results: int = 74, *, seed: int = 11) -> list[dict[str, Any]]:
    """A chat of ``results`` ``get_service_status`` tool results, one per ticket (about four
    messages each: a request, the call, its result, a short reply), for questions asked
    across the results ("which ticket had the highest p99, and on which database?")."""
    rng = random.Random(seed)
    out: list[dict[str, Any]] = [{"role": "system", "content":
        "You are an SRE assistant. Use the tools to check facts before answering."}]
    for k in range(results):
        svc = f"{_SERVICES[k % len(_SERVICES)]}-{k // len(_SERVICES) + 1}"
        ticket = f"OPS-{4000 + 37 * k}"
        cid = f"call_{k}_{rng.randint(10**5, 10**6)}"
        status = {"service": svc, "ticket": ticket, "version": f"{rng.randint(1, 6)}.{rng.randint(0, 9)}.{rng.randint(0, 20)}",
                  "region": _REGIONS[k % len(_REGIONS)], "healthy_pods": rng.randint(3, 12),
                  "p99_latency_ms": rng.randint(80, 990), "error_rate_pct": round(rng.uniform(0.1, 2.5), 2),
                  "db": f"pg-{svc}-{rng.randint(1, 9)}", "owner": _PEOPLE[k % len(_PEOPLE)],
                  "last_deploy": f"2026-10-{rng.randint(1, 28):02d}"}
        out += [
            {"role": "user", "content": f"Check {svc} for {ticket}, please."},
            _call(f"{cid}_a", "get_service_status", {"service": svc, "region": status["region"]}),
            _result(f"{cid}_a", "get_service_status", status),
            {"role": "assistant", "content": f"{svc} is up with {status['healthy_pods']} healthy pods; "
                                             f"I noted it in {ticket}."},
        ]
    return out

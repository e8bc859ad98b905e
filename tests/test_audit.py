"""The two-stage audit: structural profile, LLM clause tests (scripted server), trace attribution."""

from __future__ import annotations

import json
import os

import pandas as pd

from analysis import audit_traces, llm_audit, split_clauses, structural_profile
from envs import load_task_set
from loophole_scripted_llm import ScriptedLLMServer
from tests.conftest import harness, real_run


def test_structural_profile_counts_are_pinned():
    # our mechanical counts (the paper's hand counts: airline 24/2/2/18/1, retail 13/0/0/32/4)
    airline = structural_profile("airline", load_task_set("airline", "tau2").policy)
    retail = structural_profile("retail", load_task_set("retail", "tau2").policy)
    assert list(airline["count"]) == [23, 2, 2, 16, 1]
    assert list(retail["count"]) == [12, 0, 0, 30, 2]
    assert airline["how counted"].str.len().min() > 20  # every figure says how it was counted


def test_cli_offline_prints_both_profiles():
    proc = harness("audit", "policy", "--domain", "airline", timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert "structural profile: airline" in proc.stdout and "structural profile: retail" in proc.stdout
    assert "LLM diagnostic tests were not run" in proc.stdout


def test_llm_audit_validates_retries_and_reports():
    policy = load_task_set("airline", "tau2").policy
    all_clauses = split_clauses(policy)
    clauses = [c for c in all_clauses if "complains about" in c.text]  # the cancelled and delayed clauses
    clauses.append(next(c for c in all_clauses if "travel certificate" in c.text and c not in clauses))
    assert len(clauses) == 3
    calls = {"n": 0}

    def respond(body: dict) -> str:
        calls["n"] += 1
        prompt = body["messages"][0]["content"]
        if clauses[2].text in prompt:
            return "I think this clause is fine."  # always malformed: retried, then reported
        if calls["n"] % 2 == 1:
            return '{"diagnoses": [{"test": "scope", "verdict": "maybe"}]}'  # invalid: retried
        return json.dumps({"diagnoses": [
            {"test": "boundary", "verdict": "ambiguous", "rationale": "is a change a prerequisite?",
             "candidate_readings": ["strict", "lenient"]},
            {"test": "scope", "verdict": "clear", "rationale": "covered"},
        ]})

    with ScriptedLLMServer(respond) as server:
        result = llm_audit("airline", clauses, "openai/auditor", {"api_base": server.api_base, "api_key": "x"})
    assert len(result.failures) == 1 and clauses[2].clause_id in result.failures[0]
    assert set(result.candidates.clause_id) == {clauses[0].clause_id, clauses[1].clause_id}
    assert set(result.candidates.verdict) == {"ambiguous"}
    delay = result.candidates[result.candidates.clause.str.contains("delayed flights")]
    assert (delay.catalog_entry == "L3").all() and len(delay) == 1


def test_trace_attribution_on_offline_demo(offline_demo_run):
    run_dir, _ = offline_demo_run
    trials = pd.read_parquet(run_dir / "trials.parquet")
    table = audit_traces(trials)
    assert len(table) == int((trials.reward == 0).sum())
    creative = table.merge(trials[["trajectory_id", "procedural_error"]], on="trajectory_id")
    creative = creative[(creative.agent == "creative") & creative.task_id.isin(["13", "29", "32", "45"])
                        & ~creative.procedural_error]
    assert len(creative) > 0
    assert all(a.startswith(("loophole:L6", "loophole:L16")) for a in creative.attribution), creative.attribution
    erred = table.merge(trials[["trajectory_id", "procedural_error"]], on="trajectory_id")
    erred = erred[erred.procedural_error]
    # a dropped action that matches no gold is excluded; one that lands on another reading (dropping the first
    # of L6's two calls is the single-call reading) is credited to that loophole
    assert (erred[~erred.variant_credits].attribution == "excluded: procedural error unrelated to the clause").all()
    assert erred[erred.variant_credits].attribution.str.startswith("loophole:").all()


def test_cli_audit_policy_with_scripted_model_writes_candidates(tmp_path):
    policy = tmp_path / "policy.md"
    policy.write_text(
        "# Airline Agent Policy\n\n## Refunds and Compensation\n"
        "- If the user complains about delayed flights in a reservation and wants to change or cancel the "
        "reservation, the agent can offer a certificate as a gesture after confirming the facts and changing or "
        "cancelling the reservation, with the amount being $50 times the number of passengers.\n"
        "- Each extra baggage is 50 dollars.\n"
    )

    def respond(body: dict) -> str:
        if "baggage" in body["messages"][0]["content"]:
            return "not json at all"
        return json.dumps({"diagnoses": [{"test": "boundary", "verdict": "ambiguous", "rationale": "prerequisite?",
                                          "candidate_readings": ["strict", "lenient"]}]})

    with ScriptedLLMServer(respond) as server:
        proc = harness(
            "audit", "policy", "--domain", "airline", "--policy", str(policy), "--model", "openai/auditor",
            "--api-base", server.api_base, "--out", str(tmp_path / "out"),
            timeout=300, env={**os.environ, "OPENAI_API_KEY": "x"},
        )
    assert proc.returncode == 0, proc.stderr
    assert "not audited" in proc.stdout and "no valid answer after 3 attempts" in proc.stdout
    candidates = pd.read_parquet(tmp_path / "out" / "candidates.parquet")
    assert len(candidates) == 1 and candidates.catalog_entry.iloc[0] == "L3"
    assert (tmp_path / "out" / "candidates.md").exists()


def test_cli_audit_traces_on_rescored_real_run(tmp_path):
    out = tmp_path / "aide"
    run = lambda *a: harness(*a, timeout=300)  # noqa: E731
    assert run("rescore", str(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json")), "--out", str(out)).returncode == 0
    proc = run("audit", "traces", str(out))
    assert proc.returncode == 0, proc.stderr
    table = pd.read_parquet(out / "audit_traces.parquet")
    assert len(table) == 14 and "loophole:L3/L4" in set(table.attribution)

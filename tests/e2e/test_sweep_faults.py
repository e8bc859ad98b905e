"""``harness sweep`` end to end against a failing provider: faults retried, a refused endpoint stopping the sweep
and a fixed rerun running every trial (split from ``test_sweep.py`` so that pytest-xdist spreads the files)."""

from __future__ import annotations

import time

import pandas as pd

from harness.config import load_config
from harness.trials import expand
from loophole_scripted_llm import Faults, ScriptedLLMServer
from tests.e2e.conftest import run_sweep, sweep_config


def test_provider_faults_are_retried_and_malformed_tool_json_is_the_agents_failure(tmp_path):
    """500s are the infrastructure's: retried, and excluded only where attempts ran out. Malformed tool-call
    JSON is the model's: an ``agent_error`` row with reward 0 (counted), never ``infra_error``."""
    # Each model's first 8 answers (max_concurrency: every trial's first call) are clean and the timeout is long:
    # the circuit breaker (an endpoint whose first attempts all failed stops the sweep) is not this test's,
    # and under heavy load a thread's first calls could otherwise all draw a 500 or time out and trip it.
    with ScriptedLLMServer(faults=Faults(rate_500=0.2, rate_malformed=0.5, seed=7, clean_first=8)) as flaky:
        config = sweep_config(tmp_path, flaky.api_base, "faults", domains=["airline"], task_versions=["tau2"],
                         tasks=["1", "32"], trials=2,
                         retries={"max_attempts": 4, "base_delay_s": 0.01, "max_delay_s": 0.05, "timeout_s": 120})
        proc = run_sweep(config)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert flaky.counts["fault_500"] > 0 and flaky.counts["fault_malformed"] > 0
    trials = pd.read_parquet(tmp_path / "faults" / "trials.parquet")
    scores = pd.read_parquet(tmp_path / "faults" / "scores.parquet")
    assert len(trials) == 8 and trials.trajectory_id.is_unique
    assert trials.retries.sum() > 0
    infra = trials[trials.status == "infra_error"]
    assert all("attempts failed" in r and "JSON" not in r for r in infra.reason)  # only where retries ran out
    failed = trials[trials.status == "agent_error"]
    assert len(failed) > 0 and all("JSONDecodeError" in r for r in failed.reason)
    assert (failed.reward == 0.0).all() and (failed.multi_gold_reward == 0.0).all()
    failed_scores = scores[scores.trajectory_id.isin(failed.trajectory_id)]
    assert set(failed_scores.trajectory_id) == set(failed.trajectory_id) and (failed_scores.reward == 0.0).all()
    assert "first agent_error" in proc.stderr and "JSONDecodeError" in proc.stderr  # shown on the driver
    ok = trials[trials.status == "ok"]
    assert len(ok) + len(infra) + len(failed) == 8
    assert (ok[ok.agent_name == "gold"].reward == 1.0).all()


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_refused_endpoint_stops_the_sweep_and_a_fixed_rerun_runs_every_trial(tmp_path, server):
    dead = f"http://127.0.0.1:{_free_port()}/v1"
    config = sweep_config(tmp_path, dead, "refused", domains=["airline"], task_versions=["tau2"], tasks=["1", "32"],
                     trials=1, retries={"max_attempts": 6, "base_delay_s": 0.5, "max_delay_s": 20, "timeout_s": 5})
    started = time.monotonic()
    proc = run_sweep(config)
    elapsed = time.monotonic() - started
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert proc.returncode == 3 and elapsed < 30, (elapsed, proc.stderr[-2000:])
    assert len(errors) == 1 and dead in errors[0] and "Connection refused" in errors[0], proc.stderr[-2000:]
    fixed = tmp_path / "fixed.yaml"
    fixed.write_text(config.read_text().replace(dead, server.api_base))
    proc = run_sweep(fixed)
    assert proc.returncode == 0, proc.stderr[-2000:]
    trials = pd.read_parquet(tmp_path / "refused" / "trials.parquet")
    assert sorted(trials.trajectory_id) == sorted(k.key for k in expand(load_config(fixed)))
    assert set(trials.status) == {"ok"}

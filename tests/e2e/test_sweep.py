"""``harness sweep`` end to end: embedded Ray, tau2's orchestrator, litellm over HTTP to the scripted server."""

from __future__ import annotations

import json
import os
import re
import time

import pandas as pd
import pytest
import yaml

from harness.config import load_config
from harness.trials import expand
from loophole_scripted_llm import Faults, ScriptedLLMServer
from tests.conftest import harness
from tests.e2e.conftest import SECRET, run_sweep, sweep_config


@pytest.fixture(scope="module")
def server():
    with ScriptedLLMServer(faults=Faults(latency_s=0.0)) as s:
        yield s


@pytest.fixture(scope="module")
def full_sweep(server, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sweep")
    config = sweep_config(tmp, server.api_base, "e2e")
    proc = run_sweep(config)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return tmp, config, proc


def test_gold_agent_scores_one_and_variant_agent_is_credited(full_sweep):
    tmp, config, proc = full_sweep
    trials = pd.read_parquet(tmp / "e2e" / "trials.parquet")
    keys = {k.key for k in expand(load_config(config))}
    assert set(trials.trajectory_id) == keys and len(trials) == 2 * 2 * 2 * 3 * 2
    assert set(trials.status) <= {"ok", "no_judge"}
    gold = trials[trials.agent_name == "gold"]
    basis_dc = gold[~((gold.domain == "retail") & (gold.task_version == "tau3"))]
    assert (basis_dc.reward == 1.0).all(), basis_dc[["task_id", "reward", "reason"]]
    nl = gold[(gold.domain == "retail") & (gold.task_version == "tau3")]
    from envs import load_task_set

    tau3 = load_task_set("retail", "tau3")
    for r in nl.itertuples():  # no judge: null where assertions decide, tau2's 1.0 where there are none
        if tau3.task(r.task_id).evaluation_criteria.nl_assertions:
            assert pd.isna(r.reward) and r.status == "no_judge", r.task_id
        else:
            assert r.reward == 1.0 and r.status == "ok", r.task_id
    assert nl.reward.isna().any()
    l6 = trials[(trials.agent_name == "l6") & (trials.task_id == "32") & (trials.domain == "airline")]
    assert len(l6) == 4 and (l6.reward == 0.0).all() and (l6.multi_gold_reward == 1.0).all()
    assert all("L6.single_call" in list(m) for m in l6.matched_gold_ids)
    assert "single-gold" in proc.stdout and "multi-gold" in proc.stdout


def test_seeds_are_stable_hashes(full_sweep):
    tmp, config, _ = full_sweep
    trials = pd.read_parquet(tmp / "e2e" / "trials.parquet")
    expected = {k.key: k.seed for k in expand(load_config(config))}
    assert all(expected[r.trajectory_id] == r.seed for r in trials.itertuples())


def test_rerun_runs_nothing_new(full_sweep, server):
    tmp, config, _ = full_sweep
    before = pd.read_parquet(tmp / "e2e" / "trials.parquet")
    n_requests = server.counts.total()
    proc = run_sweep(config)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert server.counts.total() == n_requests  # nothing was run again
    pd.testing.assert_frame_equal(before, pd.read_parquet(tmp / "e2e" / "trials.parquet"))


def test_changed_config_is_a_different_sweep(full_sweep):
    tmp, config, _ = full_sweep
    data = yaml.safe_load(config.read_text())
    data["trials"] = 3
    changed = tmp / "changed.yaml"
    changed.write_text(yaml.safe_dump(data))
    assert load_config(changed).sweep_id() != load_config(config).sweep_id()
    proc = run_sweep(changed)
    assert proc.returncode == 2 and "holds sweep" in proc.stderr and "different 'output'" in proc.stderr


def test_run_json_records_provenance(full_sweep):
    tmp, config, _ = full_sweep
    run = tmp / "e2e"
    info = json.loads((run / "run.json").read_text())
    assert info["kind"] == "sweep" and info["sweep_id"] == load_config(config).sweep_id()
    assert info["tau2_version"] == "26.3" and info["harness_version"]
    assert set(info["task_data_sha256"]) == {f"{v}/{d}/{f}" for v in ("tau2", "tau3") for d in ("airline", "retail")
                                             for f in ("tasks.json", "policy.md", "db.json")}
    assert info["generation_settings"]["gold"]["args"]["temperature"] == 0.0
    assert "api_key" not in info["generation_settings"]["gold"]["args"]
    assert set(pd.read_parquet(run / "scores.parquet").catalog_sha256) == {info["catalog_sha256"]}


def test_no_secret_in_any_output(full_sweep):
    tmp, _, proc = full_sweep
    for path in (tmp / "e2e").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in proc.stdout and SECRET not in proc.stderr


def test_provider_faults_are_retried_and_malformed_tool_json_is_the_agents_failure(tmp_path):
    """500s are the infrastructure's: retried, and excluded only where attempts ran out. Malformed tool-call
    JSON is the model's: an ``agent_error`` row with reward 0 (counted), never ``infra_error``."""
    with ScriptedLLMServer(faults=Faults(rate_500=0.2, rate_malformed=0.5, seed=7)) as flaky:
        config = sweep_config(tmp_path, flaky.api_base, "faults", domains=["airline"], task_versions=["tau2"],
                         tasks=["1", "32"], trials=2)
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


def test_missing_api_key_stops_before_any_trial(tmp_path, server):
    config = sweep_config(tmp_path, server.api_base, "nokey", domains=["airline"], task_versions=["tau2"], tasks=["1"])
    env = {k: v for k, v in os.environ.items() if k != "HARNESS_TEST_KEY"}
    proc = harness("sweep", str(config), timeout=300, env=env)
    assert proc.returncode == 2
    assert proc.stderr.strip() == ("error: field 'agents.1.api_key_env': environment variable HARNESS_TEST_KEY "
                                   "is not set (model openai/scripted-agent:L6.single_call)")
    assert not (tmp_path / "nokey" / "trials.parquet").exists()


def test_a_node_with_another_catalog_stops_the_sweep_in_one_line(server, tmp_path):
    """The driver's catalog hash differs from its workers' (as on a cluster node with another package
    version): the sweep stops before any trial with one ``error:`` line, not a Ray traceback."""
    config = sweep_config(tmp_path, server.api_base, "mismatch", domains=["airline"], task_versions=["tau2"],
                     tasks=["1"], trials=1, agents=[{"name": "gold", "model": "openai/scripted-agent",
                                                     "args": {"api_base": server.api_base}}])
    proc = harness(
        "sweep", str(config), "--workers", "1", timeout=600,
        patch="import harness.cluster as c; c.catalog_sha256 = lambda: 'f' * 64",  # only this process differs
    )
    assert proc.returncode == 2, proc.stderr[-3000:]
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: this node's gold-variant catalog") and "differs from the driver's" in last
    assert "sweep stopped before any trial ran" in last and "Traceback" not in proc.stderr
    assert not (tmp_path / "mismatch" / "trials.parquet").exists()


def test_a_model_without_its_key_stops_the_sweep_in_one_whole_sentence(tmp_path):
    """A hosted model whose key is not set (no ``api_base``: litellm's provider default): one ``error:`` line
    naming the model, the endpoint, the variable to set and what was kept, the provider's reason never cut
    mid-word, and none of Ray's ``(raylet)`` lines (the retries of the tasks on the workers the sweep kills)."""
    out = tmp_path / "nokey"
    config = tmp_path / "nokey.yaml"
    config.write_text(yaml.safe_dump({
        "name": "nokey", "output": str(out), "agents": [{"name": "gpt", "model": "gpt-4.1"}],
        "user_simulator": {"implementation": "scripted_user"}, "domains": ["airline"], "task_versions": ["tau2"],
        "tasks": ["0", "1", "2", "3"], "trials": 1, "max_concurrency": 4,
        "retries": {"max_attempts": 2, "base_delay_s": 0.1, "max_delay_s": 0.2, "breaker_after": 2},
    }))
    env = {k: v for k, v in os.environ.items() if k not in ("OPENAI_API_KEY", "OPENAI_ADMIN_KEY", "COLUMNS")}
    proc = harness("sweep", str(config), timeout=300, env=env)
    assert proc.returncode == 3, proc.stderr[-3000:]
    errors = [line for line in proc.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, proc.stderr[-3000:]
    sentence = re.fullmatch(
        r"error: model gpt-4\.1 at its provider's default endpoint cannot be reached \(its first 2 attempts all "
        r"failed, the last with (\w+): ([^()]+)\): set OPENAI_API_KEY \(or the model's api_key_env in the sweep "
        rf"config\), then run the sweep again: it stopped, and its 0 finished trials are kept in {re.escape(str(out))}",
        errors[0])
    assert sentence is not None, errors[0]
    assert sentence.group(2).endswith("Missing credentials"), errors[0]  # the reason's first sentence, whole
    assert "(raylet)" not in proc.stdout + proc.stderr, (proc.stdout + proc.stderr)[-3000:]
    assert not (out / ".lock").exists() and not (out / "trials.parquet").exists()

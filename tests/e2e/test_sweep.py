"""``harness sweep`` end to end: embedded Ray, tau2's orchestrator, litellm over HTTP to the scripted server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
import yaml

from harness.config import load_config
from harness.scripted_llm import Faults, ScriptedLLMServer
from harness.trials import expand

SECRET = "sk-live-SECRET-0123456789abcdef"


def _config(tmp_path: Path, api_base: str, name: str, **over) -> Path:
    data = {
        "name": name,
        "agents": [
            {"name": "gold", "model": "openai/scripted-agent",
             "args": {"api_base": api_base, "api_key": SECRET, "temperature": 0.0}},
            {"name": "l6", "model": "openai/scripted-agent:L6.single_call",
             "args": {"api_base": api_base}, "api_key_env": "HARNESS_TEST_KEY"},
        ],
        "user_simulator": {"model": "openai/scripted-user", "args": {"api_base": api_base, "api_key": SECRET}},
        "domains": ["airline", "retail"],
        "task_versions": ["tau2", "tau3"],
        "tasks": ["1", "32", "4"],
        "trials": 2,
        "max_concurrency": 8,
        "flush_every": 4,
        "output": str(tmp_path / name),
        "retries": {"max_attempts": 4, "base_delay_s": 0.01, "max_delay_s": 0.05, "timeout_s": 5},
    }
    data.update(over)
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data))
    return path


def _sweep(config: Path, **kw) -> subprocess.CompletedProcess:
    env = {**os.environ, "HARNESS_TEST_KEY": SECRET}
    return subprocess.run(
        [sys.executable, "-m", "harness.cli.main", "sweep", str(config), "--workers", "2"],
        capture_output=True, text=True, timeout=900, env=env, **kw,
    )


@pytest.fixture(scope="module")
def server():
    with ScriptedLLMServer(faults=Faults(latency_s=0.0)) as s:
        yield s


@pytest.fixture(scope="module")
def full_sweep(server, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sweep")
    config = _config(tmp, server.api_base, "e2e")
    proc = _sweep(config)
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
    proc = _sweep(config)
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
    proc = _sweep(changed)
    assert proc.returncode == 2 and "holds sweep" in proc.stderr and "different 'output'" in proc.stderr


def test_no_secret_in_any_output(full_sweep):
    tmp, _, proc = full_sweep
    for path in (tmp / "e2e").rglob("*"):
        if path.is_file():
            assert SECRET.encode() not in path.read_bytes(), path
    assert SECRET not in proc.stdout and SECRET not in proc.stderr


def test_faults_are_retried_and_counted(tmp_path):
    with ScriptedLLMServer(faults=Faults(rate_500=0.3, rate_malformed=0.05, seed=7)) as flaky:
        config = _config(tmp_path, flaky.api_base, "faults", domains=["airline"], task_versions=["tau2"],
                         tasks=["1", "32"], trials=2)
        proc = _sweep(config)
        assert proc.returncode == 0, proc.stderr[-2000:]
        assert flaky.counts["fault_500"] > 0
    trials = pd.read_parquet(tmp_path / "faults" / "trials.parquet")
    assert len(trials) == 8 and trials.trajectory_id.is_unique
    assert trials.retries.sum() > 0
    infra = trials[trials.status == "infra_error"]
    assert all("attempts failed" in r for r in infra.reason)  # only where retries ran out
    ok = trials[trials.status == "ok"]
    assert len(ok) + len(infra) == 8
    gold_ok = ok[ok.agent_name == "gold"]
    assert (gold_ok.reward == 1.0).all()


def test_sigkill_then_resume_gives_each_trial_once(tmp_path):
    with ScriptedLLMServer(faults=Faults(latency_s=0.05)) as slow:
        config = _config(tmp_path, slow.api_base, "killed", domains=["airline"], task_versions=["tau2"],
                         tasks=["1", "32", "4", "0"], trials=2, flush_every=1, max_concurrency=2)
        env = {**os.environ, "HARNESS_TEST_KEY": SECRET}
        proc = subprocess.Popen(
            [sys.executable, "-m", "harness.cli.main", "sweep", str(config), "--workers", "1"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, start_new_session=True,
        )
        parts = tmp_path / "killed" / "parts"
        deadline = time.time() + 300
        while time.time() < deadline and not (parts.is_dir() and len(list(parts.glob("trials-*.parquet"))) >= 2):
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        written = len(list(parts.glob("trials-*.parquet")))
        assert written >= 2
        resumed = _sweep(config)
        assert resumed.returncode == 0, resumed.stderr[-2000:]
        assert 1 <= slow.max_inflight <= 2  # max_concurrency held at the provider: never more requests at once
    trials = pd.read_parquet(tmp_path / "killed" / "trials.parquet")
    keys = {k.key for k in expand(load_config(config))}
    assert sorted(trials.trajectory_id) == sorted(keys)  # every trial exactly once
    assert not (tmp_path / "killed" / "parts").exists() or not list((tmp_path / "killed" / "parts").iterdir())

"""Sweeps at scale, end to end: a cost budget and its resume, provider rate limits, a two-node Ray
cluster whose nodes have no task data, and the embedded default beside a running ``ray start`` cluster."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import yaml

from loophole_scripted_llm import Faults, ScriptedLLMServer
from tests.conftest import TAU_DATA, harness
from tests.e2e.conftest import sweep_config

PRICE = {"input_cost_per_token": 0.001, "output_cost_per_token": 0.002}  # the server bills 1 + 1 tokens


def _config(tmp_path: Path, api_base: str, name: str, **over) -> Path:
    """The scripted sweep of conftest with one gold agent on airline tau2, four tasks, two at a time."""
    return sweep_config(tmp_path, api_base, name, **{
        "agents": [{"name": "gold", "model": "openai/scripted-agent", "args": {"api_base": api_base, "api_key": "x"}}],
        "user_simulator": {"model": "openai/scripted-user", "args": {"api_base": api_base, "api_key": "x"}},
        "domains": ["airline"], "task_versions": ["tau2"], "tasks": ["1", "4", "32", "5"],
        "max_concurrency": 2, "flush_every": 1,
        "retries": {"max_attempts": 2, "base_delay_s": 0.01, "max_delay_s": 0.05, "timeout_s": 10},
        **over,
    })


def _sweep(config: Path, env: dict | None = None) -> subprocess.CompletedProcess:
    return harness("sweep", str(config), "--workers", "1", timeout=600, env=env or dict(os.environ))


def test_budget_stops_scheduling_and_a_raised_budget_resumes(tmp_path):
    prices = {"openai/scripted-agent": PRICE, "openai/scripted-user": PRICE}
    with ScriptedLLMServer() as server:
        capped = _config(tmp_path, server.api_base, "budget", prices=prices, max_cost_usd=0.06)
        first = _sweep(capped)
        assert first.returncode != 0, first.stdout[-2000:] + first.stderr[-2000:]
        assert "stopped: budget reached" in first.stdout
        # the progress line: its last phase, its time, the pace and the cost
        assert "done " in first.stderr and " elapsed " in first.stderr and "trials/min" in first.stderr
        assert "$0.0" in first.stderr
        kept = pd.read_parquet(tmp_path / "budget" / "trials.parquet")
        cost = kept.agent_cost + kept.user_cost
        assert 0 < len(kept) < 8 and (kept.status == "ok").all() and (kept.reward == 1.0).all()
        assert (cost > 0).all() and cost.sum() <= 0.06 + cost.max()  # one trial's worth of estimate at most
        assert all(json.loads(m) for m in kept.messages_json)  # rows are whole trajectories

        raised = _config(tmp_path, server.api_base, "budget", prices=prices, max_cost_usd=10.0)
        second = _sweep(raised)
        assert second.returncode == 0, second.stderr[-3000:]
    done = pd.read_parquet(tmp_path / "budget" / "trials.parquet")
    assert len(done) == 8 and done.trajectory_id.is_unique and (done.status == "ok").all()
    before = kept.set_index("trajectory_id").messages_json
    assert done.set_index("trajectory_id").messages_json.loc[before.index].equals(before)  # untouched


def test_rate_limited_provider_loses_no_trial(tmp_path):
    # 2 attempts per call: a runner that spent an attempt on each 429 would lose trials here
    with ScriptedLLMServer(faults=Faults(rate_limit_rps=4)) as server:
        proc = _sweep(_config(tmp_path, server.api_base, "limited", max_concurrency=6, tasks=["1", "4", "32"]))
        assert proc.returncode == 0, proc.stderr[-3000:]
        refused = server.counts["fault_rate_limited"]
    trials = pd.read_parquet(tmp_path / "limited" / "trials.parquet")
    assert len(trials) == 6 and (trials.status == "ok").all() and (trials.reward == 1.0).all()
    assert refused > 0  # the limit was reached: this was a test of waiting it out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Both cluster tests touch /tmp/ray/ray_current_cluster; in one file they run in turn on one xdist worker
# (the suite runs with --dist loadfile).
def test_embedded_default_is_private_while_a_ray_start_cluster_runs(tmp_path):
    port = _free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    log = (tmp_path / "ray-start.log").open("w")
    cluster = subprocess.Popen(
        [sys.executable, "-m", "ray.scripts.scripts", "start", "--head", f"--port={port}", "--num-cpus=1",
         "--include-dashboard=false", "--block"],
        stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
    )
    address_file = Path("/tmp/ray/ray_current_cluster")  # what an unqualified ray.init() would follow
    try:
        deadline = time.monotonic() + 120
        while not (address_file.exists() and address_file.read_text().strip().endswith(f":{port}")):
            assert cluster.poll() is None and time.monotonic() < deadline, (tmp_path / "ray-start.log").read_text()
            time.sleep(0.5)
        demo = yaml.safe_load((Path(__file__).resolve().parents[2] / "configs" / "offline-demo.yaml").read_text())
        demo.update(tasks=["1"], trials=1, output=str(tmp_path / "demo"), task_versions=["tau2"], domains=["airline"])
        (tmp_path / "demo.yaml").write_text(yaml.safe_dump(demo))
        proc = _sweep(tmp_path / "demo.yaml")
        assert proc.returncode == 0, proc.stderr[-3000:]
        trials = pd.read_parquet(tmp_path / "demo" / "trials.parquet")
        assert len(trials) == len(demo["agents"]) and (trials.status == "ok").all()
        assert cluster.poll() is None  # the cluster ran beside the sweep throughout
    finally:
        os.killpg(cluster.pid, signal.SIGKILL)  # the processes this test started: its own session
        cluster.wait(timeout=30)
        log.close()
        if address_file.exists() and address_file.read_text().strip().endswith(f":{port}"):
            address_file.unlink()  # ours, and stale now


def test_two_node_cluster_whose_nodes_have_no_task_data(tmp_path, monkeypatch):
    import ray
    from ray.cluster_utils import Cluster

    import loophole_store as store
    from harness.config import SweepConfig
    from harness.sweeping import run_sweep

    # the nodes' environment: no $HARNESS_TAU_DATA, an empty cache, offline
    monkeypatch.delenv("HARNESS_TAU_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "empty-cache"))
    monkeypatch.setenv("HARNESS_OFFLINE", "1")
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1, "include_dashboard": False})
    try:
        cluster.add_node(num_cpus=1)
        cluster.wait_for_nodes()  # both nodes registered before the sweep places its workers
        monkeypatch.setenv("HARNESS_TAU_DATA", str(TAU_DATA))  # only the driver has the data
        monkeypatch.setenv("RAY_ADDRESS", cluster.address)
        config = SweepConfig.model_validate(yaml.safe_load(_config(
            tmp_path, "scripted://local", "cluster", address="auto", task_versions=["tau3"],
            tasks=["1", "4", "32"], max_concurrency=4,
        ).read_text()))
        out, progress = run_sweep(config)
        trials = store.read_table(out, "trials")
        assert len(trials) == 6 and (trials.status == "ok").all(), trials[["task_id", "status", "reason"]]
        assert (trials.reward == 1.0).all()
        assert len(progress.per_node) == 2 and min(progress.per_node.values()) > 0, progress.per_node
    finally:
        ray.shutdown()
        cluster.shutdown()

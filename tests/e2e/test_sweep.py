"""``harness sweep`` end to end: embedded Ray, tau2's orchestrator, litellm over HTTP to the scripted server."""

from __future__ import annotations

import json

import pandas as pd
import pytest
import yaml

from harness.config import load_config
from harness.trials import expand
from tests.e2e.conftest import SECRET, run_sweep, sweep_config


@pytest.fixture(scope="module")
def full_sweep(server, tmp_path_factory):
    tmp = tmp_path_factory.mktemp("sweep")
    config = sweep_config(tmp, server.api_base, "e2e")
    proc = run_sweep(config, workers=2)  # the suite's sweep of scripted agents over two Ray workers
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
    proc = run_sweep(config, workers=2)
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
    proc = run_sweep(changed, workers=2)
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

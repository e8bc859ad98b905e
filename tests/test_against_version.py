"""Cross-version rescoring: a τ² run scored against Verified's golds equals tau2's own evaluator run with
Verified's task, and the rows are marked."""

from __future__ import annotations

import pandas as pd
from tau2.data_model.simulation import SimulationRun
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

from envs import diff_versions, load_task_set
from loophole_ingest import import_results_file
from tests.conftest import ROOT, harness, real_run

RUN = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"


def test_a_tau2_run_rescored_against_verified_equals_tau2s_evaluator_with_verifieds_tasks(tmp_path):
    out = tmp_path / "run"
    proc = harness(
        "rescore", str(real_run(RUN)), "--out", str(out), "--against-version", "verified", timeout=600, cwd=ROOT
    )
    assert proc.returncode == 0, proc.stderr
    assert "recorded on tau2, also scored against verified's golds" in proc.stdout
    trials = pd.read_parquet(out / "trials.parquet")
    against = trials[trials["flags"].map(lambda f: f is not None and "against_version" in list(f))]
    native = trials[~trials.index.isin(against.index)]
    assert len(against) == len(native) == 50
    assert set(against.task_version) == {"verified"} and set(native.task_version) == {"tau2"}
    assert against.recorded_reward.isna().all()  # the recorded reward was another gold's
    assert against.run_id.str.endswith("@verified").all()
    import json

    info = json.loads((out / "run.json").read_text(encoding="utf-8"))  # every version used, with its sha256
    assert info["task_versions"]["verified"] == "amazon-agi/tau2-bench-verified@9d0d5ae0a5a80007ec15083448350bb9f8f1cc00"
    assert info["task_versions"]["tau2"].startswith("sierra-research/tau2-bench@37199f3")
    assert info["task_data_sha256"]["verified/airline/tasks.json"].startswith("202f0cdb1cf4")

    # stock tau2 on every task whose gold Verified changed, and on every fourth of the rest
    changed = set(diff_versions("airline", "tau2", "verified").changed_ids)
    verified = load_task_set("airline", "verified")
    ours = dict(zip(against.simulation_id, against.reward, strict=True))
    compared = moved = 0
    for i, item in enumerate(import_results_file(real_run(RUN)).simulations):
        sim = SimulationRun.model_validate(item.raw)
        if sim.task_id not in changed and i % 4:
            continue
        try:
            stock = evaluate_simulation(sim, verified.task(sim.task_id), EvaluationType.ALL, False, "airline").reward
        except Exception:  # noqa: BLE001 - stock raises on pydantic version noise; ours normalises it
            continue
        assert ours[item.simulation_id] == stock, (sim.task_id, ours[item.simulation_id], stock)
        compared += 1
        moved += stock != dict(zip(native.simulation_id, native.reward, strict=True))[item.simulation_id]
    assert compared >= 25 and moved >= 3  # Verified's golds move real verdicts (2, 27 and 38 at least)


def test_against_an_unknown_version_is_one_line(tmp_path):
    proc = harness(
        "rescore", str(real_run("whissle_retail_tau3_5sims.json")), "--out", str(tmp_path / "r"),
        "--against-version", "tau9", timeout=300,
    )
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1
    assert "--against-version: 'tau9' is not one of" in proc.stderr
    assert not (tmp_path / "r").exists()

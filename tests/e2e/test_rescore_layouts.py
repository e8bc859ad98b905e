"""``harness rescore`` on tau2 1.0 layouts, v1 fields and custom runs, built from the shared real runs."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pandas as pd
import pytest
from tau2.data_model.simulation import SimulationRun
from tau2.data_model.tasks import Task
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation

from tests import results_layouts as layouts
from tests.conftest import harness, real_run

AIDE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"
RETAIL3 = "whissle_retail_tau3_5sims.json"
N = 10



def _rows(trials: pd.DataFrame, source: Path) -> list[tuple]:
    g = trials[trials.source_file == str(source.resolve())]
    return sorted((r.simulation_id, r.task_id, r.reward, r.status) for r in g.itertuples())


@pytest.fixture(scope="module")
def base() -> dict:
    return layouts.subset(json.loads(real_run(AIDE).read_text()), N)


@pytest.fixture(scope="module")
def layout_run(base, tmp_path_factory):
    """Every layout in one folder tree, rescored in one call (the folder is searched recursively)."""
    root = tmp_path_factory.mktemp("layouts")
    tree = root / "in"
    v1 = layouts.with_v1_terminations(
        layouts.with_v1_fields(base),
        {0: "timeout", 1: "infrastructure_error", 2: "context_window_exceeded"},
    )
    v1 = layouts.with_null_messages(v1, 3)
    paths = {
        "mono": layouts.write_monolithic(base, tree / "mono.json"),
        "folder": layouts.write_folder_run(base, tree / "runs" / "folder_run"),
        "dir": layouts.write_dir_run(base, tree / "runs" / "dir_run"),
        "v1": layouts.write_monolithic(v1, tree / "nested" / "deeper" / "v1.json"),
    }
    out = root / "out"
    proc = harness("rescore", str(tree), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return paths, pd.read_parquet(out / "trials.parquet"), proc, v1


def test_every_layout_gives_the_monolithic_rewards(base, layout_run):
    paths, trials, proc, _ = layout_run
    mono = _rows(trials, paths["mono"])
    assert len(mono) == N
    assert [r[2] for r in mono] == [
        s["reward_info"]["reward"] for s in sorted(base["simulations"], key=lambda s: s["id"])
    ]
    assert _rows(trials, paths["folder"]) == mono
    assert _rows(trials, paths["dir"]) == mono
    assert "folder_run/results.json" in proc.stdout and "dir_run/results.json" in proc.stdout


def test_v1_terminations_and_null_messages(base, layout_run):
    paths, trials, proc, v1 = layout_run
    g = trials[trials.source_file == str(paths["v1"].resolve())].set_index("simulation_id")
    sims = v1["simulations"]
    timeout, infra, ctx, null = (g.loc[sims[i]["id"]] for i in range(4))
    assert (
        timeout.reward == 0.0
        and timeout.status == "ok"
        and timeout.reason == "terminated prematurely: timeout"
    )
    assert ctx.reward == 0.0 and ctx.termination_reason == "context_window_exceeded"
    assert pd.isna(infra.reward) and infra.status == "infra_error"
    assert pd.isna(null.reward) and null.status == "error" and "'messages' is null" in null.reason
    mono = {r[0]: r[2] for r in _rows(trials, paths["mono"])}
    for s in sims[4:]:
        assert g.loc[s["id"]].reward == mono[s["id"]]
    assert "1 rewards null: infra_error" in proc.stdout
    means = trials[trials.source_file == str(paths["v1"].resolve())]
    assert means.reward.mean() == pytest.approx(means.reward.dropna().sum() / (N - 2))


def test_dir_run_with_a_missing_simulation_file(base, tmp_path):
    run = layouts.write_dir_run(base, tmp_path / "dir_run")
    gone = base["simulations"][2]["id"]
    (run / "simulations" / f"{gone}.json").unlink()
    out = tmp_path / "out"
    proc = harness("rescore", str(run / "results.json"), "--out", str(out))
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and f"missing simulation files for ids {gone}" in lines[0], proc.stderr
    assert not out.exists()
    proc = harness("rescore", str(tmp_path / "dir_*"), "--out", str(out), "--skip-bad")
    assert proc.returncode == 0, proc.stderr
    trials = pd.read_parquet(out / "trials.parquet").set_index("simulation_id")
    assert (
        len(trials) == N
        and trials.loc[gone].status == "error"
        and "missing" in trials.loc[gone].reason
    )


def test_dir_run_with_an_extra_simulation_file(base, tmp_path):
    run = layouts.write_dir_run(base, tmp_path / "dir_run")
    layouts.write_monolithic(base["simulations"][0], run / "simulations" / "stray.json")
    proc = harness("rescore", str(run), "--out", str(tmp_path / "out"))
    assert proc.returncode == 2 and "simulation files not in the index: stray" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


# --- custom runs -----------------------------------------------------------------------------


def _custom(base: dict) -> tuple[dict, str]:
    """An edited-policy experiment: domain renamed, policy edited, one task's criteria edited."""
    data = copy.deepcopy(base)
    data["info"]["environment_info"]["domain_name"] = "airline_tighter_policy"
    data["info"]["environment_info"]["policy"] += (
        "\n- Never offer compensation unless the user asks twice.\n"
    )
    passed = next(s for s in data["simulations"] if s["reward_info"]["reward"] == 1.0)
    task = next(t for t in data["tasks"] if t["id"] == passed["task_id"])
    task["evaluation_criteria"]["communicate_info"] = ["the words nobody says: xyzzy"]
    return data, passed["task_id"]


def test_custom_policy_run_equals_tau2_on_its_embedded_tasks(base, tmp_path):
    data, edited = _custom(base)
    path = layouts.write_monolithic(data, tmp_path / "tighter.json")
    out = tmp_path / "out"
    proc = harness("rescore", str(path), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    trials = pd.read_parquet(out / "trials.parquet").set_index("simulation_id")
    assert set(trials.task_version) == {"custom"} and set(trials.recorded_domain) == {
        "airline_tighter_policy"
    }
    assert set(trials.domain) == {"airline"} and trials.policy_sha256.nunique() == 1
    tasks = {t["id"]: Task.model_validate(t) for t in data["tasks"]}
    for raw in data["simulations"]:
        sim = SimulationRun.model_validate(raw)
        stock = evaluate_simulation(
            sim, tasks[sim.task_id], EvaluationType.ALL, False, "airline"
        ).reward
        assert trials.loc[raw["id"]].reward == stock, raw["task_id"]
    edited_rows = trials[trials.task_id == edited]
    assert (edited_rows.reward == 0.0).all() and (
        edited_rows.reason == "no variants: custom task"
    ).all()
    assert "custom domain 'airline_tighter_policy' scored in the airline environment" in proc.stdout
    # the edit is the only disagreement with the recorded rewards
    assert (trials.recorded_reward != trials.reward).sum() == len(edited_rows)
    assert (trials[trials.task_id != edited].reason != "no variants: custom task").all()


def test_unknown_custom_domain_needs_domain_flag(base, tmp_path):
    data = copy.deepcopy(base)
    data["info"]["environment_info"]["domain_name"] = "skies"
    path = layouts.write_monolithic(data, tmp_path / "skies.json")
    proc = harness("rescore", str(path), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "pass --domain" in proc.stderr
    proc = harness("rescore", str(path), "--out", str(tmp_path / "o"), "--domain", "airline")
    assert proc.returncode == 0, proc.stderr
    trials = pd.read_parquet(tmp_path / "o" / "trials.parquet")
    assert set(trials.recorded_domain) == {"skies"} and set(trials.task_version) == {"tau2"}


# --- tau3 retail without paying a judge -------------------------------------------------------


def test_tau3_retail_judge_recorded(tmp_path):
    raw = json.loads(real_run(RETAIL3).read_text())
    proc = harness(
        "rescore", str(real_run(RETAIL3)), "--out", str(tmp_path / "o"), "--judge", "recorded"
    )
    assert proc.returncode == 0, proc.stderr
    trials = pd.read_parquet(tmp_path / "o" / "trials.parquet")
    assert len(trials) == 5 and (trials.reward == trials.recorded_reward).all()
    assert [s["reward_info"]["reward"] for s in raw["simulations"]] == list(
        trials.sort_values("trajectory_id").reward
    )


def test_leaderboard_keeps_custom_runs_apart(base, tmp_path):
    """A custom run is ranked only with runs of the same embedded tasks, never in the tau2 table."""
    data, _ = _custom(base)
    other, _ = _custom(base)
    other["tasks"][0]["evaluation_criteria"]["communicate_info"] = ["another edit"]
    folder = tmp_path / "in"
    layouts.write_monolithic(base, folder / "stock.json")
    layouts.write_monolithic(data, folder / "tighter.json")
    layouts.write_monolithic(other, folder / "tighter_other.json")
    proc = harness("leaderboard", str(folder), "--out", str(tmp_path / "lb"))
    assert proc.returncode == 0, proc.stderr
    board = pd.read_parquet(tmp_path / "lb" / "leaderboard.parquet").set_index("source_file")
    groups = {Path(f).name: g for f, g in board.task_group.items()}
    assert groups["stock.json"] == "tau2"
    assert groups["tighter.json"].startswith("custom:") and groups["tighter_other.json"].startswith(
        "custom:"
    )
    assert groups["tighter.json"] != groups["tighter_other.json"]
    assert set(board.judge) == {"none"}
    assert (board.rank_single == 1).all()  # each alone in its group
    md = (tmp_path / "lb" / "leaderboard.md").read_text()
    assert md.count("## airline custom:") == 2 and md.count("## airline tau2") == 1

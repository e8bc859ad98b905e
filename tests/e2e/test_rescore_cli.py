"""``harness rescore`` as a user runs it: real files, real Parquet, bad inputs."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import duckdb
import pandas as pd
import pyarrow.parquet as pq
import pytest

import loophole_store as store
from tests.conftest import REAL_RUNS, harness, real_run

WHISSLE = "whissle_airline_tau3_1trial.json"



@pytest.fixture(scope="module")
def all_runs(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    out = tmp_path_factory.mktemp("runs") / "all"
    proc = harness("rescore", str(REAL_RUNS), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out, proc


@pytest.fixture(scope="module")
def whissle_run(tmp_path_factory) -> tuple[Path, subprocess.CompletedProcess]:
    """whissle's run rescored into a new folder, once: three tests read it (its rows; the first of two rescores;
    the one-worker side of the Ray comparison), each rescore of its 50 simulations costing seconds of CPU."""
    out = tmp_path_factory.mktemp("whissle") / "whissle"
    proc = harness("rescore", str(real_run(WHISSLE)), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out, proc


def test_whissle_detects_and_reproduces(whissle_run):
    out, proc = whissle_run
    assert "whissle_airline_tau3_1trial.json: tau3" in proc.stdout
    assert "0 disagreements" in proc.stdout
    trials = pd.read_parquet(out / "trials.parquet")
    assert len(trials) == 50 and set(trials.domain) == {"airline"} and set(trials.task_version) == {"tau3"}
    assert (trials.reward == trials.recorded_reward).all()
    con = duckdb.connect()
    n, mean = con.execute(
        f"select count(*), avg(reward) from read_parquet('{out / 'scores.parquet'}') where gold_id='gold'"
    ).fetchone()
    assert n == 50 and abs(mean - trials.recorded_reward.mean()) < 1e-12


def test_all_real_runs_summary(all_runs):
    out, proc = all_runs
    assert "toolorchestra_retail_tau2_1trial.json: tau2" in proc.stdout
    # Its task ids are row positions (#36): scored against the tasks its checks name, its recorded rewards
    # reproduce (95 disagreed when it was scored against the wrong tasks).
    assert "toolorchestra_retail_tau2_1trial.json: task ids remapped: 113 of 114 simulations" in proc.stdout
    assert "toolorchestra_retail_tau2_1trial.json: tau2" in proc.stdout and "95 disagreements" not in proc.stdout
    dis = pd.read_parquet(out / "disagreements.parquet")
    assert len(dis) == 0
    trials = pd.read_parquet(out / "trials.parquet")
    # tau3 retail without a judge: no task needs one (no assertions, or a DB component of 0)
    assert "rewards null" not in proc.stdout and trials.reward.notna().all()
    assert set(trials.judge) == {"none"} and (trials.judge_cost == 0).all()


def test_store_schema_matches_readme(all_runs):
    out, _ = all_runs
    readme = (Path(__file__).resolve().parents[2] / "docs" / "rescoring.md").read_text()  # moved from README
    for name, schema in store.TABLES.items():
        on_disk = pq.read_schema(out / f"{name}.parquet")
        assert on_disk.names == schema.names
        for field in schema:
            assert on_disk.field(field.name).type == field.type
            documented = f"| `{field.name}` | {field.type} |"
            assert documented in readme, f"README does not document {name}.{field.name} as {field.type}"


def test_messages_are_stored_in_full(all_runs):
    out, _ = all_runs
    trials = pd.read_parquet(out / "trials.parquet")
    row = trials[trials.source_file.str.endswith(WHISSLE)].iloc[0]
    original = json.loads(real_run(WHISSLE).read_text())
    sim = next(s for s in original["simulations"] if s["id"] == row.simulation_id)
    assert json.loads(row.messages_json) == sim["messages"]


def test_rescore_writes_run_json_with_the_catalog_of_its_rows(all_runs):
    out, _ = all_runs
    info = json.loads((out / "run.json").read_text())
    assert info["kind"] == "rescore" and info["tau2_version"] == "26.3" and info["judge"] is None
    assert set(pd.read_parquet(out / "scores.parquet").catalog_sha256) == {info["catalog_sha256"]}
    assert len(info["source_sha256"]) == 4 and info["history"] == []


def test_rescoring_twice_is_idempotent(whissle_run, tmp_path):
    import shutil

    first = whissle_run[0]
    out = shutil.copytree(first, tmp_path / "twice")  # the first rescore's folder, rescored again in place
    assert harness("rescore", str(real_run(WHISSLE)), "--out", str(out)).returncode == 0
    (t1, s1), (t2, s2) = ((pd.read_parquet(d / "trials.parquet"), pd.read_parquet(d / "scores.parquet"))
                          for d in (first, out))
    assert len(t2) == 50 and t2.trajectory_id.is_unique
    assert not s2.duplicated(["trajectory_id", "gold_id"]).any()
    assert (s2.gold_id == "gold").sum() == 50 and len(s2) > 50  # the gold plus the variants
    pd.testing.assert_frame_equal(t1, t2)
    pd.testing.assert_frame_equal(s1, s2)


def test_ray_workers_give_same_rows(whissle_run, tmp_path):
    out1, out2 = whissle_run[0], tmp_path / "two"
    proc = harness("rescore", str(real_run(WHISSLE)), "--out", str(out2), "--workers", "2")
    assert proc.returncode == 0, proc.stderr
    a = pd.read_parquet(out1 / "scores.parquet")
    b = pd.read_parquet(out2 / "scores.parquet")
    pd.testing.assert_frame_equal(a, b)


# --- bad input -------------------------------------------------------------------------------


def _whissle() -> dict:
    return json.loads(real_run(WHISSLE).read_text())


def _write(path: Path, data: object) -> Path:
    path.write_text(json.dumps(data) if not isinstance(data, str) else data)
    return path


def _bad(tmp_path: Path, name: str):
    d = _whissle()
    if name == "malformed":
        return _write(tmp_path / "f.json", "{not json"), "not valid JSON"
    if name == "truncated":
        text = real_run(WHISSLE).read_text()
        return _write(tmp_path / "f.json", text[: len(text) // 2]), "truncated JSON: "
    if name == "truncated_in_a_string":  # cut inside the first task's "id": where the string starts, as json says
        text = real_run(WHISSLE).read_text()
        cut = text[: text.index('"id"', text.index('"tasks"')) + 3]
        with pytest.raises(json.JSONDecodeError) as told:
            json.loads(cut)
        return _write(tmp_path / "f.json", cut), (
            f"truncated JSON: unterminated string starting at line {told.value.lineno} column {told.value.colno} "
            "in field 'tasks'")
    if name == "no_simulations":
        del d["simulations"]
        return _write(tmp_path / "f.json", d), "missing field 'simulations'"
    if name == "unknown_task":
        # an id no task has is bad input, whatever its evidence (only a known but wrong id is remapped)
        d["simulations"][3]["task_id"] = "777"
        return _write(tmp_path / "f.json", d), f"simulation {d['simulations'][3]['id']}: unknown task id '777'"
    if name == "domain_mismatch":
        d["info"]["environment_info"]["domain_name"] = "retail"
        return _write(tmp_path / "f.json", d), "domain mismatch"
    raise AssertionError(name)


@pytest.mark.parametrize("name", ["malformed", "truncated", "truncated_in_a_string", "no_simulations", "unknown_task",
                                  "domain_mismatch"])
def test_bad_input_one_line_error_no_file(tmp_path, name):
    path, expected = _bad(tmp_path, name)
    out = tmp_path / "out"
    proc = harness("rescore", str(path), "--out", str(out))
    assert proc.returncode == 2
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith(f"error: {path}") and expected in lines[0], lines[0]
    assert "Traceback" not in proc.stderr
    assert not out.exists() or not any(out.iterdir())


def test_skip_bad_keeps_an_error_row(tmp_path):
    path, _ = _bad(tmp_path, "unknown_task")
    out = tmp_path / "out"
    proc = harness("rescore", str(path), "--out", str(out), "--skip-bad")
    assert proc.returncode == 0, proc.stderr
    trials = pd.read_parquet(out / "trials.parquet")
    bad = trials[trials.status == "error"]
    assert len(trials) == 50 and len(bad) == 1 and "unknown task id '777'" in bad.iloc[0].reason
    assert pd.isna(bad.iloc[0].reward)


def test_bad_task_version_flag(tmp_path):
    proc = harness("rescore", str(real_run(WHISSLE)), "--out", str(tmp_path / "o"), "--task-version", "tau9")
    assert proc.returncode == 2 and "--task-version: 'tau9'" in proc.stderr


def test_missing_path(tmp_path):
    proc = harness("rescore", str(tmp_path / "nope.json"), "--out", str(tmp_path / "o"))
    assert proc.returncode == 2 and "nope.json: no such file" in proc.stderr


def test_multi_gold_on_real_runs(all_runs):
    out, proc = all_runs
    trials = pd.read_parquet(out / "trials.parquet")
    scores = pd.read_parquet(out / "scores.parquet")
    scored = trials[trials.reward.notna()]
    # multi-gold is the maximum over the trajectory's score rows (gold and variants), recomputed here
    best = scores.groupby("trajectory_id").reward.max()
    assert (scored.set_index("trajectory_id").multi_gold_reward == best.reindex(scored.trajectory_id)).all()
    changed = scored[scored.multi_gold_reward > scored.reward]
    assert len(changed) >= 1
    for row in changed.itertuples():
        credited = [g for g in row.matched_gold_ids if g != "gold"]
        assert credited, row.trajectory_id
        readings = scores[(scores.trajectory_id == row.trajectory_id) & scores.gold_id.isin(credited)]
        assert readings.reading.notna().all() and (readings.reward == 1.0).all()
        assert f"({row.trajectory_id}) credited by {', '.join(credited)}" in proc.stdout
    # one row per trajectory x gold: the gold plus every applicable variant
    per_traj = scores.groupby("trajectory_id").gold_id.apply(list)
    assert all(g[0] == "gold" or "gold" in g for g in per_traj)
    assert scores.duplicated(["trajectory_id", "gold_id"]).sum() == 0

"""``harness leaderboard`` on real runs, and on a multi-model fixture derived from them."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import REAL_RUNS, harness, real_run

AIDE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"



def test_real_runs_table(tmp_path):
    proc = harness("leaderboard", str(REAL_RUNS), "--out", str(tmp_path / "lb"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    for title in ("airline tau2", "airline tau3", "retail tau2", "retail tau3"):
        assert title in proc.stdout
    # its task ids were wrong (#36): scored against the tasks its checks name, the flag names that cause
    assert "flagged: " in proc.stdout and "kept out of the ranking" in proc.stdout
    assert "task ids remapped: 113 of 114 simulations" in proc.stdout
    board = pd.read_parquet(tmp_path / "lb" / "leaderboard.parquet")
    assert len(board) == 4
    for r in board.itertuples():
        assert hashlib.sha256(Path(r.source_file).read_bytes()).hexdigest() == r.source_sha256
    tool = board[board.source_file.str.endswith("toolorchestra_retail_tau2_1trial.json")].iloc[0]
    assert tool.flagged and not tool.ranked and tool.disagreements == 0
    assert tool.flag_cause == "task ids remapped: 113"
    assert "task ids remapped: 113" in (tmp_path / "lb" / "leaderboard.md").read_text()
    assert (board.multi_pass1.dropna() >= board.single_pass1.dropna()).all()
    assert (tmp_path / "lb" / "leaderboard.md").read_text().count("## ") == 4


@pytest.fixture(scope="module")
def fixture_dir(tmp_path_factory) -> Path:
    """Three 'models' from the aide run: as is, degraded (10 runs cut short), and a partial run."""
    d = tmp_path_factory.mktemp("fixture")
    base = json.loads(real_run(AIDE).read_text())
    (d / "model_a.json").write_text(json.dumps(base))
    worse = json.loads(json.dumps(base))
    worse["info"]["agent_info"]["llm"] = "model-b"
    for sim in worse["simulations"][:20]:
        sim["termination_reason"] = "max_steps"  # premature: reward 0 by rule
        sim["reward_info"]["reward"] = 0.0  # recorded as tau2 would have recorded it
    (d / "model_b.json").write_text(json.dumps(worse))
    part = json.loads(json.dumps(base))
    part["info"]["agent_info"]["llm"] = "model-c"
    part["simulations"] = part["simulations"][:30]
    part["tasks"] = [t for t in part["tasks"] if t["id"] in {s["task_id"] for s in part["simulations"]}]
    (d / "model_c.json").write_text(json.dumps(part))
    (d / "toolorchestra.json").write_text(real_run("toolorchestra_retail_tau2_1trial.json").read_text())
    (d / "manifest.yaml").write_text(
        "runs:\n"
        "  model_a.json: {name: Model A, organisation: Lab A}\n"
        "  model_b.json: {name: Model B}\n"
        "  model_c.json: {name: Model C, notes: first 30 tasks only}\n"
        "  toolorchestra.json: {name: ToolOrchestra, notes: agent metadata looks copied}\n"
    )
    return d


def _board(fixture_dir: Path, out: Path, *extra: str) -> pd.DataFrame:
    proc = harness("leaderboard", *[str(p) for p in sorted(fixture_dir.glob("*.json"))], "--out", str(out),
                   "--manifest", str(fixture_dir / "manifest.yaml"), *extra)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return pd.read_parquet(out / "leaderboard.parquet").set_index("name")


def test_ranks_flags_and_partial_runs(fixture_dir, tmp_path):
    b = _board(fixture_dir, tmp_path / "lb")
    assert b.loc["Model A", "rank_single"] == 1 and b.loc["Model B", "rank_single"] == 2
    assert b.loc["Model A", "rank_group"] == b.loc["Model B", "rank_group"] == "full"
    assert b.loc["Model C", "partial"] and b.loc["Model C", "rank_group"] == "partial (30 tasks)"
    assert b.loc["Model C", "rank_single"] == 1  # ranked only among runs covering the same tasks
    assert b.loc["Model A", "organisation"] == "Lab A"
    assert b.loc["ToolOrchestra", "flagged"] and pd.isna(b.loc["ToolOrchestra", "rank_single"])
    assert b.loc["Model B", "single_pass1"] < b.loc["Model A", "single_pass1"]


def test_include_flagged_ranks_it(fixture_dir, tmp_path):
    b = _board(fixture_dir, tmp_path / "lb2", "--include-flagged")
    assert b.loc["ToolOrchestra", "flagged"] and b.loc["ToolOrchestra", "rank_single"] == 1


def test_bad_manifest(fixture_dir, tmp_path):
    bad = tmp_path / "m.yaml"
    bad.write_text("runs:\n  x.json: {nme: typo}\n")
    proc = harness("leaderboard", str(fixture_dir / "model_a.json"), "--out", str(tmp_path / "o"), "--manifest", str(bad))
    assert proc.returncode == 2 and f"error: {bad}: field 'runs.x.json.name': Field required" in proc.stderr

"""``harness explain`` on a rescored subset of a real run: the evidence marked at its message."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import harness, real_run


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory) -> Path:
    """whissle's tau3 airline run cut to tasks 2 and 29 (both refused a credit by a precondition)."""
    raw = json.loads(real_run("whissle_airline_tau3_1trial.json").read_text())
    raw["simulations"] = [s for s in raw["simulations"] if s["task_id"] in ("2", "29")]
    raw.pop("simulation_index", None)
    base = tmp_path_factory.mktemp("explain")
    (base / "whissle_2_29.json").write_text(json.dumps(raw))
    proc = harness("rescore", str(base / "whissle_2_29.json"), "--out", str(base / "run"))
    assert proc.returncode == 0, proc.stderr
    return base / "run"


def _trajectory(run_dir: Path, task_id: str) -> str:
    trials = pd.read_parquet(run_dir / "trials.parquet")
    return trials[trials.task_id == task_id].trajectory_id.item()


def test_explain_marks_the_failed_precondition_and_the_evidence(run_dir):
    proc = harness("explain", str(run_dir), _trajectory(run_dir, "29"))
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "L16.modify_in_place does not credit" in out
    assert "precondition no_prior_decline: failed" in out
    # the decline is marked at its message, and quoted in full there
    marked = [line for line in out.splitlines() if line.startswith("▶   8 assistant")]
    assert marked and "you cannot change the origin, destination, or trip type" in marked[0]
    assert "↳ L16.refuse: declines, naming changing origin or destination" in out


def test_explain_a_compensation_offered_unasked(run_dir):
    simulation_id = _trajectory(run_dir, "2").rsplit(":", 1)[
        1
    ]  # a unique part of the id also works
    proc = harness("explain", str(run_dir), simulation_id)
    assert proc.returncode == 0, proc.stderr
    assert (
        "precondition user_asked_compensation: failed - the agent raised compensation at message 22"
        in proc.stdout
    )
    assert "precondition delay_confirmed: held" in proc.stdout


def test_explain_unknown_trajectory_is_a_one_line_error(run_dir):
    proc = harness("explain", str(run_dir), "no-such-trajectory")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0
    assert "trajectory_id 'no-such-trajectory': not found" in proc.stderr

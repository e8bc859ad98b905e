"""``harness analyze`` and ``harness report`` on a rescored real run and on an offline sweep; the report
rendered in headless Chromium (Debian's chromium package, installed by .ci/run)."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.report import SECTIONS
from tests.conftest import real_run


def harness(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "harness.cli.main", *args], capture_output=True, text=True, timeout=900)


@pytest.fixture(scope="module")
def real_run_dir(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("real") / "aide"
    proc = harness("rescore", str(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json")), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="module")
def offline_run_dir(offline_demo_run) -> Path:
    return offline_demo_run[0]


def test_analyze_real_run_degrades_gracefully(real_run_dir, tmp_path):
    proc = harness("analyze", str(real_run_dir), "--out", str(tmp_path / "tables"))
    assert proc.returncode == 0, proc.stderr
    assert "one trial per agent and task" in proc.stdout and "one agent" in proc.stdout
    assert "one trial per cell: variance undefined" in proc.stdout  # said, not a made-up 0
    import pandas as pd

    assert set(pd.read_parquet(tmp_path / "tables" / "pass_k.parquet").k) == {1}
    # the gap CI resamples trials (50 per agent here), so it exists; counts are reported with it
    gap = pd.read_parquet(tmp_path / "tables" / "loophole_gap_single.parquet")
    assert (gap.loophole_trials == 7).all() and (gap.non_loophole_trials == 43).all()
    assert (tmp_path / "tables" / "success.csv").exists()


def test_analyze_offline_sweep(offline_run_dir):
    proc = harness("analyze", str(offline_run_dir))
    assert proc.returncode == 0, proc.stderr
    assert "pass_k" in proc.stdout and "versions" in proc.stdout and "ci_low" in proc.stdout


def test_analyze_bad_dir(tmp_path):
    proc = harness("analyze", str(tmp_path))
    assert proc.returncode == 2 and "no trials.parquet" in proc.stderr


def _chromium() -> str:
    exe = shutil.which("chromium") or shutil.which("chromium-browser")
    if exe is None:
        pytest.fail("headless Chromium is needed: install Debian's chromium package (.ci/run does)")
    return exe


FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync", "--hide-scrollbars"]


@pytest.mark.parametrize("which", ["real", "offline"])
def test_report_renders_in_chromium(which, real_run_dir, offline_run_dir, tmp_path):
    run_dir = real_run_dir if which == "real" else offline_run_dir
    out = tmp_path / "report.html"
    proc = harness("report", str(run_dir), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    text = out.read_text()
    assert "sk-" not in text and "api_key\": \"s" not in text
    exe = _chromium()
    profile = tmp_path / "profile"
    common = [exe, *FLAGS, f"--user-data-dir={profile}", "--window-size=1280,2400"]
    shot = tmp_path / "report.png"
    subprocess.run([*common, f"--screenshot={shot}", out.as_uri()], capture_output=True, timeout=120, check=True)
    assert shot.exists() and shot.stat().st_size > 10_000
    dom = subprocess.run([*common, "--virtual-time-budget=5000", "--dump-dom", out.as_uri()],
                         capture_output=True, text=True, timeout=120, check=True).stdout
    assert re.search(r"<title>Loophole report: [^<]+</title>", dom)
    for _, heading in SECTIONS:
        assert f"<h2>{heading}</h2>" in dom, heading
    images = int(re.search(r'data-images="(\d+)"', dom).group(1))
    assert images >= 2 and 'data-broken-images="0"' in dom


def test_cross_version_rescoring_moves(tmp_path):
    whissle = real_run("whissle_airline_tau3_1trial.json")
    as_tau3, as_tau2 = tmp_path / "t3", tmp_path / "t2"
    assert harness("rescore", str(whissle), "--out", str(as_tau3)).returncode == 0
    proc = harness("rescore", str(whissle), "--out", str(as_tau2), "--task-version", "tau2")
    assert proc.returncode == 0, proc.stderr
    proc = harness("analyze", str(as_tau3), "--against", str(as_tau2), "--out", str(tmp_path / "tables"))
    assert proc.returncode == 0, proc.stderr
    import pandas as pd

    moves = pd.read_parquet(tmp_path / "tables" / "cross_version.parquet")
    assert moves.trajectories.sum() == 50 and set(moves.version_a) == {"tau3"} and set(moves.version_b) == {"tau2"}
    changed = moves[(moves.rise > 0) | (moves.fall > 0)]
    assert len(changed) >= 1  # tau3 changed golds: some verdicts move
    from envs.versions import diff_versions

    assert set(changed.task_id) <= set(diff_versions("airline").changed_ids)  # only on tasks tau3 changed

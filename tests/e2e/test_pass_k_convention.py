"""pass^k names its convention (#42 item 7, tau2-bench#493 and #497): tau2's estimator by default, the
infrastructure-errors-as-failures convention on request; the simulations infrastructure errors ended are
counted and listed either way, never dropped silently."""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import harness
from tests.e2e.conftest import INFRA_TASK


def _expected(run: Path, convention: str, k: int) -> tuple[int, float]:
    """(tasks, single-gold pass^k) from trials.parquet by hand: per task C(c,k)/C(n,k), mean over the tasks
    with at least k trials; an infrastructure error is left out (tau2) or a failed trial (infra-fail)."""
    trials = pd.read_parquet(run / "trials.parquet")
    infra = trials.status == "infra_error"
    rows = trials[trials.reward.notna() | (infra if convention == "infra-fail" else False)]
    per_task = []
    for _, g in rows.groupby("task_id"):
        c = int((g.reward.fillna(0) >= 1 - 1e-6).sum())
        if len(g) >= k:
            per_task.append(math.comb(c, k) / math.comb(len(g), k))
    return len(per_task), sum(per_task) / len(per_task)


@pytest.fixture(scope="module")
def tables(two_trial_run, tmp_path_factory) -> dict[str, tuple[str, dict[str, pd.DataFrame]]]:
    """``analyze --out`` under each convention: its output and its tables."""
    _, run = two_trial_run
    out = {}
    for convention in ("tau2", "infra-fail"):
        folder = tmp_path_factory.mktemp(convention)
        args = ["--pass-k", convention] if convention != "tau2" else []  # the default is tau2's
        proc = harness("analyze", str(run), "--bootstrap", "100", "--out", str(folder / "t"), *args)
        assert proc.returncode == 0, proc.stderr
        out[convention] = (proc.stdout, {n: pd.read_csv(folder / "t" / f"{n}.csv", dtype={"task_id": str})
                                         for n in ("pass_k", "infra_errors")})
    return out


@pytest.mark.parametrize("convention", ["tau2", "infra-fail"])
def test_pass_k_follows_its_convention_and_says_which(tables, two_trial_run, convention):
    stdout, t = tables[convention]
    _, run = two_trial_run
    assert f"note: pass^k convention {convention}:" in stdout
    pk = t["pass_k"]
    assert set(pk.convention) == {convention}
    for row in pk.itertuples():
        tasks, value = _expected(run, convention, row.k)
        assert (row.tasks, row.single_gold) == (tasks, pytest.approx(value)), row
    # the two conventions differ on this run: task 27's outage is left out, or counted as two failures
    assert pk.k.max() == 2 and (pk.tasks == (4 if convention == "tau2" else 5)).all()


def test_infrastructure_errors_are_counted_and_listed(tables, two_trial_run):
    _, run = two_trial_run
    trials = pd.read_parquet(run / "trials.parquet")
    ended = trials[trials.status == "infra_error"]
    assert len(ended) == 2 and set(ended.task_id) == {INFRA_TASK}
    for convention, (stdout, t) in tables.items():
        listed = t["infra_errors"]
        assert sorted(listed.trajectory_id) == sorted(ended.trajectory_id)
        assert (t["pass_k"].infra_errors == 2).all()
        did = "left out of" if convention == "tau2" else "counted as failures in"
        assert f"2 simulations ended by infrastructure errors were {did} pass^k" in " ".join(stdout.split())


def test_the_report_names_the_convention(two_trial_run, tmp_path):
    _, run = two_trial_run
    proc = harness("report", str(run), "--out", str(tmp_path / "r.html"), "--pass-k", "infra-fail")
    assert proc.returncode == 0, proc.stderr
    page = (tmp_path / "r.html").read_text()
    assert "pass^k (convention infra-fail)" in page
    assert "2 simulations ended by infrastructure errors, counted as failures" in page


def test_an_unknown_convention_is_one_line(two_trial_run):
    _, run = two_trial_run
    proc = harness("analyze", str(run), "--pass-k", "optimistic")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: --pass-k: unknown convention 'optimistic'; known: tau2, infra-fail"

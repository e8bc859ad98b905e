"""``analyze`` and ``report`` on a run with two trials per task and an outage (#42 items 5 and 7).

pass^k names its convention (tau2-bench#493 and #497): tau2's estimator by default, the
infrastructure-errors-as-failures convention on request; the simulations infrastructure errors ended are
counted and listed either way, never dropped silently. Task ids sort as numbers (2 before 13) in analyze's
tables and the viewer's index, through the one key every layer uses (``loophole_base.natural_key``)."""

from __future__ import annotations

import math
import re
from pathlib import Path

import pandas as pd
import pytest

from tests.conftest import harness
from tests.e2e.conftest import INFRA_TASK, TWO_TRIAL_TASKS


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
                                         for n in ("pass_k", "infra_errors", "model_split", "loophole_tasks",
                                                   "readings")})
    return out


@pytest.fixture(scope="module")
def report(two_trial_run, tmp_path_factory) -> Path:
    """``report --pass-k infra-fail``: the HTML file (its viewer beside it, ``r_viewer``)."""
    _, run = two_trial_run
    out = tmp_path_factory.mktemp("report") / "r.html"
    proc = harness("report", str(run), "--out", str(out), "--pass-k", "infra-fail")
    assert proc.returncode == 0, proc.stderr
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


def test_the_report_names_the_convention(report):
    page = report.read_text()
    assert "pass^k (convention infra-fail)" in page
    assert "2 simulations ended by infrastructure errors, counted as failures" in page


def test_an_unknown_convention_is_one_line(two_trial_run):
    _, run = two_trial_run
    proc = harness("analyze", str(run), "--pass-k", "optimistic")
    assert proc.returncode == 2
    assert proc.stderr.strip() == "error: --pass-k: unknown convention 'optimistic'; known: tau2, infra-fail"


NUMERIC = sorted(TWO_TRIAL_TASKS, key=int)


def _in_order(seen: list[str]) -> bool:
    """``seen`` (task ids, first appearance each) in numeric order, and not a trivial list."""
    return seen == [t for t in NUMERIC if t in seen] and len(seen) >= 4


def test_analyze_tables_sort_task_ids_as_numbers(tables):
    assert NUMERIC != sorted(TWO_TRIAL_TASKS)  # text order differs here (13, 14, 2, 27, 5)
    stdout, t = tables["tau2"]
    for name in ("model_split", "loophole_tasks", "readings"):
        assert _in_order(list(dict.fromkeys(t[name].task_id))), (name, list(t[name].task_id))
    block = stdout[stdout.index("model_split"):]  # the printed table too: its rows, top to bottom
    printed = re.findall(r"│ airline │ tau3\s+│ (\d+)\s+│", block[: block.index("loophole_tasks")])
    assert _in_order(printed), printed


def test_the_viewer_index_sorts_task_ids_as_numbers(report):
    index = (report.parent / "r_viewer" / "index.html").read_text()
    select = re.search(r'<select id="f-task">(.*?)</select>', index, re.S).group(1)
    assert re.findall(r'<option value="(\d+)">', select) == NUMERIC
    rows = re.findall(r'<tr data-agent="[^"]*" data-domain="[^"]*" data-version="[^"]*" data-task="(\d+)"', index)
    assert list(dict.fromkeys(rows)) == NUMERIC

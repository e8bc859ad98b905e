"""One definition of a loophole task, from the catalog, everywhere: the tasks whose golds take a reading of a
catalogued loophole (the clause rules yield variants there), tasks 14 and 38 included."""

from __future__ import annotations

import json
import re

import pandas as pd

from envs import TASK_VERSIONS
from gold_variants import all_variants, load_catalog
from harness import rescore
from tests.conftest import harness, real_run


def test_the_catalog_lists_every_task_the_clause_rules_find_a_loophole_in():
    """Expected from the rules themselves (every version's variants), not from the catalog's task lists. A task
    report's variant (#35: a corrected or contested gold, ``reports`` in the catalog) is no loophole."""
    reports = {r.id for r in load_catalog().reports}
    for domain in ("airline", "retail"):
        with_variants = {t for v in TASK_VERSIONS for t, found in all_variants(domain, v).items()
                         if any(g.loophole_id not in reports for g in found)}
        assert load_catalog().loophole_tasks(domain) == with_variants, domain


def test_analysis_report_and_viewer_agree_on_the_loophole_tasks(tmp_path):
    """A run (a rescore of aide's τ² run, one trajectory on each of tasks 0, 2, 14 and 38: no Ray start) read by
    the analysis, the report and the viewer."""
    data = json.loads(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json").read_text())
    keep = {"0", "2", "14", "38"}
    data["simulations"] = [s for s in data["simulations"] if s["task_id"] in keep]
    data["tasks"] = [t for t in data["tasks"] if t["id"] in keep]
    assert sorted(s["task_id"] for s in data["simulations"]) == sorted(keep)
    (tmp_path / "aide4.json").write_text(json.dumps(data))
    rescore([tmp_path / "aide4.json"], tmp_path / "run")  # in process: the test's point is what reads the run
    expected = {"2", "14", "38"}  # task 0 has no variant: not a loophole task

    proc = harness("analyze", str(tmp_path / "run"), "--out", str(tmp_path / "tables"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert set(pd.read_parquet(tmp_path / "tables" / "loophole_tasks.parquet").task_id) == expected
    split = pd.read_parquet(tmp_path / "tables" / "success.parquet").iloc[0]
    assert split.loophole_trials == 3  # one trial on each of 2, 14 and 38

    proc = harness("report", str(tmp_path / "run"), "--out", str(tmp_path / "r.html"), "--viewer",
                   str(tmp_path / "site"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    index = (tmp_path / "site" / "index.html").read_text()
    flagged = set(re.findall(r'data-task="(\w+)"[^>]*data-loophole="1"', index))
    assert flagged == expected, flagged  # the viewer's ⚑
    marks = set(re.findall(r"<td>(\w+) ⚑</td>", index))
    assert marks == expected, marks

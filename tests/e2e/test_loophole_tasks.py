"""One definition of a loophole task, from the catalog, everywhere: the tasks whose golds take a reading of a
catalogued loophole (the clause rules yield variants there), tasks 14 and 38 included."""

from __future__ import annotations

import re

import pandas as pd
import yaml

from envs import TASK_VERSIONS
from gold_variants import all_variants, load_catalog
from tests.conftest import ROOT, harness


def test_the_catalog_lists_every_task_the_clause_rules_find_a_loophole_in():
    """Expected from the rules themselves (every version's variants), not from the catalog's task lists. A task
    report's variant (#35: a corrected or contested gold, ``reports`` in the catalog) is no loophole."""
    reports = {r.id for r in load_catalog().reports}
    for domain in ("airline", "retail"):
        with_variants = {t for v in TASK_VERSIONS for t, found in all_variants(domain, v).items()
                         if any(g.loophole_id not in reports for g in found)}
        assert load_catalog().loophole_tasks(domain) == with_variants, domain


def test_analysis_report_and_viewer_agree_on_the_loophole_tasks(tmp_path):
    demo = yaml.safe_load((ROOT / "configs" / "offline-demo.yaml").read_text())
    demo.update(agents=[a for a in demo["agents"] if a["name"] == "creative"], tasks=["0", "2", "14", "38"],
                trials=1, output=str(tmp_path / "run"))
    (tmp_path / "demo.yaml").write_text(yaml.safe_dump(demo))
    assert harness("sweep", str(tmp_path / "demo.yaml")).returncode == 0
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

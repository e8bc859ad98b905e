"""Nothing mixed: a rescore never writes into a sweep's folder nor a sweep into a rescore's; tables across
versions keep airline and retail apart; agents are ranked within a domain; a flag says why."""

from __future__ import annotations

import json
import shutil
from collections import Counter

import pandas as pd
import yaml

from tests.conftest import ROOT, harness, real_run

AIRLINE, RETAIL = "whissle_airline_tau3_1trial.json", "whissle_retail_tau3_5sims.json"


def test_rescore_into_a_sweep_folder_and_sweep_into_a_rescore_folder_are_refused(tmp_path, offline_demo_run):
    # the sweep's folder: a copy of the suite's shared offline demo run (a sweep of its own cost a Ray start)
    shutil.copytree(offline_demo_run[0], tmp_path / "swept")
    assert (tmp_path / "swept" / "sweep.json").is_file()
    demo = yaml.safe_load((ROOT / "configs" / "offline-demo.yaml").read_text())
    demo.update(agents=demo["agents"][:1], tasks=["0"], trials=1)
    before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "swept").iterdir()}

    proc = harness("rescore", str(real_run(RETAIL)), "--out", str(tmp_path / "swept"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"error: --out: {tmp_path / 'swept'} is a sweep's run directory (sweep.json): rescored rows would mix "
        "into that sweep; choose another --out"]
    assert {p.name: p.stat().st_mtime_ns for p in (tmp_path / "swept").iterdir()} == before  # untouched
    assert json.loads((tmp_path / "swept" / "run.json").read_text())["kind"] == "sweep"

    assert harness("rescore", str(real_run(RETAIL)), "--out", str(tmp_path / "rescored")).returncode == 0
    demo["output"] = str(tmp_path / "rescored")
    (tmp_path / "sweep.yaml").write_text(yaml.safe_dump(demo))
    proc = harness("sweep", str(tmp_path / "sweep.yaml"))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.strip().splitlines() == [
        f"error: field 'output': {tmp_path / 'rescored'} holds a rescore run (run.json): a sweep's trials would "
        "mix into it; set a different 'output'"]
    assert not (tmp_path / "rescored" / "sweep.json").exists()
    assert json.loads((tmp_path / "rescored" / "run.json").read_text())["kind"] == "rescore"


def test_cross_version_tables_keep_domains_apart_and_rank_within_a_domain(tmp_path):
    """An airline and a retail run (they share task ids) rescored together and against τ²'s golds."""
    out = tmp_path / "both"
    proc = harness("rescore", str(real_run(AIRLINE)), str(real_run(RETAIL)), "--out", str(out),
                   "--against-version", "tau2")
    assert proc.returncode == 0, proc.stderr[-2000:]
    proc = harness("analyze", str(out), "--out", str(tmp_path / "tables"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    moves = pd.read_parquet(tmp_path / "tables" / "cross_version.parquet")
    # expected from the files themselves: simulations per (domain, task), each scored under two golds
    expected: Counter = Counter()
    for name, domain in ((AIRLINE, "airline"), (RETAIL, "retail")):
        for sim in json.loads(real_run(name).read_text())["simulations"]:
            expected[(domain, str(sim["task_id"]))] += 1
    shared = {t for d, t in expected if d == "airline"} & {t for d, t in expected if d == "retail"}
    assert shared  # the two domains do share task ids: pooling them would show
    got = moves.groupby(["domain", "task_id"]).trajectories.max()
    for (domain, task), n in got.items():
        assert n <= expected[(domain, task)], (domain, task, n, expected[(domain, task)])
    assert set(moves.domain) == {"airline", "retail"}
    cf = pd.read_parquet(tmp_path / "tables" / "counterfactual.parquet")
    assert set(cf.domain) == {"airline", "retail"}
    trials = pd.read_parquet(out / "trials.parquet")
    native = trials[(trials.task_version == "tau3") & trials.reward.notna()]
    for r in cf.itertuples():  # each domain's agent: its rate on its own domain only
        mine = native[(native.domain == r.domain) & (native.agent_name == r.agent)]
        assert r.overall == (mine.reward >= 1.0).mean()


def test_a_flag_in_the_report_says_why(tmp_path):
    proc = harness("leaderboard", str(real_run("toolorchestra_retail_tau2_1trial.json")), "--out",
                   str(tmp_path / "lb"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    proc = harness("report", str(tmp_path / "lb"), "--out", str(tmp_path / "r.html"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    html = (tmp_path / "r.html").read_text()
    # the file stores row positions as task ids: the flag names that, with the count read from the file (#36)
    assert "Flagged: why" in html and "task ids remapped: 113" in html

"""Where a reader sees the reward contract: the four-point band and the do-nothing ceiling (``analysis.band4_by_agent``)
and the report's section "The reward contract, version by version", on rescored real runs."""

from __future__ import annotations

import re
import shutil
from html import unescape

import pyarrow.parquet as pq
import pytest

import loophole_store as store
from analysis import band4_by_agent, contract_marks
from harness import rescore
from tests.conftest import REAL_RUNS, harness

FILES = ["aide_claude-sonnet-4-5_airline_tau2_1trial.json", "toolorchestra_retail_tau2_1trial.json"]


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory):
    out = tmp_path_factory.mktemp("contract") / "run"
    rescore([REAL_RUNS / f for f in FILES], out)  # in process (the Python API of the same verb): the tests read its rows
    return out


def test_band4_holds_and_the_ceiling_is_the_audit_s(run_dir):
    trials = store.open_run(run_dir).trials
    band = band4_by_agent(trials).set_index(["task_version", "domain"])
    for r in band.itertuples():
        assert r.strict <= r.single <= r.multi <= r.upper
        assert r.band.count("≤") == 3
    airline, retail = band.loc[("tau2", "airline")], band.loc[("tau2", "retail")]
    assert airline.do_nothing_ceiling == pytest.approx(19 / 50)  # all 50 tasks; ABC's 38%
    assert retail.do_nothing_ceiling == pytest.approx(7 / 114)
    # retail τ²'s broken golds (12, 13, 64, 105): one trial each, marked, not strict passes
    assert retail.broken_gold_trials == 4
    marks = contract_marks(trials)
    on_broken = set(trials.task_id[marks.broken_gold & trials.domain.eq("retail")])
    assert on_broken == {"12", "13", "64", "105"}
    passable = set(trials.task_id[marks.do_nothing_passes & trials.domain.eq("airline")])
    assert passable == {"0", "1", "4", "5", "6", "10", "13", "26", "28", "31", "34", "36", "41", "43", "45", "46",
                        "47", "48", "49"}


def test_old_run_band_says_strict_unknown(run_dir, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(run_dir, old)
    path = old / "trials.parquet"
    pq.write_table(pq.read_table(path).drop_columns(["strict_reward", "strict_reason"]), path)
    band = band4_by_agent(store.open_run(old).trials)
    assert band.band.str.startswith("n/a ≤ ").all() and band.strict.isna().all()


def test_report_has_the_reward_contract_section(run_dir, tmp_path):
    out = tmp_path / "report.html"
    proc = harness("report", str(run_dir), "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    page = unescape(re.sub(r"\s+", " ", out.read_text()))
    start = page.index('id="reward_contract"')
    section = re.sub(r"<[^>]+>", " ", page[start:page.index("</section>", start)])
    section = re.sub(r"\s+", " ", section)
    assert "The reward contract, version by version" in section
    assert "τ² retail 114 12, 13, 64, 105 7: 10, 12, 25, 50, 57, 65, 105" in section
    assert "τ² airline 50 none 19: 0, 1, 4, 5, 6" in section
    assert "sierra-research/tau2-bench#495" in section and "T495.other_flights_only" in section
    assert "defensible alternative" in section and "rejected" in section


def _page_text(path) -> str:
    return re.sub(r"\s+", " ", unescape(re.sub(r"<[^>]+>", " ", path.read_text())))


def test_viewer_marks_broken_gold_and_do_nothing_passable_trials(run_dir, tmp_path):
    site = tmp_path / "site"
    proc = harness("view", str(run_dir), "--out", str(site))
    assert proc.returncode == 0, proc.stderr[-2000:]
    trials = store.open_run(run_dir).trials
    broken, passable = set(), set()
    for page in (site / "t").glob("*.html"):
        text = _page_text(page)
        task = re.search(r"trajectory id (\S+)", text).group(1)
        if "BROKEN GOLD: " in text:
            broken.add(task)
        if "DO-NOTHING PASSABLE" in text:
            passable.add(task)
    by_id = trials.set_index("trajectory_id")
    assert {(by_id.domain[t], by_id.task_id[t]) for t in broken} == {("retail", i) for i in ("12", "13", "64", "105")}
    # τ² airline 19 tasks and retail 7 (the audit's lines; tau2's evaluator agrees, tests/test_audit_golds.py)
    assert len(passable) == 19 + 7
    assert all("strict reward" in _page_text(p) for p in list((site / "t").glob("*.html"))[:5])


def test_leaderboard_shows_strict_and_the_do_nothing_ceiling(tmp_path):
    out = tmp_path / "lb"
    proc = harness("leaderboard", str(REAL_RUNS / FILES[0]), "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    (row,) = pq.read_table(out / "leaderboard.parquet").to_pylist()
    trials = pq.read_table(out / "trials.parquet").to_pandas()
    strict = (trials.strict_reward == 1.0).sum() / trials.reward.notna().sum()
    assert row["strict_pass1"] == pytest.approx(strict) and row["strict_pass1"] <= row["single_pass1"]
    assert row["do_nothing_ceiling"] == pytest.approx(19 / 50)
    assert row["band4"] == f"{strict:.1%} ≤ {row['single_pass1']:.1%} ≤ {row['multi_pass1']:.1%} ≤ {row['upper_pass1']:.1%}"
    assert "band4" in (out / "leaderboard.md").read_text()


def test_analyze_writes_the_four_point_band(run_dir, tmp_path):
    proc = harness("analyze", str(run_dir), "--out", str(tmp_path / "tables"), "--bootstrap", "100")
    assert proc.returncode == 0, proc.stderr[-2000:]
    band = pq.read_table(tmp_path / "tables" / "band4.parquet").to_pandas()
    assert set(band.domain) == {"airline", "retail"}
    assert (band.strict <= band.single).all() and (band.single <= band.multi).all()
    # one format per quantity (#48): the rates analyze prints are percent, as the leaderboard's and the sweep's
    for row in band.itertuples(index=False):
        text = f"{row.strict:.1%} ≤ {row.single:.1%} ≤ {row.multi:.1%} ≤ {row.upper:.1%}"
        assert row.band == text
        assert text in proc.stdout
        assert f"{row.single:.3f}" not in proc.stdout, "a rate printed as a fraction beside its percent"

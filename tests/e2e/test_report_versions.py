"""The report's task-version sections in headless Chromium: the reading each version's gold takes, and the
ranks of two real airline runs (τ² and τ³) scored against all three versions' golds."""

from __future__ import annotations

import pytest

from analysis import analyze_trials
from envs import TASK_VERSIONS
from gold_variants import readings_by_version
from loophole_store import read_table
from tests.conftest import harness, real_run

RUNS = ("aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_airline_tau3_1trial.json")


@pytest.fixture(scope="module")
def across(tmp_path_factory):
    where = tmp_path_factory.mktemp("across")
    run = where / "run"
    proc = harness("rescore", *(str(real_run(r)) for r in RUNS), "--out", str(run),
                   "--against-version", "tau2", "--against-version", "tau3", "--against-version", "verified")
    assert proc.returncode == 0, proc.stderr
    report = where / "report.html"
    proc = harness("report", str(run), "--out", str(report))
    assert proc.returncode == 0, proc.stderr
    return run, report


def test_the_readings_section_shows_each_versions_reading_and_the_claim(across, page):
    _, report = across
    page.goto(report.as_uri())
    section = page.inner_text("#gold_readings")
    assert "per-task patches proliferate" in section and "policy admits both" in section
    rows = page.locator("#gold_readings table tbody tr").all_inner_texts()
    expected = readings_by_version("airline")
    assert len(rows) == len(expected) >= 9
    for row, want in zip(rows, expected, strict=True):
        cells = row.split("\t")
        assert cells[0] == want["task_id"] and cells[2:5] == [want[v] for v in TASK_VERSIONS]
        assert cells[5] == ("agree" if want["agree"] else "contradict: " + " vs ".join(want["readings"]))
    split = [w["task_id"] for w in expected if not w["agree"]]
    assert f"contradict one another on {len(split)} (tasks {', '.join(split)})" in section
    assert page.problems == []


def test_the_ranks_section_shows_every_agent_under_every_versions_golds(across, page):
    run, report = across
    trials = read_table(run, "trials")
    ranks = analyze_trials(trials, reps=100).tables["ranks_across_versions"]
    # two agents × three versions' golds, every trajectory scored under each
    assert len(ranks) == 6 and set(ranks.golds) == set(TASK_VERSIONS) and (ranks.trajectories == 50).all()
    for (_, golds), g in ranks.groupby(["domain", "golds"]):  # rank 1 is the higher pass^1, under each scoring
        for score, rank in (("single_pass1", "rank_single"), ("multi_pass1", "rank_multi")):
            best = g[g[score] == g[score].max()]
            assert (best[rank] == 1).all() and (g[g[score] < g[score].max()][rank] > 1).all(), (golds, score)
        # the pass^1 is the mean success over the trajectories scored against these golds
        rows = trials[(trials.task_version == golds) & trials.reward.notna()]
        for x in g.itertuples():
            assert x.single_pass1 == (rows[rows.agent_name == x.agent_name].reward >= 1.0).mean()
    page.goto(report.as_uri())
    rows = page.locator("#version_ranks table").first.locator("tbody tr").all_inner_texts()
    assert len(rows) == 6
    for row, want in zip(rows, ranks.itertuples(index=False), strict=True):
        cells = row.split("\t")
        assert cells[1] == want.agent_name and cells[6:8] == [str(want.rank_single), str(want.rank_multi)]
        assert cells[4] == f"{100 * want.single_pass1:.1f}%"
    text = page.inner_text("#version_ranks")
    assert f"{int(ranks.rank_spread_single.max())} under the single gold" in text
    assert "Verdicts that move between versions" in text  # Verified's golds move verdicts of the τ² run
    assert page.problems == []

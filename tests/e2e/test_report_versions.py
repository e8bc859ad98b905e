"""The report's task-version sections in headless Chromium: the reading each version's gold takes, and the
ranks of two real airline runs (τ² and τ³) scored against all three versions' golds."""

from __future__ import annotations

import pytest

from envs import TASK_VERSIONS
from gold_variants import readings_by_version
from harness import rescore
from loophole_store import read_table
from tests.conftest import harness, real_run

RUNS = ("aide_claude-sonnet-4-5_airline_tau2_1trial.json", "whissle_airline_tau3_1trial.json")


@pytest.fixture(scope="module")
def across(tmp_path_factory):
    where = tmp_path_factory.mktemp("across")
    run = where / "run"
    # in process (the Python API of the same verb): the tests read the report
    rescore([real_run(r) for r in RUNS], run, against_version=["tau2", "tau3", "verified"])
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
    assert split == ["2", "27", "29", "38"]  # τ² against τ³ and Verified (tests/test_verified.py, by hand)
    assert f"contradict one another on {len(split)} (tasks {', '.join(split)})" in section
    assert page.problems == []


def test_the_ranks_section_shows_every_agent_under_every_versions_golds(across, page):
    """Each agent's pass^1 and rank under each version's golds, counted here from trials.parquet (rank 1 the
    higher pass^1, ties sharing the better rank), against the section's table."""
    run, report = across
    trials = read_table(run, "trials")
    agents = sorted(set(trials.agent_name))
    assert len(agents) == 2
    expected = {}
    for golds in TASK_VERSIONS:
        rows = trials[(trials.task_version == golds) & trials.reward.notna()]
        single = {a: (rows[rows.agent_name == a].reward >= 1.0).mean() for a in agents}
        multi = {a: (rows[rows.agent_name == a].multi_gold_reward >= 1.0).mean() for a in agents}
        for a in agents:
            assert (rows.agent_name == a).sum() == 50  # every trajectory scored against these golds
            expected[(a, golds)] = (
                f"{100 * single[a]:.1f}%",
                str(1 + sum(single[b] > single[a] for b in agents)),
                str(1 + sum(multi[b] > multi[a] for b in agents)),
            )
    page.goto(report.as_uri())
    rows = page.locator("#version_ranks table").first.locator("tbody tr").all_inner_texts()
    named = {"τ²": "tau2", "τ³": "tau3", "Verified": "verified"}  # as the report names the versions
    shown = {}
    for row in rows:
        cells = row.split("\t")
        shown[(cells[1], named[cells[2]])] = (cells[4], cells[6], cells[7])
    assert len(rows) == 6 and shown == expected
    spread = max(
        max(int(expected[(a, g)][1]) for g in TASK_VERSIONS) - min(int(expected[(a, g)][1]) for g in TASK_VERSIONS)
        for a in agents
    )
    text = page.inner_text("#version_ranks")
    assert f"{spread} under the single gold" in text
    assert "Verdicts that move between versions" in text  # Verified's golds move verdicts of the τ² run
    assert page.problems == []

"""Ranks with their uncertainty (#48, item 7) through ``harness leaderboard`` and ``harness report``: on the shared
real runs (each alone in its domain and version) and on three dev-corpus τ² airline runs of one task set
(grok-3-mini, grok-3 and grok-4, 4 tasks × 4 trials each), which are ranked against each other."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from scipy.stats import kendalltau

from analysis import ORDER_HOLDS
from loophole_report import figure_data
from tests.conftest import REAL_RUNS, SHARED, harness

GROK = sorted((SHARED / "dev-corpus" / "runs").glob("*2025-10-13T11_[34]*_airline_llm_agent_grok-*.json"))
KEYS = ["source_sha256", "domain", "task_group"]


@pytest.fixture(scope="module")
def board(tmp_path_factory) -> tuple[Path, str]:
    assert len(GROK) == 3, GROK
    out = tmp_path_factory.mktemp("ranks") / "lb"
    proc = harness("leaderboard", str(REAL_RUNS), *map(str, GROK), "--out", str(out))
    assert proc.returncode == 0, proc.stderr[-2000:]
    return out, proc.stdout


def _grok(ranks: pd.DataFrame) -> pd.DataFrame:
    return ranks[ranks.source_file.isin([str(p) for p in GROK])]


def test_the_ranks_table_is_the_boards_ranked_runs(board):
    out, _ = board
    ranks, lb = pd.read_parquet(out / "ranks.parquet"), pd.read_parquet(out / "leaderboard.parquet")
    assert len(pd.read_csv(out / "ranks.csv")) == len(ranks)
    both = ranks.merge(lb[lb.ranked], on=KEYS, suffixes=("", "_board"), validate="one_to_one")
    assert len(both) == len(ranks) == int(lb.ranked.sum()) == 6  # the flagged toolorchestra run is not ranked
    for mine, theirs in (("rank_single", "rank_single_board"), ("rank_multi", "rank_multi_board")):
        assert (both[mine].astype(int) == both[theirs].astype(int)).all(), both[[mine, theirs]]
    for mine, theirs in (("single_pass1", "single_pass1_board"), ("multi_pass1", "multi_pass1_board"),
                         ("strict_pass1", "strict_pass1_board"), ("loophole_free_single", "non_loophole_single"),
                         ("loophole_free_multi", "non_loophole_multi")):
        assert ((both[mine] - both[theirs]).abs() < 1e-12).all(), both[[mine, theirs]]
    grok = _grok(ranks)
    assert len(grok) == 3 and grok.rank_group.unique().tolist() == ["partial (4 tasks)"]
    aide = ranks[ranks.source_file.str.endswith("aide_claude-sonnet-4-5_airline_tau2_1trial.json")].iloc[0]
    assert aide.loophole_free_single > aide.single_pass1  # loophole tasks lower its score
    assert pd.isna(aide.single_next) and pd.isna(aide.single_order_holds)  # alone in its group


def test_kendall_tau_and_the_adjacent_orders(board):
    out, _ = board
    ranks, agreement = pd.read_parquet(out / "ranks.parquet"), pd.read_parquet(out / "rank_agreement.parquet")
    grok = _grok(ranks)
    [a] = agreement[agreement.task_set == grok.task_set.iloc[0]].itertuples()
    assert a.runs == 3 and a.tasks == 4 and a.resamples == 2000
    assert a.kendall_tau == pytest.approx(kendalltau(grok.single_pass1, grok.multi_pass1).statistic)
    assert a.tau_ci_low <= a.kendall_tau <= a.tau_ci_high
    for side in ("single", "multi"):
        order = grok.sort_values(f"{side}_position")
        assert order[f"{side}_pass1"].is_monotonic_decreasing
        assert order[f"{side}_next"].iloc[:-1].tolist() == order.name.iloc[1:].tolist()
        assert order[f"{side}_order_holds"].iloc[:-1].between(0, 1).all()
        assert getattr(a, f"uncertain_{side}") == int((order[f"{side}_order_holds"] < ORDER_HOLDS).sum())
    assert (agreement[agreement.task_set != a.task_set].runs == 1).all()  # the real runs: one per group
    md = (out / "leaderboard.md").read_text()
    assert "### Ranks and their uncertainty: airline tau2, partial (4 tasks)" in md
    assert f"Kendall's τ (single against multi order): {a.kendall_tau:.2f} [{a.tau_ci_low:.2f}, {a.tau_ci_high:.2f}]" in md


def test_the_terminal_prints_the_ranks_of_a_group_with_two_runs_or_more(board):
    out, stdout = board
    agreement = pd.read_parquet(out / "rank_agreement.parquet")
    assert stdout.count("ranks: ") == 1 and "ranks: airline tau2, partial (4 tasks)" in stdout
    [a] = agreement[agreement.runs == 3].itertuples()
    assert f"Kendall's τ (single against multi order): {a.kendall_tau:.2f} [{a.tau_ci_low:.2f}, " in stdout
    for r in _grok(pd.read_parquet(out / "ranks.parquet")).itertuples():
        if r.multi_order_holds == r.multi_order_holds:
            uncertain = ", uncertain" if r.multi_order_holds < ORDER_HOLDS else ""
            assert f"{100 * r.multi_order_holds:.1f}%{uncertain}" in stdout


def test_the_report_draws_the_slope_chart_with_its_uncertain_orders(board, tmp_path):
    out, _ = board
    proc = harness("report", str(out), "--out", str(tmp_path / "report.html"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    page = (tmp_path / "report.html").read_text()
    [panel] = figure_data(page)["ranks"]["panels"]  # the real runs are alone in their groups: no panel
    grok = _grok(pd.read_parquet(out / "ranks.parquet")).set_index("name")
    assert panel["title"].startswith("airline tau2, partial (4 tasks); Kendall's τ ")
    unsettled = {(side, r.Index, getattr(r, f"{side}_next")) for side in ("single", "multi")
                 for r in grok.itertuples() if getattr(r, f"{side}_order_holds") < ORDER_HOLDS}
    assert unsettled, "the grok runs' 4 tasks do not settle every order"
    drawn = {(b["order"], b["above"], b["below"]) for b in panel["uncertain"]}
    assert drawn == unsettled
    assert all(b["linestyle"] == "--" and b["colour"] == "#999999" for b in panel["uncertain"])
    shaky = {name for _, above, below in unsettled for name in (above, below)}
    for run in panel["runs"]:
        r = grok.loc[run["name"]]
        assert (run["single_position"], run["multi_position"]) == (r.single_position, r.multi_position)
        assert run["linestyle"] == ("--" if run["name"] in shaky else "-"), run
    assert "Ranks and their uncertainty" in page and "Loophole-free pass^1, single gold" in page
    assert "holds in fewer than 95% of 2,000 resamples of the tasks" in page

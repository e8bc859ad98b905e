"""Ranks with their uncertainty (#48, item 7): the clustered, paired bootstrap of adjacent orders and Kendall's τ
between the single and multi orders, on constructed runs whose answers are known."""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest
from scipy.stats import kendalltau

from analysis import RANK_SEED_KEY, kendall_tau_rows, rank_table

GROUP = {"domain": "airline", "task_version": "tau2", "task_group": "tau2", "rank_group": "full", "task_set": "k"}


def outcomes(runs: dict[str, dict[int, list[float]]], loophole: set[int] = frozenset(),  # type: ignore[assignment]
             multi: dict[str, dict[int, list[float]]] | None = None, strict: bool = True) -> pd.DataFrame:
    """One row per trial: ``runs[name][task]`` the single-gold outcomes of its trials (multi-gold the same
    unless ``multi`` says otherwise)."""
    rows = []
    for name, tasks in runs.items():
        for task, trials in tasks.items():
            multis = (multi or {}).get(name, {}).get(task, trials)
            for single, m in zip(trials, multis, strict=True):
                rows.append({**GROUP, "run": f"{name}.json@sha", "name": name, "source_file": f"{name}.json",
                             "source_sha256": "sha", "task_id": str(task), "loophole": task in loophole,
                             "strict": single if strict else np.nan, "single": single, "multi": m})
    return pd.DataFrame(rows)


def by_name(frame: pd.DataFrame) -> pd.DataFrame:
    return frame.set_index("name")


def test_a_run_that_wins_every_task_holds_its_order_in_every_resample():
    result = rank_table(outcomes({"A": {t: [1.0, 1.0] for t in range(20)}, "B": {t: [0.0, 1.0] for t in range(20)}}))
    r = by_name(result.ranks)
    assert r.loc["A", "single_order_holds"] == 1.0 and r.loc["A", "multi_order_holds"] == 1.0
    assert r.loc["A", "single_next"] == "B" and pd.isna(r.loc["B", "single_order_holds"])  # the last has no next
    assert (r.loc["A", ["rank_strict", "rank_single", "rank_multi"]] == 1).all()
    assert (r.loc["B", ["rank_strict", "rank_single", "rank_multi"]] == 2).all()
    [a] = result.agreement.itertuples()
    assert (a.kendall_tau, a.tau_ci_low, a.tau_ci_high) == (1.0, 1.0, 1.0)
    assert a.uncertain_single == a.uncertain_multi == 0 and a.resamples == 2000


def test_two_identical_runs_hold_their_order_in_half_the_resamples():
    same = {t: [1.0 if t % 3 else 0.0] * 2 for t in range(30)}
    r = by_name(rank_table(outcomes({"A": same, "B": same})).ranks)
    assert r.loc["A", "single_order_holds"] == 0.5  # a tie in every resample, counted half
    assert (r.rank_single == 1).all()


def test_two_runs_equal_on_different_tasks_hold_their_order_about_half_the_time():
    a = {t: [1.0 if t < 15 else 0.0] for t in range(30)}
    b = {t: [0.0 if t < 15 else 1.0] for t in range(30)}
    r = by_name(rank_table(outcomes({"A": a, "B": b})).ranks)
    assert 0.45 < r.loc["A", "single_order_holds"] < 0.55


def test_a_tasks_trials_are_resampled_together():
    """On every task A passes its first trial and B its second: per task they are equal, so a bootstrap that
    keeps each task's trials together ties in every resample (exactly 50%); one that resampled trials would not."""
    a = {t: [1.0, 0.0] for t in range(12)}
    b = {t: [0.0, 1.0] for t in range(12)}
    assert by_name(rank_table(outcomes({"A": a, "B": b})).ranks).loc["A", "single_order_holds"] == 0.5


def test_a_margin_on_three_tasks_holds_as_often_as_one_of_them_is_drawn():
    """A passes 3 of 30 tasks, B none: A stays ahead unless no one of the 3 is drawn (a tie, counted half), so
    the share is 1 - (27/30)^30 / 2 = 0.9788; 2,000 resamples put it within 0.01."""
    a = {t: [1.0 if t < 3 else 0.0] for t in range(30)}
    b = {t: [0.0] for t in range(30)}
    share = by_name(rank_table(outcomes({"A": a, "B": b})).ranks).loc["A", "single_order_holds"]
    assert abs(share - (1 - (27 / 30) ** 30 / 2)) < 0.01


def test_runs_are_resampled_on_the_same_tasks():
    """B passes exactly the tasks A passes, plus one: paired on the same resampled tasks, B is never behind."""
    a = {t: [1.0 if t < 10 else 0.0] for t in range(30)}
    b = {t: [1.0 if t < 11 else 0.0] for t in range(30)}
    r = by_name(rank_table(outcomes({"A": a, "B": b})).ranks)
    assert r.loc["B", "single_position"] == 1 and r.loc["B", "single_next"] == "A"
    assert r.loc["B", "single_order_holds"] > 0.5  # ahead whenever task 10 is drawn, tied otherwise
    assert r.loc["B", "single_order_holds"] == pytest.approx(1 - (29 / 30) ** 30 / 2, abs=0.01)


def test_kendall_tau_is_one_for_the_same_order_and_minus_one_for_the_reverse():
    rates = {"A": 0.9, "B": 0.7, "C": 0.5, "D": 0.2}
    single = {n: {t: [1.0 if t < 20 * p else 0.0] for t in range(20)} for n, p in rates.items()}
    same = rank_table(outcomes(single)).agreement.iloc[0]
    assert same.kendall_tau == 1.0 and same.tau_ci_high == 1.0
    reverse = {n: single[m] for n, m in zip(rates, reversed(list(rates)), strict=True)}
    flipped = rank_table(outcomes(single, multi=reverse)).agreement.iloc[0]
    assert flipped.kendall_tau == -1.0 and flipped.tau_ci_low == -1.0
    ranks = by_name(rank_table(outcomes(single, multi=reverse)).ranks)
    assert ranks.loc["A", "rank_single"] == 1 and ranks.loc["A", "rank_multi"] == 4


def test_the_rows_tau_is_scipys_tau_b_with_ties():
    rng = np.random.default_rng(7)
    x, y = rng.integers(0, 4, (200, 6)).astype(float), rng.integers(0, 4, (200, 6)).astype(float)
    ours = kendall_tau_rows(x, y)
    theirs = np.array([kendalltau(a, b).statistic for a, b in zip(x, y, strict=True)])
    assert np.allclose(ours, theirs, equal_nan=True) and np.isnan(kendall_tau_rows(np.ones((1, 3)), y[:1, :3])).all()


def test_the_loophole_free_score_and_rank_leave_the_loophole_tasks_out():
    """A passes every task but the loophole tasks; B passes the loophole tasks and half of the others: B leads
    the full single-gold ranking, A the loophole-free one."""
    loophole = set(range(8))
    a = {t: [0.0 if t in loophole else 1.0] for t in range(20)}
    b = {t: [1.0 if t in loophole or t % 2 else 0.0] for t in range(20)}
    r = by_name(rank_table(outcomes({"A": a, "B": b}, loophole), reps=200).ranks)
    assert r.loc["A", "loophole_free_single"] == 1.0 and r.loc["B", "loophole_free_single"] == 0.5
    assert r.loc["A", "loophole_free_tasks"] == 12
    assert r.loc["B", "single_pass1"] == 14 / 20 > r.loc["A", "single_pass1"] == 12 / 20
    assert r.loc["B", "rank_single"] == 1 and r.loc["A", "rank_loophole_free"] == 1


def test_strict_unknown_is_unranked():
    r = rank_table(outcomes({"A": {0: [1.0]}, "B": {0: [0.0]}}, strict=False), reps=50).ranks
    assert r.rank_strict.isna().all() and r.strict_pass1.isna().all() and r.rank_single.notna().all()


def test_the_seed_is_sha256_of_the_stated_key_and_the_group():
    data = outcomes({"A": {t: [1.0 if t < 3 else 0.0] for t in range(30)}, "B": {t: [0.0] for t in range(30)}})
    first, again = rank_table(data), rank_table(data)
    pd.testing.assert_frame_equal(first.ranks, again.ranks)
    a = first.agreement.iloc[0]
    digest = hashlib.sha256("|".join([RANK_SEED_KEY, *GROUP.values()]).encode()).digest()
    assert a.seed_key == RANK_SEED_KEY and a.seed == str(int.from_bytes(digest[:8], "big"))
    other = rank_table(data, key="another key").ranks
    assert other.single_order_holds.iloc[0] != first.ranks.single_order_holds.iloc[0]  # other resamples

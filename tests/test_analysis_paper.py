"""The analysis reproduces the paper's figures from a synthetic trial table built from its Table 1 counts."""

from __future__ import annotations

import pandas as pd
import pytest

from analysis import (
    cell_variance,
    counterfactual,
    loophole_gap,
    model_split,
    overlap_test,
    pass_k,
    success_by_agent,
)
from envs import diff_versions
from gold_variants import load_catalog

TABLE1 = {  # task -> successes of 4 for GPT-5, Kimi-K2-Thinking, Mistral-Large-3
    "2": (0, 0, 1), "5": (4, 3, 2), "13": (2, 4, 3), "27": (0, 0, 0),
    "29": (0, 2, 3), "32": (1, 0, 0), "45": (2, 3, 1),
}
NON_LOOPHOLE_SUCCESSES = (111, 83, 70)  # of 172 trials each
MODELS = ("GPT-5", "Kimi-K2-Thinking", "Mistral-Large-3")


@pytest.fixture(autouse=True)
def _the_papers_loophole_tasks(monkeypatch):
    """The paper counts the 7 tasks it reports as loophole tasks (the catalog's ``tasks``); the harness also
    counts the tasks the clause rules find (``also_tasks``). These tests reproduce the paper's figures."""
    from gold_variants import Catalog

    monkeypatch.setattr(Catalog, "loophole_tasks", Catalog.paper_tasks)


def paper_trials() -> pd.DataFrame:
    loophole = load_catalog().loophole_tasks("airline")
    assert set(TABLE1) == loophole
    others = [str(i) for i in range(50) if str(i) not in loophole]
    rows = []
    for m, model in enumerate(MODELS):
        for task, counts in TABLE1.items():
            rows += [(model, task, t, float(t < counts[m])) for t in range(4)]
        left = NON_LOOPHOLE_SUCCESSES[m]
        for task in others:
            for t in range(4):
                rows.append((model, task, t, float(left > 0)))
                left -= 1
    df = pd.DataFrame(rows, columns=["agent_name", "task_id", "trial", "reward"])
    return df.assign(domain="airline", task_version="tau2", multi_gold_reward=df.reward,
                     matched_gold_ids=[["gold"] if r else [] for r in df.reward])


def test_loophole_and_non_loophole_averages():
    s = success_by_agent(paper_trials()).set_index("agent")
    assert [round(100 * s.loc[m, "loophole_single"], 1) for m in MODELS] == [32.1, 42.9, 35.7]
    assert [round(100 * s.loc[m, "non_loophole_single"], 1) for m in MODELS] == [64.5, 48.3, 40.7]


def test_counterfactual_reaggregation():
    c = counterfactual(paper_trials()).set_index("agent")
    assert round(100 * c.loc["GPT-5", "overall"], 1) == 60.0
    assert round(100 * c.loc["GPT-5", "without_loophole"], 1) == 64.5
    assert round(100 * c.loc["GPT-5", "lead_over_next"], 1) == 12.5  # over Kimi, the next in rank
    # the paper subtracts rounded rates (64.5 - 48.3); unrounded it is 28/172 = 16.28 points
    assert 100 * c.loc["GPT-5", "lead_over_next_without_loophole"] == pytest.approx(16.2, abs=0.1)


def test_loophole_cell_variance():
    v = cell_variance(paper_trials()).set_index("group")
    assert v.loc["loophole", "cells"] == 21 and v.loc["non_loophole", "cells"] == 129
    assert round(v.loc["loophole", "mean_variance"], 3) == 0.110


def test_overlap_test_matches_paper():
    assert overlap_test(50, 29, 7, 7) == pytest.approx(0.0156, abs=5e-4)


def test_overlap_from_our_own_diff():
    changed = set(diff_versions("airline").changed_ids)
    loophole = load_catalog().loophole_tasks("airline")
    p = overlap_test(50, len(changed), len(loophole), len(changed & loophole))
    assert round(100 * p, 1) == 1.6


def test_bootstrap_gap_ci_is_reproducible_and_brackets_the_gap():
    a = loophole_gap(paper_trials()).set_index("agent")
    b = loophole_gap(paper_trials()).set_index("agent")
    pd.testing.assert_frame_equal(a, b)  # seed 42 by default
    for m in MODELS:
        assert a.loc[m, "ci_low"] < a.loc[m, "gap"] < a.loc[m, "ci_high"]
    assert round(100 * a.loc["GPT-5", "gap"], 1) == round(64.5 - 32.1, 1)


def test_pass_k_equals_tau2_estimator():
    from math import comb

    p = pass_k(paper_trials())
    gpt = p[p.agent == "GPT-5"].set_index("k")
    assert list(gpt.index) == [1, 2, 3, 4]
    # by hand for k = 2: mean over tasks of C(c, 2) / C(4, 2)
    df = paper_trials()
    counts = df[df.agent_name == "GPT-5"].groupby("task_id").reward.sum()
    expected = sum(comb(int(c), 2) / comb(4, 2) for c in counts) / len(counts)
    assert gpt.loc[2, "single_gold"] == pytest.approx(expected)


def test_model_split_is_table_one():
    t = model_split(paper_trials()).set_index("task_id")
    assert t.loc["27", "GPT-5"] == "0/4" and t.loc["5", "Kimi-K2-Thinking"] == "3/4" and t.loc["13", "Mistral-Large-3"] == "3/4"


def test_too_few_tasks_give_no_ci_and_enough_give_one():
    df = paper_trials()
    gpt = df[(df.agent_name == "GPT-5") & (df.trial == 0)]
    one_loophole_task = gpt[gpt.task_id.isin(["2", "0", "1", "3"])]  # task 2 is the only loophole task
    gap = loophole_gap(one_loophole_task).iloc[0]
    assert gap.ci_low != gap.ci_low and gap.ci_high != gap.ci_high and gap.note == "too few tasks for a confidence interval"
    enough = gpt[gpt.task_id.isin(["2", "5", "13", "0", "1", "3"])]
    gap = loophole_gap(enough).iloc[0]
    assert gap.ci_low <= gap.gap <= gap.ci_high and gap.ci_low < gap.ci_high and gap.note == ""
    var = cell_variance(gpt).set_index("group")
    assert var.mean_variance.isna().all() and (var.note != "").all()


def test_clustered_interval_is_wider_than_trial_level_for_correlated_trials():
    """20 tasks x 5 trials, each task all-success or all-failure (perfectly correlated within a task): the
    effective sample is 20 tasks, not 100 trials, and the clustered interval says so."""
    import numpy as np

    from analysis import bootstrap_ci

    tasks = np.repeat(np.arange(20), 5)
    values = (tasks % 2 == 0).astype(float)
    clustered = bootstrap_ci(values, tasks, reps=4000, seed=1)
    trial_level = bootstrap_ci(values, np.arange(len(values)), reps=4000, seed=1)
    width_c, width_t = clustered[1] - clustered[0], trial_level[1] - trial_level[0]
    assert width_c > 1.8 * width_t, (clustered, trial_level)  # ~sqrt(5) wider in theory
    assert bootstrap_ci(values, tasks, reps=4000, seed=1) == clustered  # fixed seed: reproducible


def test_loophole_gap_ci_is_clustered_by_task():
    """The gap's interval resamples tasks: with correlated trials it is wider than a trial-level one."""
    import numpy as np

    from analysis import cluster_bootstrap

    df = paper_trials()
    gpt = df[df.agent_name == "GPT-5"]
    gap = loophole_gap(gpt, reps=4000, seed=3).iloc[0]
    loophole = load_catalog().loophole_tasks("airline")
    lo, non = gpt[gpt.task_id.isin(loophole)], gpt[~gpt.task_id.isin(loophole)]
    rng = np.random.default_rng(3)
    iid = cluster_bootstrap(non.reward.to_numpy(), np.arange(len(non)), 4000, rng) - cluster_bootstrap(
        lo.reward.to_numpy(), np.arange(len(lo)), 4000, rng)
    iid_low, iid_high = np.percentile(iid, [2.5, 97.5])
    assert gap.ci_high - gap.ci_low > 1.2 * (iid_high - iid_low)


def test_null_rewards_stay_null_not_failures():
    from analysis._stats import _success

    assert _success(pd.Series([1.0, float("nan"), 0.0])).tolist() == [True, pd.NA, False]
    df = paper_trials()
    gpt = df[(df.agent_name == "GPT-5") & (df.task_id == "5")].copy()  # 4/4 successes
    gpt.loc[gpt.index[0], "multi_gold_reward"] = float("nan")  # one multi-gold reward unknown
    split = model_split(gpt, reward="multi_gold_reward")
    assert split.set_index("task_id").loc["5", "GPT-5"] == "3/3"  # not 3/4: unknown is not a failure
    assert pass_k(gpt).set_index("k").loc[1, "multi_gold"] == 1.0  # not 0.75

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
from envs.versions import diff_versions
from gold_variants import load_catalog

TABLE1 = {  # task -> successes of 4 for GPT-5, Kimi-K2-Thinking, Mistral-Large-3
    "2": (0, 0, 1), "5": (4, 3, 2), "13": (2, 4, 3), "27": (0, 0, 0),
    "29": (0, 2, 3), "32": (1, 0, 0), "45": (2, 3, 1),
}
NON_LOOPHOLE_SUCCESSES = (111, 83, 70)  # of 172 trials each
MODELS = ("GPT-5", "Kimi-K2-Thinking", "Mistral-Large-3")


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


def test_one_trial_gives_no_fake_ci():
    df = paper_trials()
    one = df[df.trial == 0]
    gap = loophole_gap(one[one.agent_name == "GPT-5"].iloc[:8])
    assert gap.ci_low.isna().all() or (gap.note == "").all()
    var = cell_variance(one).set_index("group")
    assert var.mean_variance.isna().all() and (var.note != "").all()

"""A reduced offline demo through ``harness sweep``: embedded Ray, reading agents, scripted user."""

from __future__ import annotations

import pandas as pd


def test_reduced_demo(offline_demo_run):
    run_dir, proc = offline_demo_run
    assert "success per agent" in proc.stdout and "loophole tasks (successes / trials)" in proc.stdout
    trials = pd.read_parquet(run_dir / "trials.parquet")
    assert len(trials) == 3 * 9 * 2 * 2 and set(trials.status) == {"ok"}
    scores = pd.read_parquet(run_dir / "scores.parquet")
    variant_best = scores[scores.gold_id != "gold"].groupby("trajectory_id").reward.max()
    gold = scores[scores.gold_id == "gold"].set_index("trajectory_id").reward
    by_id = trials.set_index("trajectory_id")
    assert (by_id.reward == gold.reindex(by_id.index)).all()  # single gold: the gold's own score row
    expected = pd.concat([gold, variant_best], axis=1).max(axis=1).reindex(by_id.index)
    assert (by_id.multi_gold_reward == expected).all()  # multi-gold: the best of gold and variants rows
    creative = trials[(trials.agent_name == "creative") & (trials.task_version == "tau2")
                      & trials.task_id.isin(["13", "29", "32", "45"])]
    assert creative.reward.mean() < creative.multi_gold_reward.mean()

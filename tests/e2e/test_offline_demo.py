"""A reduced offline demo through ``harness sweep``: embedded Ray, reading agents, scripted user."""

from __future__ import annotations

import pandas as pd


def test_reduced_demo(offline_demo_run):
    run_dir, proc = offline_demo_run
    assert "success per agent" in proc.stdout and "loophole tasks (successes / trials)" in proc.stdout
    trials = pd.read_parquet(run_dir / "trials.parquet")
    assert len(trials) == 3 * 9 * 2 * 2 and set(trials.status) == {"ok"}
    per_task = trials.groupby(["agent_name", "task_version", "task_id"])[["reward", "multi_gold_reward"]].mean()
    assert (per_task.multi_gold_reward >= per_task.reward).all()
    creative = trials[(trials.agent_name == "creative") & (trials.task_version == "tau2")
                      & trials.task_id.isin(["13", "29", "32", "45"])]
    assert creative.reward.mean() < creative.multi_gold_reward.mean()

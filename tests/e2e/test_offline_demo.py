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


def test_the_sweep_writes_tau2_results_files_whose_rescore_gives_its_rewards(offline_demo_run, tmp_path):
    """One tau2 results file per agent × domain × version, which tau2's own ``Results.load`` reads; rescored,
    each simulation (its id the sweep's trajectory id) gets the single-gold, multi-gold and strict rewards the
    sweep stored. A finished run keeps no lock file and no empty parts folder."""
    from tau2.data_model.simulation import Results

    from tests.conftest import harness

    run_dir, _ = offline_demo_run
    assert not (run_dir / ".lock").exists() and not (run_dir / "parts").exists()
    files = sorted((run_dir / "tau2-results").glob("*.json"))
    assert [f.name for f in files] == [f"{a}_airline_{v}.json" for a in ("conservative", "creative", "inconsistent")
                                       for v in ("tau2", "tau3")]
    sweep = pd.read_parquet(run_dir / "trials.parquet").set_index("trajectory_id")
    loaded = Results.load(files[0])
    assert {s.id for s in loaded.simulations} <= set(sweep.index) and len(loaded.simulations) == 18
    proc = harness("rescore", *map(str, files), "--out", str(tmp_path / "rescored"))
    assert proc.returncode == 0, proc.stderr[-3000:]
    rescored = pd.read_parquet(tmp_path / "rescored" / "trials.parquet").set_index("simulation_id")
    assert sorted(rescored.index) == sorted(sweep.index)
    for column in ("reward", "multi_gold_reward", "strict_reward"):
        assert (rescored[column] == sweep[column].reindex(rescored.index)).all(), column
    assert (rescored.recorded_reward == rescored.reward).all()  # the file's reward_info is the sweep's reward
    assert set(rescored.agent_name) == {"conservative", "creative", "inconsistent"}
    assert not (tmp_path / "rescored" / ".lock").exists()  # a finished rescore keeps no lock file either

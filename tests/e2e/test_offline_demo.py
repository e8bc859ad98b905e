"""A reduced offline demo through ``harness sweep``: embedded Ray, reading agents, scripted user."""

from __future__ import annotations

import subprocess
import sys

import pandas as pd
import yaml

from tests.conftest import ROOT


def test_reduced_demo(tmp_path):
    demo = yaml.safe_load((ROOT / "configs" / "offline-demo.yaml").read_text())
    demo.update(tasks=["2", "5", "13", "27", "29", "32", "45", "0", "3"], trials=2, output=str(tmp_path / "demo"))
    path = tmp_path / "demo.yaml"
    path.write_text(yaml.safe_dump(demo))
    proc = subprocess.run([sys.executable, "-m", "harness.cli.main", "sweep", str(path)],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "success per agent" in proc.stdout and "loophole tasks (successes / trials)" in proc.stdout
    trials = pd.read_parquet(tmp_path / "demo" / "trials.parquet")
    assert len(trials) == 3 * 9 * 2 and set(trials.status) == {"ok"}
    per_task = trials.groupby(["agent_name", "task_id"])[["reward", "multi_gold_reward"]].mean()
    assert (per_task.multi_gold_reward >= per_task.reward).all()
    creative = trials[(trials.agent_name == "creative") & trials.task_id.isin(["13", "29", "32", "45"])]
    assert creative.reward.mean() < creative.multi_gold_reward.mean()

"""The notebook facade: ``harness.rescore`` and ``loophole_store.open_run`` give the rows the CLI writes."""

from __future__ import annotations

import pandas as pd
import pytest

from loophole_base import HarnessInputError
from tests.conftest import harness, real_run

AIDE = "aide_claude-sonnet-4-5_airline_tau2_1trial.json"


def test_rescore_returns_what_the_cli_writes(tmp_path):
    from harness import rescore
    from loophole_store import open_run

    result = rescore([real_run(AIDE)], tmp_path / "api")
    run = result.run
    proc = harness("rescore", str(real_run(AIDE)), "--out", str(tmp_path / "cli"))
    assert proc.returncode == 0, proc.stderr
    cli = open_run(tmp_path / "cli")
    cols = ["trajectory_id", "task_id", "reward", "multi_gold_reward", "status"]
    pd.testing.assert_frame_equal(
        run.trials[cols].sort_values("trajectory_id").reset_index(drop=True),
        cli.trials[cols].sort_values("trajectory_id").reset_index(drop=True),
    )
    assert len(run.scores) == len(cli.scores) > len(run.trials)  # the gold and its variants
    assert run.info is not None and run.info["kind"] == "rescore"
    assert [s.count for s in result.summaries] == [len(cli.trials)]  # the summary the CLI prints
    recorded = run.trials.dropna(subset=["reward", "recorded_reward"])
    assert len(recorded) > 0 and (recorded.reward == recorded.recorded_reward).mean() > 0.9


def test_rescore_refuses_bad_input_in_one_line_and_leaves_nothing(tmp_path):
    from harness import rescore

    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(HarnessInputError) as err:
        rescore([bad], tmp_path / "out" / "run")
    assert "bad.json" in str(err.value) and "\n" not in str(err.value)
    assert not (tmp_path / "out").exists()

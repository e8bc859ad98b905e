"""``benchmarks/against_commit.py --rows``: the rows two rescorings disagree on, and only those."""

from __future__ import annotations

import sys

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "benchmarks"))
from against_commit import changed_rows  # noqa: E402


def _rows(strict: float, verdict: str, reason: float | str) -> dict:
    key = {"file": "run.json", "simulation_id": "s1", "task_id": "27", "trial": 0}
    return {"trials": [{**key, "reward": 1.0, "strict_reward": strict, "strict_reason": reason}],
            "scores": [{**key, "gold_id": "L3L4.strict", "verdict": verdict, "reward": 1.0, "reason": reason}]}


def test_only_the_columns_that_differ_are_listed_and_a_missing_reason_stays_equal():
    nan = float("nan")  # a missing reason, as Parquet gives it: equal on both sides, never a change
    assert changed_rows(_rows(1.0, "credited", nan), _rows(1.0, "credited", nan)) == []
    lines = changed_rows(_rows(0.0, "credited", nan), _rows(1.0, "uncertain", nan))
    assert lines == ["run.json | s1 | task 27 | trials.strict_reward | 0.0 -> 1.0",
                     "run.json | s1 | task 27 | scores[L3L4.strict].verdict | credited -> uncertain"]

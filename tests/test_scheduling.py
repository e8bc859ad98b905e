"""Trials start expected-longest first, so a sweep's tail is a short trial, not a long one."""

from __future__ import annotations

from envs import load_task_set
from harness.trials import TrialKey, expected_turns, longest_first


def _keys(version: str) -> list[TrialKey]:
    ids = load_task_set("airline", version).task_ids()
    return [TrialKey("s", "a", "airline", version, t, trial) for t in ids for trial in range(2)]


def test_longest_first_orders_by_the_golds_length_and_keeps_every_key():
    keys = _keys("tau2")
    ordered = longest_first(keys)
    assert sorted(k.key for k in ordered) == sorted(k.key for k in keys)  # nothing lost or doubled
    lengths = [expected_turns(k) for k in ordered]
    assert lengths == sorted(lengths, reverse=True)
    longest_task = max(load_task_set("airline", "tau2").tasks, key=lambda t: len(t.evaluation_criteria.actions))
    assert ordered[0].task_id == longest_task.id
    assert lengths[0] > lengths[-1]  # the workload has long and short tasks, so the order is not key order


def test_expected_turns_counts_actions_and_what_must_be_told():
    task = load_task_set("airline", "tau2").task("14")
    c = task.evaluation_criteria
    assert expected_turns(TrialKey("s", "a", "airline", "tau2", "14", 0)) == len(c.actions) + len(c.communicate_info)

"""envs.actions_key, the gold-replay caches' key (ReplayEngine.gold_outcome, strict's gold_writes): on every
pinned task's gold of both domains and every variant's, two action lists share a key exactly when their
sorted JSON (the key it replaced) is the same, so no cached replay is reached by another gold."""

from __future__ import annotations

import json

import pytest

from envs import actions_key, load_task_set
from loophole_scoring import golds_for


def _content(actions) -> str:
    return json.dumps([a.model_dump(mode="json") for a in actions], sort_keys=True)


@pytest.mark.parametrize("domain", ["airline", "retail"])
def test_keys_part_action_lists_as_their_content_does(domain):
    task_set = load_task_set(domain, "tau2")
    lists = []
    for task_id in task_set.by_id:
        task = task_set.task(task_id)
        lists.append(list(task.evaluation_criteria.actions or []) if task.evaluation_criteria else [])
        variants, _ = golds_for(domain, "tau2", task)
        lists += [list(v.actions) for v in variants if v.actions is not None]
    by_key: dict[tuple[str, ...], set[str]] = {}
    by_content: dict[str, set[tuple[str, ...]]] = {}
    for actions in lists:
        by_key.setdefault(actions_key(actions), set()).add(_content(actions))
        by_content.setdefault(_content(actions), set()).add(actions_key(actions))
    assert len(by_content) > 40
    assert all(len(v) == 1 for v in by_key.values())  # one key, one content: never a wrong hit
    assert all(len(v) == 1 for v in by_content.values())  # and the same gold always hits its cache


def test_a_key_is_its_content_not_its_objects():
    task = load_task_set("airline", "tau2").task("1")
    actions = list(task.evaluation_criteria.actions)
    copies = [a.model_copy(deep=True) for a in actions]
    assert actions_key(copies) == actions_key(actions)
    copies[0].arguments = {**copies[0].arguments, "extra": 1}
    assert actions_key(copies) != actions_key(actions)

"""Policy-reading agents and the scripted user, through tau2's real orchestrator (no Ray here)."""

from __future__ import annotations

import threading

import pytest

from envs import DatabasePool
from harness.agents._reading import choose_plan
from harness.config import SweepConfig
from harness.sweeping import run_trial, trial_specs
from harness.trials import expand

LOOPHOLE = ["2", "5", "13", "27", "29", "32", "45"]


def _config(profile: str, tasks: list[str], trials: int, version: str = "tau2", rate: float = 0.0) -> SweepConfig:
    return SweepConfig.model_validate({
        "name": f"unit-{profile}",
        "agents": [{"name": profile, "implementation": "reading_agent", "profile": profile,
                    "procedural_error_rate": rate}],
        "user_simulator": {"implementation": "scripted_user"},
        "domains": ["airline"], "task_versions": [version], "tasks": tasks, "trials": trials,
    })


def _run(config: SweepConfig) -> list[dict]:
    pool, lock = DatabasePool(), threading.Lock()
    return [run_trial(spec, pool, lock, None).trial for spec in trial_specs(config, expand(config))]


@pytest.mark.parametrize(
    ("profile", "task_id", "reading"),
    [
        ("conservative", "32", "refuse"), ("creative", "32", "two_calls"),
        ("conservative", "45", "refuse"), ("creative", "45", "two_calls"),
        ("conservative", "2", "strict"), ("creative", "2", "lenient"),
        ("conservative", "13", "refuse"), ("creative", "13", "cancel_and_rebook"),
        ("conservative", "5", "membership_only"), ("creative", "5", "business_disjunct"),
    ],
)
def test_profiles_pick_their_readings(profile, task_id, reading):
    assert choose_plan("airline", "tau2", task_id, profile, seed=1).reading == reading


@pytest.mark.parametrize("version", ["tau2", "tau3"])
def test_recovered_reading_equals_intended_over_many_seeds(version):
    rows = _run(_config("inconsistent", LOOPHOLE, trials=8, version=version))
    seen = set()
    for row in rows:
        assert row["status"] == "ok", row["reason"]
        assert row["procedural_error"] is False
        assert set(row["matched_gold_ids"]) == {row["intended_gold_id"]}, row
        seen.add((row["task_id"], row["intended_gold_id"]))
    assert len(seen) > len(LOOPHOLE) + 5  # the draw reaches several readings per task


def test_procedural_errors_fail_and_are_recorded():
    rows = _run(_config("creative", ["1", "4", "29", "32"], trials=6, rate=0.5))
    erred = [r for r in rows if r["procedural_error"]]
    assert erred and len(erred) < len(rows)
    # a dropped write misses what the agent meant; on a non-loophole task it fails outright (on a loophole
    # task it may land on another reading: dropping the first of L6's two calls is the single-call reading)
    assert all(r["intended_gold_id"] not in r["matched_gold_ids"] for r in erred)
    assert all(r["multi_gold_reward"] == 0.0 for r in erred if r["task_id"] in ("1", "4"))
    assert all(r["multi_gold_reward"] == 1.0 for r in rows if not r["procedural_error"])


def test_scripted_user_opens_with_reason_and_stops():
    (row,) = _run(_config("conservative", ["1"], trials=1))
    import json

    msgs = json.loads(row["messages_json"])
    users = [m["content"] for m in msgs if m["role"] == "user"]
    assert users[0].startswith("You")  # the reason for call, as written in the task
    assert users[-1].endswith("###STOP###") and row["termination_reason"] == "user_stop"


def test_scoring_failure_keeps_the_trajectory_as_an_error_row(monkeypatch):
    import loophole_scoring

    def broken(*args, **kwargs):
        raise RuntimeError("scoring exploded")

    # narrow: only the scorer is replaced (the worker imports it from the facade where a trial runs)
    monkeypatch.setattr(loophole_scoring, "score_simulation", broken)
    (row,) = _run(_config("conservative", ["1"], trials=1))
    assert row["status"] == "error" and "scoring failed: RuntimeError" in row["reason"]
    assert row["n_messages"] > 0 and row["messages_json"] != "[]"


def test_witnesses_read_one_pristine_airline_database_per_process(monkeypatch):
    """A predicate variant's witness only reads the initial database: it shares the clause rules' pristine
    toolkit, loaded once per process, instead of loading the database (~70 ms) at every call, which made the
    demo's reading-agent trials three times slower."""
    import tau2.domains.airline.environment as airline

    import envs._replay as replay  # the pristine toolkit is the replay engine's (one load for both)
    from gold_variants import all_variants, witness
    from gold_variants.readings._base import _tools

    loads: list[object] = []
    real = airline.get_environment
    monkeypatch.setattr(airline, "get_environment", lambda *a, **k: loads.append(a) or real(*a, **k))
    monkeypatch.setattr(replay, "_ENGINES", {})  # a fresh process: no engine yet (later tests get theirs back)
    _tools.cache_clear()  # nor a toolkit
    predicates = [v for vs in all_variants("airline", "tau2").values() for v in vs if v.actions is None]
    assert len(predicates) >= 3
    witnessed = [witness(v) for v in predicates]
    assert all(witnessed) and len(loads) == 1, len(loads)
    assert [witness(v) for v in predicates] == witnessed and len(loads) == 1  # the same actions, no new load
    _tools.cache_clear()  # the next user loads its own (the patched constructor is gone then)

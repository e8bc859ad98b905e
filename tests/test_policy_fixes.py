"""Policy-level fixes: verbatim anchors, one reading kept per task, agents that obey them, and the experiment."""

from __future__ import annotations

import threading

import pandas as pd

from analysis import variance_by_agent
from envs import DatabasePool, load_task_set
from gold_variants import fixed_policy, policy_fixes, readings_offered
from harness.config import load_config
from harness.sweeping import run_trial, trial_specs
from harness.trials import expand
from tests.conftest import ROOT, harness

FIXED_TASKS = {"2", "13", "27", "29", "32", "45"}  # L3/L4, L6, L16 (task 5 is L5: no fix)


def test_fixes_apply_verbatim_and_keep_one_offered_reading():
    policy = load_task_set("airline", "tau2").policy
    patched = fixed_policy("airline", sorted(policy_fixes()), policy)
    for fix in policy_fixes().values():
        assert f"{fix.anchor} {fix.add}" in patched
        for version in ("tau2", "tau3"):
            for task_id in load_task_set("airline", version).task_ids():
                keep = fix.allowed_reading("airline", version, task_id)
                if keep is not None:
                    assert keep in readings_offered("airline", version, task_id, fix.loophole_id)
    # the fix defers to the user: task 32's user asks for the upgrade route, task 45's never does
    assert policy_fixes()["L6"].allowed_reading("airline", "tau2", "32") == "two_calls"
    assert policy_fixes()["L6"].allowed_reading("airline", "tau3", "45") == "refuse"


def test_variants_check_policy_fix_cli():
    run = lambda *a: harness("variants", "check", *a, timeout=300)  # noqa: E731
    ok = run("--policy-fix", "L3L4", "--policy-fix", "L6", "--policy-fix", "L16")
    assert ok.returncode == 0, ok.stderr
    assert "ruled out" in ok.stdout and "not offered" not in ok.stdout
    bad = run("--policy-fix", "L99")
    assert bad.returncode == 2 and "unknown fix 'L99'" in bad.stderr


def test_experiment_fixed_arm_is_consistent(tmp_path):
    config = load_config(ROOT / "configs" / "policy-fix-airline.yaml")
    config = config.model_copy(update={"trials": 3, "task_versions": ["tau2"], "output": tmp_path / "pf"})
    pool, lock = DatabasePool(), threading.Lock()
    rows = [run_trial(s, pool, lock, None).trial for s in trial_specs(config, expand(config))]
    trials = pd.DataFrame(rows)
    assert set(trials.status) == {"ok"}
    fixed = trials[trials.agent_name.str.endswith("-fixed") & trials.task_id.isin(FIXED_TASKS)]
    for r in fixed.itertuples():
        keep = next(f.allowed_reading("airline", "tau2", r.task_id) for f in policy_fixes().values()
                    if f.allowed_reading("airline", "tau2", r.task_id))
        assert r.intended_reading == keep
    on_fixed = trials[trials.task_id.isin(FIXED_TASKS)]
    v = variance_by_agent(on_fixed).set_index("agent")
    assert v.loc["inconsistent-fixed", "mean_variance"] == 0.0
    assert v.loc["inconsistent", "mean_variance"] > 0.0

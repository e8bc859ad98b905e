"""``harness audit golds``: broken golds and do-nothing verdicts, checked against tau2 alone.

The independent checks never go through the replay engine or our scorer: a fresh tau2 environment per
task (``tau2.registry``), tau2's own ``make_tool_call`` and ``ToolType``, and tau2's ``evaluate_simulation``.
``HARNESS_FULL_AUDIT=1`` widens the tau2 checks from a sample to every task (several minutes).
"""

from __future__ import annotations

import os

import pandas as pd
import pyarrow.parquet as pq
import pytest
from tau2.data_model.message import AssistantMessage, UserMessage
from tau2.data_model.simulation import TerminationReason
from tau2.data_model.tasks import RewardType
from tau2.environment.toolkit import ToolType
from tau2.evaluator.evaluator import EvaluationType, evaluate_simulation
from tau2.registry import registry

from analysis import audit_golds
from envs import TASK_VERSIONS, engine_for, load_task_set, replay_steps
from loophole_scoring import do_nothing_simulation, gold_contract
from tests.conftest import BROKEN_GOLDS, harness

FULL = os.environ.get("HARNESS_FULL_AUDIT") == "1"

# The do-nothing sample: passes and fails on each version, a broken gold that doing nothing passes
# (retail 12 on tau2, 18 and 105 on Verified), and τ³ retail tasks whose NL assertions need a judge (24, 105).
SAMPLE = {"airline": ["0", "2", "7", "9"], "retail": ["0", "12", "18", "24", "105"]}


@pytest.fixture(scope="module")
def audit():
    return audit_golds()


def _tau2_broken(domain: str, actions) -> list[str]:
    """Replay a gold on a fresh tau2 environment; the action ids of the writes that raise."""
    env = registry.get_env_constructor(domain)()
    broken = []
    for action in actions:
        try:
            env.make_tool_call(tool_name=action.name, requestor=action.requestor, **action.arguments)
        except Exception:  # noqa: BLE001 - exactly what tau2's evaluator swallows
            if env.tools.has_tool(action.name) and env.tools.tool_type(action.name) == ToolType.WRITE:
                broken.append(action.action_id)
    return broken


def _tau2_do_nothing(domain: str, task) -> str:
    """tau2's evaluate_simulation on the do-nothing trajectory. tau2 refuses NL_ASSERTION without a judge,
    so such a task is evaluated without it: 0 fails; 1 passes when it has no assertions, else needs judge."""
    sim = do_nothing_simulation(task)
    criteria = task.evaluation_criteria
    basis = set(criteria.reward_basis)
    if RewardType.NL_ASSERTION in basis:
        offline = task.model_copy(deep=True)
        offline.evaluation_criteria.reward_basis = sorted(basis - {RewardType.NL_ASSERTION})
        reward = evaluate_simulation(sim, offline, EvaluationType.ALL, False, domain).reward
        if reward == 1.0 and criteria.nl_assertions:
            return "needs judge"
    else:
        reward = evaluate_simulation(sim, task, EvaluationType.ALL, False, domain).reward
    return "passes" if reward == 1.0 else "fails"


def _pairs():
    return [(v, d) for v in TASK_VERSIONS for d in ("airline", "retail")]


def test_do_nothing_trajectory_is_what_the_issue_says():
    task = load_task_set("retail", "tau2").task("0")
    sim = do_nothing_simulation(task)
    kinds = [type(m) for m in sim.messages]
    assert kinds == [AssistantMessage, UserMessage, AssistantMessage, UserMessage]
    assert not any(m.is_tool_call() for m in sim.messages)
    assert sim.termination_reason == TerminationReason.USER_STOP
    assert task.user_scenario.instructions.reason_for_call in sim.messages[1].content


@pytest.mark.parametrize("version,domain", _pairs())
def test_do_nothing_verdicts_equal_tau2_evaluator(audit, version, domain):
    golds = audit.golds.set_index(["task_version", "domain", "task_id"])
    ids = load_task_set(domain, version).task_ids() if FULL else SAMPLE[domain]
    for task_id in ids:
        task = load_task_set(domain, version).task(task_id)
        ours = golds.loc[(version, domain, task_id)]
        assert ours.do_nothing == _tau2_do_nothing(domain, task), (version, domain, task_id)
        assert ours.passes_doing_nothing == {"passes": True, "fails": False}.get(ours.do_nothing)


def test_sample_covers_each_verdict(audit):
    sample = audit.golds[audit.golds.apply(lambda r: r.task_id in SAMPLE[r.domain], axis=1)]
    assert set(sample.do_nothing) == {"passes", "fails", "needs judge"}
    assert (sample.broken_gold & sample.passes_doing_nothing.eq(True)).any()


@pytest.mark.parametrize("version,domain", _pairs())
def test_listed_broken_golds_equal_a_tau2_replay(version, domain):
    """The listed broken golds, and a sample of the rest (every task with HARNESS_FULL_AUDIT=1)."""
    listed = BROKEN_GOLDS[(version, domain)]
    tasks = load_task_set(domain, version)
    ids = tasks.task_ids() if FULL else sorted({*listed, *SAMPLE[domain], "1", "5"}, key=int)
    for task_id in ids:
        task = tasks.task(task_id)
        assert _tau2_broken(domain, task.evaluation_criteria.actions or []) == listed.get(task_id, []), task_id


def test_every_gold_replays_as_listed(audit):
    """Replays every gold of every version: a broken gold that is not listed (or a listed one that is fixed)
    fails here, with its error."""
    for (version, domain), listed in BROKEN_GOLDS.items():
        rows = audit.golds[(audit.golds.task_version == version) & (audit.golds.domain == domain)]
        assert len(rows) == len(load_task_set(domain, version).tasks)
        found = {r.task_id: sorted(a.split()[0] for a in r.broken_actions) for r in rows.itertuples() if r.broken_gold}
        detail = {r.task_id: list(r.broken_actions) for r in rows.itertuples() if r.broken_gold}
        assert found == listed, (version, domain, detail)


def test_steps_mark_reads_writes_and_what_the_reward_sees():
    """Retail 64 (τ²): the gold reads, then writes; its exchange of a pending order raises and changes nothing."""
    task = load_task_set("retail", "tau2").task("64")
    engine = engine_for("retail")
    steps, _ = replay_steps(engine, task.evaluation_criteria.actions)
    by_id = {s.action_id: s for s in steps}
    tools = registry.get_env_constructor("retail")().tools
    for s in steps:
        assert s.kind == tools.tool_type(s.name).value
        if s.kind == "read":
            assert not s.changed_db
    broken = by_id["64_6"]
    assert broken.kind == "write" and "Non-delivered order cannot be exchanged" in broken.error
    assert not broken.changed_db
    contract = gold_contract("retail", "tau2", task, engine)
    assert contract.reward_basis == ("DB", "COMMUNICATE")
    assert "64_6" not in contract.compared_writes and "64_6" in contract.gold_writes
    unchecked = {u.split()[0] for u in contract.unchecked_actions}
    assert unchecked == {s.action_id for s in steps if s.kind == "read"} | {"64_6"}
    # the database is back to pristine: a second replay sees the same steps
    assert replay_steps(engine, task.evaluation_criteria.actions)[0] == steps


def test_cli_prints_one_line_per_pair_and_writes_golds_parquet(tmp_path):
    proc = harness("audit", "golds", "--domain", "airline", "--task-version", "tau2", "--task-version", "tau3",
                   "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(("tau2 airline:", "tau3 airline:"))]
    assert len(lines) == 2
    # ABC (arXiv 2507.02825) and tau2 issue #384: 19 of 50 on τ², 23 of 50 on τ³
    assert "do-nothing passes 19/50" in lines[0] and "do-nothing passes 23/50" in lines[1]
    table = pq.read_table(tmp_path / "golds.parquet").to_pandas()
    for column in ["task_version", "domain", "task_id", "broken_gold", "broken_actions", "passes_doing_nothing",
                   "reward_basis", "unchecked_actions"]:
        assert column in table.columns
    assert len(table) == 100 and set(table.task_version) == {"tau2", "tau3"}
    counts = table.groupby("task_version").passes_doing_nothing.sum()
    assert counts.to_dict() == {"tau2": 19, "tau3": 23}
    assert isinstance(pd.read_parquet(tmp_path / "version_conflicts.parquet"), pd.DataFrame)


def test_cli_bad_version_is_one_line():
    proc = harness("audit", "golds", "--task-version", "tau9")
    assert proc.returncode != 0
    assert proc.stderr.strip().startswith("error:") and "tau9" in proc.stderr
    assert "Traceback" not in proc.stderr and len(proc.stderr.strip().splitlines()) == 1

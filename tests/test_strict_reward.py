"""``strict_reward``, the band's lower end: earned single-gold passes only.

Expectations are written by hand from the task data (which tasks make no write, which golds raise) and
from tau2's own action check; the property test rescoring the shared real runs and the dev corpus checks
strict ≤ single ≤ multi ≤ upper on every row.
"""

from __future__ import annotations

import shutil

import pyarrow.parquet as pq
import pytest

import loophole_store as store
from envs import TASK_VERSIONS, engine_for, load_task_set
from gold_variants import EVIDENCE_TEXT
from loophole_scoring import (
    do_nothing_simulation,
    governing_evidence,
    score_simulation,
)
from tests.conftest import BROKEN_GOLDS, SHARED, STRICT_LISTED, STRICT_YES, conversation, harness

REFUSAL = EVIDENCE_TEXT["refusal"]  # "I'm sorry, but I cannot do that: the policy does not allow this request."
ROUTE_REFUSAL = EVIDENCE_TEXT["refuse_route_change"]


_sim = conversation  # greeting, request, turns, goodbye, the user stops


def _task(domain: str, version: str, task_id: str):
    return load_task_set(domain, version).task(task_id)


def _score(domain: str, version: str, task, sim):
    scored = score_simulation(sim, domain, version, engine_for(domain), None, task=task)
    return scored.result.single_gold.reward, scored.strict


def test_doing_nothing_is_never_strict():
    """The do-nothing trajectory on every task of every version: strict 0, or null (marked) on a broken gold."""
    passes = 0
    for version in TASK_VERSIONS:
        for domain in ("airline", "retail"):
            broken = BROKEN_GOLDS[(version, domain)]
            for task in load_task_set(domain, version).tasks:
                single, strict = _score(domain, version, task, do_nothing_simulation(task))
                passes += single == 1.0
                if task.id in broken:
                    assert strict.reward is None and strict.reason.startswith("broken gold"), (version, domain, task.id)
                else:
                    assert strict.reward == (None if single is None else 0.0), (version, domain, task.id, strict)
    # the single gold passes it often (airline τ² 19, τ³ 23, Verified 23; retail 7, 6, 8): strict is what differs
    assert passes == 19 + 7 + 23 + 6 + 23 + 8


def test_no_write_task_needs_a_decline_or_a_transfer():
    """τ² airline 1 (no gold write, no loophole): doing nothing passes the single gold; strict needs the agent
    to decline or transfer."""
    task = _task("airline", "tau2", "1")
    tools = engine_for("airline").env.tools
    assert all(tools.tool_type(a.name).value == "read" for a in task.evaluation_criteria.actions)
    assert governing_evidence("airline", "tau2", task) == "refusal"
    single, strict = _score("airline", "tau2", task, _sim("airline", task))
    assert (single, strict.reward) == (1.0, 0.0) and "neither declined nor transferred" in strict.reason
    single, strict = _score("airline", "tau2", task, _sim("airline", task, REFUSAL))
    assert (single, strict.reward) == (1.0, 1.0)
    transfer = [("transfer_to_human_agents", {"summary": "The user wants a change the policy does not allow."})]
    single, strict = _score("airline", "tau2", task, _sim("airline", task, transfer))
    assert (single, strict.reward) == (1.0, 1.0)


def test_no_write_loophole_task_needs_its_own_clause():
    """τ² airline 13: the gold refuses a route change (L16); a decline must name that clause."""
    task = _task("airline", "tau2", "13")
    assert governing_evidence("airline", "tau2", task) == "refuse_route_change"
    single, strict = _score("airline", "tau2", task, _sim("airline", task, REFUSAL))
    assert (single, strict.reward) == (1.0, 0.0)
    single, strict = _score("airline", "tau2", task, _sim("airline", task, ROUTE_REFUSAL))
    assert (single, strict.reward) == (1.0, 1.0)


def _gold_calls(task) -> list[tuple[str, dict]]:
    return [(a.name, dict(a.arguments)) for a in task.evaluation_criteria.actions]


def test_broken_gold_is_never_a_strict_pass():
    """τ² retail 12: its return (12_4) raises on replay. Doing nothing and enacting the gold both pass the
    single gold; strict is null and says why."""
    task = _task("retail", "tau2", "12")
    for sim in (_sim("retail", task), _sim("retail", task, _gold_calls(task), " ".join(task.evaluation_criteria.communicate_info or []))):
        single, strict = _score("retail", "tau2", task, sim)
        assert single == 1.0
        assert strict.reward is None and strict.reason.startswith("broken gold: 12_4 return_delivered_order_items")


def test_every_gold_write_must_be_made_as_the_tools_read_it():
    """τ³ airline 15: the gold changes flights. Enacting it after the user's yes is strict; the same change
    with extra keys in each flight (FlightInfo reads flight_number and date only; tau2's action check
    compares them as text) is strict too; the change not made fails the single gold (tests/test_strict_classes.py
    has each class)."""
    task = _task("airline", "tau3", "15")
    info = " ".join(task.evaluation_criteria.communicate_info or [])
    calls = _gold_calls(task)
    single, strict = _score("airline", "tau3", task, conversation("airline", task, STRICT_LISTED, ("user", STRICT_YES), calls, info))
    assert (single, strict.reward) == (1.0, 1.0)
    padded = []
    for name, args in calls:
        if name == "update_reservation_flights":
            args = {**args, "flights": [{**f, "note": "as asked"} for f in args["flights"]]}
        padded.append((name, args))
    single, strict = _score("airline", "tau3", task, conversation("airline", task, STRICT_LISTED, ("user", STRICT_YES), padded, info))
    assert (single, strict.reward) == (1.0, 1.0), strict
    reads = [(n, a) for n, a in calls if n != "update_reservation_flights"]
    single, strict = _score("airline", "tau3", task, conversation("airline", task, STRICT_LISTED, ("user", STRICT_YES), reads, info))
    assert single == 0.0 and strict.reward == 0.0


# -- runs ------------------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def rescored(tmp_path_factory):
    out = tmp_path_factory.mktemp("strict")
    dirs = {}
    for name, source in (("real", SHARED / "real-runs"), ("dev", SHARED / "dev-corpus" / "runs")):
        proc = harness("rescore", str(source), "--out", str(out / name))
        assert proc.returncode == 0, proc.stderr[-2000:]
        dirs[name] = out / name
    return dirs


@pytest.mark.parametrize("corpus", ["real", "dev"])
def test_band_strict_single_multi_upper_on_every_row(rescored, corpus):
    trials = store.open_run(rescored[corpus]).trials
    assert len(trials) > 50
    scored = trials[trials.reward.notna()]
    strict = scored.strict_reward
    known = strict.notna()
    assert (strict[known] <= scored.reward[known]).all()
    assert (scored.reward <= scored.multi_gold_reward).all() and (scored.multi_gold_reward <= scored.multi_gold_upper).all()
    # strict is null only on a broken gold's task (marked), or where the single gold is null
    assert scored.strict_reason[~known].str.startswith("broken gold").all()
    assert trials[trials.reward.isna()].strict_reward.isna().all()
    # and it is a real lower bound: somewhere a single-gold pass is not earned
    if corpus == "real":
        assert (strict[known] < scored.reward[known]).any()


def test_old_run_without_the_column_reads_unknown(rescored, tmp_path):
    old = tmp_path / "old"
    shutil.copytree(rescored["real"], old)
    path = old / "trials.parquet"
    table = pq.read_table(path)
    pq.write_table(table.drop_columns(["strict_reward", "strict_reason"]), path)
    trials = store.open_run(old).trials
    assert "strict_reward" in trials.columns and trials.strict_reward.isna().all()
    assert trials.reward.notna().sum() > 0  # the rest of the run still reads


def test_python_api_rescore_returns_the_strict_column(tmp_path):
    from harness import rescore

    run = rescore([SHARED / "real-runs" / "whissle_retail_tau3_5sims.json"], tmp_path / "run").run
    trials = run.trials
    assert {"strict_reward", "strict_reason"} <= set(trials.columns)
    scored = trials[trials.reward.notna()]
    assert len(scored) == 5 and (scored.strict_reward <= scored.reward).all()
    assert scored.strict_reward.notna().all()  # τ³ retail 0-4: no broken gold among them

"""The NL-assertion judge through litellm over real HTTP, against the loopback scripted server."""

from __future__ import annotations

import ast
import json

import pytest
from tau2.data_model.simulation import SimulationRun

from envs import engine_for, load_task_set
from loophole_ingest import import_results_file
from loophole_scoring import JudgeError, LitellmJudge, score_trajectory
from loophole_scripted_llm import ScriptedLLMServer
from tests.conftest import real_run


def _grader(met: bool):
    def respond(body: dict) -> str:
        prompt = body["messages"][-1]["content"]
        # The prompt ends with the assertion list in Python literal form, as tau2 writes it.
        outcomes = ast.literal_eval(prompt.split("expectedOutcomes:\n", 1)[1].strip())
        return json.dumps(
            {"results": [{"expectedOutcome": o, "reasoning": "scripted", "metExpectation": met} for o in outcomes]}
        )

    return respond


def _sims():
    run = import_results_file(real_run("whissle_retail_tau3_5sims.json"))
    ts = load_task_set(run.domain, run.task_version)
    for item in run.simulations:
        sim = SimulationRun.model_validate(item.raw)
        yield sim, ts.task(sim.task_id), item.raw["reward_info"]


ASSERTIONS = ["The agent confirms the order details.", "The agent does not promise a refund."]


def _needs_judge():
    """Task 0's trajectory (database and every other component 1, no assertions recorded) against a copy
    of task 0 that has assertions: the one kind of trajectory whose reward a judge decides."""
    sim, task, recorded = next(s for s in _sims() if s[0].task_id == "0")
    assert recorded["reward"] == 1.0 and not task.evaluation_criteria.nl_assertions
    task = task.model_copy(deep=True)
    task.evaluation_criteria.nl_assertions = list(ASSERTIONS)
    return sim, task


class CountingJudge:
    """Counts calls (a narrow unit-test stand-in; the real judge is tested over HTTP below)."""

    name = "counting"

    def __init__(self, met: bool = True) -> None:
        self.calls = 0
        self.met = met

    def judge(self, messages, assertions):
        from loophole_scoring import JudgeVerdict

        self.calls += 1
        return JudgeVerdict(met=self.met, cost=0.25)


@pytest.mark.parametrize("met", [True, False])
def test_judge_decides_nl_component(met):
    sim, task = _needs_judge()
    with ScriptedLLMServer(_grader(met)) as server:
        judge = LitellmJudge("openai/scripted-judge", api_base=server.api_base, api_key="sk-test")
        gold = score_trajectory(sim, task, engine_for("retail"), judge).single_gold
        assert gold.status == "ok" and gold.nl_assertion == (1.0 if met else 0.0)
        assert gold.reward == (1.0 if met else 0.0)
        assert len(server.requests) == 1
        assert server.requests[0]["model"] == "scripted-judge" and server.requests[0]["temperature"] == 0


def test_judge_only_where_it_matters():
    """No call where the task has no assertions or another component is 0; tau2's reward either way."""
    judge = CountingJudge()
    for sim, task, recorded in _sims():
        gold = score_trajectory(sim, task, engine_for("retail"), judge).single_gold
        assert gold.status == "ok" and gold.reward == recorded["reward"], task.id
        if task.evaluation_criteria.nl_assertions:
            assert gold.db_match is False and gold.nl_assertion is None  # not graded: DB 0 decides
    assert judge.calls == 0
    sim, task = _needs_judge()
    gold = score_trajectory(sim, task, engine_for("retail"), None).single_gold
    assert gold.reward is None and gold.status == "no_judge"


def _rows(sim, domain, version, trajectory_id, judge, task):
    """The trial's reward columns and score rows, as a sweep or a rescore stores them."""
    from loophole_scoring import score_simulation
    from loophole_store import reward_rows

    scored = score_simulation(sim, domain, version, engine_for(domain), judge, task)
    return reward_rows(scored, run_id="t", trajectory_id=trajectory_id)


def test_judge_once_per_trajectory_with_cost():
    """An airline task with two gold variants, given NL assertions: one call for the trajectory, whichever
    golds need the verdict (a verdict is about the messages, which every gold shares)."""
    from tau2.data_model.tasks import RewardType

    from gold_variants import variants_for
    from loophole_scoring import OncePerTrajectory

    run = import_results_file(real_run("aide_claude-sonnet-4-5_airline_tau2_1trial.json"))
    item = next(i for i in run.simulations if i.raw["task_id"] == "32")
    sim = SimulationRun.model_validate(item.raw)
    task = load_task_set("airline", "tau2").task("32").model_copy(deep=True)
    task.evaluation_criteria.nl_assertions = list(ASSERTIONS)
    task.evaluation_criteria.reward_basis = [*task.evaluation_criteria.reward_basis, RewardType.NL_ASSERTION]
    judge = CountingJudge()
    trial, scores = _rows(sim, "airline", "tau2", "t:32", judge, task)
    assert len(variants_for("airline", "tau2", "32")) == 2 and len(scores) == 3
    assert trial["reward"] == 1.0 and scores[0]["nl_assertion"] == 1.0
    assert judge.calls == 1 and trial["judge"] == "counting" and trial["judge_cost"] == 0.25
    once = OncePerTrajectory(judge)
    for _ in range(3):  # as the gold and two variants would ask
        assert once.judge(sim.messages, ASSERTIONS).met
    assert judge.calls == 2 and once.cost == 0.25


@pytest.mark.parametrize("case", ["match", "other_texts", "none"])
def test_recorded_judge(case):
    from loophole_scoring import RecordedJudge

    sim, task = _needs_judge()
    recorded = {
        "match": [{"nl_assertion": a, "met": i == 0, "justification": "j"} for i, a in enumerate(ASSERTIONS)],
        "other_texts": [{"nl_assertion": "something else", "met": True}],
        "none": None,
    }[case]
    trial, _ = _rows(sim, "retail", "tau3", "t:0", RecordedJudge(recorded), task)
    if case == "match":
        assert trial["reward"] == 0.0 and trial["judge"] == "recorded" and trial["status"] == "ok"
    else:
        assert trial["reward"] is None and trial["status"] == "judge_error" and "recorded" in trial["reason"]


def test_judge_key_from_environment(monkeypatch):
    sim, task = _needs_judge()
    with ScriptedLLMServer(_grader(True)) as server:
        judge = LitellmJudge("openai/scripted-judge", api_key_env="JUDGE_TEST_KEY", api_base=server.api_base)
        monkeypatch.delenv("JUDGE_TEST_KEY", raising=False)
        gold = score_trajectory(sim, task, engine_for("retail"), judge).single_gold
        assert gold.status == "judge_error" and "JUDGE_TEST_KEY is not set" in gold.reason
        monkeypatch.setenv("JUDGE_TEST_KEY", "sk-from-env")
        assert score_trajectory(sim, task, engine_for("retail"), judge).single_gold.reward == 1.0
        assert len(server.requests) == 1


def test_judge_garbage_is_an_error_not_a_score():
    with ScriptedLLMServer(lambda body: "not json") as server:
        judge = LitellmJudge("openai/scripted-judge", api_base=server.api_base, api_key="sk-test")
        sim, task = _needs_judge()
        with pytest.raises(JudgeError):
            judge.judge(sim.messages, task.evaluation_criteria.nl_assertions)
        gold = score_trajectory(sim, task, engine_for("retail"), judge).single_gold
        assert gold.reward is None and gold.status == "judge_error"

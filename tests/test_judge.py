"""The NL-assertion judge through litellm over real HTTP, against the loopback scripted server."""

from __future__ import annotations

import ast
import json

import pytest
from tau2.data_model.simulation import SimulationRun

from envs import load_task_set
from harness.importers import import_results_file
from harness.rescoring import engine_for
from harness.scoring import JudgeError, LitellmJudge, score_trajectory
from harness.scripted_llm import ScriptedLLMServer
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


@pytest.mark.parametrize("met", [True, False])
def test_judge_decides_nl_component(met):
    with ScriptedLLMServer(_grader(met)) as server:
        judge = LitellmJudge("openai/scripted-judge", api_base=server.api_base, api_key="sk-test")
        for sim, task, _recorded in _sims():
            gold = score_trajectory(sim, task, engine_for("retail"), judge).single_gold
            expected_nl = 1.0 if (met or not task.evaluation_criteria.nl_assertions) else 0.0
            assert gold.status == "ok" and gold.nl_assertion == expected_nl
            assert gold.reward == (1.0 if (expected_nl and gold.db_match) else 0.0)
        assert len(server.requests) >= 1
        assert server.requests[0]["model"] == "scripted-judge"


def test_judge_garbage_is_an_error_not_a_score():
    with ScriptedLLMServer(lambda body: "not json") as server:
        judge = LitellmJudge("openai/scripted-judge", api_base=server.api_base, api_key="sk-test")
        sim, task, _ = next(s for s in _sims() if s[1].evaluation_criteria.nl_assertions)
        with pytest.raises(JudgeError):
            judge.judge(sim.messages, task.evaluation_criteria.nl_assertions)
        gold = score_trajectory(sim, task, engine_for("retail"), judge).single_gold
        assert gold.reward is None and gold.status == "judge_error"

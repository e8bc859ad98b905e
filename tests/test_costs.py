"""Costs: config prices reach litellm (and tau2's per-message cost) over real HTTP; the budget arithmetic."""

from __future__ import annotations

import copy
import math

import pytest

from harness.costs import CostMeter, ModelPrice, register_prices, response_cost, row_cost


@pytest.fixture
def price_table():
    import litellm

    saved = copy.deepcopy(litellm.model_cost)
    yield
    litellm.model_cost.clear()
    litellm.model_cost.update(saved)


def test_config_prices_are_what_litellm_and_tau2_charge(price_table):
    import litellm
    from tau2.data_model.message import UserMessage
    from tau2.utils.llm_utils import generate

    from loophole_scripted_llm import ScriptedLLMServer

    register_prices(
        {"openai/scripted-user": ModelPrice(input_cost_per_token=0.25, output_cost_per_token=0.5)}
    )
    args = {"api_key": "x", "num_retries": 0, "extra_headers": {"X-Harness-Task": "airline/tau2/1"}}
    with ScriptedLLMServer() as server:  # answers with 1 prompt token and 1 completion token
        response = litellm.completion(
            model="openai/scripted-user",
            api_base=server.api_base,
            messages=[{"role": "user", "content": "hi"}],
            **args,
        )
        message = generate(
            "openai/scripted-user",
            [UserMessage(role="user", content="hi")],
            api_base=server.api_base,
            **args,
        )
    assert response_cost(response) == pytest.approx(0.75)
    assert message.cost == pytest.approx(0.75)  # tau2's own count, which the trial rows sum


def test_unpriced_model_costs_nothing_rather_than_failing():
    from litellm import ModelResponse

    assert response_cost(ModelResponse(model="no-such-model-anywhere")) == 0.0


def test_row_cost_sums_agent_user_and_judge():
    assert row_cost({"agent_cost": 1.0, "user_cost": 0.5, "judge_cost": 0.25}) == 1.75
    assert row_cost({"agent_cost": 1.0, "user_cost": None, "judge_cost": math.nan}) == 1.0


def test_budget_holds_back_the_trial_that_could_exceed_it():
    meter = CostMeter(max_cost_usd=1.0)
    assert not meter.would_exceed(in_flight=0)
    assert meter.would_exceed(in_flight=1)  # no trial has a cost yet: one at a time
    meter.add({"agent_cost": 0.1, "user_cost": 0.05})
    meter.add({"agent_cost": 0.2})  # the dearest: 0.2
    assert meter.spent == pytest.approx(0.35)
    assert not meter.would_exceed(in_flight=2)  # 0.35 + 3 x 0.2 = 0.95
    assert meter.would_exceed(in_flight=3)  # 0.35 + 4 x 0.2 = 1.15
    resumed = CostMeter.from_rows([{"agent_cost": 0.5}, {"agent_cost": 0.4}], max_cost_usd=1.0)
    assert resumed.spent == pytest.approx(0.9) and resumed.would_exceed(in_flight=0)
    assert not CostMeter(None, spent=1e9).would_exceed(in_flight=100)

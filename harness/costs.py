"""What a sweep costs: prices for local or custom models, per-row cost, a running total and the budget.

Costs come from litellm's price table (``litellm.completion_cost``), which tau2 already uses for the agent's
and user's messages. A model litellm does not know (a local server, a fine-tune) costs 0 unless the config
prices it: ``prices: {openai/my-model: {input_cost_per_token: 1e-6, output_cost_per_token: 2e-6}}``;
``register_prices`` enters those into litellm's table in every process that makes calls.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

COST_COLUMNS = ("agent_cost", "user_cost", "judge_cost")


class ModelPrice(BaseModel):
    """US dollars per token, as litellm's price table holds them."""

    model_config = ConfigDict(extra="forbid")
    input_cost_per_token: float = Field(ge=0)
    output_cost_per_token: float = Field(ge=0)


def register_prices(prices: Mapping[str, ModelPrice]) -> None:
    """Enter config prices into litellm's table under the model names the config uses."""
    if not prices:
        return
    import litellm

    entries: dict[str, dict[str, Any]] = {}
    for model, price in prices.items():
        provider = model.split("/", 1)[0] if "/" in model else "openai"
        entries[model] = {**price.model_dump(), "litellm_provider": provider, "mode": "chat"}
    litellm.register_model(entries)


def response_cost(response: Any) -> float:
    """The cost of one litellm response; 0.0 for a model without a price (as tau2 counts it)."""
    import litellm

    try:
        return float(litellm.completion_cost(completion_response=response) or 0.0)
    except Exception:  # noqa: BLE001 - an unpriced model: litellm raises; the call still happened
        return 0.0


def row_cost(row: Mapping[str, Any]) -> float:
    """Agent, user and judge cost of one trial row (missing or null: 0)."""
    total = 0.0
    for column in COST_COLUMNS:
        value = row.get(column)
        if value is not None and not (isinstance(value, float) and math.isnan(value)):
            total += float(value)
    return total


class CostMeter:
    """The running total of a sweep and its budget.

    ``would_exceed(in_flight)`` says whether starting one more trial could take the total over
    ``max_cost_usd``: what is spent, plus every trial in flight and the new one at the dearest trial seen
    so far. Until a trial has finished there is no estimate, so only the first trials go out."""

    def __init__(self, max_cost_usd: float | None = None, spent: float = 0.0) -> None:
        self.max_cost_usd = max_cost_usd
        self.spent = spent
        self.trials = 0
        self.dearest = 0.0

    @classmethod
    def from_rows(
        cls, rows: Iterable[Mapping[str, Any]], max_cost_usd: float | None = None
    ) -> CostMeter:
        """A meter that already counts the trials a resumed sweep has on disk."""
        meter = cls(max_cost_usd)
        for row in rows:
            meter.add(row)
        return meter

    def add(self, row: Mapping[str, Any]) -> float:
        cost = row_cost(row)
        self.spent += cost
        self.trials += 1
        self.dearest = max(self.dearest, cost)
        return cost

    @property
    def mean(self) -> float | None:
        return self.spent / self.trials if self.trials else None

    def would_exceed(self, in_flight: int) -> bool:
        if self.max_cost_usd is None:
            return False
        if self.spent >= self.max_cost_usd:
            return True
        if not self.trials:
            return in_flight > 0  # no estimate yet: one trial at a time until one has a cost
        return self.spent + (in_flight + 1) * self.dearest > self.max_cost_usd

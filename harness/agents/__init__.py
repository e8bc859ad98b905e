"""Agents and user simulators the sweep runner builds: tau2's own, with the failure policy around their LLM calls."""

from harness.agents._retry import (
    AgentFailure,
    InfraError,
    RetryCounter,
    RetryingLLMAgent,
    RetryingUserSimulator,
    RetryPolicy,
    cause,
)

__all__ = [
    "AgentFailure", "InfraError", "RetryCounter", "RetryPolicy", "RetryingLLMAgent", "RetryingUserSimulator", "cause",
]

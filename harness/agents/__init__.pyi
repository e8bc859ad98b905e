"""Agents and user simulators the sweep runner builds: tau2's own, with the failure policy around their LLM calls."""

from ._policy import (
    RetryPolicy,
)
from ._retry import (
    AgentFailure,
    InfraError,
    RetryCounter,
    RetryingLLMAgent,
    RetryingUserSimulator,
    cause,
)

__all__ = [
    "AgentFailure",
    "cause",
    "InfraError",
    "RetryCounter",
    "RetryingLLMAgent",
    "RetryingUserSimulator",
    "RetryPolicy",
]

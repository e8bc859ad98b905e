"""Agents and user simulators the sweep runner builds: tau2's own, with retries around their LLM calls."""

from harness.agents._retry import (
    InfraError,
    RetryCounter,
    RetryingLLMAgent,
    RetryingUserSimulator,
    RetryPolicy,
)

__all__ = ["InfraError", "RetryCounter", "RetryPolicy", "RetryingLLMAgent", "RetryingUserSimulator"]

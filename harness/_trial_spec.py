"""What a worker needs for one trial: plain data, built on the driver without tau2 or litellm (workers
import those; the driver of an embedded sweep does not, which keeps seconds off the main job's start)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.agents import RetryPolicy
from harness.config import AgentSpec, UserSpec


@dataclass
class TrialSpec:
    """Everything a worker needs for one trial (picklable; secrets are resolved in the worker)."""

    key: str
    seed: int
    domain: str
    version: str
    task_id: str
    trial: int
    agent_name: str
    agent: AgentSpec
    user: UserSpec
    max_steps: int
    max_errors: int
    retry: RetryPolicy
    timeout_s: float
    policy: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

"""How often and how patiently an LLM call is retried: plain data, so that the sweep's driver builds trial
specs without importing litellm or tau2 (their import is seconds of the main job's start on 2 cores)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class RetryPolicy:
    max_attempts: int = 6
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0
    breaker_after: int = (
        5  # an endpoint's first attempts in a process that all fail: a configuration error
    )

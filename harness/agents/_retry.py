"""Retries with exponential backoff around tau2's LLM calls.

tau2's ``LLMAgent`` and ``UserSimulator`` append the incoming message to their state and then call the
LLM. A retry must not append it twice, so the state is cut back to its length before the attempt.
Errors that are the provider's (429, 5xx, timeouts, connection errors, malformed tool-call JSON) are
retried; when the attempts run out the trial ends as ``infra_error``, never as an agent failure.
"""

from __future__ import annotations

import json
import random
import threading
import time
from dataclasses import dataclass, field
from typing import Any

import litellm
from tau2.agent.llm_agent import LLMAgent
from tau2.user.user_simulator import UserSimulator

from harness.ratelimit import RATE_LIMITER, RateLimitedTooLong

TRANSIENT: tuple[type[BaseException], ...] = (
    litellm.RateLimitError,
    litellm.InternalServerError,
    litellm.ServiceUnavailableError,
    litellm.APIConnectionError,
    litellm.Timeout,
    litellm.APIError,
    json.JSONDecodeError,  # tau2 parses tool-call arguments with json.loads
)


class InfraError(RuntimeError):
    """The provider kept failing after every retry: the trial is an infra error, not an agent error."""


@dataclass
class RetryPolicy:
    max_attempts: int = 6
    base_delay_s: float = 0.5
    max_delay_s: float = 20.0

    def delay(self, attempt: int, rng: random.Random) -> float:
        return min(self.max_delay_s, self.base_delay_s * 2**attempt) * (0.5 + rng.random() / 2)


@dataclass
class RetryCounter:
    retries: int = 0
    last_error: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, error: BaseException) -> None:
        with self._lock:
            self.retries += 1
            self.last_error = f"{type(error).__name__}: {str(error)[:200]}"


def _with_retries(
    call: Any, state: Any, policy: RetryPolicy, counter: RetryCounter, rng: random.Random, who: str, endpoint: str
):
    kept = len(state.messages)
    for attempt in range(policy.max_attempts):
        try:
            # paced per endpoint; a 429 is waited out (Retry-After) and sent again, not a failed attempt
            return RATE_LIMITER.call(endpoint, call)
        except RateLimitedTooLong as exc:
            del state.messages[kept:]
            raise InfraError(f"{who}: {exc}") from None
        except TRANSIENT as exc:
            del state.messages[kept:]
            if attempt + 1 >= policy.max_attempts:
                raise InfraError(
                    f"{who}: {policy.max_attempts} attempts failed; last: {type(exc).__name__}: {str(exc)[:200]}"
                ) from None
            counter.add(exc)
            time.sleep(policy.delay(attempt, rng))
    raise AssertionError("unreachable")


class RetryingLLMAgent(LLMAgent):
    def __init__(self, *args: Any, policy: RetryPolicy, counter: RetryCounter, seed: int = 0, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._policy, self._counter, self._rng = policy, counter, random.Random(seed)

    def generate_next_message(self, message, state):  # type: ignore[no-untyped-def]
        kept = len(state.messages)
        return _with_retries(
            lambda: super(RetryingLLMAgent, self).generate_next_message(message, _cut(state, kept)),
            state, self._policy, self._counter, self._rng, "agent", _endpoint(self),
        )


class RetryingUserSimulator(UserSimulator):
    def __init__(self, *args: Any, policy: RetryPolicy, counter: RetryCounter, seed: int = 0, **kwargs: Any):
        super().__init__(*args, **kwargs)
        self._policy, self._counter, self._rng = policy, counter, random.Random(seed + 1)

    def generate_next_message(self, message, state):  # type: ignore[no-untyped-def]
        kept = len(state.messages)
        return _with_retries(
            lambda: super(RetryingUserSimulator, self).generate_next_message(message, _cut(state, kept)),
            state, self._policy, self._counter, self._rng, "user simulator", _endpoint(self),
        )


def _endpoint(llm_user: Any) -> str:
    """The rate limiter's key: one provider endpoint and model."""
    return f"{llm_user.llm_args.get('api_base') or 'default endpoint'} (model {llm_user.llm})"


def _cut(state: Any, kept: int) -> Any:
    del state.messages[kept:]
    return state

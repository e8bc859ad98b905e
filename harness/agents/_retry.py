"""tau2's LLM calls under the failure policy (README, "Failure policy"): retries, agent failures, endpoints.

Every exception of an LLM call is sorted into one of three causes:

- the model's (malformed tool-call JSON, context overflow, a refused prompt): ``AgentFailure``, no retry;
  the trial is the agent's failure (reward 0, counted);
- the infrastructure's (429, 5xx, timeouts, dropped connections): retried with exponential backoff and
  jitter (tenacity); when the attempts run out, ``InfraError`` (excluded from means, retried on resume);
- the configuration's (bad key, unknown model, bad request, or an endpoint whose first ``breaker_after``
  attempts in this process all failed, such as a refused connection): ``EndpointError``, no retry; the
  sweep stops.

tau2's ``LLMAgent`` and ``UserSimulator`` append the incoming message to their state and then call the
LLM. A retry must not append it twice, so the state is cut back to its length before each attempt.
"""

from __future__ import annotations

import json
import random
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import litellm
import tenacity
from tau2.agent.llm_agent import LLMAgent
from tau2.user.user_simulator import UserSimulator

from harness.agents._policy import RetryPolicy
from harness.errors import EndpointError
from harness.ratelimit import RATE_LIMITER, RateLimitedTooLong
from loophole_base import HarnessError

MODEL_CAUSED: tuple[type[BaseException], ...] = (
    litellm.ContextWindowExceededError,
    litellm.ContentPolicyViolationError,
    json.JSONDecodeError,  # tau2 parses tool-call arguments with json.loads
)
CONFIG_CAUSED: tuple[type[BaseException], ...] = (
    litellm.AuthenticationError,
    litellm.PermissionDeniedError,
    litellm.NotFoundError,
    litellm.BadRequestError,  # after the model-caused subclasses above
    litellm.UnprocessableEntityError,
)
TRANSIENT: tuple[type[BaseException], ...] = (
    litellm.RateLimitError,
    litellm.InternalServerError,
    litellm.ServiceUnavailableError,
    litellm.APIConnectionError,  # includes timeouts
    litellm.APIError,
)


class InfraError(HarnessError):
    """The provider kept failing after every retry: the trial is an infra error, not an agent error."""


class AgentFailure(HarnessError):
    """The model itself failed (malformed tool call, context overflow): the agent's failure, reward 0."""


def cause(exc: BaseException) -> str:
    """``model``, ``config``, ``transient`` or ``other`` (a bug: not retried, recorded as ``error``)."""
    if isinstance(exc, MODEL_CAUSED):
        return "model"
    if isinstance(exc, CONFIG_CAUSED):
        return "config"
    if isinstance(exc, TRANSIENT):
        return "transient"
    return "other"


@dataclass
class RetryCounter:
    retries: int = 0
    last_error: str | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def add(self, error: BaseException) -> None:
        with self._lock:
            self.retries += 1
            self.last_error = _describe(error)


class _Endpoints:
    """Per process: attempts and successes of each endpoint (model and api_base), for the circuit breaker."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.failures: Counter[str] = Counter()
        self.healthy: set[str] = set()

    def success(self, endpoint: str) -> None:
        with self._lock:
            self.healthy.add(endpoint)

    def failure(self, endpoint: str) -> int:
        """Failures so far of an endpoint that never answered (0 once it has)."""
        with self._lock:
            if endpoint in self.healthy:
                return 0
            self.failures[endpoint] += 1
            return self.failures[endpoint]


ENDPOINTS = _Endpoints()


def endpoint_of(model: str | None, llm_args: dict[str, Any]) -> str:
    """The model and where it is called, as the endpoint sentence names them (and the breaker's key)."""
    base = llm_args.get("api_base") or "its provider's default endpoint"
    return f"model {model} at {base}"


CHECK_CONFIG = "check the model's api_key_env and args.api_base in the sweep config"


def remedy_of(model: str | None, llm_args: dict[str, Any]) -> str:
    """What the user sets to reach the model: the variables litellm finds missing for its provider (named
    whole, e.g. OPENAI_API_KEY), else the config's key and address."""
    if model and not llm_args.get("api_key") and not llm_args.get("api_base"):
        try:
            missing = litellm.validate_environment(model=model).get("missing_keys") or []
        except Exception:  # noqa: BLE001 - an unknown provider: the config is what to check
            missing = []
        if missing:
            return f"set {' or '.join(missing)} (or the model's api_key_env in the sweep config)"
    return CHECK_CONFIG


def reason_of(exc: BaseException) -> str:
    """The provider's reason in a few words, never cut mid-word: litellm's repeated class prefixes dropped,
    the first sentence kept, at most 160 characters at a word boundary."""
    text = " ".join(str(exc).split())
    while (head := text.split(": ", 1))[0].replace("litellm.", "").isidentifier() and len(head) == 2:
        text = head[1]  # "litellm.InternalServerError: InternalServerError: OpenAIException - …"
    text = text.split(". ", 1)[0].rstrip(".")
    if len(text) > 160:
        text = text[:160].rsplit(" ", 1)[0] + " …"
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def call_with_policy(
    call: Any,
    state: Any,
    policy: RetryPolicy,
    counter: RetryCounter,
    rng: random.Random,
    who: str,
    endpoint: str,
    remedy: str = CHECK_CONFIG,
) -> Any:
    kept = len(state.messages)

    def once() -> Any:
        del state.messages[kept:]
        return call()

    def attempt() -> Any:
        try:
            # paced per endpoint; a 429 is waited out (Retry-After) and sent again, not a failed attempt
            result = RATE_LIMITER.call(endpoint, once)
        except RateLimitedTooLong as exc:
            del state.messages[kept:]
            raise InfraError(f"{who}: {exc}") from None
        except BaseException as exc:
            kind = cause(exc)
            if kind == "model":
                raise AgentFailure(f"{who}: the model failed: {_describe(exc)}") from None
            if kind == "config":
                raise EndpointError(f"{endpoint} cannot be reached ({reason_of(exc)}): {remedy}") from None
            breaker = min(policy.breaker_after, policy.max_attempts)
            if kind == "transient" and ENDPOINTS.failure(endpoint) >= breaker:
                raise EndpointError(
                    f"{endpoint} cannot be reached (its first {breaker} attempts all failed, the last with "
                    f"{reason_of(exc)}): {remedy}"
                ) from None
            raise
        ENDPOINTS.success(endpoint)
        return result

    def before_sleep(retry_state: tenacity.RetryCallState) -> None:
        exc = retry_state.outcome.exception() if retry_state.outcome is not None else None
        if exc is not None:
            counter.add(exc)

    def wait(retry_state: tenacity.RetryCallState) -> float:
        step = min(policy.max_delay_s, policy.base_delay_s * 2 ** (retry_state.attempt_number - 1))
        return step * (0.5 + rng.random() / 2)  # seeded jitter: a trial's waits are reproducible

    retrying = tenacity.Retrying(
        stop=tenacity.stop_after_attempt(policy.max_attempts),
        wait=wait,
        retry=tenacity.retry_if_exception(lambda e: cause(e) == "transient"),
        before_sleep=before_sleep,
        reraise=True,
    )
    try:
        return retrying(attempt)
    except TRANSIENT as exc:
        del state.messages[kept:]
        raise InfraError(
            f"{who}: {policy.max_attempts} attempts failed; last: {_describe(exc)}"
        ) from None


class RetryingLLMAgent(LLMAgent):
    def __init__(
        self, *args: Any, policy: RetryPolicy, counter: RetryCounter, seed: int = 0, **kwargs: Any
    ):
        super().__init__(*args, **kwargs)
        self._policy, self._counter, self._rng = policy, counter, random.Random(seed)
        self._endpoint = endpoint_of(self.llm, self.llm_args)
        self._remedy = remedy_of(self.llm, self.llm_args)

    def generate_next_message(self, message, state):
        return call_with_policy(
            lambda: super(RetryingLLMAgent, self).generate_next_message(message, state),
            state,
            self._policy,
            self._counter,
            self._rng,
            "agent",
            self._endpoint,
            self._remedy,
        )


class RetryingUserSimulator(UserSimulator):
    def __init__(
        self, *args: Any, policy: RetryPolicy, counter: RetryCounter, seed: int = 0, **kwargs: Any
    ):
        super().__init__(*args, **kwargs)
        self._policy, self._counter, self._rng = policy, counter, random.Random(seed + 1)
        self._endpoint = endpoint_of(self.llm, self.llm_args)
        self._remedy = remedy_of(self.llm, self.llm_args)

    def generate_next_message(self, message, state):
        return call_with_policy(
            lambda: super(RetryingUserSimulator, self).generate_next_message(message, state),
            state,
            self._policy,
            self._counter,
            self._rng,
            "user simulator",
            self._endpoint,
            self._remedy,
        )

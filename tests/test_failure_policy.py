"""The failure policy around LLM calls (stubbed calls: the e2e tests drive the real ones over HTTP)."""

from __future__ import annotations

import json
import random
from types import SimpleNamespace

import httpx
import litellm

from harness.agents._retry import (
    ENDPOINTS,
    AgentFailure,
    InfraError,
    RetryCounter,
    RetryPolicy,
    call_with_policy,
)
from harness.errors import EndpointError

POLICY = RetryPolicy(max_attempts=4, base_delay_s=0.0, max_delay_s=0.0, breaker_after=3)


def _run(errors: list[BaseException | None], endpoint: str):
    """Call a stub that raises ``errors`` in turn (None: answer); returns (result or exception, state, counter)."""
    state = SimpleNamespace(messages=["kept"])
    counter = RetryCounter()
    calls = iter(errors)

    def call():
        state.messages.append("sent")  # as tau2 appends the incoming message before calling the LLM
        err = next(calls)
        if err is not None:
            raise err
        return "answer"

    try:
        out = call_with_policy(call, state, POLICY, counter, random.Random(0), "agent", endpoint)
    except Exception as exc:  # noqa: BLE001
        out = exc
    return out, state, counter


def _status(code: int, cls):
    response = httpx.Response(code, request=httpx.Request("POST", "http://x"))
    return cls(message="m", llm_provider="openai", model="m", response=response)


def _healthy(name: str) -> str:
    ENDPOINTS.success(name)
    return name


def test_transient_errors_are_retried_without_sending_a_message_twice():
    out, state, counter = _run([_status(500, litellm.InternalServerError), None], _healthy("e1"))
    assert out == "answer" and counter.retries == 1 and state.messages == ["kept", "sent"]


def test_exhausted_retries_are_an_infra_error():
    # 5xx: a 429 is not a failed attempt at all (the rate limiter waits it out; tests/test_ratelimit.py)
    out, state, counter = _run([_status(500, litellm.InternalServerError)] * 4, _healthy("e2"))
    assert isinstance(out, InfraError) and "4 attempts failed" in str(out) and counter.retries == 3
    assert state.messages == ["kept"]


def test_malformed_tool_json_is_the_agents_failure_at_once():
    bad = json.JSONDecodeError("Expecting ',' delimiter", '{"a": 1', 7)
    out, _, counter = _run([bad, None], _healthy("e3"))
    assert isinstance(out, AgentFailure) and "JSONDecodeError" in str(out) and counter.retries == 0


def test_context_overflow_is_the_agents_failure():
    overflow = litellm.ContextWindowExceededError(
        message="too long", model="m", llm_provider="openai"
    )
    out, _, _ = _run([overflow], _healthy("e4"))
    assert isinstance(out, AgentFailure)


def test_a_bad_key_is_an_endpoint_error_at_once():
    out, _, counter = _run([_status(401, litellm.AuthenticationError), None], _healthy("e5"))
    assert isinstance(out, EndpointError) and "e5" in str(out) and counter.retries == 0


def test_circuit_breaker_trips_when_the_first_attempts_of_an_endpoint_all_fail():
    out, _, counter = _run([_status(500, litellm.InternalServerError)] * 4, "never-answered")
    assert (
        isinstance(out, EndpointError)
        and "first 3 attempts all failed" in str(out)
        and counter.retries == 2
    )
    # an endpoint that has answered once is not broken by the same failures: they are retried
    out, _, _ = _run([_status(500, litellm.InternalServerError)] * 3 + [None], _healthy("answered"))
    assert out == "answer"

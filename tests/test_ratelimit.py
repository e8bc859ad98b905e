"""The adaptive rate limiter (pacing arithmetic, Retry-After, 429s waited out) and fair shares of slots;
one test over real HTTP through litellm against the scripted server's rate limit."""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

import pytest

from harness.ratelimit import (
    AdaptiveRateLimiter,
    FairShare,
    ModelRate,
    RateLimitedTooLong,
    retry_after_s,
)


class Refused(Exception):
    def __init__(self, headers: dict[str, str]) -> None:
        self.response = SimpleNamespace(headers=headers)


def test_unpaced_until_the_first_429_then_paced_under_the_admitted_rate():
    m = ModelRate()
    assert all(m.admit(0.01 * i) == 0.0 for i in range(50))  # no 429 yet: nothing is held back
    for i in range(40):  # the provider admitted 20/s for two seconds
        m.on_success(0.05 * i)
    m.on_rate_limited(2.0, retry_after=0.3)
    assert m.rate == pytest.approx(0.85 * 20, rel=0.05)
    assert m.admit(2.0) == pytest.approx(0.3)  # Retry-After honoured
    assert m.admit(2.3) == 0.0
    assert m.admit(2.3) == pytest.approx(1 / m.rate)  # then one request per 1/rate


def test_one_back_off_per_overshoot_and_probing_upward():
    m = ModelRate(rate=10.0)
    for i in range(20):
        m.on_success(0.1 * i)
    m.on_rate_limited(2.0, None)
    after_first = m.rate
    m.on_rate_limited(2.2, None)
    m.on_rate_limited(2.5, None)
    assert (
        m.rate == after_first == pytest.approx(0.85 * 10, rel=0.05)
    )  # the same overshoot: one back-off
    m.on_rate_limited(3.1, None)
    assert m.rate < after_first  # a second later: a new overshoot
    before = m.rate
    for i in range(round(before)):  # one second of successes at the rate
        m.on_success(4 + i / before)
    assert m.rate == pytest.approx(before * 1.1, rel=0.02)


def test_retry_after_headers():
    assert retry_after_s(Refused({"retry-after-ms": "250", "retry-after": "1"})) == 0.25
    assert retry_after_s(Refused({"retry-after": "2"})) == 2.0
    assert (
        50
        < retry_after_s(
            Refused(
                {
                    "retry-after": time.strftime(
                        "%a, %d %b %Y %H:%M:%S GMT", time.gmtime(time.time() + 60)
                    )
                }
            )
        )
        <= 60
    )
    assert retry_after_s(Refused({})) is None and retry_after_s(ValueError()) is None


def test_a_pause_longer_than_a_second_is_not_a_provider_that_admits_nothing():
    m = ModelRate()
    for i in range(30):  # 10 a second, then nothing for 5 s: the sweep waited on slow answers
        m.on_success(0.1 * i)
    m.on_rate_limited(8.0, retry_after=None)
    assert m.rate == pytest.approx(0.85 * 10, rel=0.05)
    slow = ModelRate()
    for i in range(5):  # answers 4 s apart: a quarter of a call a second, measured over hours as over seconds
        slow.on_success(4.0 * i)
    slow.on_rate_limited(17.0, retry_after=None)
    assert slow.rate == pytest.approx(0.85 * 0.25, rel=0.05)
    burst = ModelRate()
    for i in range(10):  # ten at once: at most ten a second
        burst.on_success(1.0 + 0.001 * i)
    assert burst.measured_rate() == 10.0 and ModelRate().measured_rate() == 0.0


def test_429s_are_waited_out_other_errors_are_not():
    # a model refused before any success is paced at min_rate: 20 a second keeps the five waits short
    limiter = AdaptiveRateLimiter(is_rate_limit=lambda e: isinstance(e, Refused), max_waits=5, min_rate=20.0)
    answers = iter([Refused({"retry-after-ms": "10"}), Refused({"retry-after-ms": "10"}), "ok"])

    def flaky() -> str:
        answer = next(answers)
        if isinstance(answer, Exception):
            raise answer
        return answer

    assert limiter.call("m", flaky) == "ok" and limiter.waits["m"] == 2
    with pytest.raises(KeyError):
        limiter.call("m", lambda: {}["x"])
    with pytest.raises(RateLimitedTooLong):
        limiter.call("other", lambda: (_ for _ in ()).throw(Refused({"retry-after-ms": "1"})))
    assert limiter.waits["other"] == 5


def test_fair_share_keeps_a_blocked_model_to_its_share():
    share = FairShare(
        [("slow", i) for i in range(10)] + [("fast", i) for i in range(10)], group_of=lambda x: x[0]
    )
    taken = [share.pop() for _ in range(4)]
    assert sorted(g for g, _ in taken) == ["fast", "fast", "slow", "slow"]
    # the slow model's trials never finish; the fast model's do, and the freed slots go to the fast model
    for _ in range(6):
        fast = next(t for t in taken if t[0] == "fast")
        taken.remove(fast)
        share.done(fast)
        taken.append(share.pop())
    assert share.held == {"slow": 2, "fast": 2} and len(share) == 20 - 10
    assert share.pop(allowed=lambda g: g != "fast")[0] == "slow"
    assert len(share.clear()) == 9 and share.pop() is None


def test_paced_calls_through_litellm_use_the_allowed_rate_and_lose_nothing(monkeypatch: pytest.MonkeyPatch):
    import litellm

    from loophole_scripted_llm import Faults, ScriptedLLMServer

    rate, calls = 10, 40

    def run(limiter: AdaptiveRateLimiter, faults: Faults) -> tuple[ScriptedLLMServer, list[str], float]:
        with ScriptedLLMServer(faults=faults) as server:

            def one(_: int) -> str:
                return limiter.call(
                    "scripted-user",
                    lambda: (
                        litellm.completion(
                            model="openai/scripted-user",
                            api_base=server.api_base,
                            api_key="x",
                            num_retries=0,
                            messages=[{"role": "user", "content": "hi"}],
                            extra_headers={"X-Harness-Task": "airline/tau2/1"},
                        )
                        .choices[0]
                        .message.content
                    ),
                )

            t0 = time.perf_counter()
            with ThreadPoolExecutor(8) as pool:
                answers = list(pool.map(one, range(calls)))
            return server, answers, time.perf_counter() - t0

    # the same calls with no limit first, once litellm is warm (its first call in a process imports for
    # seconds): what litellm and this machine cost them (a loaded machine's share)
    run(AdaptiveRateLimiter(), Faults(latency_s=0.02))
    _, _, floor = run(AdaptiveRateLimiter(), Faults(latency_s=0.02))
    paced = AdaptiveRateLimiter()
    state = paced.state("scripted-user")
    rates_set: list[float | None] = []  # the sending rate each 429 read through litellm left behind
    back_off = state.on_rate_limited

    def recorded(now: float, retry_after: float | None) -> None:
        back_off(now, retry_after)
        rates_set.append(state.rate)

    monkeypatch.setattr(state, "on_rate_limited", recorded)
    server, answers, elapsed = run(paced, Faults(rate_limit_rps=rate, latency_s=0.02))
    assert len(answers) == calls and all(answers) and server.answered["scripted-user"] == calls
    # the unpaced burst overran the provider's bucket, and every 429 came back through litellm as a back-off
    assert rates_set and len(rates_set) == server.counts["fault_rate_limited"] == paced.waits["scripted-user"]
    # the sending rate stays near what the provider admits: a back-off takes 85% of the admitted rate, which a
    # slow machine may measure lower; a limiter that fell towards its floor (0.2 a second, a pause read as a
    # provider admitting nothing) sets a rate 50 times lower. A rate is the limiter's own reading, so a loaded
    # machine moves it far less than it moves the wall clock (one CI run took 7.2 s where a quiet one takes 3.2)
    assert all(r is not None and r >= rate / 4 for r in rates_set), rates_set
    # and the wall clock only as a gross check: at the allowed rate the 30 calls past the first second's bucket
    # take 3 s over the unlimited run's time; at the floor's rate they take 150 s
    bound = (calls - rate) / rate
    assert elapsed - floor <= 5 * bound, (
        f"{calls} calls took {elapsed:.1f}s ({floor:.1f}s with no limit); at the allowed rate {bound:.1f}s"
    )
    # paced, not hammering: unpaced threads that only honour Retry-After draw ~7 refusals per admitted call
    assert server.counts["fault_rate_limited"] <= calls / 2

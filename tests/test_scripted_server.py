"""The scripted OpenAI-compatible server: routes, bad bodies, overlapping requests, seeded faults."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx
import pytest

from loophole_scripted_llm import Faults, ScriptedLLMServer

TASK = {"X-Harness-Task": "airline/tau2/1"}


def _user_turn(api_base: str) -> httpx.Response:
    return httpx.post(f"{api_base}/chat/completions", json={"model": "scripted-user", "messages": []},
                      headers=TASK, timeout=10)


def test_bad_body_and_unknown_route_are_client_errors():
    with ScriptedLLMServer() as server:
        bad = httpx.post(f"{server.api_base}/chat/completions", content=b"{not json", timeout=10)
        assert bad.status_code == 400 and "not JSON" in bad.json()["error"]["message"]
        assert httpx.post(f"{server.api_base}/models", json={}, timeout=10).status_code == 404
        ok = _user_turn(server.api_base)
        assert ok.status_code == 200 and ok.json()["choices"][0]["message"]["content"]
        assert server.counts["user"] == 1  # only the request that reached a role is counted as one


def test_requests_overlap_and_the_most_in_flight_is_recorded():
    with ScriptedLLMServer(faults=Faults(latency_s=0.3)) as server, ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(lambda _: _user_turn(server.api_base), range(4)))
    assert all(a.status_code == 200 for a in answers)
    assert server.max_inflight == 4 and server.inflight == 0


def test_faults_follow_the_seed():
    def statuses() -> list[int]:
        with ScriptedLLMServer(faults=Faults(rate_429=0.3, rate_500=0.3, seed=11)) as server:
            return [_user_turn(server.api_base).status_code for _ in range(20)]

    first = statuses()
    assert first == statuses() and {429, 500, 200} <= set(first)


def test_rate_limit_per_model_refuses_above_the_rate_with_retry_after():
    now = [100.0]  # the server's clock, moved by hand: how slowly a loaded machine sends the burst refills nothing

    def turn(client: httpx.Client, model: str) -> httpx.Response:
        return client.post(f"{server.api_base}/chat/completions", json={"model": model, "messages": []},
                           headers=TASK, timeout=10)

    with ScriptedLLMServer(faults=Faults(rate_limit_rps=5)) as server, httpx.Client() as client:
        server.clock = lambda: now[0]
        burst = [turn(client, "scripted-user").status_code for _ in range(12)]
        other = turn(client, "scripted-agent")  # each model has its own allowance
        now[0] += 0.1  # half a token back
        refused = turn(client, "scripted-user")
        assert refused.status_code == 429 and refused.headers["Retry-After"] == "1"
        wait_ms = float(refused.headers["retry-after-ms"])
        assert wait_ms == pytest.approx(100.0)  # the other half, at 5 a second
        now[0] += wait_ms / 1000 + 0.001
        after = turn(client, "scripted-user")
        again = turn(client, "scripted-user")  # that token spent: refused again
    assert burst == [200] * 5 + [429] * 7  # one second's worth, then refused
    assert other.status_code == 200 and after.status_code == 200 and again.status_code == 429
    assert server.answered["scripted-user"] == 6
    assert server.counts["fault_rate_limited"] == 7 + 1 + 1


def test_each_models_first_requests_are_clean_then_faults_apply():
    with ScriptedLLMServer(faults=Faults(rate_500=1.0, clean_first=2)) as server, httpx.Client() as client:
        def turn(model: str) -> int:
            return client.post(f"{server.api_base}/chat/completions", json={"model": model, "messages": []},
                               headers=TASK, timeout=10).status_code

        users = [turn("scripted-user") for _ in range(3)]
        agent = [turn("scripted-agent") for _ in range(3)]  # counted apart from the user's
    assert users == [200, 200, 500] and agent == [200, 200, 500]


def test_the_gate_holds_answers_until_it_opens():
    import threading
    import time

    opened = threading.Event()
    with ScriptedLLMServer() as server, ThreadPoolExecutor(1) as pool:
        server.gate = opened.is_set
        pending = pool.submit(_user_turn, server.api_base)
        time.sleep(0.5)
        assert not pending.done() and server.answered.total() == 0  # held
        opened.set()
        assert pending.result(timeout=10).status_code == 200

"""The scripted OpenAI-compatible server: routes, bad bodies, overlapping requests, seeded faults."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import httpx

from harness.scripted_llm import Faults, ScriptedLLMServer

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

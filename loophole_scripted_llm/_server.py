"""``ScriptedLLMServer``: an OpenAI-compatible ``POST /v1/chat/completions`` on 127.0.0.1.

By default it serves the scripted roles (``_roles``); a custom ``responder(body) -> str | dict`` can
replace them (the judge tests do). ``Faults`` inject latency, 429s, 500s, timeouts and malformed
tool-call JSON at set rates, from a seeded generator, and can hold each model to an allowed request rate
(above it: 429 with ``Retry-After``, as providers do), and answer each model's first requests cleanly. Every
request is counted per role. A test can hold answers to its own pace (``gate``).
"""

from __future__ import annotations

import asyncio
import json
import math
import random
import socket
import threading
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from aiohttp import web

from loophole_scripted_llm._roles import agent_reply, task_from_conversation, user_reply

Responder = Callable[[dict], "str | dict[str, Any]"]


def _role(model: str) -> str:
    return "agent" if model.startswith("scripted-agent") else "user" if model.startswith("scripted-user") else "custom"


@dataclass
class Faults:
    latency_s: float = 0.0
    rate_429: float = 0.0
    rate_500: float = 0.0
    rate_timeout: float = 0.0
    timeout_sleep_s: float = 5.0
    rate_malformed: float = 0.0
    seed: int = 0
    # Allowed requests per second for each model (0: unlimited): a token bucket holding one second's worth.
    # A request above the rate is answered at once with 429 and ``Retry-After`` (the wait for the next token).
    rate_limit_rps: float = 0.0
    # The first N requests to each model are answered without a fault (no 429/500/timeout, no malformed JSON):
    # a provider that answered before it faltered, which the harness's circuit breaker (an endpoint whose first
    # attempts all failed stops the sweep) never counts against.
    clean_first: int = 0


class _TokenBucket:
    """``rate`` tokens a second, at most ``max(1, rate)`` saved up: one model's allowed request rate."""

    def __init__(self, rate: float, clock: Callable[[], float]) -> None:
        self.rate = rate
        self.capacity = max(1.0, rate)
        self.tokens = self.capacity
        self.clock = clock
        self.stamp = clock()

    def take(self) -> float:
        """0.0 when the request may go ahead (a token is spent), else the seconds until a token is there."""
        now = self.clock()
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate)
        self.stamp = now
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return 0.0
        return (1.0 - self.tokens) / self.rate


class ScriptedLLMServer:
    """aiohttp on its own event-loop thread: one thread serves every connection, HTTP is parsed in C and latency
    is an ``asyncio.sleep``, so the server costs the machine little next to the harness it stands in for.
    Answers are computed on the loop: responders must be quick (the scripted roles take microseconds)."""

    def __init__(
        self,
        responder: Responder | None = None,
        faults: Faults | None = None,
        version_hint: str = "tau2",
        keep_requests: int = 1000,
    ) -> None:
        self.responder = responder
        self.version_hint = version_hint
        self.faults = faults or Faults()
        self.requests: deque[dict] = deque(maxlen=keep_requests)  # the latest bodies; ``counts`` has every one
        self.counts: Counter[str] = Counter()
        self.answered: Counter[str] = Counter()  # completions answered 200, per model (the rate limit's use)
        self.counts_by_model: Counter[str] = Counter()  # requests past the rate limit, per model (``clean_first``)
        self._buckets: dict[str, _TokenBucket] = {}
        self.inflight = 0
        self.max_inflight = 0  # requests being answered at once, at most: a check on the client's concurrency
        # The rate limit's clock (seconds): a test sets its own, so a loaded machine's slow requests refill no token.
        self.clock: Callable[[], float] = time.monotonic
        # Checked on the server's thread before each answer (after latency): the answer waits while it is false.
        self.gate: Callable[[], bool] | None = None
        self._rng = random.Random(self.faults.seed)
        self._lock = threading.Lock()
        self._sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind(("127.0.0.1", 0))  # loopback only
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, daemon=True, name="scripted-llm")
        self._runner: web.AppRunner | None = None

    async def _serve(self, request: web.Request) -> web.Response:
        if not request.path.rstrip("/").endswith("chat/completions"):
            return web.json_response({"error": {"message": f"no route {request.path}"}}, status=404)
        try:
            body = json.loads(await request.read() or b"{}")
        except ValueError as exc:
            return web.json_response({"error": {"message": f"body is not JSON: {exc}"}}, status=400)
        model = str(body.get("model", ""))
        role = _role(model)
        with self._lock:
            self.requests.append(body)
            self.counts[role] += 1
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
        try:
            f = self.faults
            wait = self._rate_limited(model)
            if wait:  # refused before any work, as a provider's gateway does
                return web.json_response(
                    {"error": {"message": f"rate limit of {f.rate_limit_rps:g}/s for {model} reached (scripted)",
                               "type": "rate_limit_error"}},
                    status=429,
                    headers={"Retry-After": str(max(1, math.ceil(wait))), "retry-after-ms": f"{wait * 1000:.0f}"},
                )
            if f.latency_s:
                await asyncio.sleep(f.latency_s)
            while self.gate is not None and not self.gate():  # a test holds its client to the test's own pace
                await asyncio.sleep(0.01)
            with self._lock:
                clean = self.counts_by_model[model] < f.clean_first
                self.counts_by_model[model] += 1
            fault = None if clean else self._fault()
            if fault == "timeout":
                await asyncio.sleep(f.timeout_sleep_s)  # the client gives up first; the answer below goes nowhere
            status, payload = (
                fault if isinstance(fault, tuple)
                else self.handle(body, request.headers.get("X-Harness-Task"), malformed_ok=not clean)
            )
            if status == 200:
                with self._lock:
                    self.answered[model] += 1
            return web.json_response(payload, status=status)
        finally:
            with self._lock:
                self.inflight -= 1

    def _rate_limited(self, model: str) -> float:
        """Seconds the client should wait (the request is refused), or 0.0 when the model's rate allows it."""
        if self.faults.rate_limit_rps <= 0:
            return 0.0
        with self._lock:
            bucket = self._buckets.setdefault(model, _TokenBucket(self.faults.rate_limit_rps, self.clock))
            wait = bucket.take()
            if wait:
                self.counts["fault_rate_limited"] += 1
        return wait

    def _fault(self) -> tuple[int, dict] | str | None:
        f = self.faults
        draw = self._draw()
        if draw < f.rate_429:
            self.counts["fault_429"] += 1
            return 429, {"error": {"message": "rate limited (scripted)", "type": "rate_limit_error"}}
        draw -= f.rate_429
        if draw < f.rate_500:
            self.counts["fault_500"] += 1
            return 500, {"error": {"message": "internal error (scripted)", "type": "server_error"}}
        draw -= f.rate_500
        if draw < f.rate_timeout:
            self.counts["fault_timeout"] += 1
            return "timeout"
        return None

    def _draw(self) -> float:
        with self._lock:
            return self._rng.random()

    def handle(self, body: dict, task_ref: str | None, malformed_ok: bool = True) -> tuple[int, dict]:
        """The answer to one request (after latency and faults): the scripted role's or the responder's."""
        model = str(body.get("model", ""))
        role = _role(model)
        f = self.faults
        malformed = malformed_ok and self._draw() < f.rate_malformed
        try:
            if self.responder is not None:
                answer = self.responder(body)
                message = {"content": answer} if isinstance(answer, str) else answer
            elif role == "agent":
                plan = model.split(":", 1)[1] if ":" in model else "gold"
                task_ref = task_ref or task_from_conversation(body, self.version_hint)
                message = agent_reply(body, self._need(task_ref), plan, malformed)
                self.counts["fault_malformed"] += malformed and bool(message.get("tool_calls"))
            elif role == "user":
                task_ref = task_ref or task_from_conversation(body, self.version_hint)
                message = user_reply(body, self._need(task_ref))
            else:
                return 404, {"error": {"message": f"unknown scripted model {model!r}"}}
        except Exception as exc:  # noqa: BLE001 - reported to the client as a 500
            return 500, {"error": {"message": f"{type(exc).__name__}: {exc}"}}
        return 200, {
            "id": f"scripted-{sum(self.counts.values())}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": model or "scripted",
            "choices": [{"index": 0, "message": {"role": "assistant", **message}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }

    @staticmethod
    def _need(task_ref: str | None) -> str:
        if not task_ref:
            raise ValueError("scripted roles need the X-Harness-Task header (domain/version/task_id)")
        return task_ref

    @property
    def api_base(self) -> str:
        host, port = self._sock.getsockname()[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ScriptedLLMServer:
        app = web.Application(client_max_size=64 * 1024**2)
        app.router.add_route("*", "/{tail:.*}", self._serve)
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=1.0)  # a timeout fault may still sleep
        self._thread.start()
        asyncio.run_coroutine_threadsafe(self._start(), self._loop).result()
        return self

    async def _start(self) -> None:
        assert self._runner is not None
        await self._runner.setup()
        await web.SockSite(self._runner, self._sock).start()

    def __exit__(self, *exc: object) -> None:
        if self._runner is not None:
            asyncio.run_coroutine_threadsafe(self._runner.cleanup(), self._loop).result(timeout=30)
            self._runner = None
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout=10)
        if not self._thread.is_alive():
            self._loop.close()
        self._sock.close()

    def start(self) -> ScriptedLLMServer:
        return self.__enter__()

    def stop(self) -> None:
        self.__exit__()

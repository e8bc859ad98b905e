"""``ScriptedLLMServer``: an OpenAI-compatible ``POST /v1/chat/completions`` on 127.0.0.1.

By default it serves the scripted roles (``_roles``); a custom ``responder(body) -> str | dict`` can
replace them (the judge tests do). ``Faults`` inject latency, 429s, 500s, timeouts and malformed
tool-call JSON at set rates, from a seeded generator. Every request is counted per role.
"""

from __future__ import annotations

import json
import random
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from harness.scripted_llm._roles import agent_reply, task_from_conversation, user_reply

Responder = Callable[[dict], "str | dict[str, Any]"]


@dataclass
class Faults:
    latency_s: float = 0.0
    rate_429: float = 0.0
    rate_500: float = 0.0
    rate_timeout: float = 0.0
    timeout_sleep_s: float = 5.0
    rate_malformed: float = 0.0
    seed: int = 0


class ScriptedLLMServer:
    def __init__(
        self, responder: Responder | None = None, faults: Faults | None = None, version_hint: str = "tau2"
    ) -> None:
        self.responder = responder
        self.version_hint = version_hint
        self.faults = faults or Faults()
        self.requests: list[dict] = []
        self.counts: Counter[str] = Counter()
        self.inflight = 0
        self.max_inflight = 0  # requests being answered at once, at most: a check on the client's concurrency
        self._rng = random.Random(self.faults.seed)
        self._lock = threading.Lock()
        server = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out as two writes: no 40 ms delayed-ACK stall

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:  # noqa: N802 - http.server's naming
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length) or b"{}")
                if not self.path.rstrip("/").endswith("chat/completions"):
                    self._send(404, {"error": {"message": f"no route {self.path}"}})
                    return
                status, payload = server.handle(body, self.headers.get("X-Harness-Task"))
                self._send(status, payload)

            def _send(self, status: int, payload: dict) -> None:
                data = json.dumps(payload).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout fault)

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def _draw(self) -> float:
        with self._lock:
            return self._rng.random()

    def handle(self, body: dict, task_ref: str | None) -> tuple[int, dict]:
        model = str(body.get("model", ""))
        role = "agent" if model.startswith("scripted-agent") else "user" if model.startswith("scripted-user") else "custom"
        with self._lock:
            self.requests.append(body)
            self.counts[role] += 1
            self.inflight += 1
            self.max_inflight = max(self.max_inflight, self.inflight)
        try:
            return self._handle(body, task_ref, model, role)
        finally:
            with self._lock:
                self.inflight -= 1

    def _handle(self, body: dict, task_ref: str | None, model: str, role: str) -> tuple[int, dict]:
        f = self.faults
        if f.latency_s:
            time.sleep(f.latency_s)
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
            time.sleep(f.timeout_sleep_s)
        malformed = self._draw() < f.rate_malformed
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
            "id": f"scripted-{len(self.requests)}",
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
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> ScriptedLLMServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def start(self) -> ScriptedLLMServer:
        return self.__enter__()

    def stop(self) -> None:
        self.__exit__()

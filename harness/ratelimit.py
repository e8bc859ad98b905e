"""Provider rate limits: an adaptive sending rate per provider/model, and fair shares of trial slots.

``AdaptiveRateLimiter`` sits between a trial's retry loop and litellm. Until a model's provider answers
429, its calls go out unpaced. A 429 pauses the model until its ``Retry-After`` has passed and sets a
sending rate just under the rate the provider was admitting (over its last successes, however old: a pause
in the calls, or answers slower than a second or two, is not a provider that admits nothing);
every success then raises the rate a little (about 10% a second), probing upward until the next 429.
A 429 is waited out and retried without counting as a failed attempt, so rate limiting never loses a
trial; only ``max_waits`` refusals in a row for one call give up. By Little's law the requests in flight
follow the rate (rate x latency), so pacing the rate is how the limiter adapts each model's concurrency.

``FairShare`` is the driver's side: the next trial comes from the model that holds the fewest trial
slots, so one slow or rate-limited model keeps its share of slots and never takes the others' share.
"""

from __future__ import annotations

import threading
import time
from collections import Counter, deque
from collections.abc import Callable, Hashable, Iterable
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import Any, TypeVar

T = TypeVar("T")


def retry_after_s(error: BaseException) -> float | None:
    """The wait a 429 asks for: ``retry-after-ms`` (OpenAI's), else ``Retry-After`` (seconds or an HTTP date)."""
    headers = getattr(error, "litellm_response_headers", None)
    if headers is None:
        response = getattr(error, "response", None)
        headers = getattr(response, "headers", None)
    if not headers:
        return None
    try:
        if headers.get("retry-after-ms") is not None:
            return max(0.0, float(headers["retry-after-ms"]) / 1000)
    except (TypeError, ValueError):
        pass
    value = headers.get("retry-after")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        try:
            return max(0.0, parsedate_to_datetime(value).timestamp() - time.time())
        except (TypeError, ValueError):
            return None


@dataclass
class ModelRate:
    """One model's pacing state; the methods take ``now`` so the arithmetic is testable without clocks."""

    growth_per_s: float = 0.10  # probe upward: +10% a second of successes
    backoff: float = 0.85  # after a 429: this share of the rate the provider admitted
    sample: int = 20  # the last successes, whose spacing measures the admitted rate
    min_rate: float = 0.2
    rate: float | None = None  # requests a second; None: unpaced (no 429 seen yet)
    next_send: float = 0.0  # earliest time the next request may go (pacing and Retry-After)
    last_backoff: float = float("-inf")
    successes: deque[float] = field(default_factory=deque)
    rate_limited: int = 0

    def __post_init__(self) -> None:
        self.successes = deque(self.successes, maxlen=self.sample)  # only the sample is kept

    def admit(self, now: float) -> float:
        """0.0 and the send is booked when a request may go now; else the seconds to wait first."""
        if now < self.next_send:
            return self.next_send - now
        if self.rate is not None:
            self.next_send = max(now, self.next_send) + 1.0 / self.rate
        return 0.0

    def measured_rate(self) -> float:
        """Successes a second over the last ``sample``: their spacing, and never more than they are in one
        second (a first burst is not a rate); 0.0 before any success."""
        n = len(self.successes)
        if n < 2:
            return float(n)
        span = self.successes[-1] - self.successes[0]
        return float(n) if span <= 0 else min((n - 1) / span, float(n))

    def on_success(self, now: float) -> None:
        self.successes.append(now)
        if self.rate is not None:
            # (1 + g / rate) per success, ``rate`` successes a second: about (1 + g) a second
            self.rate *= 1.0 + self.growth_per_s / max(self.rate, 1.0)

    def on_rate_limited(self, now: float, retry_after: float | None) -> None:
        self.rate_limited += 1
        if retry_after is not None:
            self.next_send = max(self.next_send, now + retry_after)
        # one back-off per second: the other 429s of the same overshoot were sent at the old rate
        if now - self.last_backoff >= 1.0:
            admitted = self.measured_rate()
            current = self.rate if self.rate is not None else float("inf")
            self.rate = max(self.min_rate, self.backoff * min(current, admitted or self.min_rate))
            self.last_backoff = now
        if retry_after is None and self.rate is not None:
            self.next_send = max(self.next_send, now + 1.0 / self.rate)


class RateLimitedTooLong(RuntimeError):
    """One call was refused ``max_waits`` times in a row: the provider's limit did not let it through."""


class AdaptiveRateLimiter:
    """Thread-safe; one per process, shared by every trial thread, one ``ModelRate`` per key."""

    def __init__(
        self,
        is_rate_limit: Callable[[BaseException], bool] | None = None,
        max_waits: int = 200,
        clock: Callable[[], float] = time.monotonic,
        **rate_settings: Any,
    ) -> None:
        self._is_rate_limit = is_rate_limit or _is_litellm_rate_limit
        self.max_waits = max_waits
        self._clock = clock
        self._settings = rate_settings
        self._rates: dict[Hashable, ModelRate] = {}
        self._lock = threading.Lock()
        self.waits: Counter[Hashable] = Counter()  # 429s waited out, per key

    def state(self, key: Hashable) -> ModelRate:
        with self._lock:
            return self._rates.setdefault(key, ModelRate(**self._settings))

    def acquire(self, key: Hashable) -> None:
        state = self.state(key)
        while True:
            with self._lock:
                wait = state.admit(self._clock())
            if not wait:
                return
            time.sleep(min(wait, 5.0))

    def call(self, key: Hashable, fn: Callable[[], T]) -> T:
        """``fn()`` paced for ``key``; 429s are waited out (Retry-After) and tried again."""
        state = self.state(key)
        for _ in range(self.max_waits):
            self.acquire(key)
            try:
                result = fn()
            except Exception as exc:
                if not self._is_rate_limit(exc):
                    raise
                with self._lock:
                    state.on_rate_limited(self._clock(), retry_after_s(exc))
                    self.waits[key] += 1
                continue
            with self._lock:
                state.on_success(self._clock())
            return result
        raise RateLimitedTooLong(f"{key}: refused {self.max_waits} times in a row (rate limited)")


def _is_litellm_rate_limit(error: BaseException) -> bool:
    import litellm

    return isinstance(error, litellm.RateLimitError)


class FairShare:
    """Pending items grouped (by model); ``pop`` takes from the group holding the fewest slots.

    Within a group items keep their order. ``allowed(group)`` can hold a group back (a provider's cap)."""

    def __init__(self, items: Iterable[T], group_of: Callable[[T], Hashable]) -> None:
        self._group_of = group_of
        self._pending: dict[Hashable, deque] = {}
        for item in items:
            self._pending.setdefault(group_of(item), deque()).append(item)
        self.held: Counter[Hashable] = Counter()

    def __len__(self) -> int:
        return sum(len(q) for q in self._pending.values())

    def pop(self, allowed: Callable[[Any], bool] = lambda _: True) -> Any | None:
        ready = [g for g, q in self._pending.items() if q and allowed(g)]
        if not ready:
            return None
        group = min(ready, key=lambda g: self.held[g])  # ties: the order groups first appeared
        self.held[group] += 1
        return self._pending[group].popleft()

    def done(self, item: Any) -> None:
        self.held[self._group_of(item)] -= 1

    def clear(self) -> list:
        """Drop every pending item (a budget stop); returns them."""
        dropped = [item for q in self._pending.values() for item in q]
        for q in self._pending.values():
            q.clear()
        return dropped


# one per process: every trial thread of a worker paces through it
RATE_LIMITER = AdaptiveRateLimiter()

"""A cache whose first call per key runs once, for what a worker's threads all ask for at start."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any


def locked_cache(maxsize: int) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """``functools.lru_cache`` behind a lock: concurrent first callers wait for one computation instead of
    each running it (``lru_cache`` alone lets 32 threads each load a database or build tool schemas)."""

    def wrap(fn: Callable[..., Any]) -> Callable[..., Any]:
        cached = functools.lru_cache(maxsize=maxsize)(fn)
        lock = threading.Lock()

        @functools.wraps(fn)
        def call(*args: Any) -> Any:
            with lock:
                return cached(*args)

        call.cache_clear = cached.cache_clear  # type: ignore[attr-defined]
        return call

    return wrap

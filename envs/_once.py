"""A cache whose first call per key runs once, for what a worker's threads all ask for at start."""

from __future__ import annotations

import functools
import threading
from collections.abc import Callable
from typing import Any


class _LockedCache:
    def __init__(self, fn: Callable[..., Any], maxsize: int) -> None:
        self._cached = functools.lru_cache(maxsize=maxsize)(fn)
        self._lock = threading.Lock()
        functools.update_wrapper(self, fn)

    def __call__(self, *args: Any) -> Any:
        with self._lock:
            return self._cached(*args)

    def cache_clear(self) -> None:
        self._cached.cache_clear()


def locked_cache(maxsize: int) -> Callable[[Callable[..., Any]], _LockedCache]:
    """``functools.lru_cache`` behind a lock: concurrent first callers wait for one computation instead of
    each running it (``lru_cache`` alone lets 32 threads each load a database or build tool schemas)."""

    return lambda fn: _LockedCache(fn, maxsize)

"""Restorable databases for live simulations: load ``db.json`` once per slot, not once per trial.

tau2 builds every environment from a fresh ``db.json`` (about 0.4 s for airline). A sweep worker keeps a
few loaded databases whose tables track the records a trial touches (``envs._tracked``: a pristine copy of each
is kept the first time it is ever touched); after a trial the touched records are put back, so the next trial
starts from the pristine database at the cost of what the last one touched.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from envs._replay import TrackedTable, track_tables
from envs._tasks import environment_constructor


class DatabasePool:
    def __init__(self) -> None:
        self._free: dict[str, list[tuple[Any, dict[str, TrackedTable]]]] = {}
        self._lock = threading.Lock()

    @contextmanager
    def database(self, domain: str) -> Iterator[Any]:
        with self._lock:
            free = self._free.setdefault(domain, [])
            slot = free.pop() if free else None
        if slot is None:
            db = environment_constructor(domain)().tools.db
            slot = (db, track_tables(db))
        try:
            yield slot[0]
        finally:
            for table in slot[1].values():
                table.restore()
            with self._lock:
                self._free[domain].append(slot)

"""Ctrl-C (SIGINT) or SIGTERM at any moment, Ray's start included: one line and exit 130, never a traceback.

While a command runs, either signal raises ``Interrupted`` (a ``BaseException``, so no ``except Exception``
swallows it) and is recorded. An interrupt that lands inside Ray's compiled code comes back as another
exception (a ``SystemError``, a ``RayError``); because the signal was recorded, the CLI still prints its one
line. A sweep installs its own handler while trials run (it writes the finished ones first) and records the
signal here too.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
from collections.abc import Iterator

_SIGNALS = (signal.SIGINT, signal.SIGTERM)
_received: list[int] = []


class Interrupted(BaseException):
    """Raised by the CLI's SIGINT/SIGTERM handler."""


def record(signum: int) -> None:
    """A handler of SIGINT or SIGTERM saw the signal (the CLI then exits 130 with one line)."""
    _received.append(signum)


def signals_seen() -> int:
    """How many SIGINT or SIGTERM the handlers have seen (``received(since=...)``)."""
    return len(_received)


def received(since: int = 0) -> str | None:
    """The name of the last SIGINT or SIGTERM a handler saw after the first ``since`` (``SIGINT``), None
    when none came."""
    return signal.Signals(_received[-1]).name if len(_received) > since else None


def _raise(signum: int, frame: object) -> None:
    record(signum)
    raise Interrupted(signal.Signals(signum).name)


@contextlib.contextmanager
def interrupts_raise() -> Iterator[None]:
    """SIGINT and SIGTERM raise ``Interrupted`` inside the block (main thread only); afterwards the previous
    handlers come back, except after an interrupt: then a second signal during shutdown exits at once."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    _received.clear()
    previous = {sig: signal.signal(sig, _raise) for sig in _SIGNALS}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, _exit_now if _received else old)


def _exit_now(signum: int, frame: object) -> None:
    os._exit(130)  # a second Ctrl-C while Ray shuts down: nothing is being written any more


def interrupt_line(exc: BaseException) -> str | None:
    """The one line for an exception that follows a signal (None when no signal came): the message of an
    exit-130 error in its chain (a sweep's, which says what it kept), else a general one."""
    if not _received and not isinstance(exc, Interrupted):
        return None
    seen: BaseException | None = exc
    for _ in range(50):
        if seen is None:
            break
        if getattr(seen, "exit_code", None) == 130 and str(seen):
            return str(seen)
        seen = seen.__cause__ or seen.__context__
    name = signal.Signals(_received[-1]).name if _received else "SIGINT"
    return (f"interrupted by {name}: stopped; a file being written keeps its old content (writes are atomic); "
            "run the same command again")

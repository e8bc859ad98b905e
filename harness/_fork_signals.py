"""A forked rescore worker's signals: held from the fork until the worker has set its own handlers, and the
worker's exit when its main process is gone."""

from __future__ import annotations

import contextlib
import os
import signal
import time
from collections.abc import Iterator

HELD = {signal.SIGINT, signal.SIGTERM}


@contextlib.contextmanager
def forking() -> Iterator[None]:
    """SIGINT and SIGTERM held (blocked) in this thread while it may fork pool workers: a fork keeps the mask,
    so a worker takes neither before the pool's initializer (``_rescore_chunks._quiet_worker``) has set its own
    handlers. Without it, a SIGTERM from the pool's stop (or the terminal's Ctrl-C) in the child's first
    moments ran the CLI's inherited handler there, and multiprocessing printed its traceback. Here a signal
    that comes meanwhile waits, then runs as ever."""
    signal.pthread_sigmask(signal.SIG_BLOCK, HELD)
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, HELD)


def exit_with_parent(parent: int) -> None:
    """A worker whose main process is gone (killed, or exited without stopping the pool) exits too: it
    holds its own end of the task pipe, so it would otherwise wait on it for ever, and hold the parent's
    stderr open for whoever reads it."""
    while os.getppid() == parent:
        time.sleep(0.2)
    os._exit(1)

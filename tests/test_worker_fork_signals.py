"""A rescore's forked worker that gets SIGTERM before it has set its own handlers (the pool's stop on Ctrl-C
lands in its first moments) dies of the signal once they are set, not of the CLI's inherited handler: SIGINT and
SIGTERM are held from the fork until ``_quiet_worker`` has set them. (A CI run of a stop test once showed the
handler's ``Interrupted`` raised in a new worker, and multiprocessing's traceback on the terminal.)"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from pathlib import Path

import pytest

import harness._rescore_chunks as chunks
from harness._interrupt import interrupts_raise


def test_a_worker_signalled_before_its_set_up_dies_of_the_signal(monkeypatch, tmp_path: Path):
    quiet = chunks._quiet_worker

    def slow_set_up() -> None:  # the window between the fork and the worker's own handlers, made wide
        try:
            time.sleep(1.5)
        except BaseException as exc:  # the inherited handler ran here
            (tmp_path / "raised").write_text(type(exc).__name__)
            raise
        quiet()
        (tmp_path / "survived").write_text("")  # a SIGTERM held until now ends the worker before this

    monkeypatch.setattr(chunks, "_quiet_worker", slow_set_up)
    stopped: list[int] = []

    def stop_the_workers() -> None:
        time.sleep(0.5)
        for child in multiprocessing.active_children():
            if child.pid is not None:
                os.kill(child.pid, signal.SIGTERM)  # as the pool's stop does
                stopped.append(child.pid)

    stopper = threading.Thread(target=stop_the_workers)
    with interrupts_raise(), pytest.raises(chunks.WorkerDied):  # the CLI's handlers, inherited by the fork
        stopper.start()
        list(chunks._pool_ordered(iter([(time.sleep, (5,), None, None)]), 1))
    stopper.join()
    assert stopped
    assert not (tmp_path / "raised").exists(), (tmp_path / "raised").read_text()
    assert not (tmp_path / "survived").exists()

"""Make tau2 import quickly and quietly.

Importing tau2 imports litellm, which fetches its cost map from the network unless
``LITELLM_LOCAL_MODEL_COST_MAP`` is set, and tau2 logs a DEBUG registry dump through loguru.
"""

from __future__ import annotations

import os
import sys


def quiet_imports() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


_verbose = [False]
_installed: list[tuple[bool, object]] = []  # (verbose, stream) of the handler this function installed last


def set_log_level(verbose: bool) -> None:
    """tau2's loguru at DEBUG with ``-v``, else ERROR; Ray's Python loggers follow in ``quiet_ray``. Called again
    with the same level and stream, it does nothing: a rescore calls it for every chunk it scores, and adding a
    loguru handler costs milliseconds (it scans the installation's paths)."""
    from loguru import logger

    _verbose[0] = verbose
    if _installed == [(verbose, sys.stderr)]:
        return
    logger.remove()
    logger.add(sys.stderr, level="DEBUG" if verbose else "ERROR")
    _installed[:] = [(verbose, sys.stderr)]


def quiet_ray() -> None:
    """After ``import ray`` (which sets up its loggers): its Python warnings only with ``-v``."""
    import logging

    if not _verbose[0]:
        for name in ("ray", "ray._private", "ray.util"):
            logging.getLogger(name).setLevel(logging.ERROR)
        _drop_raylet_lines()


def _drop_raylet_lines() -> None:
    """Ray's driver prints the cluster's error messages as ``(raylet) …`` lines on stdout from a thread of
    its own (``log_to_driver=False`` does not stop it): the retries of tasks on workers the sweep kills once
    it stops, for one. The sweep says what happened in its own line and rows; they show with ``-v``."""
    from ray._private import worker

    shown = worker.print_to_stdstream
    if getattr(shown, "harness_quiet", False):
        return

    def without_raylet(data: dict, ignore_prefix: bool) -> None:
        if data.get("pid") != "raylet":
            shown(data, ignore_prefix)

    without_raylet.harness_quiet = True  # type: ignore[attr-defined]
    worker.print_to_stdstream = without_raylet


def is_verbose() -> bool:
    return _verbose[0]

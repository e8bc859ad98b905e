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


def is_verbose() -> bool:
    return _verbose[0]

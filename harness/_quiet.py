"""Make tau2 import quickly and quietly.

Importing tau2 imports litellm, which fetches its cost map from the network unless
``LITELLM_LOCAL_MODEL_COST_MAP`` is set, and tau2 logs a DEBUG registry dump through loguru.
"""

from __future__ import annotations

import os
import sys


def quiet_imports() -> None:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def set_log_level(verbose: bool) -> None:
    from loguru import logger

    logger.remove()
    logger.add(sys.stderr, level="DEBUG" if verbose else "ERROR")

"""Sweeps on Ray: ``preflight`` (keys, endpoints, the scripted server), ``driver`` (the loop that starts
trials within the limits and writes parts) and ``worker`` (one trial → a ``TrialOutcome``, the Ray actor)."""

from .driver import (
    SweepLoop,
    SweepProgress,
    run_sweep,
    trial_specs,
)
from .preflight import (
    SCRIPTED,
)
from .worker import (
    TrialOutcome,
    TrialWorker,
    run_trial,
)

__all__ = [
    "run_sweep",
    "run_trial",
    "SCRIPTED",
    "SweepLoop",
    "SweepProgress",
    "trial_specs",
    "TrialOutcome",
    "TrialWorker",
]

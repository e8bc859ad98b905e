"""Sweeps on Ray: ``preflight`` (keys, endpoints, the scripted server), ``driver`` (the loop that starts
trials within the limits and writes parts) and ``worker`` (one trial → a ``TrialOutcome``, the Ray actor)."""

from harness.sweep.driver import SweepLoop, SweepProgress, run_sweep, trial_specs
from harness.sweep.preflight import SCRIPTED
from harness.sweep.worker import TrialOutcome, TrialWorker, run_trial

__all__ = [
    "SCRIPTED",
    "SweepLoop",
    "SweepProgress",
    "TrialOutcome",
    "TrialWorker",
    "run_sweep",
    "run_trial",
    "trial_specs",
]

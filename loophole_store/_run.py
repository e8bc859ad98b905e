"""A run directory opened for a notebook: its trials and scores as DataFrames, and its provenance."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from loophole_base import HarnessInputError
from loophole_store._provenance import read_run_info
from loophole_store._rundir import shown
from loophole_store._tables import read_tables


@dataclass(frozen=True)
class Run:
    """One run directory, read in one consistent state (a running sweep's parts folded in memory)."""

    path: Path
    trials: pd.DataFrame  # one row per trajectory (README: the trials table)
    scores: pd.DataFrame  # one row per trajectory x gold (the single gold and every variant)
    info: dict[str, Any] | None  # run.json: what produced the run (None: written before run.json existed)


def check_run_dir(run_dir: Path) -> Path:
    """``run_dir`` is a run directory from ``rescore`` or ``sweep``, else a one-line error naming it."""
    run_dir = Path(run_dir)
    if not (run_dir / "trials.parquet").exists() and not (run_dir / "parts").is_dir():
        raise HarnessInputError(f"{shown(run_dir)}: no trials.parquet (not a run directory from rescore or sweep)")
    return run_dir


def open_run(run_dir: str | Path) -> Run:
    """The trials, scores and provenance of a run directory, with the same checks as the CLI; reading
    never writes into the run."""
    path = check_run_dir(Path(run_dir))
    trials, scores = read_tables(path, "trials", "scores")
    return Run(path, trials, scores, read_run_info(path))

"""``analyze``: the paper's statistics for a run, as tables (and CSV/Parquet files with ``out``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.app._checks import check_at_least

if TYPE_CHECKING:
    import pandas as pd

    from analysis import AnalysisBundle


@dataclass
class AnalysisResult:
    """The tables by name (``bundle.tables``), the notes on what they can and cannot say, and the files
    written (with ``out``)."""

    bundle: AnalysisBundle
    written: list[Path] = field(default_factory=list)


def load_trials(run_dir: str | Path) -> pd.DataFrame:
    """A run's trials (a sweep's unfolded parts included, in memory: reading never writes into a run), or a
    one-line ``HarnessInputError`` when ``run_dir`` is not a run."""
    import loophole_store as store

    return store.read_table(store.check_run_dir(Path(run_dir)), "trials")


def analyze(
    run_dir: str | Path,
    *,
    out: str | Path | None = None,
    bootstrap: int = 10_000,
    seed: int = 42,
    against: str | Path | None = None,
    pass_k: str = "tau2",
) -> AnalysisResult:
    """Success, pass^k, loophole gap with a bootstrap CI clustered by task (``bootstrap`` repetitions,
    ``seed``), variance, counterfactual, Table-1 split, readings; ``against``: another run of the same
    trajectories (rescore --task-version), for the verdicts that move; ``out``: every table as CSV and Parquet.
    ``pass_k``: the pass^k convention (``tau2``, tau2's estimator, leaves out simulations ended by
    infrastructure errors; ``infra-fail`` counts them as failed trials); either way they are listed
    (``bundle.tables["infra_errors"]``) and a note names the convention."""
    from analysis import analyze_trials, check_pass_k_convention, cross_version_moves, write_tables

    check_at_least("--bootstrap", bootstrap, 100)
    check_pass_k_convention(pass_k)
    if out is not None:  # before any work: never over a user's files, never into the run it reads
        from analysis import ANALYZE_MADE_BY
        from loophole_base import check_replaceable

        check_replaceable(Path(out), ANALYZE_MADE_BY, "--out", inputs=[Path(run_dir)])
    bundle = analyze_trials(load_trials(run_dir), bootstrap, seed, pass_k)
    if against is not None:
        bundle.tables["cross_version"] = cross_version_moves(bundle.trials, load_trials(against))
    written = list(write_tables(bundle, Path(out))) if out is not None else []
    return AnalysisResult(bundle, written)

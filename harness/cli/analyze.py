"""``harness analyze RUN_DIR``: the paper's statistics for a run, as tables (and CSV/Parquet with --out)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

if TYPE_CHECKING:
    import pandas as pd


def register(app: typer.Typer) -> None:
    app.command("analyze")(analyze)


def load_trials(run_dir: Path) -> pd.DataFrame:
    import loophole_store as store

    return store.read_table(store.check_run_dir(run_dir), "trials")  # read-only: a running sweep's parts are folded in memory


def analyze(
    run_dir: Path = typer.Argument(..., help="A run directory (from rescore or sweep)."),
    out: Path | None = typer.Option(None, "--out", help="Write every table as CSV and Parquet here."),
    reps: int = typer.Option(10_000, "--bootstrap", min=100, help="Bootstrap repetitions."),
    seed: int = typer.Option(42, "--seed", help="Bootstrap seed."),
    against: Path | None = typer.Option(
        None, "--against", help="Another run of the same trajectories (rescore --task-version): verdicts that move."
    ),
) -> None:
    """Success, pass^k, loophole gap with bootstrap CI, variance, counterfactual, Table-1 split, readings."""
    from rich.table import Table

    from analysis import analyze_trials, write_tables
    from harness.cli._console import output_console

    console = output_console(160)
    bundle = analyze_trials(load_trials(run_dir), reps, seed)
    if against is not None:
        from analysis import cross_version_moves

        bundle.tables["cross_version"] = cross_version_moves(bundle.trials, load_trials(against))
    for note in bundle.notes:
        console.print(f"note: {note}", soft_wrap=True)
    for name, df in bundle.tables.items():
        table = Table(*map(str, df.columns), title=name)
        for row in df.itertuples(index=False):
            table.add_row(*[_fmt(v) for v in row])
        if df.empty:
            console.print(f"{name}: no rows (the run does not cover it)")
        else:
            console.print(table)
    if out is not None:
        written = write_tables(bundle, out)
        console.print(f"wrote {len(written)} files to {out}")


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return "n/a" if v != v else f"{v:.3f}"
    return str(v)

"""``harness analyze RUN_DIR``: the paper's statistics for a run, as tables (and CSV/Parquet with --out)."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    app.command("analyze")(analyze)


def analyze(
    run_dir: Path = typer.Argument(..., help="A run directory (from rescore or sweep)."),
    out: Path | None = typer.Option(None, "--out", help="Write every table as CSV and Parquet here."),
    bootstrap: int = typer.Option(10_000, "--bootstrap", help="Bootstrap repetitions (at least 100)."),
    seed: int = typer.Option(42, "--seed", help="Bootstrap seed."),
    against: Path | None = typer.Option(
        None, "--against", help="Another run of the same trajectories (rescore --task-version): verdicts that move."
    ),
    pass_k: str = typer.Option(
        "tau2", "--pass-k",
        help="pass^k convention: tau2 (tau2's estimator; simulations ended by infrastructure errors left out) or "
        "infra-fail (they count as failed trials). Either way they are listed.",
    ),
) -> None:
    """Success, pass^k, loophole gap with bootstrap CI, variance, counterfactual, Table-1 split, readings."""
    from rich.table import Table

    from harness import analyze as analyze_run
    from harness.cli._console import output_console

    console = output_console(160)
    result = analyze_run(run_dir, out=out, bootstrap=bootstrap, seed=seed, against=against, pass_k=pass_k)
    for note in result.bundle.notes:
        console.print(f"note: {note}", soft_wrap=True)
    for name, df in result.bundle.tables.items():
        table = Table(*map(str, df.columns), title=name)
        for row in df.itertuples(index=False):
            table.add_row(*[_fmt(v) for v in row])
        if df.empty:
            console.print(f"{name}: no rows ({_EMPTY.get(name, 'the run does not cover it')})")
        else:
            console.print(table)
    if out is not None:
        console.print(f"wrote {len(result.written)} files to {out}")


_EMPTY = {"infra_errors": "no simulation ended by an infrastructure error"}  # empty means none, not uncovered


def _fmt(v: object) -> str:
    if isinstance(v, float):
        return "n/a" if v != v else f"{v:.3f}"
    return str(v)

"""``harness analyze RUN_DIR``: the paper's statistics for a run, as tables (and CSV/Parquet with --out)."""

from __future__ import annotations

from pathlib import Path

import typer

from harness.cli._tables import Col, Fit, percent, print_table


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
    from harness import analyze as analyze_run
    from harness.cli._console import output_console

    console = output_console(160)
    result = analyze_run(run_dir, out=out, bootstrap=bootstrap, seed=seed, against=against, pass_k=pass_k)
    for note in result.bundle.notes:
        console.print(f"note: {note}", soft_wrap=True)
    whole = "--out writes every column" if out is None else f"{out} has every column"
    for name, df in result.bundle.tables.items():
        if df.empty:
            console.print(f"{name}: no rows ({_EMPTY.get(name, 'the run does not cover it')})")
            continue
        rows = [[_fmt(v, str(c)) for c, v in zip(df.columns, row, strict=True)] for row in df.itertuples(index=False)]
        print_table(console, _columns(df, rows), rows, title=name, whole=whole)
    if out is not None:
        console.print(f"wrote {len(result.written)} files to {out}")


_EMPTY = {"infra_errors": "no simulation ended by an infrastructure error"}  # empty means none, not uncovered
KEYS = {"agent", "agent_name", "name", "domain", "task_version", "task", "task_id", "group", "k", "reading", "band"}
"""Columns that say which row is which: kept at any width (the others are left out from the right)."""
NAMES = {"agent", "agent_name", "name", "file", "model", "source_file"}
"""Columns of long names: shortened in the middle."""


def _columns(df, rows: list[list[str]]) -> list[Col]:
    """The analysis tables' columns: the first one and the ``KEYS`` always kept, the rest left out from the
    right; names shortened in the middle, prose (a cell with spaces, longer than 24) wrapped, the rest whole."""
    cols = []
    for i, name in enumerate(map(str, df.columns)):
        longest = max((len(r[i]) for r in rows), default=0)
        prose = any(" " in r[i] for r in rows) and longest > 24 and "≤" not in "".join(r[i] for r in rows)
        fit: Fit = "middle" if name in NAMES else "wrap" if prose else "whole"
        cols.append(Col(name, fit, rank=0 if i == 0 or name in KEYS else i))
    return cols


RATES = {"single_gold", "multi_gold", "multi_gold_upper", "loophole_single", "loophole_multi", "non_loophole_single",
         "non_loophole_multi", "strict", "single", "multi", "upper", "do_nothing_ceiling", "loophole", "non_loophole",
         "overall", "without_loophole"}
"""Columns holding a rate (a success share, pass^k): printed as percent, as every other terminal table prints
rates (``percent``); the CSV and Parquet keep the fraction."""
POINTS = {"gap", "ci_low", "ci_high", "lead_over_next", "lead_over_next_without_loophole"}
"""Columns holding a difference of two rates: printed in percentage points."""


def _fmt(v: object, column: str = "") -> str:
    if isinstance(v, float):
        if v != v:
            return "n/a"
        if column in RATES or column.endswith("_rate"):
            return percent(v)
        if column in POINTS:
            return f"{100 * v:+.1f} pp"
        if column == "gap_points":
            return f"{v:+.1f} pp"
        return f"{v:.3f}"
    return str(v)

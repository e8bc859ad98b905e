"""``harness report RUN_DIR --out report.html``: a self-contained HTML report of a run."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def report(
    run_dir: Path = typer.Argument(..., help="A run directory (from rescore or sweep)."),
    out: Path = typer.Option(..., "--out", help="The HTML file to write."),
) -> None:
    """Plots (single vs multi gold with CIs, loophole heatmap, readings, variance), tables and provenance."""
    from analysis import analyze_trials
    from analysis.report import write_report
    from harness.cli.analyze import load_trials

    bundle = analyze_trials(load_trials(run_dir))
    write_report(bundle, run_dir, out)
    print(f"wrote {out}")

"""``harness report RUN_DIR --out report.html``: a self-contained HTML report of a run, with its viewer."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def report(
    run_dir: Path = typer.Argument(..., help="A run directory (from rescore or sweep)."),
    out: Path | None = typer.Option(
        None, "--out", help="The HTML file to write (default RUN_DIR_report.html beside the run: reading never "
        "writes into a run); a folder it names that does not exist yet is created."
    ),
    viewer: Path | None = typer.Option(
        None,
        "--viewer",
        help="Where to build the trial viewer the counts link to (default: OUT without .html, plus _viewer).",
    ),
    pass_k: str = typer.Option(
        "tau2", "--pass-k",
        help="pass^k convention: tau2 (tau2's estimator; simulations ended by infrastructure errors left out) or "
        "infra-fail (they count as failed trials). The report names it.",
    ),
) -> None:
    """Write a self-contained HTML report of a run (sweep or rescore) and its trial viewer: sections in the
    paper's order (success, loophole gap, variance, counterfactual, per-task split, readings, flips, the three
    task versions τ², τ³ and Verified, audit, leaderboard), figures with captions, provenance; counts link to
    the viewer."""
    from harness import report as write_report

    result = write_report(run_dir, out, viewer=viewer, pass_k=pass_k)
    print(f"wrote {result.out} (trial viewer: {result.viewer.index})")

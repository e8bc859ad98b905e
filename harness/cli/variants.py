"""``harness variants check``: validate the gold variants and show which tasks each reading reaches."""

from __future__ import annotations

import typer

app = typer.Typer(help="Gold variants: one per defensible reading of each loophole.", no_args_is_help=True)


@app.command("check")
def check() -> None:
    """Replay every variant, check outcomes are distinct, print the clause-level view."""
    from rich.console import Console
    from rich.table import Table

    from gold_variants.check import check_variants

    console = Console(width=None if Console().is_terminal else 160)
    report = check_variants()
    table = Table("loophole", "reading", "tau2 tasks", "tau3 tasks")
    for (loophole, reading), per in sorted(report.applies.items()):
        table.add_row(loophole, reading, " ".join(per.get("tau2", [])), " ".join(per.get("tau3", [])))
    console.print(table)
    for note in report.notes:
        console.print(f"note: {note}", soft_wrap=True)
    for problem in report.problems:
        console.print(f"[red]problem[/]: {problem}", soft_wrap=True)
    verdict = "ok" if report.ok else f"{len(report.problems)} problems"
    console.print(f"{report.n_variants} variants checked: {verdict}")
    if not report.ok:
        raise typer.Exit(1)

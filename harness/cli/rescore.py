"""``harness rescore``: score finished ``tau2 run`` results files again, into Parquet."""

from __future__ import annotations

import typer


def register(app: typer.Typer) -> None:
    app.command("rescore")(rescore)


def rescore() -> None:
    """Placeholder until the rescoring engine lands."""
    raise typer.Exit(1)

"""``harness view RUN_DIR [--out DIR] [--serve]``: a static site to read every trajectory and its verdicts."""

from __future__ import annotations

from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    app.command("view")(view)


def view(
    run_dir: Path = typer.Argument(..., help="A run directory (from rescore or sweep)."),
    out: Path | None = typer.Option(
        None, "--out", help="Where to write the site (default RUN_DIR_viewer beside the run: reading never writes into a run)."
    ),
    serve: bool = typer.Option(False, "--serve", help="Then serve it on 127.0.0.1 until Ctrl-C."),
    port: int = typer.Option(
        8000, "--port", min=0, max=65535, help="Port for --serve (0: any free port)."
    ),
) -> None:
    """An index of trials (filters: agent, domain, task version, task, status, verdicts, flips, loophole
    tasks) and one page per trajectory: conversation, verdict per gold, why a gold fails, evidence."""
    from harness import view as build_viewer
    from loophole_report import serve as serve_site

    result = build_viewer(run_dir, out=out)
    stats = result.stats
    print(
        f"wrote {result.index} and {stats.trials} trial pages "
        f"({stats.bytes / 1e6:.1f} MB, {stats.seconds:.1f} s); open {result.index.resolve().as_uri()}"
    )
    if serve:
        from harness._interrupt import Interrupted

        try:
            serve_site(result.site, port)
        except Interrupted:  # Ctrl-C is how a server is stopped: not an error, nothing was being written
            print("stopped serving", flush=True)

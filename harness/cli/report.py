"""``harness report RUN_DIR --out report.html``: a self-contained HTML report of a run, with its viewer."""

from __future__ import annotations

import errno
import os
from pathlib import Path

import typer


def register(app: typer.Typer) -> None:
    app.command("report")(report)


def report(
    run_dir: Path = typer.Argument(..., help="A run directory (from rescore or sweep)."),
    out: Path = typer.Option(
        ..., "--out", help="The HTML file to write; a folder it names that does not exist yet is created."
    ),
    viewer: Path | None = typer.Option(
        None,
        "--viewer",
        help="Where to build the trial viewer the counts link to (default: OUT without .html, plus _viewer).",
    ),
) -> None:
    """Write a self-contained HTML report of a run (sweep or rescore) and its trial viewer: sections in the
    paper's order (success, loophole gap, variance, counterfactual, per-task split, readings, flips, the three
    task versions τ², τ³ and Verified, audit, leaderboard), figures with captions, provenance; counts link to
    the viewer."""
    from analysis import analyze_trials
    from harness.cli.analyze import load_trials
    from loophole_base import HarnessInputError
    from loophole_report import build_site, check_report_out, check_site_out, write_report

    # Checked before any work, so a bad --out leaves nothing behind; the report never writes into the run.
    if out.is_dir():
        raise HarnessInputError(f"--out {str(out)!r}: is a directory; give the HTML file to write")
    made = _parent_to_create(out)
    site = viewer if viewer is not None else out.with_name(f"{out.stem}_viewer")
    site_label = "--viewer" if viewer is not None else "the report's default viewer folder"
    check_report_out(run_dir, out)  # never over a user's file, never into the run
    check_site_out(run_dir, site, site_label)
    bundle = analyze_trials(load_trials(run_dir))
    created = not site.exists()
    try:
        if made is not None:
            try:
                out.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                if exc.errno == errno.ENOSPC:
                    raise
                raise HarnessInputError(f"--out {str(out)!r}: cannot create {str(out.parent)!r} ({exc.strerror})") from None
        build_site(run_dir, site, site_label)  # rebuilt with the report, so every link it holds has its page
        write_report(bundle, run_dir, out, site)
    except BaseException:
        import shutil

        if created:  # a failed report leaves nothing behind, the viewer it started included
            shutil.rmtree(site, ignore_errors=True)
        if made is not None:  # nor the folders it made for --out
            shutil.rmtree(made, ignore_errors=True)
        raise
    print(f"wrote {out} (trial viewer: {site}/index.html)")


def _parent_to_create(out: Path) -> Path | None:
    """``--out``'s folder: None when it exists; else the topmost folder to create, checked to be creatable."""
    from loophole_store import creatable_top

    parent = Path(os.path.abspath(out)).parent
    if parent.exists() or parent.is_symlink():
        creatable_top(f"--out {str(out)!r}", out)  # still refuses a system folder or one we may not write in
        return None
    return creatable_top(f"--out {str(out)!r}", parent)

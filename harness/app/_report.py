"""``report`` and ``view``: the HTML a reader opens — the run report and the static trial viewer."""

from __future__ import annotations

import errno
import os
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from harness.app._analyze import load_trials

if TYPE_CHECKING:
    from loophole_report import SiteStats


@dataclass
class ViewResult:
    site: Path
    stats: SiteStats

    @property
    def index(self) -> Path:
        return self.site / "index.html"


@dataclass
class ReportResult:
    out: Path
    viewer: ViewResult


def view(run_dir: str | Path, *, out: str | Path | None = None) -> ViewResult:
    """Build the trial viewer of ``run_dir`` in ``out`` (default ``RUN_DIR_viewer`` beside the run: reading
    never writes into a run). A folder that holds anything an earlier viewer build did not write is refused."""
    from loophole_report import build_site, check_site_out

    run_dir = Path(run_dir)
    load_trials(run_dir)  # a run directory or a one-line error
    label = "--out" if out is not None else "the default viewer folder"
    site = Path(out) if out is not None else run_dir.resolve().with_name(f"{run_dir.resolve().name}_viewer")
    check_site_out(run_dir, site, label)
    return ViewResult(site, build_site(run_dir, site, label))


def default_report_path(run_dir: Path) -> Path:
    """``RUN_DIR_report.html`` beside the run (as ``view``'s ``RUN_DIR_viewer``): never inside the run it reads,
    never the folder the command was started in."""
    resolved = run_dir.resolve()
    return resolved.with_name(f"{resolved.name}_report.html")


def report(run_dir: str | Path, out: str | Path | None = None, *, viewer: str | Path | None = None,
           pass_k: str = "tau2") -> ReportResult:
    """Write the HTML report of ``run_dir`` to ``out`` (default ``RUN_DIR_report.html`` beside the run) and
    rebuild its trial viewer (``viewer``, default ``OUT`` without ``.html`` plus ``_viewer``), whose filtered
    lists every count links to. ``out`` may be new or a report written before, never a user's file or a path
    inside the run; a failed call leaves nothing. ``pass_k``: the pass^k convention (as ``analyze``), named
    on the page."""
    from analysis import analyze_trials, check_pass_k_convention
    from loophole_base import HarnessInputError
    from loophole_report import build_site, check_report_out, check_site_out, write_report

    run_dir = Path(run_dir)
    out = Path(out) if out is not None else default_report_path(run_dir)
    check_pass_k_convention(pass_k)
    # Checked before any work, so a bad --out leaves nothing behind.
    if out.is_dir():
        raise HarnessInputError(f"--out {str(out)!r}: is a directory; give the HTML file to write")
    made = _parent_to_create(out)
    site = Path(viewer) if viewer is not None else out.with_name(f"{out.stem}_viewer")
    label = "--viewer" if viewer is not None else "the report's default viewer folder"
    check_report_out(run_dir, out)
    check_site_out(run_dir, site, label)
    bundle = analyze_trials(load_trials(run_dir), pass_k_convention=pass_k)
    created = not site.exists()
    try:
        if made is not None:
            try:
                out.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                if exc.errno == errno.ENOSPC:
                    raise
                raise HarnessInputError(
                    f"--out {str(out)!r}: cannot create {str(out.parent)!r} ({exc.strerror})") from None
        stats = build_site(run_dir, site, label)  # rebuilt with the report, so every link it holds has its page
        write_report(bundle, run_dir, out, site)
    except BaseException:
        if created:  # a failed report leaves nothing behind, the viewer it started included
            shutil.rmtree(site, ignore_errors=True)
        if made is not None:  # nor the folders it made for --out
            shutil.rmtree(made, ignore_errors=True)
        raise
    return ReportResult(out, ViewResult(site, stats))


def _parent_to_create(out: Path) -> Path | None:
    """``--out``'s folder: None when it exists; else the topmost folder to create, checked to be creatable."""
    from loophole_store import creatable_top

    parent = Path(os.path.abspath(out)).parent
    if parent.exists() or parent.is_symlink():
        creatable_top(f"--out {str(out)!r}", out)  # still refuses a system folder or one we may not write in
        return None
    return creatable_top(f"--out {str(out)!r}", parent)

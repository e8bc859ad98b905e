"""``sweep``: run (or resume) the trials of a sweep config on Ray; its output folder is the Parquet store."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from harness.app._checks import check_workers

if TYPE_CHECKING:
    from harness.config import SweepConfig
    from harness.sweeping import SweepProgress
    from loophole_store import Run


@dataclass
class SweepResult:
    """The run folder, the final progress (counts by status, cost, ``stopped`` when the budget ended it)
    and the config that ran; ``run`` opens its tables."""

    out: Path
    progress: SweepProgress
    config: SweepConfig

    @cached_property
    def run(self) -> Run:
        from loophole_store import open_run

        return open_run(self.out)


def load_config(config_path: str | Path) -> SweepConfig:
    """A sweep config (YAML, ``yaml.safe_load`` and pydantic), or a one-line ``HarnessInputError``."""
    from harness.trials import load_sweep

    return load_sweep(Path(config_path))


def sweep(
    config_path: str | Path,
    *,
    workers: int | None = None,
    on_progress: Callable[[SweepProgress], None] | None = None,
    on_note: Callable[[str], None] | None = None,
    config: SweepConfig | None = None,
) -> SweepResult:
    """Run the trials of the config at ``config_path`` that its output folder does not hold yet
    (``workers``: Ray worker actors, default from the cores). ``on_progress`` sees the counts as trials
    finish; ``on_note`` the first failure of each kind and provenance changes. A full disk raises a
    one-line ``DiskFull`` saying what is kept and how to resume. ``config``: the config already loaded
    from ``config_path`` (the CLI prints its name first)."""
    from harness.sweeping import run_sweep
    from loophole_base import DiskFull

    check_workers(workers, optional=True)
    config = config if config is not None else load_config(config_path)
    try:
        out, progress = run_sweep(config, on_progress=on_progress, workers=workers, on_note=on_note)
    except OSError as exc:
        if not DiskFull.matches(exc):
            raise
        raise DiskFull.of(exc, f"the sweep's output {config.output_dir()}", _kept(config.output_dir())) from None
    return SweepResult(out, progress, config)


def _kept(out: Path) -> str:
    """What a sweep stopped by a full disk keeps: its finished trials, which a resume skips."""
    import loophole_store as store

    try:
        n = len(store.finished_keys(out))
    except Exception:  # the run cannot even be read back: say what is true of every sweep
        return "the trials finished before are kept"
    return f"the {n} finished trials are kept" if n else "no trial had finished yet"

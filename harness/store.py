"""The Parquet store: schemas, atomic writes and idempotent upserts.

Every table is written to a temporary name in the destination folder and renamed, so a reader
never sees a half-written file. Analysis reads runs only through this module.
"""

from __future__ import annotations

import fcntl
import os
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

if TYPE_CHECKING:
    from envs.versions import VersionDiff

# --- schemas (documented in the README; tests/test_store.py checks they agree) -----------------

TRIALS_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),  # sha256[:16] of the source file (rescore) or the sweep id
        ("trajectory_id", pa.string()),  # run_id + ":" + simulation id: the row's identity
        ("simulation_id", pa.string()),
        ("source_file", pa.string()),
        ("source_sha256", pa.string()),
        ("domain", pa.string()),
        ("task_version", pa.string()),
        ("task_id", pa.string()),
        ("trial", pa.int64()),
        ("seed", pa.int64()),
        ("agent_name", pa.string()),  # the sweep config's agent name (rescore: the agent model)
        ("agent_model", pa.string()),
        ("agent_implementation", pa.string()),
        ("user_model", pa.string()),
        ("termination_reason", pa.string()),
        ("recorded_reward", pa.float64()),
        ("reward", pa.float64()),  # single-gold reward we computed; null when it cannot be
        ("multi_gold_reward", pa.float64()),  # max over gold and its variants
        ("matched_gold_ids", pa.list_(pa.string())),  # golds under which the reward is 1
        ("status", pa.string()),  # ok | no_judge | judge_error | replay_divergence | infra_error | error
        ("reason", pa.string()),
        ("duration_s", pa.float64()),
        ("agent_cost", pa.float64()),
        ("user_cost", pa.float64()),
        ("retries", pa.int64()),  # LLM calls retried in a sweep trial (null when rescored)
        ("intended_gold_id", pa.string()),  # reading agents: the gold or variant they meant to enact
        ("intended_reading", pa.string()),
        ("procedural_error", pa.bool_()),  # reading agents: an action was dropped on purpose
        ("n_messages", pa.int64()),
        ("messages_json", pa.string()),  # the full tau2 message list, as JSON
        ("judge", pa.string()),  # who graded NL assertions: none | recorded | a model name
        ("judge_cost", pa.float64()),  # what the judge's calls cost for this trajectory
        ("recorded_domain", pa.string()),  # info.environment_info.domain_name as the file recorded it
        ("policy_sha256", pa.string()),  # sha256 of the policy text in the file (null: none recorded)
        ("tasks_sha256", pa.string()),  # sha256 of the file's embedded tasks (canonical JSON)
        ("flags", pa.list_(pa.string())),  # suspicious-but-legal input markers (empty_conversation, ...)
    ]
)

SCORES_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("trajectory_id", pa.string()),
        ("task_id", pa.string()),
        ("gold_id", pa.string()),  # "gold" for the single gold
        ("loophole_id", pa.string()),  # null for the single gold
        ("reading", pa.string()),
        ("reward", pa.float64()),
        ("reward_basis", pa.string()),  # comma-separated tau2 RewardType values
        ("db_match", pa.bool_()),
        ("communicate", pa.float64()),
        ("nl_assertion", pa.float64()),
        ("action", pa.float64()),
        ("env_assertion", pa.float64()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("replay_normalised", pa.int64()),  # tool outputs equal only after version-noise normalisation
        ("explanation_json", pa.string()),  # a variant row's preconditions and evidence (JSON), else null
    ]
)

VERSIONS_DIFF_SCHEMA = pa.schema(
    [
        ("domain", pa.string()),
        ("task_id", pa.string()),
        ("field", pa.string()),
        ("changed", pa.bool_()),
        ("old_version", pa.string()),
        ("new_version", pa.string()),
        ("old_value", pa.string()),
        ("new_value", pa.string()),
    ]
)

TABLES = {"trials": TRIALS_SCHEMA, "scores": SCORES_SCHEMA}
TABLE_KEYS = {"trials": ["trajectory_id"], "scores": ["trajectory_id", "gold_id"]}


def atomic_write_table(table: pa.Table, dest: Path) -> None:
    """Write ``table`` to ``dest`` via a temporary file in the same folder, then rename."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    os.close(fd)
    try:
        pq.write_table(table, tmp)
        os.chmod(tmp, 0o644)  # as a plain write would leave it (mkstemp makes it private)
        os.replace(tmp, dest)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def to_table(rows: Sequence[dict], schema: pa.Schema) -> pa.Table:
    columns = {name: [row.get(name) for row in rows] for name in schema.names}
    return pa.Table.from_pydict(columns, schema=schema)


def read_table(run_dir: Path, name: str, columns: list[str] | None = None) -> pd.DataFrame:
    """A table in the current schema: columns an older run lacks come back as nulls (``columns``: only those)."""
    path = Path(run_dir) / f"{name}.parquet"
    schema = TABLES[name]
    if columns is not None:
        schema = pa.schema([schema.field(c) for c in columns])
    if not path.exists():
        return to_table([], schema).to_pandas()
    try:
        table = pq.read_table(path, columns=[c for c in schema.names if c in pq.read_schema(path).names])
        df = _conform(table, schema).to_pandas()
    except (pa.ArrowException, OSError) as exc:  # corrupt, truncated or foreign: one line naming the file
        from harness.errors import HarnessInputError

        detail = " ".join(str(exc).split())[:200]
        raise HarnessInputError(f"{_shown(path)}: not a readable {name} table ({type(exc).__name__}: {detail})") from None
    if name == "trials" and "agent_name" in df and "agent_model" in df:  # rescores before agent_name
        df["agent_name"] = df["agent_name"].fillna(df["agent_model"])
    return df


def _shown(path: Path) -> str:
    text = str(path)
    return text if text.isprintable() else repr(text)


def _conform(table: pa.Table, schema: pa.Schema) -> pa.Table:
    """A table in ``schema``: columns an older run lacks are added as nulls."""
    for field in schema:
        if field.name not in table.column_names:
            table = table.append_column(field, pa.nulls(len(table), field.type))
    return table.select(schema.names).cast(schema)


_HELD: dict[str, int] = {}


@contextmanager
def run_lock(run_dir: Path) -> Iterator[None]:
    """An exclusive lock on a run directory (re-entrant within a process): compactions and upserts from
    two processes (a sweep and ``harness analyze``, say) must not interleave."""
    key = str(Path(run_dir).resolve())
    if _HELD.get(key):
        _HELD[key] += 1
        try:
            yield
        finally:
            _HELD[key] -= 1
        return
    Path(run_dir).mkdir(parents=True, exist_ok=True)
    with open(Path(run_dir) / ".lock", "a+") as fh:
        fcntl.flock(fh, fcntl.LOCK_EX)
        _HELD[key] = 1
        try:
            yield
        finally:
            _HELD[key] = 0
            fcntl.flock(fh, fcntl.LOCK_UN)


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
            old = _conform(pq.read_table(path), schema)
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
    # scores first: a part whose trials are missing only makes the resume rerun those trials
    atomic_write_table(to_table(score_rows, SCORES_SCHEMA), parts / f"scores-{stamp}.parquet")
    atomic_write_table(to_table(trial_rows, TRIALS_SCHEMA), parts / f"trials-{stamp}.parquet")


def compact(run_dir: Path) -> None:
    """Fold the parts into the tables. A trajectory's row is its latest attempt, and its scores are those
    written with that attempt (an attempt that ended in an error leaves no scores of an earlier one)."""
    parts = Path(run_dir) / "parts"
    if not parts.is_dir():
        return
    with run_lock(run_dir):
        trial_files = sorted(parts.glob("trials-*.parquet"))
        score_files = sorted(parts.glob("scores-*.parquet"))
        latest: dict[str, tuple[str, dict]] = {}
        for f in trial_files:
            stamp = f.name.removeprefix("trials-")
            for r in _conform(pq.read_table(f), TRIALS_SCHEMA).to_pylist():
                latest[r["trajectory_id"]] = (stamp, r)
        scores: list[dict] = []
        for f in score_files:
            stamp = f.name.removeprefix("scores-")
            for r in _conform(pq.read_table(f), SCORES_SCHEMA).to_pylist():
                if r["trajectory_id"] in latest and latest[r["trajectory_id"]][0] == stamp:
                    scores.append(r)
        if latest:
            upsert_rows(run_dir, "trials", [r for _, r in latest.values()])
            upsert_rows(run_dir, "scores", scores, replace_trajectories=latest.keys())
        # a scores part without its trials part (a kill between the two writes) is dropped with the rest:
        # its trials were never recorded, so the resume runs them again
        for f in [*trial_files, *score_files]:
            f.unlink(missing_ok=True)


def finished_keys(run_dir: Path, retry_statuses: Iterable[str] = ("infra_error",)) -> set[str]:
    trials = read_table(run_dir, "trials")
    keep = ~trials["status"].isin(list(retry_statuses))
    return set(trials.loc[keep, "trajectory_id"])

"""The Parquet store: schemas, atomic writes and idempotent upserts.

Every table is written to a temporary name in the destination folder and renamed, so a reader
never sees a half-written file. Analysis reads runs only through this module.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterable, Sequence
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


def read_table(run_dir: Path, name: str) -> pd.DataFrame:
    """A table in the current schema: columns an older run lacks come back as nulls."""
    path = Path(run_dir) / f"{name}.parquet"
    schema = TABLES[name]
    if not path.exists():
        return to_table([], schema).to_pandas()
    table = pq.read_table(path)
    for field in schema:
        if field.name not in table.column_names:
            table = table.append_column(field, pa.nulls(len(table), field.type))
    df = table.select(schema.names).to_pandas()
    if name == "trials":  # rescored runs written before agent_name existed
        df["agent_name"] = df["agent_name"].fillna(df["agent_model"])
    return df


def upsert_rows(run_dir: Path, name: str, rows: Iterable[dict]) -> pa.Table:
    """Replace rows with the same key and add new ones; the result is sorted by key.

    Writing the same rows twice yields the same table, so rescoring is idempotent.
    """
    schema, keys = TABLES[name], TABLE_KEYS[name]
    new = to_table(list(rows), schema)
    path = Path(run_dir) / f"{name}.parquet"
    if path.exists():
        old = pq.read_table(path).cast(schema)
        new_keys = set(zip(*(new.column(k).to_pylist() for k in keys), strict=True))
        old_keys = list(zip(*(old.column(k).to_pylist() for k in keys), strict=True))
        keep = pa.array([k not in new_keys for k in old_keys], type=pa.bool_())
        new = pa.concat_tables([old.filter(keep), new])
    new = new.sort_by([(k, "ascending") for k in keys])
    atomic_write_table(new, path)
    return new


def write_disagreements(run_dir: Path) -> pd.DataFrame:
    """The ``disagreements`` view: trials whose recorded reward differs from ours, or cannot be checked."""
    trials = read_table(run_dir, "trials")
    view = disagreements(trials)
    atomic_write_table(pa.Table.from_pandas(view, preserve_index=False), Path(run_dir) / "disagreements.parquet")
    return view


def disagreements(trials: pd.DataFrame) -> pd.DataFrame:
    cols = [
        "run_id", "trajectory_id", "source_file", "task_id", "trial",
        "recorded_reward", "reward", "status", "reason",
    ]
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
    stamp = f"{seq:06d}-{os.getpid()}-{tempfile.mktemp(dir='', prefix='')[-6:]}"
    # scores first: a part whose trials are missing only makes the resume rerun those trials
    atomic_write_table(to_table(score_rows, SCORES_SCHEMA), parts / f"scores-{stamp}.parquet")
    atomic_write_table(to_table(trial_rows, TRIALS_SCHEMA), parts / f"trials-{stamp}.parquet")


def compact(run_dir: Path) -> None:
    parts = Path(run_dir) / "parts"
    if not parts.is_dir():
        return
    for name in ("scores", "trials"):
        files = sorted(parts.glob(f"{name}-*.parquet"))
        if not files:
            continue
        rows: list[dict] = []
        for f in files:
            rows += pq.read_table(f).cast(TABLES[name]).to_pylist()
        latest = {tuple(r[k] for k in TABLE_KEYS[name]): r for r in rows}
        upsert_rows(run_dir, name, latest.values())
        for f in files:
            f.unlink()


def finished_keys(run_dir: Path, retry_statuses: Iterable[str] = ("infra_error",)) -> set[str]:
    trials = read_table(run_dir, "trials")
    keep = ~trials["status"].isin(list(retry_statuses))
    return set(trials.loc[keep, "trajectory_id"])

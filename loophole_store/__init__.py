"""The run directory: its Parquet schemas, tables, parts and compaction, run-directory checks, provenance
(``run.json``) and atomic files. The only code that knows a run's files; analysis reads runs through it."""

from envs.atomic import (
    atomic_folder,
    atomic_write,
    atomic_write_bytes,
    atomic_write_table,
    atomic_write_text,
)
from envs.errors import shown
from gold_variants import catalog_sha256
from loophole_store._provenance import (
    RUN_JSON,
    SECRET_FIELDS,
    git_revision,
    read_run_info,
    record_run,
    redact,
    run_info,
    task_data_sha256,
)
from loophole_store._rows import (
    StringColumn,
    failure_scores,
    float_or_null,
    int_or_null,
    reward_rows,
    trajectory_columns,
    trial_row,
)
from loophole_store._run import Run, check_run_dir, open_run
from loophole_store._rundir import check_out_dir, claim_sweep_output, creatable_top, remove_created
from loophole_store._schemas import (
    SCORES_SCHEMA,
    TABLE_KEYS,
    TABLES,
    TRIALS_SCHEMA,
    VERSIONS_DIFF_SCHEMA,
)
from loophole_store._tables import (
    compact,
    disagreements,
    finished_keys,
    read_table,
    read_tables,
    run_lock,
    to_table,
    upsert_rows,
    upsert_table,
    write_disagreements,
    write_part,
    write_versions_diff,
)

__all__ = [
    "RUN_JSON",
    "Run",
    "SCORES_SCHEMA",
    "SECRET_FIELDS",
    "StringColumn",
    "TABLES",
    "TABLE_KEYS",
    "TRIALS_SCHEMA",
    "VERSIONS_DIFF_SCHEMA",
    "atomic_folder",
    "atomic_write",
    "atomic_write_bytes",
    "atomic_write_table",
    "atomic_write_text",
    "catalog_sha256",
    "check_out_dir",
    "creatable_top",
    "check_run_dir",
    "claim_sweep_output",
    "compact",
    "disagreements",
    "failure_scores",
    "finished_keys",
    "float_or_null",
    "git_revision",
    "int_or_null",
    "open_run",
    "read_run_info",
    "read_table",
    "read_tables",
    "record_run",
    "redact",
    "remove_created",
    "reward_rows",
    "run_info",
    "run_lock",
    "shown",
    "task_data_sha256",
    "to_table",
    "trajectory_columns",
    "trial_row",
    "upsert_rows",
    "upsert_table",
    "write_disagreements",
    "write_part",
    "write_versions_diff",
]

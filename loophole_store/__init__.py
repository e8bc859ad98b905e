"""The run directory: its Parquet schemas, tables, parts and compaction, run-directory checks, provenance
(``run.json``) and atomic files. The only code that knows a run's files; analysis reads runs through it."""

from envs.atomic import (
    atomic_folder,
    atomic_write,
    atomic_write_bytes,
    atomic_write_table,
    atomic_write_text,
)
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
from loophole_store._run import Run, check_run_dir, open_run
from loophole_store._rundir import check_out_dir, remove_created, shown
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
    "SECRET_FIELDS",
    "Run",
    "SCORES_SCHEMA",
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
    "check_run_dir",
    "compact",
    "disagreements",
    "finished_keys",
    "git_revision",
    "open_run",
    "read_run_info",
    "read_table",
    "read_tables",
    "record_run",
    "redact",
    "remove_created",
    "run_info",
    "run_lock",
    "shown",
    "task_data_sha256",
    "to_table",
    "upsert_rows",
    "upsert_table",
    "write_disagreements",
    "write_part",
    "write_versions_diff",
]

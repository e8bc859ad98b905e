"""Every read of a run's Parquet files: a corrupt, truncated or foreign file is one line naming it, never a
pyarrow traceback (analyze, report, view, explain, and a rescore or leaderboard into an existing run)."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from loophole_base import HarnessInputError, shown

_SOURCE = re.compile(r"^Could not open Parquet input source '.*?':\s*")  # pyarrow repeats the path


def unreadable(path: Path, exc: BaseException) -> HarnessInputError:
    """The one-line error for a Parquet file pyarrow cannot read."""
    detail = _SOURCE.sub("", " ".join(str(exc).split()))[:200]
    return HarnessInputError(f"{shown(path)}: not a readable Parquet file ({type(exc).__name__}: {detail})")


def read_parquet(path: Path, columns: list[str] | None = None) -> pa.Table:
    """``pq.read_table``; a file that is gone raises ``FileNotFoundError`` (a compaction may remove a part
    while a reader lists them), any other failure ``unreadable``."""
    try:
        return pq.read_table(path, columns=columns)
    except FileNotFoundError:
        raise
    except (pa.ArrowException, OSError) as exc:
        raise unreadable(path, exc) from None


def read_schema(path: Path) -> pa.Schema:
    """``pq.read_schema`` (the footer only), with ``read_parquet``'s errors."""
    try:
        return pq.read_schema(path)
    except FileNotFoundError:
        raise
    except (pa.ArrowException, OSError) as exc:
        raise unreadable(path, exc) from None

"""Every read of a run's Parquet files: a corrupt, truncated or foreign file is one line naming it, never a
pyarrow traceback (analyze, report, view, explain, and a rescore or leaderboard into an existing run)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
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
    while a reader lists them), any other failure ``unreadable``. A plain file is read by ``pq.ParquetFile``:
    ``pq.read_table`` reads through ``pyarrow.dataset``, whose import cost a rescore's main process about 8 ms
    of CPU once (#47); the same table, and its errors word as ``pq.read_table``'s without the path it repeats
    (``unreadable`` strips that). Anything else (gone, a folder, a column the file lacks, which ``read`` would
    leave out where ``pq.read_table`` refuses it) goes to ``pq.read_table`` as it did."""
    try:
        if Path(path).is_file():
            with pq.ParquetFile(path) as parquet:
                if columns is None or set(columns) <= set(parquet.schema_arrow.names):
                    return parquet.read(columns=columns)
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


@contextmanager
def malloc_pool() -> Iterator[None]:
    """Arrow's allocations in the block from the C library's malloc (``pa.system_memory_pool``), not from the
    default pool (mimalloc in the wheels); the default is back after it. A rescore builds each chunk's columns
    (a few MB of the messages' text), writes them and frees them, chunk after chunk: mimalloc took fresh pages
    from the kernel for each, where malloc reuses its own (the main process's CPU for a rescore of 1,280 on two
    workers 0.63-0.73 s -> 0.50-0.52 s, nearly all of it system time, #47). A buffer keeps the pool it came
    from, so one made in the block and freed after goes back to malloc."""
    previous = pa.default_memory_pool()
    pa.set_memory_pool(pa.system_memory_pool())
    try:
        yield
    finally:
        pa.set_memory_pool(previous)

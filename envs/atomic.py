"""The project's one atomic writer. It sits in the lowest layer because the task-data cache (``envs``)
writes downloads with it as the store writes tables, reports and viewers."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, BinaryIO

if TYPE_CHECKING:
    import pyarrow as pa


def atomic_write(dest: Path, write: Callable[[BinaryIO], object]) -> None:
    """``write`` fills a temporary file in the destination's folder, which is fsynced, renamed over
    ``dest``, and the folder fsynced, so a reader (or a crash) sees the old file or the new one, never a
    part of one."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=dest.parent, prefix=f".{dest.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            write(fh)
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, 0o644)  # as a plain write would leave it (mkstemp makes it private)
        os.replace(tmp, dest)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is None:
            exc.filename = str(dest)  # a failed write (a full disk) names the file it was writing
        raise
    _fsync_dir(dest.parent)


def atomic_write_bytes(dest: Path, data: bytes) -> None:
    atomic_write(dest, lambda fh: fh.write(data))


def atomic_write_text(dest: Path, text: str) -> None:
    atomic_write_bytes(dest, text.encode("utf-8"))


def atomic_write_table(table: pa.Table, dest: Path) -> None:
    """``table`` as Parquet at ``dest``, atomically."""
    import pyarrow.parquet as pq

    atomic_write(dest, lambda fh: pq.write_table(table, fh))


@contextmanager
def atomic_folder(dest: Path) -> Iterator[Path]:
    """A folder filled under a temporary name beside ``dest`` and swapped in whole when the block ends
    (an old ``dest`` is replaced); on an error the temporary folder is removed and ``dest`` is untouched."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}."))
    try:
        yield tmp
        for path in [tmp, *tmp.rglob("*")]:  # for sharing (mkdtemp makes it private)
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        old = None
        if dest.exists():
            old = dest.parent / f".{dest.name}.old-{os.getpid()}"
            dest.rename(old)
        tmp.rename(dest)
        if old is not None:
            shutil.rmtree(old)
        _fsync_dir(dest.parent)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _fsync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)  # the rename itself survives a power loss
    finally:
        os.close(fd)

"""The project's one atomic writer. It sits in the lowest layer because the task-data cache (``envs``)
writes downloads with it as the store writes tables, reports and viewers."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import tempfile
from collections.abc import Callable, Iterator, Sequence
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


def atomic_place(dest: Path, src: Path) -> None:
    """``src``'s bytes at ``dest`` as ``atomic_write`` of a copy leaves them (fsynced, mode 0644, renamed into
    place, the folder fsynced), by a hard link where both are on one file system: a rescore's staged tables
    (~75 MB at 17,000 trajectories) cost ~0.4 s of CPU to copy, after the workers had finished (#47). Elsewhere
    (another file system, links refused) copied. The two names then share one file: ``src`` must not be
    written again (the caller's staged file is only removed)."""
    dest = Path(dest)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = dest.parent / f".{dest.name}.{secrets.token_hex(8)}.tmp"
    try:
        os.link(src, tmp)
    except OSError:  # EXDEV, EPERM, ENOTSUP...: the bytes are copied instead
        with open(src, "rb") as fh:
            atomic_write(dest, lambda out: shutil.copyfileobj(fh, out, 1 << 22))
        return
    try:
        fd = os.open(tmp, os.O_RDONLY)
        try:
            os.fsync(fd)  # the staged file's pages, written without a sync, reach the disk before the rename
        finally:
            os.close(fd)
        os.chmod(tmp, 0o644)
        os.replace(tmp, dest)
    except BaseException as exc:
        tmp.unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is None:
            exc.filename = str(dest)
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


OUTPUT_MANIFEST = ".harness-output.json"
"""The file a harness-built folder carries: which verb built it and every path it wrote. Only a folder
that holds this manifest, from the same verb, and nothing it does not list may be replaced."""


def _listing(folder: Path) -> list[str]:
    return sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*"))


def check_replaceable(dest: Path, made_by: str, label: str, inputs: Sequence[Path] = ()) -> None:
    """Refuse, in one line, to build ``dest`` where that would delete anything the harness did not write:
    a folder that is an input or holds one (or lies inside one), a file, or a non-empty folder without
    ``made_by``'s manifest, or with paths the manifest does not list (a user's notes, a run's tables)."""
    from loophole_base._errors import HarnessInputError, shown

    flag = f"{label} {shown(dest)}"
    real = Path(os.path.realpath(dest))
    for source in inputs:
        src = Path(os.path.realpath(source))
        if real == src or src in real.parents or real in src.parents:
            raise HarnessInputError(
                f"{flag}: is or overlaps the input {shown(source)}; input and output are never the same folder"
            )
    if not (dest.exists() or dest.is_symlink()):
        return
    if dest.is_symlink() or not dest.is_dir():
        raise HarnessInputError(f"{flag}: exists and is not a folder; refusing to replace it")
    try:
        present = _listing(dest)
    except OSError as exc:
        raise HarnessInputError(f"{flag}: cannot list it ({exc.strerror})") from None
    if not present:
        return
    manifest = dest / OUTPUT_MANIFEST
    written: set[str] = set()
    if manifest.is_file():
        try:
            held = json.loads(manifest.read_text(encoding="utf-8"))
            if isinstance(held, dict) and held.get("made_by") == made_by:
                written = {str(f) for f in held.get("files", [])}
        except (OSError, ValueError):
            written = set()
    if not written:
        files = [p for p in present if p != OUTPUT_MANIFEST and not (dest / p).is_dir()]
        example = (files or present)[0]
        raise HarnessInputError(
            f"{flag}: holds files `{made_by}` did not write (e.g. {shown(example)[:80]}); "
            "refusing to replace it: choose a new or empty folder"
        )
    extra = [p for p in present if p not in written and p != OUTPUT_MANIFEST]
    if extra:
        raise HarnessInputError(
            f"{flag}: holds {len(extra)} file(s) `{made_by}` did not write (e.g. "
            f"{shown(extra[0])[:80]}); refusing to replace it: move them or choose another folder"
        )


@contextmanager
def atomic_folder(
    dest: Path, *, made_by: str, label: str = "--out", inputs: Sequence[Path] = ()
) -> Iterator[Path]:
    """A folder filled under a temporary name beside ``dest`` and swapped in whole when the block ends;
    on an error the temporary folder is removed and ``dest`` is untouched. An old ``dest`` is replaced only
    when ``check_replaceable`` allows it (checked before the work and again before the swap); the new
    folder carries the manifest of what it holds."""
    dest = Path(dest)
    check_replaceable(dest, made_by, label, inputs)
    dest.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(dir=dest.parent, prefix=f".{dest.name}."))
    try:
        yield tmp
        files = [p for p in _listing(tmp) if p != OUTPUT_MANIFEST]
        (tmp / OUTPUT_MANIFEST).write_text(
            json.dumps({"made_by": made_by, "files": files}, indent=1), encoding="utf-8"
        )
        for path in [tmp, *tmp.rglob("*")]:  # for sharing (mkdtemp makes it private)
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        check_replaceable(dest, made_by, label, inputs)  # anything added meanwhile is kept, too
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

"""Finding results files: files, folders (searched recursively) and globs; dir-layout runs taken whole."""

from __future__ import annotations

import errno
import glob
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from loophole_base import HarnessInputError, shown

Kind = Literal["file", "dir", "missing", "other"]


@dataclass
class FoundSources:
    sources: list[Path]  # a monolithic file, or the folder of a dir-layout run
    notes: list[str] = field(default_factory=list)  # skipped paths (FIFOs, sockets, devices)


def _is_dir_run(folder: Path) -> bool:
    return (folder / "results.json").is_file() and (folder / "simulations").is_dir()


def _kind(path: Path) -> Kind:
    """'file', 'dir', 'missing' or 'other' (FIFO, socket, device); a symlink loop is an error."""
    try:
        mode = path.stat().st_mode
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise HarnessInputError(f"{shown(path)}: symlink loop") from None
        return "missing"  # absent, or a dangling link
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "dir"
    return "other"


def _walk(root: Path, found: FoundSources) -> None:
    """Results files under ``root``, recursively; dir-layout runs are taken whole. Symlinked folders are
    followed once; a folder reached again through a link is a symlink loop."""
    seen: set[tuple[int, int]] = set()
    stack = [root]
    while stack:
        folder = stack.pop()
        st = folder.stat()
        if (st.st_dev, st.st_ino) in seen:
            raise HarnessInputError(
                f"{shown(folder)}: symlink loop (a folder that contains itself)"
            )
        seen.add((st.st_dev, st.st_ino))
        if _is_dir_run(folder):
            found.sources.append(folder)
            continue
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError as exc:
            raise HarnessInputError(
                f"{shown(folder)}: cannot list folder ({exc.strerror})"
            ) from None
        subfolders: list[Path] = []
        for entry in entries:
            if entry.name.startswith("."):
                continue
            path = Path(entry.path)
            kind = _kind(path)
            if kind == "dir":
                subfolders.append(path)
            elif entry.name.endswith(".json"):
                if kind == "file":
                    found.sources.append(path)
                elif kind == "other":
                    found.notes.append(f"{shown(path)}: skipped (not a regular file)")
        stack += reversed(subfolders)


def find_sources(paths: list[str]) -> FoundSources:
    """Files, folders (searched recursively) and globs, in a stable order without repeats."""
    found = FoundSources([])
    for spec in paths:
        p = Path(spec)
        kind = _kind(p)
        if kind == "missing":
            matches = sorted(glob.glob(spec, recursive=True))
            if not matches or not any(ch in spec for ch in "*?["):
                raise HarnessInputError(f"{shown(spec)}: no such file, directory or glob match")
            candidates = [Path(m) for m in matches]
        else:
            candidates = [p]
        for c in candidates:
            kind = _kind(c)
            if kind == "dir":
                _walk(c, found)
            elif kind == "file":
                if c.name == "results.json" and _is_dir_run(c.parent):
                    found.sources.append(c.parent)
                else:
                    found.sources.append(c)
            elif kind == "other":
                if c is p:
                    raise HarnessInputError(f"{shown(c)}: not a regular file")
                found.notes.append(f"{shown(c)}: skipped (not a regular file)")
    found.sources = list(dict.fromkeys(s.resolve() for s in found.sources))
    if not found.sources:
        raise HarnessInputError(f"{shown(' '.join(paths))}: no results files found")
    return found

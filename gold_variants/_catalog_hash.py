"""The one catalog hash: what a run's scores, ``run.json`` and a cluster's nodes compare."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

_PACKAGE = Path(__file__).parent


def catalog_sha256(root: Path | None = None) -> str:
    """sha256 of the catalog and the rules that yield the variants: every ``.yaml`` and ``.py`` file of
    ``gold_variants`` (``root``: a copy of it), by relative path. A changed reading or clause rule, not only
    a changed ``catalog.yaml`` or ``report_golds.yaml`` (the gold actions a task report borrows from another
    version), is a different catalog."""
    return _package_sha256() if root is None else _tree_sha256(Path(root))


@lru_cache(maxsize=1)
def _package_sha256() -> str:  # the installed package does not change while a process runs
    return _tree_sha256(_PACKAGE)


def _tree_sha256(root: Path) -> str:
    h = hashlib.sha256()
    for path in sorted(
        p for p in root.rglob("*") if p.suffix in (".py", ".yaml") and "__pycache__" not in p.parts
    ):
        h.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()

"""The one catalog hash: what a run's scores, ``run.json`` and a cluster's nodes compare."""

from __future__ import annotations

import hashlib
from functools import lru_cache
from pathlib import Path

_PACKAGE = Path(__file__).parent


def catalog_sha256(root: Path | None = None, reading_root: Path | None = None, policy_root: Path | None = None) -> str:
    """sha256 of the catalog and the rules that yield the variants: every ``.yaml`` and ``.py`` file of
    ``gold_variants`` (``root``: a copy of it), of ``conversation_reading`` (``reading_root``: a copy of
    it; the words and the reading the verdicts rest on) and of ``policy_model`` (``policy_root``: the policy's
    rules they ask), by relative path. A changed reading or clause rule, a
    changed vocabulary, not only a changed ``catalog.yaml`` or ``report_golds.yaml`` (the gold actions a task
    report borrows from another version), is a different catalog."""
    if root is None and reading_root is None and policy_root is None:
        return _package_sha256()
    return _sha256(Path(root) if root is not None else _PACKAGE,
                   Path(reading_root) if reading_root is not None else _reading_package(),
                   Path(policy_root) if policy_root is not None else _policy_package())


@lru_cache(maxsize=1)
def _package_sha256() -> str:  # the installed packages do not change while a process runs
    return _sha256(_PACKAGE, _reading_package(), _policy_package())


def _reading_package() -> Path:
    import conversation_reading

    return Path(conversation_reading.__file__).parent


def _policy_package() -> Path:
    import policy_model

    return Path(policy_model.__file__).parent


def _sha256(root: Path, reading_root: Path, policy_root: Path) -> str:
    h = hashlib.sha256()
    for folder, prefix in ((root, ""), (reading_root, "conversation_reading/"), (policy_root, "policy_model/")):
        for path in sorted(
            p for p in folder.rglob("*") if p.suffix in (".py", ".yaml") and "__pycache__" not in p.parts
        ):
            h.update((prefix + path.relative_to(folder).as_posix()).encode() + b"\0" + path.read_bytes() + b"\0")
    return h.hexdigest()

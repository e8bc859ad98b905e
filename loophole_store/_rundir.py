"""Run-directory checks: where a command may write a run, and cleaning up a run folder a failed command made."""

from __future__ import annotations

import errno
import os
import shutil
from pathlib import Path

from loophole_base import HarnessInputError, shown

_RUN_FILES = (
    "trials.parquet",
    "scores.parquet",
    "disagreements.parquet",
    "leaderboard.parquet",
    ".lock",
    "parts",
)
_SYSTEM_ROOTS = ("/proc", "/sys", "/dev")


def check_out_dir(out: Path) -> Path | None:
    """``--out`` must be a run directory, an empty folder, or a folder we may create; checked before any
    work. Returns the topmost folder the command will create (None: it exists), for ``remove_created``."""
    flag = f"--out: {shown(out)}"
    resolved = Path(os.path.abspath(out))
    _refuse_system_root(flag, resolved)
    if resolved.exists() or resolved.is_symlink():
        if not resolved.is_dir():
            raise HarnessInputError(f"{flag} exists and is not a directory")
        try:
            entries = {e.name for e in os.scandir(resolved)}
        except OSError as exc:
            raise HarnessInputError(f"{flag}: cannot list it ({exc.strerror})") from None
        if entries and not entries & set(_RUN_FILES):
            raise HarnessInputError(
                f"{flag} is a folder with other files, not a run directory (no trials.parquet)"
            )
        made_by = _made_by(resolved)
        if made_by == "sweep":
            raise HarnessInputError(
                f"{flag} is a sweep's run directory (sweep.json): rescored rows would mix into that sweep; "
                "choose another --out"
            )
        if not os.access(resolved, os.W_OK | os.X_OK):
            raise HarnessInputError(f"{flag}: no permission to write there")
        _check_tables_readable(resolved)
        return None
    return creatable_top(flag, resolved)


def _check_tables_readable(run_dir: Path) -> None:
    """The run's tables that new rows will be merged into have a Parquet footer, before any scoring: a corrupt
    one is refused in one line naming it (a file corrupt past its footer is refused when it is read)."""
    from loophole_store._parquet import read_schema
    from loophole_store._schemas import TABLES

    for name in TABLES:
        path = run_dir / f"{name}.parquet"
        if path.is_file():
            read_schema(path)


def creatable_top(flag: str, path: Path) -> Path:
    """The topmost missing folder on the way to ``path`` (``path`` itself when only it is missing), after
    checking that the nearest existing ancestor is a folder we may write in; ``flag`` names the option."""
    path = Path(os.path.abspath(path))
    _refuse_system_root(flag, path)
    top, parent = path, path.parent
    while not parent.exists() and not parent.is_symlink():
        top, parent = parent, parent.parent
    if not parent.is_dir():
        raise HarnessInputError(f"{flag}: {shown(parent)} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise HarnessInputError(f"{flag}: no permission to create it under {shown(parent)}")
    return top


def _refuse_system_root(flag: str, resolved: Path) -> None:
    real = Path(os.path.realpath(resolved))
    if any(str(real) == root or str(real).startswith(root + "/") for root in _SYSTEM_ROOTS):
        raise HarnessInputError(
            f"{flag} is under a system folder ({real.parts[1] if len(real.parts) > 1 else real}); "
            "it cannot be created or written there"
        )


def remove_created(created: Path | None) -> None:
    """After a failed command: remove the run folder it created (and the parents it made), so that a
    failure leaves nothing behind. A folder that existed before is left as it was (writes are atomic)."""
    if created is not None:
        shutil.rmtree(created, ignore_errors=True)




def claim_sweep_output(out: Path, sweep_id: str, redacted_config: dict) -> None:
    """One output directory holds one sweep (``sweep.json`` names it): a changed config is never silently
    mixed in. A directory that holds no trial yet (a sweep stopped by its endpoint before any finished)
    is free to take."""
    import json

    from loophole_base import atomic_write_text

    flag = f"field 'output': {shown(out)}"
    _refuse_system_root(flag, Path(os.path.abspath(out)))
    made_by = _made_by(out)
    if made_by not in (None, "sweep"):
        raise HarnessInputError(
            f"{flag} holds a {shown(made_by)} run (run.json): a sweep's trials would mix into it; "
            "set a different 'output'"
        )
    marker = out / "sweep.json"
    if marker.exists():
        try:
            held = json.loads(marker.read_text(encoding="utf-8")).get("sweep_id")
        except (OSError, ValueError, AttributeError) as exc:
            raise HarnessInputError(f"{shown(marker)}: cannot read this sweep marker ({exc})") from None
        holds_trials = (out / "trials.parquet").exists() or any((out / "parts").glob("trials-*.parquet"))
        if held == sweep_id:
            return
        if holds_trials:
            raise HarnessInputError(
                f"{out}: holds sweep {held}; this config is sweep {sweep_id} (models, settings, tasks or trials "
                "changed); set a different 'output'"
            )
    payload = {"sweep_id": sweep_id, "config": redacted_config}
    try:
        out.mkdir(parents=True, exist_ok=True)
        atomic_write_text(marker, json.dumps(payload, indent=2, default=str))
    except OSError as exc:
        if exc.errno == errno.ENOSPC:
            raise  # the CLI's disk-full line says how to resume
        raise HarnessInputError(f"{flag}: cannot create or write it ({exc.strerror})") from None


def _made_by(run_dir: Path) -> str | None:
    """What wrote a run directory: ``sweep`` (its ``sweep.json``), else ``run.json``'s ``kind``
    (``rescore``), else None (nothing yet, or an unreadable record, which the commands report themselves)."""
    import json

    if (run_dir / "sweep.json").exists():
        return "sweep"
    try:
        kind = json.loads((run_dir / "run.json").read_text(encoding="utf-8")).get("kind")
    except (OSError, ValueError, AttributeError):
        return None
    return str(kind) if kind else None

"""Checks every entry point shares: the CLI and the Python API reach them through the same functions."""

from __future__ import annotations

from collections.abc import Sequence

from harness.execution import MAX_WORKERS
from loophole_base import HarnessInputError


def check_workers(workers: int | None, *, optional: bool = False) -> None:
    """``workers``: at least 1 and at most what Ray accepts (None only where a default is computed)."""
    if workers is None and optional:
        return
    if not isinstance(workers, int) or isinstance(workers, bool) or workers < 1:
        raise HarnessInputError(f"--workers {workers!r}: must be a whole number of at least 1")
    if workers > MAX_WORKERS:
        raise HarnessInputError(f"--workers {workers}: Ray accepts at most {MAX_WORKERS} (10^14)")


def check_replay(replay: object):  # -> envs.ReplayMode
    """``--replay``: lenient (upstream tau2 1.0.1's evaluate-trajs, the default) or strict (the pinned package)."""
    from envs import ReplayMode

    try:
        return ReplayMode(str(replay))
    except ValueError:
        raise HarnessInputError(
            f"--replay {str(replay)[:40]!r}: must be one of {[m.value for m in ReplayMode]}"
        ) from None


def check_versions(flag: str, versions: Sequence[str]) -> list[str]:
    """Each of ``versions`` a pinned task version, in order, without repeats."""
    from envs import TASK_VERSIONS

    for version in versions:
        if version not in TASK_VERSIONS:
            raise HarnessInputError(f"{flag}: {version!r} is not one of {list(TASK_VERSIONS)}")
    return list(dict.fromkeys(versions))


def check_at_least(flag: str, value: int, least: int) -> None:
    if value < least:
        raise HarnessInputError(f"{flag} {value}: must be at least {least}")

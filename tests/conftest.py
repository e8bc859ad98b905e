"""Shared test setup: point the harness at ../shared and keep tau2 quiet and offline."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("HARNESS_SHARED", ROOT.parent / "shared")).resolve()
TAU_DATA = SHARED / "tau-data"
REAL_RUNS = SHARED / "real-runs"

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
os.environ["HARNESS_TAU_DATA"] = str(TAU_DATA)

from harness._quiet import set_log_level  # noqa: E402

set_log_level(False)


def real_run(name: str) -> Path:
    path = REAL_RUNS / name
    if not path.exists():
        pytest.fail(f"{path} is missing: the tests need ../shared/real-runs beside the project")
    return path


@pytest.fixture
def isolated_data(tmp_path, monkeypatch):
    """No $HARNESS_TAU_DATA, an empty cache and no network."""
    monkeypatch.delenv("HARNESS_TAU_DATA", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setenv("HARNESS_OFFLINE", "1")
    from envs._tasks import _load

    _load.cache_clear()
    yield tmp_path
    _load.cache_clear()

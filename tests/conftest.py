"""Shared test setup: point the harness at ../shared and keep tau2 quiet and offline."""

from __future__ import annotations

import os
import subprocess
import sys
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


def harness(*args: str, timeout: int = 900) -> subprocess.CompletedProcess:
    """``harness ARGS`` as a user runs it: a separate process, output captured."""
    return subprocess.run(
        [sys.executable, "-m", "harness.cli.main", *args], capture_output=True, text=True, timeout=timeout
    )


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


@pytest.fixture(scope="session")
def offline_demo_run(tmp_path_factory):
    """A reduced offline demo through ``harness sweep`` (embedded Ray), shared by the e2e tests:
    the demo's three profiles on loophole and ordinary tasks, both task versions, two trials."""
    import subprocess
    import sys

    import yaml

    tmp = tmp_path_factory.mktemp("offline")
    demo = yaml.safe_load((ROOT / "configs" / "offline-demo.yaml").read_text())
    demo.update(tasks=["2", "5", "13", "27", "29", "32", "45", "0", "3"], trials=2, output=str(tmp / "demo"),
                task_versions=["tau2", "tau3"])
    (tmp / "demo.yaml").write_text(yaml.safe_dump(demo))
    proc = subprocess.run([sys.executable, "-m", "harness.cli.main", "sweep", str(tmp / "demo.yaml")],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return tmp / "demo", proc

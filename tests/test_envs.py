"""Task versions: loading, pins, the offline error and the sha256 refusal."""

from __future__ import annotations

import shutil

import pytest
from tau2.data_model.tasks import Task

from envs import TauDataError, UnknownTaskError, environment_constructor, load_task_set
from envs._data import ENV_DOWNLOAD_BASE, ENV_OFFLINE
from tests.conftest import TAU_DATA, harness


@pytest.mark.parametrize(
    ("domain", "version", "count"),
    [("airline", "tau2", 50), ("airline", "tau3", 50), ("retail", "tau2", 114), ("retail", "tau3", 114)],
)
def test_load_both_versions(domain, version, count):
    ts = load_task_set(domain, version)
    assert len(ts.tasks) == count
    assert all(isinstance(t, Task) for t in ts.tasks)
    assert len(set(ts.task_ids())) == count
    assert "policy" in ts.policy.lower()
    env = ts.environment_constructor()()
    assert env.domain_name == domain
    assert env.policy == ts.policy


def test_tau3_basis_differs_from_tau2_for_retail():
    t2 = load_task_set("retail", "tau2")
    t3 = load_task_set("retail", "tau3")
    nl3 = sum("NL_ASSERTION" in [b.value for b in t.evaluation_criteria.reward_basis] for t in t3.tasks)
    nl2 = sum("NL_ASSERTION" in [b.value for b in t.evaluation_criteria.reward_basis] for t in t2.tasks)
    assert (nl2, nl3) == (0, 112)


def test_unknown_task_id_is_one_line():
    ts = load_task_set("airline", "tau2")
    with pytest.raises(UnknownTaskError) as err:
        ts.task("999")
    assert "999" in str(err.value) and "\n" not in str(err.value)


def test_unknown_domain():
    with pytest.raises(TauDataError, match="unknown domain 'telecom'"):
        load_task_set("telecom", "tau2")


def test_policy_override_reaches_environment():
    env = environment_constructor("airline", policy="custom policy")()
    assert env.policy == "custom policy"


def test_offline_missing_file_names_file_and_ways(isolated_data):
    with pytest.raises(TauDataError) as err:
        load_task_set("airline", "tau3")
    msg = str(err.value)
    assert "tau3 airline/tasks.json" in msg
    assert "$HARNESS_TAU_DATA" in msg and "cache" in msg and "raw.githubusercontent.com" in msg
    assert "\n" not in msg


def test_download_failure_is_reported(isolated_data, monkeypatch):
    monkeypatch.delenv(ENV_OFFLINE)
    monkeypatch.setenv(ENV_DOWNLOAD_BASE, "http://127.0.0.1:9")  # nothing listens on the discard port
    with pytest.raises(TauDataError, match="download from http://127.0.0.1:9/.* failed"):
        load_task_set("retail", "tau3")


def test_cache_is_used_and_verified(isolated_data):
    cached = isolated_data / "cache" / "tau-harness" / "tau3" / "airline"
    cached.mkdir(parents=True)
    for name in ("tasks.json", "policy.md"):
        shutil.copy(TAU_DATA / "tau3" / "airline" / name, cached / name)
    assert len(load_task_set("airline", "tau3").tasks) == 50


def test_tampered_file_is_refused(isolated_data, monkeypatch):
    data = isolated_data / "data" / "tau3" / "airline"
    data.mkdir(parents=True)
    shutil.copy(TAU_DATA / "tau3" / "airline" / "policy.md", data / "policy.md")
    raw = (TAU_DATA / "tau3" / "airline" / "tasks.json").read_bytes()
    (data / "tasks.json").write_bytes(raw.replace(b'"id": "1"', b'"id": "1x"', 1))
    monkeypatch.setenv("HARNESS_TAU_DATA", str(isolated_data / "data"))
    with pytest.raises(TauDataError) as err:
        load_task_set("airline", "tau3")
    assert "does not match the pinned" in str(err.value) and "tasks.json" in str(err.value)


def test_explicit_path_is_verified(tmp_path):
    bad = tmp_path / "tasks.json"
    bad.write_text("[]")
    with pytest.raises(TauDataError, match="does not match the pinned"):
        load_task_set("airline", "tau3", tasks_file=bad)


def test_cli_offline_error_is_one_line_without_traceback(tmp_path):
    import os

    env = {k: v for k, v in os.environ.items() if k != "HARNESS_TAU_DATA"}
    env.update({"XDG_CACHE_HOME": str(tmp_path), "HARNESS_OFFLINE": "1"})
    proc = harness("versions", "diff", "--domain", "airline", env=env, timeout=300)
    assert proc.returncode != 0
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("error: tau3 airline/tasks.json is not available")
    assert "Traceback" not in proc.stderr

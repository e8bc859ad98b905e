"""The driver's payload for cluster workers: task data served from memory on a node without any."""

from __future__ import annotations

import dataclasses

import pytest

from envs import TauDataError, load_task_set
from envs._tasks import _load
from harness.cluster import ClusterMismatchError, build_payload, install_payload


def test_a_node_without_task_data_loads_the_drivers(
    isolated_data, no_handed_over_data, monkeypatch
):
    from tests.conftest import TAU_DATA

    monkeypatch.setenv("HARNESS_TAU_DATA", str(TAU_DATA))  # the driver has the data
    driver = load_task_set("airline", "tau3")
    payload = build_payload([("airline", "tau3"), ("retail", "tau2"), ("airline", "tau3")])
    assert [(d, v) for d, v, *_ in payload.task_data] == [("airline", "tau3"), ("retail", "tau2")]

    monkeypatch.delenv("HARNESS_TAU_DATA")  # the worker node: no data dir, empty cache, offline
    _load.cache_clear()
    with pytest.raises(TauDataError, match="not available"):
        load_task_set("airline", "tau3")
    install_payload(payload)
    worker = load_task_set("airline", "tau3")
    assert worker.raw_tasks == driver.raw_tasks and worker.policy == driver.policy
    assert str(worker.tasks_path).startswith("<in memory>")


def test_tampered_data_or_another_catalog_is_refused(no_handed_over_data):
    payload = build_payload([("airline", "tau2")])
    domain, version, tasks, policy = payload.task_data[0]
    bad = dataclasses.replace(
        payload, task_data=((domain, version, tasks.replace(b"a", b"b", 1), policy),)
    )
    with pytest.raises(TauDataError, match="does not match its pin"):
        install_payload(bad)
    with pytest.raises(ClusterMismatchError, match="same harness version"):
        install_payload(dataclasses.replace(payload, catalog_sha256="0" * 64))


def test_a_ray_client_address_without_ray_client_is_one_line_error():
    import ray
    from ray._private.utils import get_ray_client_dependency_error

    from harness.execution import init_ray
    from loophole_base import HarnessInputError

    if get_ray_client_dependency_error() is None or ray.is_initialized():
        pytest.skip("Ray Client is installed here (or Ray already runs in this process)")
    with pytest.raises(HarnessInputError, match="needs Ray Client"):
        init_ray("ray://127.0.0.1:10001")

"""What the driver hands its workers, so a cluster node needs only the installed package.

A node of a Ray cluster may have no ``$HARNESS_TAU_DATA``, no cache and no network. The driver reads the
task data of every (domain, task version) in the sweep (tasks.json and policy.md, verified against their
pins), puts it in Ray's object store once, and each worker installs it in memory before its first trial
(``envs.provide_task_data``): ``load_task_set`` then never reads a file on that node. Policy overrides
already travel inside each trial spec. The catalog of gold variants and the policy fixes are package
data; the payload carries the driver's catalog sha256 so that a node with another version of the
package refuses to score rather than scoring against different variants.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from envs import load_task_set, provide_task_data
from gold_variants import catalog_sha256
from loophole_base import HarnessError


class ClusterMismatchError(HarnessError):
    """A worker's installed package differs from the driver's (one-line message)."""


@dataclass(frozen=True)
class WorkerPayload:
    """Task data (domain, version, tasks.json bytes, policy.md bytes) and the driver's catalog sha256."""

    task_data: tuple[tuple[str, str, bytes, bytes], ...]
    catalog_sha256: str


def build_payload(pairs: Iterable[tuple[str, str]]) -> WorkerPayload:
    """On the driver: the verified task data of each (domain, version), read once."""
    task_data = []
    for domain, version in sorted(set(pairs)):
        task_set = load_task_set(domain, version)  # resolves and verifies the pinned files
        tasks, policy = task_set.tasks_path.read_bytes(), task_set.policy_path.read_bytes()
        task_data.append((domain, version, tasks, policy))
    return WorkerPayload(tuple(task_data), catalog_sha256())


def install_payload(payload: WorkerPayload) -> None:
    """On a worker, before any trial: serve the driver's task data from memory; check the catalog."""
    ours = catalog_sha256()
    if ours != payload.catalog_sha256:
        raise ClusterMismatchError(
            f"this node's gold-variant catalog (sha256 {ours[:12]}…) differs from the driver's "
            f"({payload.catalog_sha256[:12]}…): install the same harness version on every node"
        )
    for domain, version, tasks, policy in payload.task_data:
        provide_task_data(domain, version, tasks, policy)


def prepare_worker(payload: WorkerPayload | None, prices: dict | None) -> None:
    """Everything a trial worker takes from its driver, before its first trial: task data and prices."""
    if payload is not None:
        install_payload(payload)
    if prices:
        from harness.costs import register_prices

        register_prices(prices)


def worker_count(address: str | None, max_concurrency: int, local_cpus: int) -> int:
    """Embedded: a worker per core, four trials each at least. A cluster: a worker per CPU of the cluster
    (every node gets some), never more than the trials in flight."""
    import math

    import ray

    if address is None:
        return max(1, min(local_cpus, math.ceil(max_concurrency / 4)))
    cpus = int(ray.cluster_resources().get("CPU", 1))
    return max(1, min(cpus, max_concurrency))


def placements(n_workers: int) -> list[dict]:
    """Ray options that pin the workers round-robin to the alive nodes that have CPUs: Ray's own
    scheduler (SPREAD, or soft affinity) packed the CPU-less actors onto one node in tests."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    nodes = sorted(
        n["NodeID"] for n in ray.nodes() if n.get("Alive") and n.get("Resources", {}).get("CPU")
    )
    if len(nodes) < 2:
        return [{} for _ in range(n_workers)]
    return [
        {"scheduling_strategy": NodeAffinitySchedulingStrategy(nodes[i % len(nodes)], soft=False)}
        for i in range(n_workers)
    ]


def current_node() -> str:
    import ray

    return ray.get_runtime_context().get_node_id()

"""Ray: embedded on 127.0.0.1 by default (dashboard off), or a cluster when given an address."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator

# Ray refuses a resource quantity above ray_constants.MAX_RESOURCE_QUANTITY (100e12) with a ValueError;
# workers are capped at it (harness.app checks every entry point's --workers before any work).
MAX_WORKERS = 100_000_000_000_000


def init_ray(address: str | None = None, num_cpus: int | None = None) -> None:
    import ray

    from harness._quiet import quiet_ray

    quiet_ray()

    if ray.is_initialized():
        return
    if num_cpus is not None and num_cpus > MAX_WORKERS:
        from loophole_base import HarnessInputError

        raise HarnessInputError(f"workers {num_cpus}: Ray accepts at most {MAX_WORKERS} (10^14)")
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    if address:
        if address.startswith("ray://"):
            from ray._private.utils import get_ray_client_dependency_error

            if get_ray_client_dependency_error() is not None:
                from loophole_base import HarnessInputError

                raise HarnessInputError(
                    f"field 'address': {address} needs Ray Client, which is not installed: "
                    "pip install 'tau-loophole-harness[cluster]' (or 'ray[client]'), or use 'auto' on a cluster node"
                )
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    else:
        # address="local": always start a private instance, never join a `ray start` cluster that
        # happens to run on this machine (or its stale address file).
        with _loopback_node():
            ray.init(
                address="local",
                num_cpus=num_cpus,
                include_dashboard=False,
                log_to_driver=False,
                _node_ip_address="127.0.0.1",
                configure_logging=False,
            )


@contextlib.contextmanager
def _loopback_node() -> Iterator[None]:
    """The embedded instance's node address is 127.0.0.1, so that its servers listen on the loopback only.

    Ray turns a ``_node_ip_address`` of 127.0.0.1 into this machine's routable address, and its GCS, raylet and
    workers then listen on every interface. Where Ray runs without clusters (its macOS and Windows default) it
    keeps the loopback address, and every process it starts takes that address as an argument. Only the start
    reads the switch, so it is put back once the node is up: a later call in this process may join a cluster."""
    from ray._private import ray_constants

    clusters = ray_constants.ENABLE_RAY_CLUSTER
    ray_constants.ENABLE_RAY_CLUSTER = False
    try:
        yield
    finally:
        ray_constants.ENABLE_RAY_CLUSTER = clusters


@contextlib.contextmanager
def ray_stderr_quiet() -> Iterator[None]:
    """File descriptor 2 to /dev/null around a Ray call whose C++ side logs to it (not with ``-v``)."""
    from harness._quiet import is_verbose

    if is_verbose():
        yield
        return
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        with open(os.devnull, "w") as null:
            os.dup2(null.fileno(), 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)

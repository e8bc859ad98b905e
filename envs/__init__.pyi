"""The tau2 world: pinned task versions, tau2 environments and the fast replay engine."""
from ._data import TauDataError, cache_dir, resolve_file, sha256_file
from ._once import locked_cache
from ._pinned import (
    COMMITS,
    CUSTOM,
    DOMAINS,
    REPOSITORIES,
    TASK_VERSIONS,
    Domain,
    TaskVersion,
    pinned_sha256,
)
from ._tasks import (
    TaskRef,
    TaskSet,
    UnknownTaskError,
    check_domain,
    check_version,
    environment_constructor,
    load_task_set,
    provide_task_data,
)

__all__ = [
    "COMMITS",
    "CUSTOM",
    "DOMAINS",
    "REPOSITORIES",
    "TASK_VERSIONS",
    "Domain",
    "TaskRef",
    "TaskSet",
    "TaskVersion",
    "TauDataError",
    "UnknownTaskError",
    "cache_dir",
    "check_domain",
    "check_version",
    "environment_constructor",
    "load_task_set",
    "locked_cache",
    "pinned_sha256",
    "provide_task_data",
    "resolve_file",
    "sha256_file",
]

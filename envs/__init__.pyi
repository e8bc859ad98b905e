"""The tau2 world: pinned task versions, tau2 environments and the fast replay engine."""

from ._data import (
    TauDataError,
    UnknownTaskError,
    cache_dir,
    resolve_file,
    sha256_file,
)
from ._detect import (
    detect_task_version,
    pinned_gold_version,
    version_named_by,
)
from ._once import (
    locked_cache,
)
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
from ._pool import (
    DatabasePool,
)
from ._replay import (
    ReplayEngine,
    ReplayResult,
    State,
    TrajectoryStructureError,
    actions_key,
    engine_for,
    pristine_toolkit,
    tool_call_pairs,
)
from ._replay_modes import (
    REPLAY_FLAGS,
    ReplayFlag,
    ReplayMode,
)
from ._steps import (
    GoldStep,
    gold_steps,
    replay_steps,
    tool_kind,
)
from ._tasks import (
    TaskRef,
    TaskSet,
    check_domain,
    check_version,
    environment_constructor,
    load_task_set,
    provide_task_data,
)
from ._versions import (
    VersionDiff,
    diff_versions,
)

__all__ = [
    "actions_key",
    "cache_dir",
    "check_domain",
    "check_version",
    "COMMITS",
    "CUSTOM",
    "DatabasePool",
    "detect_task_version",
    "version_named_by",
    "diff_versions",
    "Domain",
    "DOMAINS",
    "engine_for",
    "environment_constructor",
    "GoldStep",
    "load_task_set",
    "locked_cache",
    "pinned_gold_version",
    "pinned_sha256",
    "pristine_toolkit",
    "provide_task_data",
    "REPLAY_FLAGS",
    "ReplayEngine",
    "ReplayFlag",
    "ReplayMode",
    "ReplayResult",
    "gold_steps",
    "replay_steps",
    "REPOSITORIES",
    "resolve_file",
    "sha256_file",
    "State",
    "TASK_VERSIONS",
    "TaskRef",
    "TaskSet",
    "TaskVersion",
    "TauDataError",
    "tool_call_pairs",
    "tool_kind",
    "TrajectoryStructureError",
    "UnknownTaskError",
    "VersionDiff",
]

"""The ingest stage's public names (what each is: ``__init__.py``'s docstring)."""

from ._identity import (
    TaskIdentity,
    identity_note,
)
from ._runs import (
    ImportedRun,
    import_results_file,
)
from ._shapes import (
    foreign_tools,
)
from ._simulations import (
    COMPLETED,
    FLAGS,
    ImportedSimulation,
)
from ._sources import (
    FoundSources,
    find_sources,
)
from ._spans import (
    SimulationSpans,
    SpanError,
    read_simulations,
)
from ._upstream import (
    GOLD_REPLAY_INCOMPLETE_FLAG,
    FailedGoldAction,
    RunUpstream,
    UpstreamFields,
)

__all__ = [
    "COMPLETED",
    "find_sources",
    "FLAGS",
    "FailedGoldAction",
    "foreign_tools",
    "GOLD_REPLAY_INCOMPLETE_FLAG",
    "identity_note",
    "FoundSources",
    "import_results_file",
    "ImportedRun",
    "ImportedSimulation",
    "read_simulations",
    "RunUpstream",
    "SimulationSpans",
    "SpanError",
    "TaskIdentity",
    "UpstreamFields",
]

"""Ingest: read ``tau2 run`` results files in every layout tau2 writes, one simulation at a time.

Layouts (see README "Rescoring"): a monolithic JSON object with ``info``, ``tasks`` and ``simulations``
(flat, or ``<run>/results.json``), and the dir layout (``<run>/results.json`` without simulations plus
``simulation_index``, and ``<run>/simulations/<id>.json``). Files are untrusted data: parsed with a strict
JSON decoder (no duplicate keys, no NaN/Infinity, valid UTF-8), streamed so that memory stays bounded, and
validated with tau2's pydantic models. Fields that newer tau2 versions add are ignored; fields older
versions lack take tau2's defaults.

Modules: ``sources`` (finding results files), ``jsonstream`` (strict, streaming JSON), ``runs`` (a run's
header and layout), ``shapes`` (headerless shapes from the wild: a bare list, one simulation; refused forks
and stripped uploads; a run's own tools), ``simulations`` (one simulation's checks); a file's task version is decided by
``envs._detect``."""

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

__all__ = [
    "COMPLETED",
    "find_sources",
    "FLAGS",
    "foreign_tools",
    "FoundSources",
    "import_results_file",
    "ImportedRun",
    "ImportedSimulation",
    "read_simulations",
    "SimulationSpans",
    "SpanError",
]

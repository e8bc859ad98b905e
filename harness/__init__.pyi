"""The Python API: the application layer's functions, one per CLI verb, and their typed results."""
from .app._analyze import (
    AnalysisResult,
    analyze,
)
from .app._explain import (
    AmbiguousTrajectory,
    ExplainResult,
    explain,
)
from .app._leaderboard import (
    LeaderboardResult,
    leaderboard,
)
from .app._report import (
    ReportResult,
    ViewResult,
    report,
    view,
)
from .app._rescore import (
    RescoreResult,
    rescore,
)
from .app._sweep import (
    SweepResult,
    sweep,
)

__all__ = [
    "AnalysisResult",
    "analyze",
    "AmbiguousTrajectory",
    "ExplainResult",
    "explain",
    "LeaderboardResult",
    "leaderboard",
    "ReportResult",
    "report",
    "RescoreResult",
    "rescore",
    "SweepResult",
    "sweep",
    "ViewResult",
    "view",
]

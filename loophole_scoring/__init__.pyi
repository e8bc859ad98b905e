"""Scoring: one trajectory × its golds (the single gold and its variants) → a ``TrajectoryScore``; one path
for sweeps and rescoring. Knows nothing of Ray, files or the CLI."""

from ._contract import (
    DO_NOTHING_GOODBYE,
    DO_NOTHING_GREETING,
    DO_NOTHING_USER_DONE,
    GoldContract,
    do_nothing_simulation,
    do_nothing_verdict,
    gold_contract,
    opening_request,
)
from ._judge import (
    RECORDED,
    Judge,
    JudgeError,
    JudgeSpec,
    JudgeVerdict,
    LitellmJudge,
    OncePerTrajectory,
    RecordedJudge,
    recorded_verdicts,
)
from ._record import (
    governing_evidence,
    trajectory_record,
)
from ._simulation import (
    NO_VARIANTS_CUSTOM,
    ScoredSimulation,
    golds_for,
    score_simulation,
    stored_record,
)
from ._single_gold import (
    GOLD_ID,
    GoldScore,
    PredictedReplay,
    replay_prediction,
    score_against_gold,
)
from ._status import (
    RETRIED_ON_RESUME,
    Status,
    Verdict,
)
from ._strict import (
    BROKEN_GOLD,
    StrictVerdict,
    strict_verdict,
)
from ._trajectory import (
    ScoringInvariantError,
    TrajectoryScore,
    score_trajectory,
)
from ._why import (
    GoldFailure,
    RecordDiff,
    WhyGoldFails,
    tau2_messages,
)

__all__ = [
    "BROKEN_GOLD",
    "governing_evidence",
    "strict_verdict",
    "StrictVerdict",
    "stored_record",
    "do_nothing_simulation",
    "do_nothing_verdict",
    "DO_NOTHING_GOODBYE",
    "DO_NOTHING_GREETING",
    "DO_NOTHING_USER_DONE",
    "gold_contract",
    "GoldContract",
    "opening_request",
    "GOLD_ID",
    "GoldFailure",
    "golds_for",
    "GoldScore",
    "Judge",
    "JudgeError",
    "JudgeSpec",
    "JudgeVerdict",
    "LitellmJudge",
    "NO_VARIANTS_CUSTOM",
    "OncePerTrajectory",
    "PredictedReplay",
    "RecordDiff",
    "RECORDED",
    "recorded_verdicts",
    "RecordedJudge",
    "replay_prediction",
    "RETRIED_ON_RESUME",
    "score_against_gold",
    "score_simulation",
    "score_trajectory",
    "ScoredSimulation",
    "ScoringInvariantError",
    "Status",
    "tau2_messages",
    "trajectory_record",
    "TrajectoryScore",
    "Verdict",
    "WhyGoldFails",
]

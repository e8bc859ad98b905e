"""Scoring: one trajectory × its golds (the single gold and its variants) → a ``TrajectoryScore``; one path
for sweeps and rescoring. Knows nothing of Ray, files or the CLI."""
from ._judge import Judge, JudgeError, JudgeVerdict, LitellmJudge
from ._single_gold import (
    GOLD_ID,
    GoldScore,
    PredictedReplay,
    replay_prediction,
    score_against_gold,
)
from ._status import RETRIED_ON_RESUME, Status
from ._trajectory import ScoringInvariantError, TrajectoryScore, score_trajectory
from ._why import GoldFailure, RecordDiff, WhyGoldFails, tau2_messages

__all__ = [
    "RETRIED_ON_RESUME",
    "Status",
    "GOLD_ID",
    "GoldFailure",
    "GoldScore",
    "Judge",
    "JudgeError",
    "JudgeVerdict",
    "LitellmJudge",
    "PredictedReplay",
    "RecordDiff",
    "ScoringInvariantError",
    "TrajectoryScore",
    "WhyGoldFails",
    "replay_prediction",
    "score_against_gold",
    "score_trajectory",
    "tau2_messages",
]

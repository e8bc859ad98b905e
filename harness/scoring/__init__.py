"""Scoring: one path for sweeps and rescoring (single gold now, gold variants plug in here)."""

from harness.scoring._judge import Judge, JudgeError, JudgeVerdict, LitellmJudge
from harness.scoring._single_gold import (
    GOLD_ID,
    GoldScore,
    PredictedReplay,
    replay_prediction,
    score_against_gold,
)
from harness.scoring._trajectory import ScoringInvariantError, TrajectoryScore, score_trajectory

__all__ = [
    "GOLD_ID",
    "GoldScore",
    "Judge",
    "JudgeError",
    "JudgeVerdict",
    "LitellmJudge",
    "PredictedReplay",
    "ScoringInvariantError",
    "TrajectoryScore",
    "replay_prediction",
    "score_against_gold",
    "score_trajectory",
]

"""``score_trajectory``: one trajectory against the single gold (and, later, its variants)."""

from __future__ import annotations

from dataclasses import dataclass

from tau2.data_model.simulation import SimulationRun
from tau2.data_model.tasks import Task

from envs.replay import ReplayEngine
from harness.scoring._judge import Judge
from harness.scoring._single_gold import GOLD_ID, GoldScore, replay_prediction, score_against_gold


@dataclass
class TrajectoryScore:
    scores: list[GoldScore]

    @property
    def single_gold(self) -> GoldScore:
        return next(s for s in self.scores if s.gold_id == GOLD_ID)

    @property
    def multi_gold_reward(self) -> float | None:
        """Max over golds; null when the single gold cannot be scored."""
        if self.single_gold.reward is None:
            return None
        return max(s.reward for s in self.scores if s.reward is not None)


def score_trajectory(
    sim: SimulationRun, task: Task, engine: ReplayEngine, judge: Judge | None = None
) -> TrajectoryScore:
    predicted = None
    if task.evaluation_criteria is not None and task.evaluation_criteria.actions is not None:
        predicted = replay_prediction(engine, sim.messages)
    gold = score_against_gold(sim, task, engine, predicted, judge=judge)
    return TrajectoryScore([gold])

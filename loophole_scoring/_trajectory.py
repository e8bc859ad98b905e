"""``score_trajectory``: one trajectory against the single gold and every applicable gold variant.

The agent's replay is computed once and shared by all golds; each action-list gold's replay is cached
by the engine, so scoring against all variants costs little more than scoring once.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Sequence
from dataclasses import dataclass

from tau2.data_model.simulation import SimulationRun
from tau2.data_model.tasks import Task

from envs.replay import ReplayEngine
from gold_variants import GoldVariant, explain, predicate_holds
from loophole_scoring._judge import Judge
from loophole_scoring._single_gold import GOLD_ID, GoldScore, replay_prediction, score_against_gold


@dataclass
class TrajectoryScore:
    scores: list[GoldScore]
    variants: dict[str, GoldVariant]

    @property
    def single_gold(self) -> GoldScore:
        return next(s for s in self.scores if s.gold_id == GOLD_ID)

    @property
    def multi_gold_reward(self) -> float | None:
        """Max over the gold and its variants; null when the single gold cannot be scored."""
        if self.single_gold.reward is None:
            return None
        return max(s.reward for s in self.scores if s.reward is not None)

    @property
    def matched_gold_ids(self) -> list[str]:
        """Golds under which the trajectory scores full reward."""
        return [s.gold_id for s in self.scores if s.reward == 1.0]

    def invariant_violations(self) -> list[str]:
        """What multi-gold promises, checked on every scored trajectory: it never scores a trajectory below
        the single gold, and every variant credit carries an explanation whose preconditions held."""
        problems = []
        single, multi = self.single_gold.reward, self.multi_gold_reward
        if single is not None and (multi is None or multi < single):
            problems.append(f"multi-gold reward {multi} is below the single-gold reward {single}")
        for s in self.scores:
            if s.gold_id == GOLD_ID or s.reward != 1.0:
                continue
            if s.explanation_json is None:
                problems.append(f"{s.gold_id} credits the trajectory without an explanation")
                continue
            failed = [p["name"] for p in json.loads(s.explanation_json)["preconditions"] if not p["held"]]
            if failed:
                problems.append(f"{s.gold_id} credits the trajectory although {', '.join(failed)} failed")
        return problems

    def crediting_readings(self) -> list[str]:
        """Readings that credit a trajectory the single gold fails (e.g. ``L6.single_call``)."""
        if self.single_gold.reward == 1.0:
            return []
        return [g for g in self.matched_gold_ids if g != GOLD_ID]


def score_trajectory(
    sim: SimulationRun,
    task: Task,
    engine: ReplayEngine,
    judge: Judge | None = None,
    variants: Sequence[GoldVariant] = (),
) -> TrajectoryScore:
    predicted = None
    if variants or (task.evaluation_criteria is not None and task.evaluation_criteria.actions is not None):
        predicted = replay_prediction(engine, sim.messages)
    scores = [score_against_gold(sim, task, engine, predicted, judge=judge)]
    for variant in variants:
        outcome = None
        if variant.predicate is not None:
            predicate = variant.predicate
            outcome = lambda state, p=predicate: predicate_holds(p, engine, state)  # noqa: E731
        scores.append(
            score_against_gold(
                sim, task, engine, predicted,
                gold_id=variant.gold_id,
                gold_actions=variant.actions,
                judge=judge,
                outcome_check=outcome,
                explain=functools.partial(explain, variant),
                communicate_info=variant.communicate_info,
            )
        )
    result = TrajectoryScore(scores, {v.gold_id: v for v in variants})
    problems = result.invariant_violations()
    if problems:  # a scoring bug, never a property of the trajectory: stop rather than store it
        raise ScoringInvariantError(f"task {task.id} trajectory {sim.id}: {'; '.join(problems)}")
    return result


class ScoringInvariantError(AssertionError):
    """Multi-gold scored a trajectory below its single gold, or credited it without a held explanation."""

"""``score_trajectory``: one trajectory against the single gold and every applicable gold variant.

The agent's replay is computed once and shared by all golds; each action-list gold's replay is cached
by the engine, so scoring against all variants costs little more than scoring once.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from tau2.data_model.simulation import SimulationRun
from tau2.data_model.tasks import Task

from conversation_reading import ConversationRecord, read_explanation
from envs import ReplayEngine, ReplayMode
from gold_variants import GoldVariant, explain_variant, pending_ending, predicate_holds, requests_in
from loophole_scoring._judge import Judge
from loophole_scoring._single_gold import (
    GOLD_ID,
    GoldScore,
    PredictedReplay,
    replay_prediction,
    score_against_gold,
)
from loophole_scoring._status import Verdict


@dataclass
class TrajectoryScore:
    scores: list[GoldScore]
    variants: dict[str, GoldVariant]
    replay_mode: ReplayMode = ReplayMode.LENIENT
    # what the agent's replay did that strict replay would not (``envs.ReplayFlag`` -> calls); empty when
    # the trajectory needed no replay (tau2 skips it where the gold has no actions and no variant applies)
    replay_flags: dict[str, list[str]] = field(default_factory=dict)

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
    def multi_gold_upper(self) -> float | None:
        """``multi_gold_reward`` counting the uncertain credits too: the band's upper end."""
        multi = self.multi_gold_reward
        if multi is None:
            return None
        return max(multi, max((1.0 for s in self.scores if s.verdict == Verdict.UNCERTAIN), default=0.0))

    @property
    def matched_gold_ids(self) -> list[str]:
        """Golds under which the trajectory scores full reward."""
        return [s.gold_id for s in self.scores if s.reward == 1.0]

    def invariant_violations(self) -> list[str]:
        """What multi-gold promises, checked on every scored trajectory: it never scores a trajectory below
        the single gold, and every variant credit carries an explanation whose preconditions held."""
        problems = []
        single, multi, upper = self.single_gold.reward, self.multi_gold_reward, self.multi_gold_upper
        if single is not None and (multi is None or multi < single):
            problems.append(f"multi-gold reward {multi} is below the single-gold reward {single}")
        if multi is not None and (upper is None or upper < multi):
            problems.append(f"multi-gold upper bound {upper} is below the multi-gold reward {multi}")
        for s in self.scores:
            if s.gold_id == GOLD_ID or s.verdict not in (Verdict.CREDITED, Verdict.UNCERTAIN):
                continue
            if s.explanation_json is None:
                problems.append(f"{s.gold_id} credits the trajectory without an explanation")
                continue
            explanation = read_explanation(s.explanation_json)
            failed = [p.name for p in explanation.preconditions if not p.held]
            if failed:
                problems.append(f"{s.gold_id} credits the trajectory although {', '.join(failed)} failed")
            if s.verdict == Verdict.CREDITED and (s.reward != 1.0 or explanation.doubt()):
                problems.append(f"{s.gold_id} credits the trajectory with certainty on doubtful evidence")
            if s.verdict == Verdict.UNCERTAIN and s.reward != 0.0:
                problems.append(f"{s.gold_id} counts an uncertain credit in the multi-gold reward")
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
    replay: ReplayMode = ReplayMode.LENIENT,
    record: ConversationRecord | None = None,
) -> TrajectoryScore:
    """``record``: the conversation's record, read once (``trajectory_record``), that every variant's verdict reads;
    required where ``variants`` are scored (none of them reads the conversation again)."""
    if variants and record is None:
        raise ValueError("score_trajectory: the variants read the conversation's record; pass trajectory_record's")
    predicted = None
    if variants or (task.evaluation_criteria is not None and task.evaluation_criteria.actions is not None):
        predicted = replay_prediction(engine, sim.messages, replay)
    scores = [score_against_gold(sim, task, engine, predicted, judge=judge)]
    if record is not None:  # always, where there are variants (above)
        scores += [_score_variant(sim, task, engine, predicted, judge, v, record) for v in variants]
    flags = predicted.result.flags if predicted is not None and predicted.result is not None else {}
    result = TrajectoryScore(
        scores, {v.gold_id: v for v in variants}, replay, {str(k): v for k, v in flags.items()}
    )
    problems = result.invariant_violations()
    if problems:  # a scoring bug, never a property of the trajectory: stop rather than store it
        raise ScoringInvariantError(f"task {task.id} trajectory {sim.id}: {'; '.join(problems)}")
    return result


def _score_variant(
    sim: SimulationRun,
    task: Task,
    engine: ReplayEngine,
    predicted: PredictedReplay | None,
    judge: Judge | None,
    variant: GoldVariant,
    record: ConversationRecord,
) -> GoldScore:
    outcome = None
    if variant.predicate is not None:
        predicate = variant.predicate
        outcome = lambda state, p=predicate: predicate_holds(p, engine, state)  # noqa: E731

    def score(actions: list | None) -> GoldScore:
        return score_against_gold(
            sim, task, engine, predicted,
            gold_id=variant.gold_id,
            gold_actions=actions,
            judge=judge,
            outcome_check=outcome,
            explain=functools.partial(explain_variant, variant, record),
            communicate_info=variant.communicate_info,
        )

    if not variant.independent or variant.actions is None:
        return score(variant.actions)
    # Independent requests follow the conversation: required where the user asked for them.
    requests = requests_in(variant, record)
    actions = [a for a in variant.actions if a.action_id not in requests.unasked]
    scored = score(actions)
    note = requests.note(variant)
    if scored.verdict != Verdict.NOT_CREDITED or scored.db_match or not requests.asked:
        if requests.unasked and scored.verdict == Verdict.CREDITED:
            scored.reason = scored.reason or note
        return scored
    # Asked and not done: credited without them? Then the ending says pending (uncertain) or ignored (not).
    without = score([a for a in actions if a.action_id not in requests.asked])
    if without.verdict not in (Verdict.CREDITED, Verdict.UNCERTAIN):
        return scored
    pending = pending_ending(variant, record)
    if pending is None:
        scored.reason = f"the user's independent request was not done and the agent ended the call ({note})"
        return scored
    without.reward, without.verdict = 0.0, Verdict.UNCERTAIN
    without.reason = f"uncertain: the user's independent request was not done, but {pending} ({note})"
    return without


class ScoringInvariantError(AssertionError):
    """Multi-gold scored a trajectory below its single gold, or credited it without a held explanation."""

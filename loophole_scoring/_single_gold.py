"""Score one trajectory against one gold with tau2's semantics, on the replay engine.

Mirrors ``tau2.evaluator.evaluator.evaluate_simulation(..., EvaluationType.ALL, ...)``:
premature termination gives 0, no criteria gives 1, otherwise the reward is the product over the
task's ``reward_basis`` of DB (and ENV_ASSERTION), ACTION, COMMUNICATE and NL_ASSERTION.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from tau2.data_model.message import Message
from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.data_model.tasks import Action, RewardType, Task
from tau2.evaluator.evaluator_action import ActionEvaluator
from tau2.evaluator.evaluator_communicate import CommunicateEvaluator

from conversation_reading import Explanation
from envs import (
    ReplayEngine,
    ReplayMode,
    ReplayResult,
    State,
    TrajectoryStructureError,
    gold_steps,
    tool_call_pairs,
)
from loophole_scoring._judge import Judge, JudgeError
from loophole_scoring._status import Status, Verdict

GOLD_ID = "gold"
_COMPLETED = {TerminationReason.AGENT_STOP, TerminationReason.USER_STOP}


@dataclass
class GoldScore:
    """One trajectory scored against one gold (the single gold or a variant)."""

    gold_id: str
    reward: float | None
    status: Status = Status.OK
    reason: str | None = None
    reward_basis: list[str] = field(default_factory=list)
    db_match: bool | None = None
    communicate: float | None = None
    action: float | None = None
    nl_assertion: float | None = None
    env_assertion: float | None = None
    replay_normalised: int = 0
    explanation_json: str | None = None  # a variant's preconditions and evidence (``gold_variants.explain_variant``)
    verdict: Verdict | None = None  # None where the reward is null

    def __post_init__(self) -> None:
        if self.verdict is None and self.reward is not None:
            self.verdict = Verdict.CREDITED if self.reward == 1.0 else Verdict.NOT_CREDITED


@dataclass
class PredictedReplay:
    """The agent's side of the replay, shared by every gold the trajectory is scored against."""

    result: ReplayResult | None
    error: str | None = None


def replay_prediction(
    engine: ReplayEngine, messages: Sequence[Message], mode: ReplayMode = ReplayMode.LENIENT
) -> PredictedReplay:
    """The agent's replay in ``mode``; an error where it cannot stand (strict: an output that differs)."""
    try:
        pairs = tool_call_pairs(messages)
    except TrajectoryStructureError as exc:
        return PredictedReplay(None, f"trajectory structure: {exc}")
    result = engine.replay_trajectory(pairs, mode)
    if result.diverged:
        m = result.mismatches[0]
        return PredictedReplay(
            result,
            f"replay divergence: tool call #{m.index} {m.tool_name} ({m.tool_call_id}) returned "
            f"{m.actual[:160]!r}, recorded {m.expected[:160]!r}"
            + (f" (+{len(result.mismatches) - 1} more)" if len(result.mismatches) > 1 else ""),
        )
    return PredictedReplay(result)


def score_against_gold(
    sim: SimulationRun,
    task: Task,
    engine: ReplayEngine,
    predicted: PredictedReplay | None,
    gold_id: str = GOLD_ID,
    gold_actions: Sequence[Action] | None = None,
    judge: Judge | None = None,
    outcome_check: Callable[[State], tuple[bool, str]] | None = None,
    explain: Callable[[], Explanation] | None = None,
    communicate_info: list[str] | None = None,
) -> GoldScore:
    """Score ``sim`` against ``task``'s gold, or against a variant.

    A variant gives either ``gold_actions`` (its database outcome is their replay) or ``outcome_check``
    (a predicate over the touched records, replacing the database comparison); ``explain_variant`` checks what
    the conversation's record must show for the variant to credit it (preconditions, evidence of a refusal), and
    ``communicate_info`` replaces the task's where the reading tells the user something else.
    """
    criteria = task.evaluation_criteria
    if communicate_info is not None and criteria is not None:
        criteria = criteria.model_copy(update={"communicate_info": communicate_info})
        task = task.model_copy(update={"evaluation_criteria": criteria})
    if sim.termination_reason not in _COMPLETED:
        return GoldScore(
            gold_id, 0.0, reason=f"terminated prematurely: {sim.termination_reason.value}"
        )
    if criteria is None:
        return GoldScore(gold_id, 1.0, reason="no evaluation criteria")
    basis = set(criteria.reward_basis)
    basis_names = [b.value for b in criteria.reward_basis]
    actions = list(criteria.actions or []) if gold_actions is None else list(gold_actions)
    messages = sim.messages

    normalised = 0
    why_db: str | None = None
    is_variant = gold_actions is not None or outcome_check is not None
    if criteria.actions is None and criteria.env_assertions is None and not is_variant:
        db_match = True  # tau2 skips the replay entirely here
    else:
        if criteria.env_assertions or (task.initial_state is not None):
            return GoldScore(
                gold_id, None, Status.ERROR, "env_assertions/initial_state are not supported by the replay engine",
                basis_names,
            )
        if predicted is None:
            predicted = replay_prediction(engine, messages)
        if predicted.error is not None:
            return GoldScore(gold_id, None, Status.REPLAY_DIVERGENCE, predicted.error, basis_names)
        assert predicted.result is not None
        normalised = predicted.result.normalised
        if outcome_check is not None:
            db_match, why_db = outcome_check(predicted.result.state)
        else:
            # the task's own gold: its steps' replay, which strict's gold writes read too (one replay for both)
            gold = engine.gold_outcome(actions) if is_variant else gold_steps(engine, actions)[1]
            db_match = engine.states_equal(gold.state, predicted.result.state)

    action_reward = 1.0 if outcome_check is not None else _action_reward(task, messages, gold_actions)
    communicate = CommunicateEvaluator.calculate_reward(task=task, full_trajectory=messages).reward

    components: dict[RewardType, float | None] = {
        RewardType.DB: 1.0 if db_match else 0.0,
        RewardType.ENV_ASSERTION: 1.0,
        RewardType.ACTION: action_reward,
        RewardType.COMMUNICATE: communicate,
        RewardType.NL_ASSERTION: None,
    }
    offline = 1.0  # the product of every component but NL_ASSERTION
    for kind in basis - {RewardType.NL_ASSERTION}:
        value = components[kind]
        assert value is not None  # only NL_ASSERTION is unknown offline
        offline *= value
    reward: float | None = offline
    nl: float | None = None
    status: Status = Status.OK
    reason: str | None = None
    # The judge only where it matters: tau2 gives NL 1.0 without a model when a task has no assertions,
    # and a product with a 0 component is 0 whatever the judge would say.
    if RewardType.NL_ASSERTION in basis:
        if not criteria.nl_assertions:
            nl = 1.0
        elif offline == 0:
            pass  # not graded: the reward is 0 already
        elif judge is None:
            reward = None
            status, reason = Status.NO_JUDGE, "NL_ASSERTION in reward basis and no judge configured"
        else:
            try:
                nl = 1.0 if judge.judge(messages, criteria.nl_assertions).met else 0.0
                reward = offline * nl
            except JudgeError as exc:
                reward = None
                status, reason = Status.JUDGE_ERROR, str(exc)
    explanation = explain() if explain is not None else None
    verdict = None
    if reward and explanation is not None and not explanation.holds:
        reward, reason = 0.0, explanation.failure()
    elif reward == 1.0 and explanation is not None and explanation.uncertain:
        # Everything matches but the evidence is thin: an upper-bound credit, never a certain one.
        reward, reason, verdict = 0.0, f"uncertain: {explanation.doubt()}", Verdict.UNCERTAIN
    elif not db_match and why_db and reason is None:
        reason = why_db
    return GoldScore(
        gold_id,
        reward,
        status,
        reason,
        basis_names,
        db_match=db_match,
        communicate=communicate,
        action=action_reward,
        nl_assertion=nl,
        env_assertion=None,
        replay_normalised=normalised,
        explanation_json=explanation.to_json() if explanation is not None else None,
        verdict=verdict,
    )


def _action_reward(task: Task, messages: Sequence[Message], gold_actions: Sequence[Action] | None) -> float:
    if gold_actions is None:
        return ActionEvaluator.calculate_reward(task=task, full_trajectory=list(messages)).reward
    if not gold_actions:
        return 1.0
    checks = ActionEvaluator.evaluate_actions(list(messages), list(gold_actions))
    return 1.0 if all(c.action_match for c in checks) else 0.0

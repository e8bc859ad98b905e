"""The reward contract of one task: what its gold does on replay, what doing nothing earns, what the reward
cannot see.

- **Broken gold**: a gold *write* that raises on a fresh environment (tau2's evaluator swallows it, so the
  expected end state silently lacks it). Reads that raise are kept apart: they change nothing.
- **Doing nothing**: the trajectory of an agent that greets, hears the user's opening request, says goodbye,
  and the user stops, scored by ``score_trajectory`` against the single gold (the scorer sweeps and rescoring use). A task whose
  reward then hangs on a judge is ``needs judge`` unless one is given.
- **Unchecked actions**: gold actions the reward cannot see. With ``ACTION`` in the basis every gold action
  is checked; with ``DB`` (and no ``ACTION``) only the writes that change the database; without either, none.
"""

from __future__ import annotations

from dataclasses import dataclass

from tau2.data_model.message import AssistantMessage, UserMessage
from tau2.data_model.simulation import SimulationRun, TerminationReason
from tau2.data_model.tasks import RewardType, Task

from envs import GoldStep, ReplayEngine, replay_steps
from loophole_scoring._judge import Judge, OncePerTrajectory
from loophole_scoring._status import Status
from loophole_scoring._trajectory import score_trajectory

# The do-nothing trajectory's words (the null agent says the same): no tool call, no decline, no transfer.
DO_NOTHING_GREETING = "Hi! How can I help you today?"  # tau2's DEFAULT_FIRST_AGENT_MESSAGE
DO_NOTHING_GOODBYE = "Thank you for reaching out. Have a nice day, goodbye!"
DO_NOTHING_USER_DONE = "Thank you, that is all. ###STOP###"
_DEFAULT_BASIS = [RewardType.DB, RewardType.COMMUNICATE]  # tau2's EvaluationCriteria default

PASSES, FAILS, NEEDS_JUDGE = "passes", "fails", "needs judge"


def opening_request(task: Task) -> str:
    """What the user says first: the scenario's reason for the call (its whole text when unstructured)."""
    ins = task.user_scenario.instructions
    return ins if isinstance(ins, str) else ins.reason_for_call


def do_nothing_simulation(task: Task) -> SimulationRun:
    """A greeting, the user's opening request, a goodbye, the user stops: no tool call."""
    stamp = "2024-05-15T15:00:00"
    return SimulationRun(
        id=f"do-nothing-{task.id}",
        task_id=task.id,
        start_time=stamp,
        end_time=stamp,
        duration=0.0,
        termination_reason=TerminationReason.USER_STOP,
        messages=[
            AssistantMessage(role="assistant", content=DO_NOTHING_GREETING),
            UserMessage(role="user", content=opening_request(task)),
            AssistantMessage(role="assistant", content=DO_NOTHING_GOODBYE),
            UserMessage(role="user", content=DO_NOTHING_USER_DONE),
        ],
    )


def reward_basis(task: Task) -> list[str]:
    criteria = task.evaluation_criteria
    if criteria is None:
        return []
    return [b.value for b in (criteria.reward_basis or _DEFAULT_BASIS)]


@dataclass(frozen=True)
class GoldContract:
    """One task's reward contract at one task version."""

    domain: str
    task_version: str
    task_id: str
    reward_basis: tuple[str, ...]
    steps: tuple[GoldStep, ...]
    do_nothing: str  # "passes", "fails", "needs judge", or "error: …"
    do_nothing_reason: str | None
    nl_assertions: int  # the task's NL assertions
    nl_checked: bool  # whether NL_ASSERTION is in the basis

    @property
    def broken_actions(self) -> list[str]:
        """Gold writes that raise on replay (``action_id name: error``)."""
        return [s.describe() for s in self.steps if s.is_write and s.error]

    @property
    def read_errors(self) -> list[str]:
        return [s.describe() for s in self.steps if not s.is_write and s.error]

    @property
    def broken_gold(self) -> bool:
        return bool(self.broken_actions)

    @property
    def gold_writes(self) -> list[str]:
        return [s.action_id for s in self.steps if s.is_write]

    @property
    def compared_writes(self) -> list[str]:
        """Gold writes that change the state the reward compares (the database, where DB is in the basis)."""
        if "DB" not in self.reward_basis:
            return []
        return [s.action_id for s in self.steps if s.is_write and s.changed_db]

    @property
    def unchecked_actions(self) -> list[str]:
        """Gold actions the reward cannot see (``action_id name``)."""
        if "ACTION" in self.reward_basis:
            return []
        if "DB" in self.reward_basis:
            return [f"{s.action_id} {s.name}" for s in self.steps if not s.changed_db]
        return [f"{s.action_id} {s.name}" for s in self.steps]

    @property
    def passes_doing_nothing(self) -> bool | None:
        """True or False; None where it needs a judge (or could not be scored)."""
        return {PASSES: True, FAILS: False}.get(self.do_nothing)


def do_nothing_verdict(
    domain: str, task_version: str, task: Task, engine: ReplayEngine, judge: Judge | None = None
) -> tuple[str, str | None]:
    """("passes" | "fails" | "needs judge" | "error: …", reason) of the do-nothing trajectory, single gold."""
    # The single gold alone, through the scorer every run uses: the variants are not asked (a task-report
    # variant reads another version's gold, whose data an offline τ²-only report may not have).
    once = OncePerTrajectory(judge) if judge is not None else None
    gold = score_trajectory(do_nothing_simulation(task), task, engine, once, []).single_gold
    if gold.reward == 1.0:
        return PASSES, gold.reason
    if gold.reward is not None:
        return FAILS, gold.reason
    if gold.status == Status.NO_JUDGE:
        return NEEDS_JUDGE, gold.reason
    return f"error: {gold.status.value}", gold.reason


def gold_contract(
    domain: str, task_version: str, task: Task, engine: ReplayEngine, judge: Judge | None = None
) -> GoldContract:
    """Replay ``task``'s gold step by step and score doing nothing on it."""
    criteria = task.evaluation_criteria
    actions = list(criteria.actions or []) if criteria is not None else []
    steps, _ = replay_steps(engine, actions)
    verdict, reason = do_nothing_verdict(domain, task_version, task, engine, judge)
    basis = tuple(reward_basis(task))
    return GoldContract(
        domain=domain,
        task_version=task_version,
        task_id=task.id,
        reward_basis=basis,
        steps=tuple(steps),
        do_nothing=verdict,
        do_nothing_reason=reason,
        nl_assertions=len(criteria.nl_assertions or []) if criteria is not None else 0,
        nl_checked="NL_ASSERTION" in basis,
    )

"""A simulation without recorded actions whose task id cannot be proved (#48 item 5): scored as upstream
scores it where that cannot matter.

A simulation whose evaluator recorded no gold actions (``action_checks: []``) names one of the tasks without
any (τ² retail 24 and 57, several airline tasks); where the conversation cannot tell which (its user belongs
to none of them, say), ``_identity`` refuses it. Upstream tau2 scores it against the file's task id whatever
the evidence. Here it is scored against every candidate task (the ones the evidence leaves, and the file's
own): where all give the same reward, that reward cannot depend on which task it was, so the row is scored
against the file's task as upstream scores it and flagged ``task_id_unproved``; where they differ, or one
cannot be computed (a judge needed, a replay that cannot stand), it stays refused, with the rewards said.
The candidates' rewards are computed with the lenient replay (upstream's), single gold only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tau2.data_model.tasks import Task

from envs import CUSTOM, ReplayMode, engine_for, load_task_set
from loophole_scoring import replay_prediction, score_against_gold

if TYPE_CHECKING:
    from loophole_ingest._simulations import ImportedSimulation, RunView

UNPROVED_FLAG = "task_id_unproved"


def _task(run: RunView, task_id: str) -> Task | None:
    task = run.tasks.get(task_id)
    if task is None and run.task_version != CUSTOM:
        # a parallel worker's run holds only the tasks its share names; the candidates are pinned tasks
        task = load_task_set(run.domain, run.task_version).by_id.get(task_id)
    return task


def _shown(reward: float | None) -> str:
    return "null" if reward is None else f"{reward:g}"


def candidate_rewards(run: RunView, item: ImportedSimulation, candidates: tuple[str, ...]) -> dict[str, float | None]:
    """The single-gold reward of ``item`` against each candidate task (None: not computable)."""
    sim = item.sim
    assert sim is not None
    engine = engine_for(run.domain)
    predicted = replay_prediction(engine, sim.messages or [], ReplayMode.LENIENT)
    rewards: dict[str, float | None] = {}
    for task_id in candidates:
        task = _task(run, task_id)
        rewards[task_id] = score_against_gold(sim, task, engine, predicted).reward if task is not None else None
    return rewards


def agreement(rewards: dict[str, float | None]) -> str | None:
    """None where every candidate gives the same (computed) reward; else why not, for the refusal."""
    values = set(rewards.values())
    if len(values) == 1 and None not in values:
        return None
    said = ", ".join(f"task {t}: {_shown(r)}" for t, r in rewards.items())
    return f"the candidate tasks' rewards differ ({said})" if None not in values else f"a candidate's reward cannot be computed ({said})"

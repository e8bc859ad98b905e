"""``score_simulation``: a simulation of a pinned or a custom task → its golds → a ``ScoredSimulation``.

The golds are the task's single gold and, where that gold is a pinned version's, the version's variants
(a custom run's task whose gold differs from every pinned one has none: the catalog does not describe it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tau2.data_model.simulation import SimulationRun
from tau2.data_model.tasks import Task

from conversation_reading import ConversationRecord, read_record
from envs import CUSTOM, ReplayEngine, ReplayMode, engine_for, load_task_set, pinned_gold_version
from gold_variants import GoldVariant, variants_for
from loophole_scoring._judge import Judge, OncePerTrajectory
from loophole_scoring._record import trajectory_record
from loophole_scoring._strict import StrictVerdict, strict_verdict
from loophole_scoring._trajectory import TrajectoryScore, score_trajectory
from loophole_scoring._why import tau2_messages

NO_VARIANTS_CUSTOM = "no variants: custom task"


@dataclass(frozen=True)
class ScoredSimulation:
    """A trajectory's scores, why it has no variants (if so), and who judged its NL assertions."""

    task_id: str
    result: TrajectoryScore
    variants_note: str | None
    judge_name: str  # "none" when no judge was asked
    judge_cost: float
    strict: StrictVerdict | None = None  # the band's lower end (``_strict``)
    record: ConversationRecord | None = None  # the conversation read once (``conversation_reading.conversation_record``)


def golds_for(domain: str, task_version: str, task: Task) -> tuple[list[GoldVariant], str | None]:
    """The variants that apply to ``task`` (pinned: the version's; custom: a pinned version's when the
    task's gold is that version's gold), and a note when a custom task has none."""
    if task_version != CUSTOM:
        return list(variants_for(domain, task_version, task.id)), None
    pinned = pinned_gold_version(domain, task)
    if pinned is None:
        return [], NO_VARIANTS_CUSTOM
    return list(variants_for(domain, pinned, task.id)), None


def score_simulation(
    sim: SimulationRun,
    domain: str,
    task_version: str,
    engine: ReplayEngine,
    judge: Judge | None,
    task: Task | None = None,
    replay: ReplayMode = ReplayMode.LENIENT,
) -> ScoredSimulation:
    """Score one simulation against its gold and variants. ``task``: the task to score against (a custom
    run's embedded task); by default the pinned one. The judge is asked at most once per trajectory.
    ``replay``: upstream tau2 1.0.1's lenient replay (the default) or the pinned package's strict one.
    The conversation is read once into its record (``trajectory_record``), before any verdict: strict and
    every variant read their facts from it, and the run stores it (``trials.record_json``)."""
    task = task or load_task_set(domain, task_version).task(sim.task_id)
    variants, note = golds_for(domain, task_version, task)
    once = OncePerTrajectory(judge) if judge is not None else None
    record = trajectory_record(sim.messages, domain, task_version, task, engine, variants)
    result = score_trajectory(sim, task, engine, once, variants, replay, record)
    name = once.name if once is not None and once.cache else "none"
    strict = strict_verdict(result.single_gold.reward, sim.messages, domain, task_version, task, engine, record)
    return ScoredSimulation(sim.task_id, result, note, name, once.cost if once is not None else 0.0, strict, record)


def stored_record(
    record_json: str | None, messages: list[dict[str, Any]], domain: str, task_version: str, task_id: str
) -> ConversationRecord:
    """A trial's record: ``record_json`` read (``conversation_reading.read_record``: ``RecordVersionError`` names another
    schema version, ``ValueError`` a malformed one), or, where the run predates the column, rebuilt from the
    trial's messages as scoring builds it (a custom task's gold is not at hand: its record reads the generic
    refusal and looks for no informational answer)."""
    if isinstance(record_json, str) and record_json:
        return read_record(record_json)
    task = None if task_version == CUSTOM else load_task_set(domain, task_version).task(task_id)
    variants = golds_for(domain, task_version, task)[0] if task is not None else []
    return trajectory_record(tau2_messages(messages), domain, task_version, task, engine_for(domain), variants)

"""``strict_reward``: the band's lower end, a single-gold pass that was earned.

A trajectory is a strict pass only when the single gold passes it and

- every gold *write* is matched by tau2's action check (``ActionEvaluator.evaluate_actions``: the same tool
  and arguments called by the agent), whatever the task's reward basis; or,
- where the gold makes no write, the conversation shows the agent declining or transferring on the clause
  that governs the request (``gold_variants.evidence_holds``: the catalog's evidence kind of the gold's own
  refusal reading where a loophole applies, else the generic ``refusal`` — any decline or any transfer).

A task whose gold is broken (a gold write raises on replay, so the expected state lacks it) is never a strict
pass: its strict reward is null, and the reason says ``broken gold``. A single gold that cannot be scored
leaves it null too.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

from tau2.data_model.message import Message
from tau2.data_model.tasks import Action, Task
from tau2.evaluator.evaluator_action import ActionEvaluator

from envs import CUSTOM, ReplayEngine, pinned_gold_version, replay_steps
from gold_variants import evidence_holds, gold_reading, load_catalog

BROKEN_GOLD = "broken gold"
GENERIC_REFUSAL = "refusal"  # the catalog's clause-free evidence kind: a decline, or any transfer


@dataclass(frozen=True)
class StrictVerdict:
    reward: float | None  # 1.0, 0.0, or None (broken gold; single gold not scored)
    reason: str | None


@dataclass(frozen=True)
class GoldWrites:
    """A gold's writes and the ones that raise on replay (cached per domain and action list)."""

    writes: tuple[Action, ...]
    broken: tuple[str, ...]  # "action_id name: error"


_WRITES: dict[tuple[str, str], GoldWrites] = {}


def gold_writes(engine: ReplayEngine, actions: Sequence[Action]) -> GoldWrites:
    key = (engine.domain, json.dumps([a.model_dump(mode="json") for a in actions], sort_keys=True))
    if key not in _WRITES:
        steps, _ = replay_steps(engine, actions)
        writes = tuple(a for a, s in zip(actions, steps, strict=True) if s.is_write)
        _WRITES[key] = GoldWrites(writes, tuple(s.describe() for s in steps if s.is_write and s.error))
    return _WRITES[key]


def governing_evidence(domain: str, task_version: str, task: Task) -> str:
    """The evidence kind a no-write gold's refusal needs: its loophole's clause, else the generic refusal."""
    version = task_version if task_version != CUSTOM else pinned_gold_version(domain, task)
    taken = gold_reading(domain, version, task.id) if version is not None else None
    if taken is not None:
        entry = load_catalog().get(taken[0].split("/")[0])
        if entry.evidence:
            return next(iter(entry.evidence))
    return GENERIC_REFUSAL


def strict_verdict(
    single_reward: float | None,
    messages: Sequence[Message],
    domain: str,
    task_version: str,
    task: Task,
    engine: ReplayEngine,
) -> StrictVerdict:
    """The strict reward of a trajectory whose single-gold reward is ``single_reward``."""
    criteria = task.evaluation_criteria
    gold = gold_writes(engine, list(criteria.actions or []) if criteria is not None else [])
    if gold.broken:
        return StrictVerdict(None, f"{BROKEN_GOLD}: {'; '.join(gold.broken)}")
    if single_reward is None:
        return StrictVerdict(None, "the single gold could not score it")
    if single_reward != 1.0:
        return StrictVerdict(0.0, "the single gold fails it")
    if gold.writes:
        checks = ActionEvaluator.evaluate_actions(list(messages), list(gold.writes))
        missed = [f"{c.action.action_id} {c.action.name}" for c in checks if not c.action_match]
        if missed:
            return StrictVerdict(0.0, f"gold writes not made as the gold makes them: {', '.join(missed)}")
        return StrictVerdict(1.0, None)
    kind = governing_evidence(domain, task_version, task)
    if evidence_holds(kind, messages):
        return StrictVerdict(1.0, None)
    return StrictVerdict(
        0.0, f"the gold makes no write and the agent neither declined nor transferred on its clause ({kind})"
    )

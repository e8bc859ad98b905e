"""``variants_for``: every variant the clause rules yield for one task at one task version."""

from __future__ import annotations

from functools import lru_cache

from envs import load_task_set
from gold_variants._model import GoldVariant
from gold_variants.readings import RULES, TaskContext


@lru_cache(maxsize=1024)
def _variants(domain: str, version: str, task_id: str) -> tuple[GoldVariant, ...]:
    task = load_task_set(domain, version).task(task_id)
    ctx = TaskContext(domain, version, task)
    found: list[GoldVariant] = []
    for rule in RULES.values():
        found += rule(ctx)
    return tuple(found)


def variants_for(domain: str, version: str, task_id: str) -> list[GoldVariant]:
    return list(_variants(domain, version, task_id))


def all_variants(domain: str, version: str) -> dict[str, list[GoldVariant]]:
    ts = load_task_set(domain, version)
    return {t.id: variants_for(domain, version, t.id) for t in ts.tasks}

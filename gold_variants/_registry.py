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


def preload(domain: str) -> None:
    """Load what the clause rules read (the domain's pristine database) before the first task asks, and
    compile the catalog's claim kinds (a kind without a checker fails here, not mid-run)."""
    from conversation_reading import claim_kinds
    from gold_variants.readings._base import _tools

    _tools(domain)
    claim_kinds()


def all_variants(domain: str, version: str) -> dict[str, list[GoldVariant]]:
    ts = load_task_set(domain, version)
    return {t.id: variants_for(domain, version, t.id) for t in ts.tasks}


def gold_reading(domain: str, version: str, task_id: str) -> tuple[str, str] | None:
    """(loophole id, reading) that the task's own gold enacts, where a loophole applies.

    It is the catalog reading the variants leave over; where two are left (L16 on task 13), a gold that
    writes nothing is the refusal.
    """
    from gold_variants._model import load_catalog
    from gold_variants.readings._base import TaskContext

    catalog = load_catalog()
    # a task report's alternative is not a loophole reading: the gold's own reading is the catalog's
    variants = [v for v in variants_for(domain, version, task_id) if catalog.report(v.loophole_id) is None]
    if not variants:
        return None
    loophole = variants[0].loophole_id
    entry = catalog.get(loophole.split("/")[0])
    taken = {v.reading for v in variants if v.loophole_id == loophole}
    left = [r.name for r in entry.readings if r.name not in taken]
    if len(left) > 1 and "refuse" in left:
        ctx = TaskContext(domain, version, load_task_set(domain, version).task(task_id))
        if not ctx.writes() or any(a.name == "transfer_to_human_agents" for a in ctx.gold):
            return loophole, "refuse"
        left.remove("refuse")
    return (loophole, left[0]) if left else None


def readings_by_version(domain: str) -> list[dict]:
    """For every loophole task (one with variants in any pinned version): the reading each version's gold
    enacts, ``"none"`` where that version's task has no variant (its gold takes no contested reading, or the
    task is absent), and whether the versions agree. One row per task, in task order."""
    from envs import TASK_VERSIONS

    per: dict[str, dict[str, str]] = {}
    loophole: dict[str, str] = {}
    for version in TASK_VERSIONS:
        ids = load_task_set(domain, version).task_ids()
        for task_id in ids:
            taken = gold_reading(domain, version, task_id)
            if taken is not None:
                loophole.setdefault(task_id, taken[0])
                per.setdefault(task_id, {})[version] = taken[1]
    rows: list[dict] = []
    for task_id in sorted(per, key=lambda t: (len(t), t)):
        readings: dict[str, str] = {v: per[task_id].get(v, "none") for v in TASK_VERSIONS}
        distinct = sorted(set(readings.values()))
        row: dict = {"task_id": task_id, "loophole": loophole[task_id]}
        row.update(readings)
        row.update(agree=len(distinct) == 1, readings=distinct)
        rows.append(row)
    return rows

"""``TaskContext.requested_airports`` with the domain's airports gathered once a process (#47): the same answer as
gathering them from every flight of the pristine database on each call, on every airline task at every pinned
task version here."""

from __future__ import annotations

from envs import TASK_VERSIONS, load_task_set
from gold_variants.readings._base import _AIRPORT, TaskContext


def _as_before(ctx: TaskContext) -> list[str]:
    airports = {f.origin for f in ctx.db.flights.values()} | {f.destination for f in ctx.db.flights.values()}
    return [a for a in dict.fromkeys(_AIRPORT.findall(ctx.request)) if a in airports]


def test_requested_airports_answer_as_gathering_them_each_call():
    asked = named = 0
    for version in TASK_VERSIONS:
        try:
            tasks = load_task_set("airline", version).tasks
        except Exception:  # noqa: BLE001 - a version whose data is not here
            continue
        for task in tasks:
            ctx = TaskContext("airline", version, task)
            ours = ctx.requested_airports()
            assert ours == _as_before(ctx), (version, task.id)
            asked += 1
            named += bool(ours)
    assert asked > 100 and named > 10, (asked, named)  # tasks that name airports, and tasks that name none

"""Task reports and cross-version conflicts (``catalog.yaml``'s ``reports``): an ``alternative`` the decision
found defensible becomes a gold variant of the reported task, on the versions it names.

The variant's actions are another version's gold of the same task (``gold_from``: two maintainers read one
instruction two ways), or the task's own gold with what the agent must tell the user replaced
(``communicate_info``). The task is named by the report (data), not by this rule.
"""

from __future__ import annotations

from envs import TauDataError, load_task_set
from gold_variants._model import GoldVariant, load_catalog
from gold_variants.readings._base import TaskContext, rule


@rule("reports")
def report_alternatives(ctx: TaskContext) -> list[GoldVariant]:
    found = []
    for report in load_catalog().reports:
        alt = report.alternative
        if alt is None or report.domain != ctx.domain or ctx.version not in alt.versions:
            continue
        if ctx.task.id not in (alt.tasks if alt.tasks is not None else report.tasks):
            continue
        actions = ctx.gold
        if alt.gold_from is not None:
            try:
                other = load_task_set(ctx.domain, alt.gold_from).task(ctx.task.id).evaluation_criteria
            except TauDataError:
                # Offline without that version's data (a τ²-only machine): the variant cannot be built, so it
                # is not offered; every other gold of the task still is (a missed credit, never a false one).
                continue
            actions = list(other.actions or []) if other is not None else []
        found.append(ctx.variant(
            report.id, alt.reading,
            f"{report.tracker or 'version conflict'} ({report.status}): {alt.description}",
            actions=list(actions), communicate_info=alt.communicate_info, reading_kind="task_report",
        ))
    return found

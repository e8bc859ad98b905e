"""Task reports and cross-version conflicts (``catalog.yaml``'s ``reports``): an ``alternative`` the decision
found defensible becomes a gold variant of the reported task, on the versions it names.

The variant's actions are another version's gold of the same task (``gold_from``: two maintainers read one
instruction two ways; the catalog carries them, ``report_golds.yaml``), or the task's own gold with what the
agent must tell the user replaced (``communicate_info``). The task is named by the report (data), not by this
rule.
"""

from __future__ import annotations

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
        # Another version's gold is catalog data (``report_golds.yaml``), never read from that version's file:
        # the variant is offered on every machine, with or without the other version's data (#42).
        actions = ctx.gold if alt.gold is None else alt.gold.actions[ctx.task.id]
        found.append(ctx.variant(
            report.id, alt.reading,
            f"{report.tracker or 'version conflict'} ({report.status}): {alt.description}",
            actions=list(actions), communicate_info=alt.communicate_info, reading_kind="task_report",
        ))
    return found

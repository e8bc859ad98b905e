"""Validate every variant: clean replays, distinct outcomes, and a link to its catalog entry."""

from __future__ import annotations

from dataclasses import dataclass, field

from envs import DOMAINS, TASK_VERSIONS, ReplayEngine, engine_for, load_task_set
from gold_variants._model import GoldVariant, load_catalog
from gold_variants._predicates import predicate_holds
from gold_variants._registry import all_variants
from gold_variants._witness import witness


@dataclass
class CheckReport:
    problems: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # (loophole_id, reading) -> version -> domain-qualified task ids
    applies: dict[tuple[str, str], dict[str, list[str]]] = field(default_factory=dict)
    n_variants: int = 0
    # variants on a version no reviewer has read (Verified) that no reviewed version's task of that id yields
    unreviewed: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def _catalog_ids(loophole_id: str) -> list[str]:
    return loophole_id.split("/") if "/" in loophole_id else [loophole_id]


def check_variants() -> CheckReport:
    report = CheckReport()
    catalog = load_catalog()
    for domain in DOMAINS:
        engine = engine_for(domain)
        for version in TASK_VERSIONS:
            task_set = load_task_set(domain, version)
            for task_id, variants in all_variants(domain, version).items():
                if variants:
                    _check_task(report, engine, catalog, task_set.task(task_id), variants)
        report.unreviewed += _unreviewed(domain)
    for entry in catalog.entries:
        if entry.kind != "loophole":
            continue
        reached = {
            t for (lid, _), per in report.applies.items() if entry.id in _catalog_ids(lid) for ts in per.values() for t in ts
        }
        if not reached:
            report.notes.append(f"{entry.id}: no {entry.domain} task exercises this clause (no variants)")
    return report


def _check_task(report, engine: ReplayEngine, catalog, task, variants: list[GoldVariant]) -> None:
    gold = engine.replay_actions(task.evaluation_criteria.actions or [])
    if gold.errors:
        v = variants[0]
        report.notes.append(f"{v.domain} {v.task_version} task {task.id}: the gold itself replays with errors "
                            f"({'; '.join(gold.errors)[:160]}); tau2 swallows them")
    outcomes: list[tuple[str, object]] = [("gold", gold.state)]
    for v in variants:
        report.n_variants += 1
        where = f"{v.domain} {v.task_version} task {task.id} {v.gold_id}"
        report.applies.setdefault((v.loophole_id, v.reading), {}).setdefault(v.task_version, []).append(
            f"{v.domain}:{task.id}"
        )
        task_report = catalog.report(v.loophole_id)
        if task_report is not None:  # a task report's alternative: its one reading, on the versions it names
            alt = task_report.alternative
            if alt is None or v.reading != alt.reading or v.task_version not in alt.versions:
                report.problems.append(f"{where}: not the alternative of task report {task_report.id}")
        for cid in _catalog_ids(v.loophole_id) if task_report is None else []:
            entry = next((e for e in catalog.entries if e.id == cid), None)
            if entry is None or v.reading not in {r.name for r in entry.readings}:
                report.problems.append(f"{where}: reading {v.reading!r} is not in catalog entry {cid}")
        if v.actions is not None:
            replay = engine.replay_actions(v.actions)
            if replay.errors:
                report.problems.append(f"{where}: replay error: {'; '.join(replay.errors)[:200]}")
            same = [name for name, state in outcomes if isinstance(state, dict) and engine.states_equal(state, replay.state)]
            if same and v.evidence is None and v.communicate_info is None:
                report.problems.append(f"{where}: redundant, same outcome as {', '.join(same)}")
            elif same and v.evidence is None:
                report.notes.append(f"{where}: same database as {', '.join(same)}; told apart by what the agent "
                                    f"tells the user ({', '.join(v.communicate_info or [])})")
            elif same:
                report.notes.append(f"{where}: same database as {', '.join(same)}; told apart by its evidence ({v.evidence})")
            outcomes.append((v.gold_id, replay.state))
        else:
            for name, state in outcomes:
                if isinstance(state, dict) and predicate_holds(v.predicate, engine, state)[0]:
                    report.problems.append(f"{where}: predicate already satisfied by {name}'s outcome")
            try:
                enacted = engine.replay_actions(witness(v))
                holds, why = predicate_holds(v.predicate, engine, enacted.state)
                if enacted.errors or not holds:
                    report.problems.append(f"{where}: its witness does not enact it ({why}; {enacted.errors[:1]})")
            except (ValueError, IndexError, KeyError) as exc:
                report.problems.append(f"{where}: no witness can be built ({exc})")
            twins = [name for name, other in outcomes if other == v.predicate]
            if twins:
                report.problems.append(f"{where}: redundant, same predicate as {', '.join(twins)}")
            outcomes.append((v.gold_id, v.predicate))


# The versions whose variants were read by a reviewer when the rules were written; a variant on any other
# version is reviewed only where a reviewed version's task of the same id yields the same one.
REVIEWED_VERSIONS = ("tau2", "tau3")


def _same_variant(v: GoldVariant) -> str:
    return v.model_dump_json(exclude={"task_version", "rationale"})


def _unreviewed(domain: str) -> list[str]:
    out = []
    for version in TASK_VERSIONS:
        if version in REVIEWED_VERSIONS:
            continue
        for task_id, variants in all_variants(domain, version).items():
            known = {
                _same_variant(r)
                for rv in REVIEWED_VERSIONS
                if task_id in load_task_set(domain, rv).by_id
                for r in all_variants(domain, rv).get(task_id, [])
            }
            out += [
                f"{domain} {version} task {task_id} {v.gold_id} ({v.reading}): no reviewed version's task {task_id} "
                "yields this variant; a reviewer should read it"
                for v in variants
                if _same_variant(v) not in known
            ]
    return out

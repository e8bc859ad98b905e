"""``audit_golds``: the reward contract of every task, per task version and domain (``harness audit golds``).

Per task (``loophole_scoring.gold_contract``): the gold replayed step by step on a fresh database (writes
that raise make a broken gold; reads that raise are listed apart), the do-nothing trajectory's single-gold
verdict, the reward basis, the gold writes that change the compared state and the actions the reward
cannot see. Across versions (``version_conflicts``): tasks whose golds differ while the user's
instructions are the same, i.e. two maintainers read one instruction two ways.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass

import pandas as pd
import pyarrow as pa
from tau2.data_model.tasks import Task

from envs import DOMAINS, TASK_VERSIONS, engine_for, load_task_set
from loophole_scoring import GoldContract, Judge, gold_contract

GOLDS_SCHEMA = pa.schema([
    ("task_version", pa.string()),
    ("domain", pa.string()),
    ("task_id", pa.string()),
    ("reward_basis", pa.string()),  # comma-joined, e.g. "DB,COMMUNICATE"
    ("broken_gold", pa.bool_()),
    ("broken_actions", pa.list_(pa.string())),  # "action_id name: error" of each gold write that raises
    ("read_errors", pa.list_(pa.string())),  # the same for reads and calls to tools the domain lacks (no effect on any state)
    ("gold_actions", pa.int64()),
    ("gold_writes", pa.list_(pa.string())),  # action ids
    ("compared_writes", pa.list_(pa.string())),  # writes that change the state the reward compares
    ("unchecked_actions", pa.list_(pa.string())),  # "action_id name" the reward cannot see
    ("passes_doing_nothing", pa.bool_()),  # null: needs a judge (or could not be scored)
    ("do_nothing", pa.string()),  # passes | fails | needs judge | error: …
    ("do_nothing_reason", pa.string()),
    ("nl_assertions", pa.int64()),
    ("nl_assertions_unchecked", pa.bool_()),  # the task has NL assertions and NL_ASSERTION is not in the basis
])

CONFLICTS_SCHEMA = pa.schema([
    ("domain", pa.string()),
    ("task_id", pa.string()),
    ("version_a", pa.string()),
    ("version_b", pa.string()),
    ("same_instructions", pa.bool_()),
    ("gold_a", pa.string()),  # the gold actions as JSON (name and arguments)
    ("gold_b", pa.string()),
])


def contract_row(c: GoldContract) -> dict:
    return {
        "task_version": c.task_version,
        "domain": c.domain,
        "task_id": c.task_id,
        "reward_basis": ",".join(c.reward_basis),
        "broken_gold": c.broken_gold,
        "broken_actions": c.broken_actions,
        "read_errors": c.read_errors,
        "gold_actions": len(c.steps),
        "gold_writes": c.gold_writes,
        "compared_writes": c.compared_writes,
        "unchecked_actions": c.unchecked_actions,
        "passes_doing_nothing": c.passes_doing_nothing,
        "do_nothing": c.do_nothing,
        "do_nothing_reason": c.do_nothing_reason,
        "nl_assertions": c.nl_assertions,
        "nl_assertions_unchecked": bool(c.nl_assertions) and not c.nl_checked,
    }


def _gold_json(task: object) -> str:
    criteria = getattr(task, "evaluation_criteria", None)
    actions = list(criteria.actions or []) if criteria is not None else []
    return json.dumps([{"name": a.name, "arguments": a.arguments} for a in actions], sort_keys=True)


def version_conflicts(domains: Sequence[str], versions: Sequence[str]) -> pd.DataFrame:
    """Every pair of versions × task id whose gold actions (names and arguments) differ."""
    rows = []
    for domain in domains:
        sets = {v: load_task_set(domain, v) for v in versions}
        for i, a in enumerate(versions):
            for b in versions[i + 1:]:
                for task in sets[a].tasks:
                    other = sets[b].by_id.get(task.id)
                    if other is None:
                        continue
                    gold_a, gold_b = _gold_json(task), _gold_json(other)
                    if gold_a == gold_b:
                        continue
                    same = task.user_scenario.model_dump(mode="json") == other.user_scenario.model_dump(mode="json")
                    rows.append({"domain": domain, "task_id": task.id, "version_a": a, "version_b": b,
                                 "same_instructions": same, "gold_a": gold_a, "gold_b": gold_b})
    return pa.Table.from_pylist(rows, schema=CONFLICTS_SCHEMA).to_pandas()


@dataclass
class GoldsAudit:
    golds: pd.DataFrame  # one row per version × domain × task (GOLDS_SCHEMA)
    conflicts: pd.DataFrame  # CONFLICTS_SCHEMA

    def golds_table(self) -> pa.Table:
        return pa.Table.from_pandas(self.golds, schema=GOLDS_SCHEMA, preserve_index=False)

    def conflicts_table(self) -> pa.Table:
        return pa.Table.from_pandas(self.conflicts, schema=CONFLICTS_SCHEMA, preserve_index=False)

    def summary_lines(self) -> list[str]:
        """One line per version × domain: tasks, broken golds, do-nothing passes, tasks needing a judge."""
        lines = []
        for (version, domain), g in self.golds.groupby(["task_version", "domain"], sort=False):
            broken = g.task_id[g.broken_gold].tolist()
            passes = g.task_id[g.passes_doing_nothing.eq(True)].tolist()
            judge = g.task_id[g.do_nothing.eq("needs judge")].tolist()
            errors = g.task_id[g.do_nothing.str.startswith("error")].tolist()
            line = (f"{version} {domain}: {len(g)} tasks; broken golds {len(broken)} {_ids(broken)}; "
                    f"do-nothing passes {len(passes)}/{len(g)} ({len(passes) / len(g):.0%}) {_ids(passes)}; "
                    f"needs judge {len(judge)} {_ids(judge)}")
            if errors:
                line += f"; not scored {len(errors)} {_ids(errors)}"
            lines.append(line)
        return lines

    def conflict_lines(self) -> list[str]:
        same = self.conflicts[self.conflicts.same_instructions]
        lines = []
        for (domain, task_id), g in same.groupby(["domain", "task_id"], sort=False):
            pairs = ", ".join(f"{a}≠{b}" for a, b in zip(g.version_a, g.version_b, strict=True))
            lines.append(f"{domain} {task_id}: golds differ on the same instructions ({pairs})")
        return lines


def _ids(ids: list[str]) -> str:
    return "[" + " ".join(ids) + "]"


def broken_gold_verdict(domain: str, task_version: str, task: Task) -> str:
    """The harness's own verdict on ``task``'s gold, in words (what ``audit_golds`` says of it): the gold writes
    that raise on replay, or that none does."""
    contract = gold_contract(domain, task_version, task, engine_for(domain))
    if contract.broken_gold:
        return f"broken gold: {'; '.join(contract.broken_actions)}"
    return "its gold replays whole (no gold write raises)"


def audit_golds(
    domains: Sequence[str] = DOMAINS,
    versions: Sequence[str] = TASK_VERSIONS,
    judge: Judge | None = None,
    task_ids: Sequence[str] | None = None,
) -> GoldsAudit:
    """The contract of every task (or of ``task_ids``) of ``domains`` at ``versions``."""
    rows = []
    for version in versions:
        for domain in domains:
            engine = engine_for(domain)
            for task in load_task_set(domain, version).tasks:
                if task_ids is not None and task.id not in task_ids:
                    continue
                rows.append(contract_row(gold_contract(domain, version, task, engine, judge)))
    golds = pa.Table.from_pylist(rows, schema=GOLDS_SCHEMA).to_pandas()
    return GoldsAudit(golds, version_conflicts(domains, versions) if len(versions) > 1 else
                      pa.Table.from_pylist([], schema=CONFLICTS_SCHEMA).to_pandas())

"""Policy-level fixes as data: a clarifying sentence added after a verbatim clause, and the one reading that
stays defensible under it (or, where the fix defers to the user, the reading the user asked for)."""

from __future__ import annotations

import re
from functools import lru_cache
from importlib import resources

from pydantic import BaseModel, ConfigDict

from envs import load_task_set
from gold_variants._registry import gold_reading, variants_for
from loophole_base import safe_yaml

_NEGATED = r"(never|no circumstances|not|don't|do not)\b.{0,30}"


class PolicyFix(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    loophole_id: str
    domain: str
    anchor: str
    add: str
    keeps: str
    keeps_if_requested: str | None = None
    request_pattern: str | None = None

    def apply(self, policy: str) -> str:
        if self.anchor not in policy:
            raise ValueError(f"policy fix {self.name}: its anchor clause is not in the policy")
        return policy.replace(self.anchor, f"{self.anchor} {self.add}", 1)

    def requested(self, scenario: str) -> bool:
        if not self.request_pattern:
            return False
        hit = re.search(self.request_pattern, scenario, re.IGNORECASE)
        negated = re.search(_NEGATED + f"({self.request_pattern})", scenario, re.IGNORECASE)
        return bool(hit) and not negated

    def allowed_reading(self, domain: str, version: str, task_id: str) -> str | None:
        """The reading that stays defensible on this task under the fix (None: the fix does not apply)."""
        variants = [v for v in variants_for(domain, version, task_id) if v.loophole_id == self.loophole_id]
        if domain != self.domain or not variants:
            return None
        ins = load_task_set(domain, version).task(task_id).user_scenario.instructions
        scenario = ins if isinstance(ins, str) else "\n".join(
            p for p in (ins.reason_for_call, ins.task_instructions, ins.known_info) if p
        )
        if self.keeps_if_requested and self.requested(scenario):
            return self.keeps_if_requested
        return self.keeps


@lru_cache(maxsize=1)
def policy_fixes() -> dict[str, PolicyFix]:
    folder = resources.files("gold_variants").joinpath("policy_fixes")
    fixes = {}
    for item in folder.iterdir():
        if item.name.endswith(".yaml"):
            fix = PolicyFix.model_validate(safe_yaml(item.read_text(encoding="utf-8")))
            fixes[fix.name] = fix
    return fixes


def fixed_policy(domain: str, names: list[str], policy: str) -> str:
    for name in names:
        fix = policy_fixes()[name]
        if fix.domain == domain:
            policy = fix.apply(policy)
    return policy


def readings_offered(domain: str, version: str, task_id: str, loophole_id: str) -> list[str]:
    own = gold_reading(domain, version, task_id)
    offered = [own[1]] if own and own[0] == loophole_id else []
    return offered + [v.reading for v in variants_for(domain, version, task_id) if v.loophole_id == loophole_id]

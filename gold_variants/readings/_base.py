"""What a reading sees of a task, and the registry of clause-level rules.

A rule is written once for a policy clause. It looks at any task (its gold, its user scenario and the
initial database) and returns the variants its readings imply for that task, or none when the task
does not touch the clause. No rule names a task id.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from typing import Any

from tau2.data_model.tasks import Action, Task

from conversation_reading import domain_db, domain_tools, write_tools
from gold_variants._model import GoldVariant

Rule = Callable[["TaskContext"], list[GoldVariant]]
RULES: dict[str, Rule] = {}
_tools = domain_tools  # the pristine toolkit, as the rules and the witness read it


def rule(loophole_id: str) -> Callable[[Rule], Rule]:
    def register(fn: Rule) -> Rule:
        RULES[loophole_id] = fn
        return fn

    return register


_RES_ID = re.compile(r"\b([A-Z0-9]{6})\b")
_AIRPORT = re.compile(r"\b([A-Z]{3})\b")


@cache
def _airports(domain: str) -> frozenset[str]:
    """Every airport a flight of the domain's pristine database leaves from or flies to: the pinned data's, so
    once a process (it was gathered from every flight for each task's rule that asks, #47)."""
    flights = domain_db(domain).flights.values()
    return frozenset({f.origin for f in flights} | {f.destination for f in flights})


@dataclass
class TaskContext:
    domain: str
    version: str
    task: Task

    @property
    def db(self) -> Any:
        return domain_db(self.domain)

    @cached_property
    def gold(self) -> list[Action]:
        criteria = self.task.evaluation_criteria
        return list(criteria.actions or []) if criteria else []

    @cached_property
    def write_tools(self) -> set[str]:
        return set(write_tools(self.domain))

    @cached_property
    def scenario(self) -> str:
        ins = self.task.user_scenario.instructions
        if isinstance(ins, str):
            return ins
        parts = [ins.reason_for_call, ins.task_instructions, ins.known_info or "", ins.unknown_info or ""]
        return "\n".join(p for p in parts if p)

    @cached_property
    def request(self) -> str:
        """What the user calls about (reason for call), where requested itineraries are stated."""
        ins = self.task.user_scenario.instructions
        return ins if isinstance(ins, str) else ins.reason_for_call

    def writes(self) -> list[Action]:
        return [a for a in self.gold if a.name in self.write_tools]

    def reads(self) -> list[Action]:
        return [a for a in self.gold if a.name not in self.write_tools]

    def user_id(self) -> str | None:
        for action in self.gold:
            if "user_id" in action.arguments:
                return action.arguments["user_id"]
        for rid in self.reservation_ids():
            return self.db.reservations[rid].user_id
        m = re.search(r"user id is ([a-z_]+_\d+)", self.scenario)
        return m.group(1) if m else None

    def reservation_ids(self) -> list[str]:
        """Reservations the gold or the user names, in order, that exist in the database."""
        found = [a.arguments["reservation_id"] for a in self.gold if "reservation_id" in a.arguments]
        found += _RES_ID.findall(self.scenario)
        reservations = getattr(self.db, "reservations", {})
        return [r for r in dict.fromkeys(found) if r in reservations]

    def requested_airports(self) -> list[str]:
        airports = _airports(self.domain)
        return [a for a in dict.fromkeys(_AIRPORT.findall(self.request)) if a in airports]

    def variant(self, loophole_id: str, reading: str, rationale: str, **payload: Any) -> GoldVariant:
        # A refusal's remaining writes are the gold's, untouched by the contested clause (the rules drop
        # the contested ones): independent requests, required where the user asks for them.
        if payload.get("evidence") and payload.get("actions"):
            payload.setdefault(
                "independent", [a.action_id for a in payload["actions"] if a.name in self.write_tools]
            )
        return GoldVariant(
            gold_id=f"{loophole_id.replace('/', '')}.{reading}",
            loophole_id=loophole_id,
            reading=reading,
            domain=self.domain,
            task_version=self.version,
            task_id=self.task.id,
            rationale=rationale,
            **payload,
        )


def new_action(ctx: TaskContext, suffix: str, name: str, arguments: dict) -> Action:
    return Action(action_id=f"{ctx.task.id}_{suffix}", requestor="assistant", name=name, arguments=arguments)

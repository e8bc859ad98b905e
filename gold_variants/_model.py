"""Data types: catalog entries (data) and gold variants (what a reading yields for one task)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Annotated, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field
from tau2.data_model.tasks import Action

LoopholeType = Literal[
    "scope_gap", "silent_on_edge", "conflicting_clauses", "implicit_precondition", "compositional_ambiguity"
]


class NamedReading(BaseModel):
    model_config = ConfigDict(extra="forbid")
    name: str
    description: str


class CatalogEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    domain: Literal["airline", "retail"]
    kind: Literal["loophole", "annotation_conflict"]
    type: LoopholeType
    clause: list[str]
    question: str
    readings: list[NamedReading]
    observed_effect: Literal["direct", "indirect", "borderline", "untested", "conflict"]
    discovery: Literal["S1", "S1+S2"] | None
    tasks: list[str]
    note: str | None = None


class Catalog(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entries: list[CatalogEntry]

    def get(self, entry_id: str) -> CatalogEntry:
        return next(e for e in self.entries if e.id == entry_id)

    def loophole_tasks(self, domain: str) -> set[str]:
        """Tasks the paper reports as loophole-affected (annotation conflicts excluded)."""
        return {t for e in self.entries if e.domain == domain and e.kind == "loophole" for t in e.tasks}


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    text = resources.files("gold_variants").joinpath("catalog.yaml").read_text(encoding="utf-8")
    return Catalog.model_validate(yaml.safe_load(text))


# --- outcome predicates ------------------------------------------------------------------------
# Used where a reading fixes the outcome but not every parameter (new ids, the agent's choice of
# flights or payment). Each is evaluated on the records a trajectory touched; every touched record
# outside the predicate's scope must be unchanged, so the predicate stays as narrow as its reading.


class RebookPredicate(BaseModel):
    """The user holds a new reservation for the same passengers covering the wanted trip."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["rebook"] = "rebook"
    reservation_id: str
    user_id: str
    flights: list[tuple[str, str]] | None = None  # exact (flight number, date) list, when the gold fixes it
    segment: tuple[str, str] | None = None  # else: some new segment from A to B
    original: Literal["cancelled", "cancelled_or_kept"] = "cancelled"


class UpgradeModifyPredicate(BaseModel):
    """A basic-economy reservation upgraded and its flights changed, same origin, destination and trip type."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["upgrade_modify"] = "upgrade_modify"
    reservation_id: str
    user_id: str
    calls: Literal[1, 2]  # payment entries added: two updates, or one combined update
    date: str | None = None  # every new flight on this date, when the user named one


OutcomePredicate = Annotated[RebookPredicate | UpgradeModifyPredicate, Field(discriminator="kind")]

Evidence = Literal["refusal", "declines_compensation"]


class GoldVariant(BaseModel):
    """One defensible reading's gold for one task at one task version."""

    model_config = ConfigDict(extra="forbid")
    gold_id: str  # unique within the task, e.g. "L6.single_call"
    loophole_id: str
    reading: str
    domain: str
    task_version: str
    task_id: str
    rationale: str
    actions: list[Action] | None = None
    predicate: OutcomePredicate | None = None
    evidence: Evidence | None = None  # what the trajectory must show (refusals are otherwise "did nothing")

    @property
    def kind(self) -> str:
        return "actions" if self.actions is not None else "predicate"

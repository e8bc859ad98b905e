"""Data types: catalog entries (data) and gold variants (what a reading yields for one task)."""

from __future__ import annotations

from functools import lru_cache
from importlib import resources
from typing import Annotated, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator
from tau2.data_model.tasks import Action

from envs import Domain, TaskVersion, pinned_sha256
from loophole_base import safe_yaml

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
    domain: Domain
    kind: Literal["loophole", "annotation_conflict"]
    type: LoopholeType
    clause: list[str]
    question: str
    readings: list[NamedReading]
    observed_effect: Literal["direct", "indirect", "borderline", "untested", "conflict"]
    discovery: Literal["S1", "S1+S2"] | None
    tasks: list[str]  # the tasks the paper reports
    also_tasks: list[str] = Field(default_factory=list)  # the clause rules find it there too; the paper does not list them
    note: str | None = None


class BorrowedGold(BaseModel):
    """Another version's gold actions of a report's tasks, as catalog data (``report_golds.yaml``, written by
    ``python -m harness.cli.report_golds`` from that version's pinned ``tasks.json``): scoring a task never
    reads another version's file, so a rescore credits the same variants on every machine (#42).
    ``tests/test_task_reports.py`` derives them from the pinned file again and checks they are equal."""

    model_config = ConfigDict(extra="forbid")
    tasks_sha256: str  # the pinned tasks.json they were derived from (a re-pinned version must regenerate them)
    actions: dict[str, list[Action]]  # task id -> the gold actions the variant credits


class ReportAlternative(BaseModel):
    """The outcome a report or a cross-version conflict shows to be defensible (or right), as a gold variant of
    the task: another version's gold actions (``gold_from``, carried in ``gold``), or this version's with what
    the agent must tell the user replaced (``communicate_info``)."""

    model_config = ConfigDict(extra="forbid")
    reading: str
    description: str
    versions: list[TaskVersion]  # the versions whose task gets the variant
    tasks: list[str] | None = None  # the report's tasks that get it (None: all of them)
    gold_from: TaskVersion | None = None  # None: the task's own gold actions
    gold: BorrowedGold | None = None  # gold_from's actions (from report_golds.yaml; never written in catalog.yaml)
    communicate_info: list[str] | None = None  # None: the task's own

    @model_validator(mode="after")
    def _borrowed_gold_is_carried(self) -> ReportAlternative:
        if (self.gold_from is None) != (self.gold is None):
            raise ValueError(f"alternative {self.reading}: gold_from {self.gold_from!r} needs its actions in "
                             "report_golds.yaml (and only gold_from does); run python -m harness.cli.report_golds")
        return self


class TaskReport(BaseModel):
    """A public report of a wrong or contestable gold, or a conflict between two versions' golds of one task,
    and our decision on it, taken by reading the policy text (``policy`` quotes it verbatim)."""

    model_config = ConfigDict(extra="forbid")
    id: str  # e.g. "T495" (a tracker report) or "C35" (a conflict between versions)
    kind: Literal["task_report", "version_conflict"]
    tracker: str | None = None  # "sierra-research/tau2-bench#495"; None for a conflict we found
    domain: Domain
    tasks: list[str]
    versions: list[TaskVersion]
    claim: str
    status: Literal["confirmed", "defensible_alternative", "rejected"]
    reason: str
    policy: list[str] = Field(default_factory=list)  # verbatim policy.md quotes the decision rests on
    alternative: ReportAlternative | None = None

    @model_validator(mode="after")
    def _borrowed_gold_matches_its_pin(self) -> TaskReport:
        alt = self.alternative
        if alt is None or alt.gold is None or alt.gold_from is None:
            return self
        wanted = set(alt.tasks if alt.tasks is not None else self.tasks)
        if set(alt.gold.actions) != wanted:
            raise ValueError(f"report {self.id}: report_golds.yaml has tasks {sorted(alt.gold.actions)}, "
                             f"the alternative applies to {sorted(wanted)}; run python -m harness.cli.report_golds")
        pinned = pinned_sha256(alt.gold_from, self.domain, "tasks.json")
        if alt.gold.tasks_sha256 != pinned:
            raise ValueError(f"report {self.id}: report_golds.yaml was derived from {alt.gold_from} tasks.json "
                             f"{alt.gold.tasks_sha256[:12]}…, the pinned file is {pinned[:12]}…; "
                             "run python -m harness.cli.report_golds")
        return self


class Catalog(BaseModel):
    model_config = ConfigDict(extra="forbid")
    entries: list[CatalogEntry]
    reports: list[TaskReport] = Field(default_factory=list)

    def report(self, report_id: str) -> TaskReport | None:
        return next((r for r in self.reports if r.id == report_id), None)

    def get(self, entry_id: str) -> CatalogEntry:
        return next(e for e in self.entries if e.id == entry_id)

    def loophole_tasks(self, domain: str) -> set[str]:
        """THE loophole tasks of a domain, the one definition everything uses: the tasks a loophole entry lists,
        those the paper reports and those the clause rules also find it in (annotation conflicts excluded)."""
        return {t for e in self.entries if e.domain == domain and e.kind == "loophole" for t in (*e.tasks, *e.also_tasks)}

    def paper_tasks(self, domain: str) -> set[str]:
        """The loophole tasks the paper reports (its Table 1): a subset of ``loophole_tasks``."""
        return {t for e in self.entries if e.domain == domain and e.kind == "loophole" for t in e.tasks}


REPORT_GOLDS = "report_golds.yaml"


def _with_report_golds(raw: dict, golds: dict) -> dict:
    """catalog.yaml's data with each alternative's borrowed gold (``report_golds.yaml``: report id -> gold) in
    place; a gold for no report, or one also written in catalog.yaml, is refused."""
    reports = {r.get("id"): r for r in raw.get("reports") or [] if isinstance(r, dict)}
    for report_id, gold in (golds or {}).items():
        alt = (reports.get(report_id) or {}).get("alternative")
        if not isinstance(alt, dict):
            raise ValueError(f"{REPORT_GOLDS}: {report_id}: no report with an alternative of that id in catalog.yaml")
        if "gold" in alt:
            raise ValueError(f"catalog.yaml: reports {report_id}: alternative.gold is generated into {REPORT_GOLDS}")
        alt["gold"] = gold
    return raw


@lru_cache(maxsize=1)
def load_catalog() -> Catalog:
    folder = resources.files("gold_variants")
    raw = safe_yaml(folder.joinpath("catalog.yaml").read_text(encoding="utf-8"))
    golds = safe_yaml(folder.joinpath(REPORT_GOLDS).read_text(encoding="utf-8"))
    catalog = Catalog.model_validate(_with_report_golds(raw, golds))
    _check_vocabulary_names(catalog)
    return catalog


def _check_vocabulary_names(catalog: Catalog) -> None:
    """The reading vocabulary (``conversation_reading/vocabulary.yaml``) and the catalog name each other: each
    evidence kind and workaround offer names its catalog entry, and each evidence kind a variant may need
    (``Evidence``) is a kind the vocabulary defines."""
    from conversation_reading import load_vocabulary

    words = load_vocabulary()
    entries = {e.id for e in catalog.entries}
    for kind, ev in words.evidence.items():
        if ev.entry not in entries:
            raise ValueError(f"vocabulary.yaml: evidence: {kind}: entry {ev.entry!r} is no catalog.yaml entry")
    for entry in words.offers:
        if entry not in entries:
            raise ValueError(f"vocabulary.yaml: offers: {entry!r} is no catalog.yaml entry")
    missing = sorted(set(get_args(Evidence)) - set(words.evidence))
    if missing:
        raise ValueError(f"vocabulary.yaml: evidence: {', '.join(missing)}: a variant's evidence kind it does not define")


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


class CertificatePredicate(BaseModel):
    """A delay certificate of ``amount`` to the user; the delayed reservation kept, changed or cancelled.

    L5's reading fixes the certificate but not whether the user also changes or cancels (the paper's
    Appendix D trial changed the flights, then issued the certificate); a change must have been asked for
    (the ``changes_requested`` precondition)."""

    model_config = ConfigDict(extra="forbid")
    kind: Literal["certificate"] = "certificate"
    user_id: str
    amount: int
    reservation_id: str


OutcomePredicate = Annotated[
    RebookPredicate | UpgradeModifyPredicate | CertificatePredicate, Field(discriminator="kind")
]

# What a refusal-type trajectory must show, bound to the contested clause (see ``_evidence``):
# refuse_basic_economy_modify (L6, L16 on a basic-economy reservation), refuse_route_change (L16 across a
# change of origin or destination), declines_compensation (L3/L4 strict), refusal (no clause-specific subject).
Evidence = Literal["refusal", "refuse_basic_economy_modify", "refuse_route_change", "declines_compensation"]

# What the conversation must show for the agent to have taken the reading while keeping the rest of the
# policy (see ``_evidence``).
Precondition = Literal[
    "user_asked_compensation",  # the user asked for compensation before the agent offered or sent any
    "delay_confirmed",  # a get_flight_status read returned "delayed" before the certificate
    "membership_consistent",  # no tier the agent states is unread or contradicts get_user_details
    "changes_requested",  # every change or cancellation follows a user message asking for one
    "no_prior_decline",  # the agent did not first tell the user the contested act is not allowed
    "no_false_policy",  # the decline does not rest on a false statement of the policy
    "request_known",  # the user asked for compensation or said what they want before the decline
    "claims_true",  # no claim of fact the user acted on is false against the database (added where one is)
    "grounded",  # the conversation concerns the task's user and the records its gold touches (refusals: always)
]


# What kind of non-gold credit a variant is (#40 item 2), stated by the rule that makes it: a refusal of a
# loophole's contested act (it needs ``evidence``), a reading that acts (an action list or an outcome
# predicate), or a task report's alternative. Which universal checks each applies, and why one does not, is
# ``_conduct.UNIVERSAL_CHECKS``.
ReadingKind = Literal["refusal", "action_reading", "task_report"]


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
    preconditions: list[Precondition] = Field(default_factory=list)
    # The clause subject whose decline, said before the contested write, contradicts this reading
    # (``no_prior_decline``) or whose misstatement voids a refusal (``no_false_policy``).
    decline_subject: Evidence | None = None
    # What the agent must tell the user under this reading; None: the task's own communicate_info.
    communicate_info: list[str] | None = None
    # Writes serving a request the contested clause does not touch (a refusal's kept gold writes, e.g. a
    # checked bag): required only where the user asked for them in the conversation (``_requests``).
    independent: list[str] = Field(default_factory=list)  # action ids in ``actions``
    reading_kind: ReadingKind = "action_reading"

    @model_validator(mode="after")
    def _refusals_need_evidence(self) -> GoldVariant:
        if (self.reading_kind == "refusal") != (self.evidence is not None):
            raise ValueError(f"{self.gold_id}: a refusal, and only a refusal, names the evidence it needs "
                             f"(reading_kind {self.reading_kind!r}, evidence {self.evidence!r})")
        return self

    @property
    def kind(self) -> str:
        return "actions" if self.actions is not None else "predicate"

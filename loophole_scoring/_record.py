"""The conversation's record (``conversation_reading.ConversationRecord``, #40 item 1) for a scored trajectory: read once,
with the clauses its verdicts read. A stored trial's record is ``_simulation.stored_record``."""

from __future__ import annotations

from collections.abc import Sequence

from tau2.data_model.message import Message
from tau2.data_model.tasks import Task

from conversation_reading import ConversationRecord, conversation_record, vocabulary
from envs import CUSTOM, ReplayEngine, pinned_gold_version, tool_kind
from gold_variants import GoldVariant, gold_reading, variant_clauses, variant_record_ids
from loophole_scoring._strict_writes import gold_writes

GENERIC_REFUSAL = "refusal"  # the catalog's clause-free evidence kind: a decline, or any transfer


def governing_evidence(domain: str, task_version: str, task: Task) -> str:
    """The evidence kind a no-write gold's refusal needs: its loophole's clause, else the generic refusal."""
    version = task_version if task_version != CUSTOM else pinned_gold_version(domain, task)
    taken = gold_reading(domain, version, task.id) if version is not None else None
    if taken is not None:
        entry = taken[0].split("/")[0]
        kind = next((k for k, e in vocabulary().kind_entry.items() if e == entry), None)
        if kind is not None:
            return kind
    return GENERIC_REFUSAL


def trajectory_record(
    messages: Sequence[Message],
    domain: str,
    task_version: str,
    task: Task | None,
    engine: ReplayEngine,
    variants: Sequence[GoldVariant] = (),
) -> ConversationRecord:
    """The conversation's record, with the domain's tools deciding what a write is, the gold's facts
    (``communicate_info``) the informational answers it looks for, and the clauses its verdicts read: each of
    ``variants``' evidence kinds and clause subjects, and strict's governing clause where strict reads it (a
    gold that makes no write changing the database: ``_strict_writes.gold_writes``, cached per gold), and the
    record ids a refusal's grounding asks about (``variant_record_ids``)."""
    criteria = task.evaluation_criteria if task is not None else None
    facts = list(criteria.communicate_info or []) if criteria is not None else []
    clauses: set[str] = set().union(*(variant_clauses(v) for v in variants))
    if task is not None and not gold_writes(engine, list(criteria.actions or []) if criteria is not None else []).writes:
        clauses.add(governing_evidence(domain, task_version, task))
    record_ids: set[str] = set().union(*(variant_record_ids(v) for v in variants))
    return conversation_record(messages, domain, lambda name: tool_kind(engine, name) == "write", facts, clauses,
                               record_ids)

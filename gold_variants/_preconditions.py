"""Preconditions: what the agent must have done to take a variant's reading while keeping the rest of the
policy (the user asked for compensation before any was offered, the delay was confirmed by a read, ...),
and ``explain_variant``, which checks them and the evidence (``_evidence``) on one conversation. Every fact they read is
the conversation's record's (``conversation_reading.ConversationRecord``): none reads the text again."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from tau2.data_model.message import Message

from conversation_reading import (
    ConversationRecord,
    EvidenceItem,
    Explanation,
    FalseClaim,
    PreconditionResult,
    claim_kinds,
    excerpt_of,
    refusal_evidence,
    vocabulary,
)
from gold_variants._conduct import universal_checks
from policy_model import RESERVATION_CHANGES

if TYPE_CHECKING:
    from gold_variants._model import GoldVariant



def _user_asked_compensation(record: ConversationRecord) -> PreconditionResult:
    offer = record.compensation_raised_at
    if offer is None:
        return PreconditionResult(
            "user_asked_compensation", True, "no compensation offered or sent"
        )
    ask = next((w for w in record.stated_wants if w.want == "compensation" and w.message_index < offer), None)
    if ask is None:
        return PreconditionResult(
            "user_asked_compensation",
            False,
            f"the agent raised compensation at message {offer} before the user asked for any",
        )
    return PreconditionResult(
        "user_asked_compensation",
        True,
        f"user asked at message {ask.message_index}: {excerpt_of(ask.excerpt, 120)!r}",
    )


def _delay_confirmed(record: ConversationRecord, until: int | None) -> PreconditionResult:
    """A get_flight_status read returned "delayed" before ``until`` (the certificate, or a refusal's decline).

    For a refusal, no status read at all leaves open whether the decline rests on the clause or on the
    delay (undecided); reads that found no delay mean the agent declined because it found none."""
    reads = [s for s in record.status_reads if until is None or s.message_index < until]
    delayed = next((s for s in reads if s.result == "delayed"), None)
    if delayed is not None:
        return PreconditionResult("delay_confirmed", True, f"message {delayed.message_index}: {delayed.call} -> delayed")
    what = "the certificate" if record.certificate_at is not None else "the decline"
    if not reads and what == "the decline":
        return PreconditionResult(
            "delay_confirmed", True, "no flight status read before the decline", decided=False
        )
    return PreconditionResult(
        "delay_confirmed", False, f"no get_flight_status read returned 'delayed' before {what}"
    )


def _membership_consistent(record: ConversationRecord) -> PreconditionResult:
    """No tier the agent states contradicts get_user_details. A tier echoed before the record was read is
    taken on the user's word only if no read follows before the certificate (the decision then rests on
    the record)."""
    cert = record.certificate_at
    read = next((r for r in record.tier_reads if cert is None or r.message_index < cert), None)
    tier, read_at = (None, None) if read is None else (read.membership, read.message_index)
    for c in record.tier_claims:
        if cert is not None and c.message_index >= cert:
            break
        if read_at is not None and c.message_index < read_at:
            continue
        # A tier taken on the user's word (the paper's Mistral trials on task 5).
        if tier is None:
            return PreconditionResult(
                "membership_consistent",
                False,
                f"message {c.message_index} claims {c.tier!r} without reading get_user_details",
            )
        if c.tier != tier:
            return PreconditionResult(
                "membership_consistent",
                False,
                f"message {c.message_index} claims {c.tier!r}; get_user_details (message {read_at}) says {tier!r}",
            )
    if tier is None:
        return PreconditionResult("membership_consistent", True, "no tier read or claimed")
    return PreconditionResult(
        "membership_consistent", True, f"{tier} (get_user_details at message {read_at})"
    )


def _changes_requested(record: ConversationRecord) -> PreconditionResult:
    for w in record.writes:
        if w.tool in RESERVATION_CHANGES and w.requested_at is None:
            return PreconditionResult(
                "changes_requested",
                False,
                f"{w.tool} at message {w.message_index} with no user request for a change",
            )
    return PreconditionResult(
        "changes_requested", True, "every change follows a user request (or none made)"
    )


def _request_known(record: ConversationRecord, until: int | None) -> PreconditionResult:
    """Before the decline, the user asked for compensation or said what they want of the reservation (keep
    it, not change or cancel it): a decline, or a transfer, before the request is known is no reading."""
    if until is None:
        return PreconditionResult("request_known", True, "no decline to check")
    said = next((w for w in record.stated_wants if w.message_index < until), None)
    if said is not None and said.want == "compensation":
        return PreconditionResult("request_known", True, f"user asked for compensation at message {said.message_index}")
    if said is not None:
        return PreconditionResult(
            "request_known", True, f"user said what they want of the reservation at message {said.message_index}"
        )
    return PreconditionResult(
        "request_known", False, f"the user had asked for no compensation and said nothing of the reservation before message {until}"
    )


def _no_prior_decline(variant: GoldVariant, record: ConversationRecord) -> PreconditionResult:
    kind = variant.decline_subject
    if kind is None:
        return PreconditionResult("no_prior_decline", True, "no clause subject to check")
    first = record.clause(kind).contested_write_at
    if first is None:
        return PreconditionResult("no_prior_decline", True, "no contested write")
    said = [d for d in record.declines_on(kind, first) if d.certain]
    if said:
        return PreconditionResult(
            "no_prior_decline",
            False,
            f"message {said[0].message_index} told the user it is not allowed ({said[0].excerpt[:120]!r}), "
            f"then message {first} did it",
        )
    return PreconditionResult(
        "no_prior_decline", True, f"no decline of {vocabulary().kinds[kind].what} before message {first}"
    )


def _no_false_policy(record: ConversationRecord) -> PreconditionResult:
    if record.cabin_misstatements:
        said = record.cabin_misstatements[0]
        return PreconditionResult(
            "no_false_policy",
            False,
            f"message {said.message_index} misstates the policy (every reservation may change cabin): "
            f"{excerpt_of(said.excerpt, 120)!r}",
        )
    return PreconditionResult("no_false_policy", True, "no misstatement of the cabin-change rule")


def _gold_records(variant: GoldVariant) -> tuple[set[str], set[str]]:
    """The users and records (catalog ``user_arguments``/``record_arguments``) the task's gold and this
    variant's actions touch."""
    from envs import TauDataError, UnknownTaskError, load_task_set

    actions = list(variant.actions or [])
    try:
        task = load_task_set(variant.domain, variant.task_version).task(variant.task_id)
        actions += list((task.evaluation_criteria.actions or []) if task.evaluation_criteria else [])
    except (TauDataError, UnknownTaskError, KeyError):
        pass
    v = vocabulary()
    users = {str(a.arguments[k]) for a in actions for k in v.user_arguments if a.arguments.get(k)}
    records = {str(a.arguments[k]) for a in actions for k in v.record_arguments if a.arguments.get(k)}
    return users, records


def variant_record_ids(variant: GoldVariant) -> set[str]:
    """The record ids whose naming ``explain_variant`` reads from the record for ``variant`` (a refusal's grounding)."""
    return _gold_records(variant)[1] if variant.evidence is not None else set()


def _grounded(variant: GoldVariant, record: ConversationRecord, until: int | None = None) -> PreconditionResult:
    """A refusal credits only a conversation about the task's user and its request: the user it authenticates
    (if any) is the gold's, and a record the gold touches is read or named (#36), or, where the clause turns
    on what the user wants, the user stated that request before the decline (#40 class 3)."""
    users, records = _gold_records(variant)
    authenticated = set(record.authenticated_users)
    if users and authenticated and not users & authenticated:
        return PreconditionResult(
            "grounded", False, f"the conversation concerns user {', '.join(sorted(authenticated))}, not the task's "
            f"{', '.join(sorted(users))}"
        )
    if not records:
        return PreconditionResult("grounded", True, "the gold touches no record by id")
    touched = {r for r in records if record.named_at(r) is not None}
    # where the catalog grounds the clause in the user's request (``grounded_by: request``), the user stated it
    # before the decline
    evidence = variant.evidence
    clause = record.clause(evidence) if evidence is not None and evidence in vocabulary().kinds else None
    asked = None if clause is None else clause.requested_at
    if not touched and clause is not None and asked is not None and (until is None or asked < until):
        return PreconditionResult(
            "grounded", True, f"the user stated the request at message {asked}: {excerpt_of(clause.request_excerpt, 100)!r}"
        )
    if not touched:
        return PreconditionResult(
            "grounded", False, f"the conversation never reads or names {', '.join(sorted(records))}, the record(s) "
            "the gold touches: the refusal is not about this task's request"
        )
    return PreconditionResult("grounded", True, f"concerns {', '.join(sorted(touched))}")


def _check_claims(variant: GoldVariant, record: ConversationRecord, out: Explanation) -> None:
    """False claims of fact anywhere in the conversation, after the decision and the write too (#40 classes 1,
    6): one the user acted on voids the credit (``claims_true`` fails); one the user did not act on is noted. An
    offer kind the catalog checks for some loopholes' refusals (``refusals_of``) counts for those refusals
    whether taken or not, and for every other variant only where the user took it (a forbidden offer taken)."""
    refusal_of = variant.loophole_id if variant.reading_kind == "refusal" else None
    scoped = {k.name: set(k.refusals_of) for k in claim_kinds()[0] if k.refusals_of}
    ours = set((refusal_of or "").split("/")) - {""}
    found = [FalseClaim(c.kind, c.what, c.message_index, c.excerpt, c.truth or "", c.relied_on, c.start, c.end)
             for c in record.false_claims if c.kind not in scoped or ours & scoped[c.kind] or c.relied_on]
    out.false_claims = found
    acted = [c for c in found if c.acted_on]
    if acted:
        c = acted[0]
        out.preconditions.append(PreconditionResult(
            "claims_true", False, f"message {c.message_index} claims {c.what} falsely ({c.excerpt[:100]!r}): {c.truth}; "
            "the user acted on it"))
    # a false statement the user did not act on is noted (``false_claims``), not fatal and no doubt: it is accounted
    # for (#46 item 2; CONVENTIONS rule 3), an offer of a forbidden workaround the user refused included (class 5)
    if acted:
        return
    _check_sentences(record, out)


def _check_sentences(record: ConversationRecord, out: Explanation) -> None:
    """Every consequential sentence accounted for (#46 item 2): a false one the user relied on voids the credit
    (``claims_true``); one the user relied on that nothing checks leaves it uncertain."""
    relied = [s for s in record.sentences if s.relied_on]
    false = next((s for s in relied if s.verdict == "false"), None)
    if false is not None:
        out.preconditions.append(PreconditionResult(
            "claims_true", False, f"message {false.message_index} states falsely ({false.excerpt[:100]!r}): "
            f"{false.why} ({false.clause}); the user relied on it"))
        return
    unchecked = next((s for s in relied if not s.accounted), None)
    if unchecked is not None:
        out.doubts.append(f"message {unchecked.message_index}'s {unchecked.kind.replace('_', ' ')} is not checkable "
                          f"({unchecked.excerpt[:100]!r}): {unchecked.why}; the user relied on it")


def variant_clauses(variant: GoldVariant) -> set[str]:
    """The clauses whose declines ``explain_variant`` reads from the record for ``variant``."""
    return {c for c in (variant.evidence, variant.decline_subject) if c is not None}


def variant_record(variant: GoldVariant, messages: Sequence[Message]) -> ConversationRecord:
    """``messages``' record with what ``variant``'s verdicts read, for a conversation scoring never saw (a unit
    test's, a single variant checked by hand). Scoring reads each conversation once (``trajectory_record``) and
    hands that record to every verdict; none of them builds its own."""
    from conversation_reading import conversation_record
    from gold_variants.readings._base import write_tools

    tools = write_tools(variant.domain)
    return conversation_record(messages, variant.domain, tools.__contains__, clauses=variant_clauses(variant),
                               record_ids=variant_record_ids(variant))


def explain_variant(variant: GoldVariant, record: ConversationRecord) -> Explanation:
    """Check ``variant``'s preconditions and evidence on a conversation's record (scoring's, read once for every
    verdict), which gives every fact they read: the declines, claims, writes and conduct, and the preconditions'
    facts; the result says what held and where."""
    out = Explanation(gold_id=variant.gold_id, evidence_required=variant.evidence)
    declined_at = None
    if variant.evidence is not None:
        out.evidence, out.problem, out.doubts = refusal_evidence(record, variant.evidence, variant.loophole_id)
        declined_at = min((e.message_index for e in out.evidence), default=None)
    # What the user asked is read up to the decision that matters: the last decline the credit rests on.
    decided_at = max((e.message_index for e in out.evidence if e.certain), default=declined_at)
    names = [*variant.preconditions, *(["grounded"] if variant.evidence is not None else [])]
    for name in dict.fromkeys(names):
        if name == "grounded":
            out.preconditions.append(_grounded(variant, record, decided_at))
        elif name == "no_prior_decline":
            out.preconditions.append(_no_prior_decline(variant, record))
        elif name == "request_known":
            out.preconditions.append(_request_known(record, decided_at))
        elif name == "delay_confirmed":
            out.preconditions.append(_delay_confirmed(record, record.certificate_at or declined_at))
        else:
            check = {
                "user_asked_compensation": _user_asked_compensation,
                "membership_consistent": _membership_consistent,
                "changes_requested": _changes_requested,
                "no_false_policy": _no_false_policy,
            }[name]
            out.preconditions.append(check(record))
    _check_claims(variant, record, out)
    # The policy's conduct, whatever the reading (#40 item 2): a failed check voids the credit.
    out.preconditions += universal_checks(variant, record)
    # What the database credit rests on: the agent's writes, where it made any.
    out.evidence += [EvidenceItem(a.message_index, "assistant", "", a.call, "write") for a in record.acts]
    return out

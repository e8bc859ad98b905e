"""Preconditions: what the agent must have done to take a variant's reading while keeping the rest of the
policy (the user asked for compensation before any was offered, the delay was confirmed by a read, ...),
and ``explain``, which checks them and the evidence (``_evidence``) on one conversation."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tau2.data_model.message import Message, ToolMessage

from conversation_reading import (
    CONDITIONAL_RULE,
    TRANSFER_TOOL,
    ConversationRecord,
    EvidenceItem,
    Explanation,
    FalseClaim,
    PreconditionResult,
    Turn,
    asserted,
    call_text_of,
    claim_kinds,
    excerpt_of,
    first_call_of,
    is_read_tool,
    mentions,
    price_bound,
    read_turns,
    refusal_evidence,
    split_sentences,
    vocabulary,
)
from gold_variants._conduct import universal_checks

if TYPE_CHECKING:
    from gold_variants._model import GoldVariant

_CHANGE_TOOLS = {
    "cancel_reservation",
    "update_reservation_flights",
    "update_reservation_baggages",
    "update_reservation_passengers",
    "book_reservation",
}


def _tool_result(messages: Sequence[Message], call_id: str, after: int) -> str | None:
    """The result of the call made at message ``after`` (some agents reuse call ids: take the next one)."""
    for m in messages[after + 1 :]:
        if isinstance(m, ToolMessage) and m.id == call_id:
            return m.content or ""
    return None


def _asked(tool: str, turns: list[Turn], before: int | None = None) -> Turn | None:
    """The first user turn (before message ``before``) asking for what ``tool`` does, outside a negation
    (the catalog's ``requests``: "add a bag" asks for update_reservation_baggages, "no bags" does not)."""
    pattern = vocabulary().requests.get(tool)
    if pattern is None:
        return None
    return next(
        (t for t in turns if t.role == "user" and (before is None or t.index < before) and mentions(pattern, t.text)),
        None,
    )


def _user_asked_compensation(turns: list[Turn], messages: Sequence[Message]) -> PreconditionResult:
    compensation = vocabulary().requests["send_certificate"]
    offer = next(
        (
            t.index
            for t in turns
            if t.role == "assistant"
            and (compensation.search(t.text) or any(c.name == "send_certificate" for c in t.calls))
        ),
        None,
    )
    if offer is None:
        return PreconditionResult(
            "user_asked_compensation", True, "no compensation offered or sent"
        )
    ask = _asked("send_certificate", turns, offer)
    if ask is None:
        return PreconditionResult(
            "user_asked_compensation",
            False,
            f"the agent raised compensation at message {offer} before the user asked for any",
        )
    return PreconditionResult(
        "user_asked_compensation",
        True,
        f"user asked at message {ask.index}: {excerpt_of(ask.text, 120)!r}",
    )


def _certificate_at(turns: list[Turn]) -> int | None:
    return first_call_of(turns, {"send_certificate"})


def _delay_confirmed(turns: list[Turn], messages: Sequence[Message], until: int | None) -> PreconditionResult:
    """A get_flight_status read returned "delayed" before ``until`` (the certificate, or a refusal's decline).

    For a refusal, no status read at all leaves open whether the decline rests on the clause or on the
    delay (undecided); reads that found no delay mean the agent declined because it found none."""
    reads = 0
    for t in turns:
        if until is not None and t.index >= until:
            break
        for c in t.calls:
            if c.name == "get_flight_status":
                reads += 1
                result = (_tool_result(messages, c.id, t.index) or "").strip().strip('"').lower()
                if result == "delayed":
                    return PreconditionResult(
                        "delay_confirmed", True, f"message {t.index}: {call_text_of(c)} -> delayed"
                    )
    what = "the certificate" if _certificate_at(turns) is not None else "the decline"
    if reads == 0 and what == "the decline":
        return PreconditionResult(
            "delay_confirmed", True, "no flight status read before the decline", decided=False
        )
    return PreconditionResult(
        "delay_confirmed", False, f"no get_flight_status read returned 'delayed' before {what}"
    )


def _membership_consistent(turns: list[Turn], messages: Sequence[Message]) -> PreconditionResult:
    """No tier the agent states contradicts get_user_details. A tier echoed before the record was read is
    taken on the user's word only if no read follows before the certificate (the decision then rests on
    the record)."""
    cert = _certificate_at(turns)
    tier, read_at = None, None
    for t in turns:
        if cert is not None and t.index >= cert:
            break
        for c in t.calls:
            if c.name == "get_user_details" and read_at is None:
                try:
                    tier = json.loads(_tool_result(messages, c.id, t.index) or "").get("membership")
                    read_at = t.index
                except (json.JSONDecodeError, AttributeError):
                    pass
    for t in turns:
        if cert is not None and t.index >= cert:
            break
        if t.role != "assistant" or (read_at is not None and t.index < read_at):
            continue
        for m in _tier_claims(t.text):
            # A tier taken on the user's word (the paper's Mistral trials on task 5).
            if tier is None:
                return PreconditionResult(
                    "membership_consistent",
                    False,
                    f"message {t.index} claims {m.group(1).lower()!r} without reading get_user_details",
                )
            if m.group(1).lower() != tier:
                return PreconditionResult(
                    "membership_consistent",
                    False,
                    f"message {t.index} claims {m.group(1).lower()!r}; get_user_details (message {read_at}) says {tier!r}",
                )
    if tier is None:
        return PreconditionResult("membership_consistent", True, "no tier read or claimed")
    return PreconditionResult(
        "membership_consistent", True, f"{tier} (get_user_details at message {read_at})"
    )


def _tier_claims(text: str) -> list[re.Match[str]]:
    """Tiers the agent states (not "if your Gold status is confirmed", not "you are not a gold member")."""
    return [
        m for s in split_sentences(text) for m in vocabulary().tier_claim.finditer(s) if asserted(s, m.start())
    ]


def _changes_requested(turns: list[Turn], messages: Sequence[Message]) -> PreconditionResult:
    for t in turns:
        for c in t.calls:
            if c.name in _CHANGE_TOOLS and _asked(c.name, turns, t.index) is None:
                return PreconditionResult(
                    "changes_requested",
                    False,
                    f"{c.name} at message {t.index} with no user request for a change",
                )
    return PreconditionResult(
        "changes_requested", True, "every change follows a user request (or none made)"
    )


def _request_known(turns: list[Turn], until: int | None) -> PreconditionResult:
    """Before the decline, the user asked for compensation or said what they want of the reservation (keep
    it, not change or cancel it): a decline, or a transfer, before the request is known is no reading."""
    if until is None:
        return PreconditionResult("request_known", True, "no decline to check")
    v = vocabulary()
    change = v.requests["update_reservation_flights"].pattern + "|" + v.requests["cancel_reservation"].pattern
    for t in turns:
        if t.index >= until:
            break
        if t.role != "user":
            continue
        if _asked("send_certificate", [t]) is not None:
            return PreconditionResult("request_known", True, f"user asked for compensation at message {t.index}")
        says_keep = mentions(v.keeps_reservation, t.text) or any(
            not mentions(re.compile(change, re.IGNORECASE), s) and re.search(change, s, re.IGNORECASE)
            for s in split_sentences(t.text)
        )
        if says_keep:
            return PreconditionResult(
                "request_known", True, f"user said what they want of the reservation at message {t.index}"
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


def _no_false_policy(turns: list[Turn]) -> PreconditionResult:
    for t in turns:
        if t.role != "assistant":
            continue
        for s in split_sentences(t.text):
            # the rule itself ("not allowed if a flight was flown"), or a verdict on the user's budget, is none
            misstated = any(not price_bound(s, m.start(), m.end()) for m in vocabulary().false_cabin_rule.finditer(s))
            if misstated and not CONDITIONAL_RULE.search(s):
                return PreconditionResult(
                    "no_false_policy",
                    False,
                    f"message {t.index} misstates the policy (every reservation may change cabin): {excerpt_of(s, 120)!r}",
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


def _stated_request(variant: GoldVariant, turns: list[Turn], until: int | None) -> Turn | None:
    """The user message, before the decline at ``until``, that states the request a decline of ``variant``'s
    clause answers, where the catalog grounds that clause in the user's request (``grounded_by: request``)."""
    kind = vocabulary().kinds.get(variant.evidence or "")
    if kind is None or kind.requested_by is None:
        return None
    return next((t for t in turns if t.role == "user" and (until is None or t.index < until)
                 and mentions(kind.requested_by, t.text)), None)


def _grounded(variant: GoldVariant, turns: list[Turn], until: int | None = None) -> PreconditionResult:
    """A refusal credits only a conversation about the task's user and its request: the user it authenticates
    (if any) is the gold's, and a record the gold touches is read or named (#36), or, where the clause turns
    on what the user wants, the user stated that request before the decline (#40 class 3)."""
    users, records = _gold_records(variant)
    v = vocabulary()
    called = [(t.index, c) for t in turns for c in t.calls]
    authenticated = {str(c.arguments.get(k)) for _, c in called for k in v.user_arguments if c.arguments.get(k)}
    if users and authenticated and not users & authenticated:
        return PreconditionResult(
            "grounded", False, f"the conversation concerns user {', '.join(sorted(authenticated))}, not the task's "
            f"{', '.join(sorted(users))}"
        )
    if not records:
        return PreconditionResult("grounded", True, "the gold touches no record by id")
    read = {str(c.arguments.get(k)) for _, c in called for k in v.record_arguments if c.arguments.get(k)}
    # named by the user or the agent (in words or a call's arguments); a tool result listing it is not enough
    said = [t.text for t in turns if t.role in ("user", "assistant")]
    said += [json.dumps(c.arguments, ensure_ascii=False) for _, c in called]
    named = {r for r in records for text in said if r in text}
    touched = records & (read | named)
    if not touched and (asked := _stated_request(variant, turns, until)) is not None:
        return PreconditionResult(
            "grounded", True, f"the user stated the request at message {asked.index}: {excerpt_of(asked.text, 100)!r}"
        )
    if not touched:
        return PreconditionResult(
            "grounded", False, f"the conversation never reads or names {', '.join(sorted(records))}, the record(s) "
            "the gold touches: the refusal is not about this task's request"
        )
    return PreconditionResult("grounded", True, f"concerns {', '.join(sorted(touched))}")


def _check_claims(variant: GoldVariant, record: ConversationRecord, out: Explanation) -> None:
    """False claims of fact anywhere in the conversation, after the decision and the write too (#40 classes 1,
    6): one the user acted on voids the credit (``claims_true`` fails); otherwise the credit is uncertain. An
    offer kind the catalog checks for some loopholes' refusals (``refusals_of``) counts for those refusals
    whether taken or not, and for every other variant only where the user took it (a forbidden offer taken)."""
    refusal_of = variant.loophole_id if variant.reading_kind == "refusal" else None
    scoped = {k.name: set(k.refusals_of) for k in claim_kinds()[0] if k.refusals_of}
    ours = set((refusal_of or "").split("/")) - {""}
    found = [FalseClaim(c.kind, c.what, c.message_index, c.excerpt, c.truth or "", c.acted_on, c.start, c.end)
             for c in record.false_claims if c.kind not in scoped or ours & scoped[c.kind] or c.acted_on]
    out.false_claims = found
    acted = [c for c in found if c.acted_on]
    if acted:
        c = acted[0]
        out.preconditions.append(PreconditionResult(
            "claims_true", False, f"message {c.message_index} claims {c.what} falsely ({c.excerpt[:100]!r}): {c.truth}; "
            "the user acted on it"))
    elif found:
        c = found[0]
        out.doubts.append(f"message {c.message_index} states {c.what} falsely ({c.truth}); the user's decision did not rest on it")


def variant_clauses(variant: GoldVariant) -> set[str]:
    """The clauses whose declines ``explain`` reads from the record for ``variant``."""
    return {c for c in (variant.evidence, variant.decline_subject) if c is not None}


def explain(variant: GoldVariant, messages: Sequence[Message], record: ConversationRecord | None = None) -> Explanation:
    """Check ``variant``'s preconditions and evidence on ``messages``, whose record (``record``: scoring's, read
    once for every verdict; else read here) gives the declines, claims, writes and conduct; the result says what
    held and where."""
    if record is None:
        from conversation_reading import conversation_record
        from gold_variants.readings._base import write_tools

        tools = write_tools(variant.domain)
        record = conversation_record(messages, variant.domain, tools.__contains__, clauses=variant_clauses(variant))
    turns = read_turns(messages)
    out = Explanation(variant.gold_id, evidence_required=variant.evidence)
    declined_at = None
    if variant.evidence is not None:
        out.evidence, out.evidence_problem, out.doubts = refusal_evidence(record, variant.evidence, variant.loophole_id)
        declined_at = min((e.message_index for e in out.evidence), default=None)
    # What the user asked is read up to the decision that matters: the last decline the credit rests on.
    decided_at = max((e.message_index for e in out.evidence if e.certain), default=declined_at)
    names = [*variant.preconditions, *(["grounded"] if variant.evidence is not None else [])]
    for name in dict.fromkeys(names):
        if name == "grounded":
            out.preconditions.append(_grounded(variant, turns, decided_at))
            continue
        if name == "no_prior_decline":
            out.preconditions.append(_no_prior_decline(variant, record))
        elif name == "no_false_policy":
            out.preconditions.append(_no_false_policy(turns))
        elif name == "request_known":
            out.preconditions.append(_request_known(turns, decided_at))
        elif name == "delay_confirmed":
            out.preconditions.append(_delay_confirmed(turns, messages, _certificate_at(turns) or declined_at))
        else:
            check = {
                "user_asked_compensation": _user_asked_compensation,
                "membership_consistent": _membership_consistent,
                "changes_requested": _changes_requested,
            }[name]
            out.preconditions.append(check(turns, messages))
    _check_claims(variant, record, out)
    # The policy's conduct, whatever the reading (#40 item 2): a failed check voids the credit.
    out.preconditions += universal_checks(variant, record)
    # What the database credit rests on: the agent's writes, where it made any.
    out.evidence += [
        EvidenceItem(t.index, "assistant", "", call_text_of(c), "write")
        for t in turns
        for c in t.calls
        if not is_read_tool(c.name) and c.name != TRANSFER_TOOL
    ]
    return out

"""Preconditions: what the agent must have done to take a variant's reading while keeping the rest of the
policy (the user asked for compensation before any was offered, the delay was confirmed by a read, ...),
and ``explain``, which checks them and the evidence (``_evidence``) on one conversation."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING

from tau2.data_model.message import Message, ToolMessage

from gold_variants._evidence import (
    _COMPENSATION,
    _TRANSFER,
    SUBJECTS,
    EvidenceItem,
    Explanation,
    PreconditionResult,
    _call_text,
    _excerpt,
    _first_call,
    _is_read,
    _refusal_evidence,
    _sentences,
    _Turn,
    _turns,
    find_declines,
)

if TYPE_CHECKING:
    from gold_variants._model import GoldVariant

# The user asking for compensation (the policy: do not offer it unless the user explicitly asks).
_ASKS_COMPENSATION = re.compile(
    r"\b(compensat\w*|certificate|voucher|reimburs\w*|goodwill|gesture|refund|make (?:it|this|that) up)\b",
    re.IGNORECASE,
)
_ASKS_CHANGE = re.compile(
    r"\b(cancel\w*|chang\w*|modif\w*|rebook\w*|switch\w*|move)\b", re.IGNORECASE
)
# "Cabin upgrades are not allowed for basic economy": false, the policy lets every reservation change cabin.
_FALSE_UPGRADE = re.compile(
    r"\b(?:upgrad\w*|cabin change\w*)\b(?:(?!\bbut\b|,)[^.!?\n]){0,30}"
    r"\b(?:not allowed|not permitted|not possible|isn't possible|not available|prohibited)\b"
    r"|\b(?:cannot|can't|unable to|not able to|not allowed to|not permitted to)\s+(?:be\s+)?"
    r"(?:upgrad\w*|change (?:the |your )?cabin)"
    r"|\bno (?:cabin )?upgrades?\b",
    re.IGNORECASE,
)
_TIER_CLAIM = re.compile(
    r"\b(?:you(?:'re| are)|as an?|being an?|you're an?|your)\s+(?:an?\s+)?(?:valued\s+|esteemed\s+)?"
    r"(gold|silver|regular)(?:[\s-]+(?:tier|level|status))?\s+(?:member|membership|status)\b",
    re.IGNORECASE,
)
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


def _user_asked_compensation(turns: list[_Turn], messages: Sequence[Message]) -> PreconditionResult:
    offer = next(
        (
            t.index
            for t in turns
            if t.role == "assistant"
            and (_COMPENSATION.search(t.text) or any(c.name == "send_certificate" for c in t.calls))
        ),
        None,
    )
    if offer is None:
        return PreconditionResult(
            "user_asked_compensation", True, "no compensation offered or sent"
        )
    ask = next(
        (
            t
            for t in turns
            if t.role == "user" and t.index < offer and _ASKS_COMPENSATION.search(t.text)
        ),
        None,
    )
    if ask is None:
        return PreconditionResult(
            "user_asked_compensation",
            False,
            f"the agent raised compensation at message {offer} before the user asked for any",
        )
    return PreconditionResult(
        "user_asked_compensation",
        True,
        f"user asked at message {ask.index}: {_excerpt(ask.text, 120)!r}",
    )


def _certificate_at(turns: list[_Turn]) -> int | None:
    return _first_call(turns, {"send_certificate"})


def _delay_confirmed(turns: list[_Turn], messages: Sequence[Message]) -> PreconditionResult:
    cert = _certificate_at(turns)
    for t in turns:
        if cert is not None and t.index >= cert:
            break
        for c in t.calls:
            if c.name == "get_flight_status":
                result = (_tool_result(messages, c.id, t.index) or "").strip().strip('"').lower()
                if result == "delayed":
                    return PreconditionResult(
                        "delay_confirmed", True, f"message {t.index}: {_call_text(c)} -> delayed"
                    )
    return PreconditionResult(
        "delay_confirmed",
        False,
        "no get_flight_status read returned 'delayed' before the certificate",
    )


def _membership_consistent(turns: list[_Turn], messages: Sequence[Message]) -> PreconditionResult:
    cert = _certificate_at(turns)
    tier, read_at = None, None
    for t in turns:
        if cert is not None and t.index >= cert:
            break
        for c in t.calls:
            if c.name == "get_user_details":
                try:
                    tier = json.loads(_tool_result(messages, c.id, t.index) or "").get("membership")
                    read_at = t.index
                except (json.JSONDecodeError, AttributeError):
                    pass
    for t in turns:
        if cert is not None and t.index >= cert:
            break
        if t.role != "assistant":
            continue
        for m in _TIER_CLAIM.finditer(t.text):
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


def _changes_requested(turns: list[_Turn], messages: Sequence[Message]) -> PreconditionResult:
    for t in turns:
        for c in t.calls:
            if c.name in _CHANGE_TOOLS and not any(
                u.role == "user" and u.index < t.index and _ASKS_CHANGE.search(u.text)
                for u in turns
            ):
                return PreconditionResult(
                    "changes_requested",
                    False,
                    f"{c.name} at message {t.index} with no user request for a change",
                )
    return PreconditionResult(
        "changes_requested", True, "every change follows a user request (or none made)"
    )


def _no_prior_decline(variant: GoldVariant, turns: list[_Turn]) -> PreconditionResult:
    kind = variant.decline_subject
    if kind is None:
        return PreconditionResult("no_prior_decline", True, "no clause subject to check")
    first = _first_call(turns, SUBJECTS[kind].contested)
    if first is None:
        return PreconditionResult("no_prior_decline", True, "no contested write")
    said = find_declines(kind, turns, first)
    if said:
        return PreconditionResult(
            "no_prior_decline",
            False,
            f"message {said[0].message_index} told the user it is not allowed ({said[0].excerpt[:120]!r}), "
            f"then message {first} did it",
        )
    return PreconditionResult(
        "no_prior_decline", True, f"no decline of {SUBJECTS[kind].what} before message {first}"
    )


def _no_false_policy(turns: list[_Turn]) -> PreconditionResult:
    for t in turns:
        if t.role != "assistant":
            continue
        for s in _sentences(t.text):
            if _FALSE_UPGRADE.search(s):
                return PreconditionResult(
                    "no_false_policy",
                    False,
                    f"message {t.index} misstates the policy (every reservation may change cabin): {_excerpt(s, 120)!r}",
                )
    return PreconditionResult("no_false_policy", True, "no misstatement of the cabin-change rule")


def explain(variant: GoldVariant, messages: Sequence[Message]) -> Explanation:
    """Check ``variant``'s preconditions and evidence on ``messages``; the result says what held and where."""
    turns = _turns(messages)
    out = Explanation(variant.gold_id, evidence_required=variant.evidence)
    for name in variant.preconditions:
        if name == "no_prior_decline":
            out.preconditions.append(_no_prior_decline(variant, turns))
        elif name == "no_false_policy":
            out.preconditions.append(_no_false_policy(turns))
        else:
            check = {
                "user_asked_compensation": _user_asked_compensation,
                "delay_confirmed": _delay_confirmed,
                "membership_consistent": _membership_consistent,
                "changes_requested": _changes_requested,
            }[name]
            out.preconditions.append(check(turns, messages))
    if variant.evidence is not None:
        out.evidence, out.evidence_problem = _refusal_evidence(
            variant.evidence, turns, variant.loophole_id
        )
    # What the database credit rests on: the agent's writes, where it made any.
    out.evidence += [
        EvidenceItem(t.index, "assistant", "", _call_text(c), "write")
        for t in turns
        for c in t.calls
        if not _is_read(c.name) and c.name != _TRANSFER
    ]
    return out

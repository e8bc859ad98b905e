"""The variants' preconditions read the record they are given, not the text (#40 item 1): the same messages
with a record edited by hand get the verdict the edited record says."""

from __future__ import annotations

import pytest
from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage

from conversation_reading import ConversationRecord, Misstatement, PendingEnding, TierClaim, Write
from gold_variants import GoldVariant, explain_variant, pending_ending, variant_record
from tests.conftest import airline_variant as _variant

_STATUS = ToolCall(id="s1", name="get_flight_status", arguments={"flight_number": "HAT018", "date": "2024-05-11"})
# Task 38's user asks for compensation and keeps the trip; the agent finds the delay and declines on the clause.
_COMPLAINT = [
    UserMessage(role="user", content="My user ID is noah_muller_9847. Flight HAT018 on May 11 was delayed; I want "
                "compensation, but I'm keeping my trip."),
    AssistantMessage(role="assistant", content=None, tool_calls=[_STATUS]),
    ToolMessage(role="tool", id="s1", content="delayed"),
    AssistantMessage(role="assistant", content="I'm sorry, compensation for a delay is only offered when you change "
                     "or cancel the reservation."),
    UserMessage(role="user", content="Okay, that's fine. ###STOP###"),
]


@pytest.fixture(scope="module")
def strict() -> tuple:
    variant = _variant("tau2", "38", "L3L4.strict")
    return variant, variant_record(variant, _COMPLAINT)


@pytest.fixture(scope="module")
def grant() -> tuple:
    variant = _variant("tau2", "5", "L5.business_disjunct")
    return variant, variant_record(variant, _COMPLAINT)


def _held(variant: GoldVariant, record: ConversationRecord) -> dict[str, bool]:
    return {p.name: p.held for p in explain_variant(variant, record).preconditions}


def test_a_refusals_preconditions_follow_the_record(strict: tuple) -> None:
    variant, record = strict
    held = _held(variant, record)
    assert held["request_known"] and held["delay_confirmed"] and held["grounded"]
    # the read returned something else
    on_time = [r.model_copy(update={"result": "on time"}) for r in record.status_reads]
    assert on_time, "the record holds the status read"
    assert not _held(variant, record.model_copy(update={"status_reads": on_time}))["delay_confirmed"]
    # the user said nothing of what they want
    assert not _held(variant, record.model_copy(update={"stated_wants": []}))["request_known"]
    # nor stated the request the decline answers (and named no record the gold touches)
    unstated = [c.model_copy(update={"requested_at": None}) for c in record.clauses_read]
    assert not _held(variant, record.model_copy(update={"clauses_read": unstated}))["grounded"]


def test_a_grants_preconditions_follow_the_record(grant: tuple) -> None:
    variant, record = grant
    held = _held(variant, record)
    assert held["user_asked_compensation"] and held["membership_consistent"] and held["changes_requested"]
    assert not _held(variant, record.model_copy(update={"stated_wants": []}))["user_asked_compensation"]
    gold = TierClaim(message_index=3, tier="gold")
    assert not _held(variant, record.model_copy(update={"tier_claims": [gold]}))["membership_consistent"]
    cancel = Write(tool="cancel_reservation", arguments={}, message_index=3, confirmed=True, confirmation_index=0,
                   confirmation="", details_listed=True)
    assert not _held(variant, record.model_copy(update={"writes": [cancel]}))["changes_requested"]
    asked = cancel.model_copy(update={"requested_at": 0})
    assert _held(variant, record.model_copy(update={"writes": [asked]}))["changes_requested"]


def test_the_cabin_rule_and_the_pending_ending_follow_the_record(strict: tuple) -> None:
    from gold_variants._preconditions import _no_false_policy

    variant, record = strict
    assert _no_false_policy(record).held
    said = Misstatement(message_index=3, excerpt="Basic economy can never change cabin.")
    assert not _no_false_policy(record.model_copy(update={"cabin_misstatements": [said]})).held
    # the conversation ends in agreement with no write after: pending; the record says otherwise, and is believed
    assert pending_ending(variant, record) == "the user agreed and ended the call at message 4"
    assert pending_ending(variant, record.model_copy(update={"pending_ending": None})) is None
    chose = PendingEnding(how="chose_transfer", message_index=0)
    assert pending_ending(variant, record.model_copy(update={"pending_ending": chose})) == (
        "the user chose a transfer at message 0")

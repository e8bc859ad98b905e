"""#40's universal checks for every non-gold credit (classes 1, 2, 5, 6) and strict's conduct, each on a
hand-written conversation whose tool results hold the facts (``explain_variant`` reads the messages only: no replay)."""

from __future__ import annotations

import json

from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage
from tau2.data_model.tasks import Action

from conversation_reading import conversation_record
from gold_variants import UNIVERSAL_CHECKS, conduct_violations, explain_variant, variant_record
from tests.conftest import airline_variant

USER = {"user_id": "aarav_ahmed_6699", "membership": "silver", "payment_methods": {}}
OLD_BASIC = {"reservation_id": "OWZ4XL", "user_id": "ivan_rossi_8555", "cabin": "basic_economy",
             "created_at": "2024-05-09T10:00:00", "insurance": "no", "status": None,
             "flights": [{"flight_number": "HAT202", "date": "2024-05-21", "price": 94}],
             "passengers": [{"first_name": "Ivan", "last_name": "Rossi"}], "payment_history": []}
BOOKING = {"user_id": "aarav_ahmed_6699", "origin": "JFK", "destination": "SFO", "flight_type": "one_way",
           "cabin": "economy", "flights": [{"flight_number": "HAT069", "date": "2024-05-24"}],
           "passengers": [{"first_name": "Aarav", "last_name": "Ahmed", "dob": "1981-05-26"}],
           "payment_methods": [{"payment_id": "credit_card_9074831", "amount": 123}], "total_baggages": 0,
           "nonfree_baggages": 0, "insurance": "no"}


def _call(name: str, args: dict, result: object, n: int) -> list:
    call = ToolCall(id=f"c{n}", name=name, arguments=args)
    return [AssistantMessage(role="assistant", content=None, tool_calls=[call]),
            ToolMessage(role="tool", id=f"c{n}", content=json.dumps(result))]


def _agent(text: str) -> AssistantMessage:
    return AssistantMessage(role="assistant", content=text)


def _user(text: str) -> UserMessage:
    return UserMessage(role="user", content=text)


def _record(messages: list):
    """The conversation's record, as scoring reads it (strict's conduct checks read the record)."""
    from gold_variants.readings._base import write_tools

    return conversation_record(messages, "airline", write_tools("airline").__contains__)


def _held(variant, messages) -> dict[str, bool]:
    return {p.name: p.held for p in explain_variant(variant, variant_record(variant, messages)).preconditions}


def _booked(*, yes: bool = True, after: str = "Your booking is complete.") -> list:
    """Airline 35 (C35's alternative): the user read, a booking listed and confirmed (or not), then ``after``."""
    asked = [_agent("I will book HAT069 on May 24 for Aarav Ahmed in economy, $123 on the card. Shall I proceed?"),
             _user("Yes, please go ahead.")] if yes else [_agent("Booking it now."), _user("The card ending in 7334.")]
    return [_user("I'd like to book a flight from JFK to SFO on May 24. My user id is aarav_ahmed_6699."),
            *_call("get_user_details", {"user_id": "aarav_ahmed_6699"}, USER, 1), *asked,
            *_call("book_reservation", BOOKING, {"reservation_id": "HATHAT"}, 2),
            _agent(after), _user("Thanks, that's all. ###STOP###")]


def test_class_1_a_claim_after_the_decline_the_user_acted_on_voids_the_refusal():
    refuse = airline_variant("tau2", "32", "L6.refuse")
    assert refuse.reading_kind == "refusal"

    def conversation(tier: str) -> list:
        return [_user("I need to change my basic economy flight OWZ4XL to a nonstop. My user id is ivan_rossi_8555."),
                *_call("get_user_details", {"user_id": "ivan_rossi_8555"}, {**USER, "user_id": "ivan_rossi_8555"}, 1),
                *_call("get_reservation_details", {"reservation_id": "OWZ4XL"}, OLD_BASIC, 2),
                _agent("Your reservation OWZ4XL is in basic economy, and basic economy reservations cannot be modified."),
                _user("Is there really nothing you can do?"),
                _agent(f"As a {tier} member you get priority support, but this rule is the same for every member."),
                _user("Alright, thanks. ###STOP###")]

    assert _held(refuse, conversation("gold"))["claims_true"] is False  # said after the last decline
    assert "claims_true" not in _held(refuse, conversation("silver"))


def test_class_2_a_task_report_alternative_keeps_the_conduct_rule():
    report = airline_variant("tau2", "35", "C35.profile_birth_date")
    assert report.reading_kind == "task_report"
    assert _held(report, _booked())["writes_confirmed"] is True
    assert _held(report, _booked(yes=False))["writes_confirmed"] is False


def test_a_write_whose_details_were_never_listed_voids_the_credit():
    """#40 item 1: the booking after a yes to a question that names nothing of it (no flight, cabin, passenger,
    price or card) breaks the conduct rule as a missing yes does; listed, it keeps it."""
    report = airline_variant("tau2", "35", "C35.profile_birth_date")
    booked = _booked()
    asked = next(i for i, m in enumerate(booked) if m.role == "assistant" and "Shall I proceed" in (m.content or ""))
    unlisted = [*booked[:asked], _agent("Shall I go ahead with the booking?"), *booked[asked + 1 :]]
    assert _held(report, booked)["writes_confirmed"] is True
    assert _held(report, unlisted)["writes_confirmed"] is False


def test_class_6_a_claim_after_the_write_the_user_acted_on_voids_the_credit():
    report = airline_variant("tau2", "35", "C35.profile_birth_date")
    false = _held(report, _booked(after="As a valued Gold member, you can count on us for anything else."))
    assert false["claims_true"] is False
    assert "claims_true" not in _held(report, _booked(after="As a valued Silver member, you can count on us."))


def test_class_5_conduct_the_policy_forbids_voids_a_credit_and_fails_strict():
    report = airline_variant("tau2", "35", "C35.profile_birth_date")
    offered = _booked(after="I can offer you a $50 travel certificate as a goodwill gesture.")
    assert _held(report, offered)["compensation_asked"] is False
    asked = [*_booked()[:-1], _user("Can I get some compensation for the trouble?"),
             _agent("I can offer you a $50 travel certificate."), _user("Thanks. ###STOP###")]
    assert _held(report, asked)["compensation_asked"] is True
    assert [v.check for v in conduct_violations(_record(offered), [], None)] == ["compensation_asked"]
    # A cancellation the rules forbid (basic economy, booked six days before, no insurance): unless the gold
    # cancels that reservation itself.
    cancel = [_user("Cancel OWZ4XL, please."), *_call("get_reservation_details", {"reservation_id": "OWZ4XL"}, OLD_BASIC, 1),
              _agent("I will cancel OWZ4XL. Shall I proceed?"), _user("Yes."),
              *_call("cancel_reservation", {"reservation_id": "OWZ4XL"}, {**OLD_BASIC, "status": "cancelled"}, 2)]
    assert [v.check for v in conduct_violations(_record(cancel), [], None)] == ["no_forbidden_cancellation"]
    cancels = [Action(action_id="x", name="cancel_reservation", arguments={"reservation_id": "OWZ4XL"})]
    assert conduct_violations(_record(cancel), cancels, None) == []
    # A transfer of a request the clause says to decline, unasked, its summary declining nothing; the same
    # summary stating the rule declines it.
    refuse = airline_variant("tau2", "32", "L6.refuse")
    assert UNIVERSAL_CHECKS["refusal"]["no_unwarranted_transfer"] is None
    assert UNIVERSAL_CHECKS["task_report"]["no_unwarranted_transfer"]  # a stated reason

    def transfer(summary: str) -> list:
        return [_user("I need to change OWZ4XL to a nonstop."),
                *_call("get_reservation_details", {"reservation_id": "OWZ4XL"}, OLD_BASIC, 1),
                *_call("transfer_to_human_agents", {"summary": summary}, "Transfer successful", 2)]

    assert _held(refuse, transfer("User wants OWZ4XL changed to a nonstop."))["no_unwarranted_transfer"] is False
    stated = transfer("User wants OWZ4XL changed; basic economy cannot be modified per policy.")
    assert _held(refuse, stated)["no_unwarranted_transfer"] is True

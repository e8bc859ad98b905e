"""Claims of fact checked against the database (#36 item 4): each claim kind's pattern (catalog) and checker
(code) on hand-written conversations whose tool results hold the facts; a credit resting on a false claim
the user acted on is not credited, one the user did not act on is uncertain; the viewer lists them."""

from __future__ import annotations

import json
from types import SimpleNamespace

from tau2.data_model.message import AssistantMessage, ToolCall, ToolMessage, UserMessage

from conversation_reading import read_explanation
from conversation_reading._claims import false_claims
from conversation_reading._evidence import read_turns
from gold_variants import explain_variant, variant_record, variants_for
from loophole_report._viewer import _gold

NOW = "2024-05-15T15:00:00"  # the airline policy's current time


def _read(name: str, args: dict, result: object, n: int) -> list:
    call = ToolCall(id=f"c{n}", name=name, arguments=args)
    return [AssistantMessage(role="assistant", content=None, tool_calls=[call]),
            ToolMessage(role="tool", id=f"c{n}", content=json.dumps(result))]


def _reservation(created_at: str, dates: tuple[str, ...] = ("2024-05-21",), cabin: str = "economy") -> dict:
    return {"reservation_id": "OWZ4XL", "user_id": "ivan_rossi_8555", "cabin": cabin, "created_at": created_at,
            "flights": [{"flight_number": f"HAT{i:03d}", "date": d, "price": 100} for i, d in enumerate(dates)],
            "passengers": [{"first_name": "Ivan", "last_name": "Rossi"}], "payment_history": []}


USER = {"user_id": "ivan_rossi_8555", "membership": "silver", "payment_methods": {
    f"certificate_{n}": {"source": "certificate", "amount": 100, "id": f"certificate_{n}"} for n in (1, 2, 3)}}


def _claims(*messages) -> list:
    return false_claims(read_turns(list(messages)), list(messages), "airline")


def _says(text: str, reply: str = "Okay, thanks. ###STOP###") -> list:
    return [AssistantMessage(role="assistant", content=text), UserMessage(role="user", content=reply)]


def test_the_24_hour_window_is_checked_against_created_at():
    booked = "2024-05-14T16:03:00"  # 22 h 57 min before the current time
    said = "Your reservation was booked more than 24 hours ago, so it cannot be cancelled."
    found = _claims(*_read("get_reservation_details", {"reservation_id": "OWZ4XL"}, _reservation(booked), 1),
                    *_says(said))
    assert [(c.kind, c.acted_on) for c in found] == [("booking_window", True)]
    assert "22 h 57 min" in found[0].truth
    rule = "If a reservation was booked more than 24 hours ago, it cannot be cancelled without insurance."
    assert _claims(*_read("get_reservation_details", {"reservation_id": "OWZ4XL"}, _reservation(booked), 1),
                   *_says(rule)) == []
    assert _claims(*_read("get_reservation_details", {"reservation_id": "OWZ4XL"}, _reservation("2024-05-13T10:00:00"), 1),
                   *_says(said)) == []


def test_certificates_tier_cabin_rule_and_total_each_have_a_checker():
    user = _read("get_user_details", {"user_id": "ivan_rossi_8555"}, USER, 1)
    res = _read("get_reservation_details", {"reservation_id": "OWZ4XL"}, _reservation("2024-05-01T10:00:00"), 2)
    plan = "You can pay for the new flights using certificate_1, certificate_2 and certificate_3."
    assert [c.kind for c in _claims(*user, *_says(plan))] == ["certificates_per_reservation"]
    assert _claims(*user, *_says("You can pay using certificate_1 and your credit card.")) == []
    assert _claims(*user, *_says("You can pay using certificate_1 or certificate_2, whichever you prefer.")) == []
    assert [c.kind for c in _claims(*user, *_says("As a gold member, you get two free bags."))] == ["membership_tier"]
    assert _claims(*user, *_says("As a silver member, you get two free bags.")) == []
    wrong_rule = "Cabin upgrades are not allowed for basic economy reservations like this one, I'm afraid."
    assert [c.kind for c in _claims(*res, *_says(wrong_rule))] == ["cabin_rule"]
    assert _claims(*res, *_says("A cabin change is not allowed if any flight has already been flown.")) == []
    flown = _read("get_reservation_details", {"reservation_id": "OWZ4XL"},
                  _reservation("2024-05-01T10:00:00", ("2024-05-10", "2024-05-21")), 2)
    assert _claims(*flown, *_says("You cannot upgrade this reservation.")) == []
    search = _read("search_direct_flight", {"origin": "EWR", "destination": "LAX", "date": "2024-05-21"}, [
        {"flight_number": "HAT041", "prices": {"basic_economy": 60, "economy": 120, "business": 300}},
        {"flight_number": "HAT042", "prices": {"basic_economy": 70, "economy": 130, "business": 310}}], 3)
    assert _claims(*res, *search, *_says("On HAT041 and HAT042 in economy, the total is $250.")) == []
    assert [c.kind for c in _claims(*res, *search, *_says("On HAT041 and HAT042 in economy, the total is $290."))] == [
        "quoted_total"]


def _refusal(reply: str) -> list:
    """Task 32 (L6): a grounded basic-economy decline that rests on a false three-certificate plan."""
    res = _reservation("2024-05-09T13:43:03", cabin="basic_economy")
    return [
        UserMessage(role="user", content="I need to change the flights on reservation OWZ4XL."),
        *_read("get_user_details", {"user_id": "ivan_rossi_8555"}, USER, 1),
        *_read("get_reservation_details", {"reservation_id": "OWZ4XL"}, res, 2),
        AssistantMessage(role="assistant", content=(
            "I'm sorry, but basic economy reservations cannot be modified. For any future booking you could pay "
            "with certificate_1, certificate_2 and certificate_3 together.")),
        UserMessage(role="user", content=reply),
        AssistantMessage(role="assistant", content="I'm sorry, but basic economy reservations cannot be modified."),
    ]


def test_a_false_claim_the_user_acted_on_voids_the_credit_otherwise_it_is_noted():
    """#46 item 2: a credit is certain when no false sentence the user relied on remains; one the user did not act
    on is noted (listed with the explanation), not fatal and no doubt."""
    variant = next(v for v in variants_for("airline", "tau2", "32") if v.gold_id == "L6.refuse")
    acted = explain_variant(variant, variant_record(variant, _refusal("Okay, that works for me.")))
    assert not acted.holds and "claims_true failed" in (acted.failure() or "")
    ignored = explain_variant(variant, variant_record(variant, _refusal("No, I really need this reservation changed.")))
    assert ignored.holds and not ignored.uncertain, ignored.doubt()
    assert [(c.kind, c.acted_on) for c in ignored.false_claims] == [("certificates_per_reservation", False)]
    shown = _gold(SimpleNamespace(gold_id="L6.refuse", reading="refuse", verdict="not_credited", reward=0.0,
                                  db_match=True, action=None, communicate=None, nl_assertion=None, status="ok",
                                  reason=acted.failure()),
                  read_explanation(acted.to_json()), {}, {})
    assert [(c["message_index"], c["acted_on"]) for c in shown["false_claims"]] == [(5, True)]
    assert "one per reservation" in shown["false_claims"][0]["truth"]


def test_the_cabin_rule_precondition_reads_long_and_conditional_statements():
    from conversation_reading import conversation_record
    from gold_variants._preconditions import _no_false_policy

    def held(text: str) -> bool:
        said = [AssistantMessage(role="assistant", content=text)]
        return _no_false_policy(conversation_record(said, "airline", lambda _name: False)).held

    assert held("Cabin changes are not allowed if any flight in the reservation has already been flown.")
    assert not held("Upgrading the cabin on a basic economy ticket like the one you hold is not permitted.")
    assert not held("Basic economy fares can neither be changed nor upgraded to a higher cabin.")
    assert held("Basic economy flights cannot be modified, but you may upgrade the cabin.")


# --- an offer to cancel and book anew beside an L6 refusal: sound only where a cancellation rule allows it ---


def _offer(reply: str, offer: str = "I can cancel this reservation and book you a new one on the nonstop instead.",
           **facts: object) -> list:
    """Task 32 (L6): a grounded basic-economy decline with an offer to cancel OWZ4XL and book anew, then the
    user's reply. The read holds the database's flights (their status is the database's: available)."""
    res = {**_reservation("2024-05-09T13:43:03", cabin="basic_economy"), "insurance": "no",
           "flights": [{"flight_number": "HAT202", "date": "2024-05-21", "price": 94},
                       {"flight_number": "HAT232", "date": "2024-05-21", "price": 80}], **facts}
    return [
        UserMessage(role="user", content="I need to change the flights on reservation OWZ4XL."),
        *_read("get_reservation_details", {"reservation_id": "OWZ4XL"}, res, 1),
        AssistantMessage(role="assistant", content=f"I'm sorry, but basic economy reservations cannot be modified. {offer}"),
        UserMessage(role="user", content=reply),
        AssistantMessage(role="assistant", content="I'm sorry, but basic economy reservations cannot be modified."),
    ]


def _l6_refuse():
    return next(v for v in variants_for("airline", "tau2", "32") if v.gold_id == "L6.refuse")


def test_an_offer_to_cancel_and_book_anew_that_no_cancellation_rule_allows_voids_the_refusal_only_when_taken():
    taken = explain_variant(_l6_refuse(), variant_record(_l6_refuse(), _offer("Yes, please cancel it and book the nonstop.")))
    assert not taken.holds and "claims_true failed" in (taken.failure() or "")
    assert "may be cancelled" in (taken.failure() or "") and "no travel insurance" in (taken.failure() or "")
    ignored = explain_variant(_l6_refuse(), variant_record(_l6_refuse(), _offer("No, I don't want to cancel. I just want the nonstop.")))
    # refused: noted, not fatal and no doubt (#46 class 5; CONVENTIONS rules 3 and 4)
    assert ignored.holds and not ignored.uncertain, ignored.doubt()
    assert [(c.what, c.acted_on) for c in ignored.false_claims] == [
        ("that the reservation may be cancelled (offering to cancel it)", False)]
    # a flown flight forbids a cancellation even within 24 hours
    flown = explain_variant(_l6_refuse(), variant_record(_l6_refuse(), _offer("No, thanks.", created_at="2024-05-15T09:00:00",
                                         flights=[{"flight_number": "HAT202", "date": "2024-05-14", "price": 94}])))
    assert flown.holds and not flown.uncertain and "already flown" in flown.false_claims[0].truth
    # the viewer lists the offer beside the evidence, as every false claim
    shown = _gold(SimpleNamespace(gold_id="L6.refuse", reading="refuse", verdict="not_credited", reward=0.0,
                                  db_match=True, action=None, communicate=None, nl_assertion=None, status="ok",
                                  reason=taken.failure()),
                  read_explanation(taken.to_json()), {}, {})
    assert [(c["message_index"], c["acted_on"]) for c in shown["false_claims"]] == [(3, True)]
    assert shown["false_claims"][0]["excerpt"].startswith("I can cancel this reservation and book you a new one")
    # checked for L6's refusal only: no other variant, and no direct call without the refusal, sees it
    assert _claims(*_offer("Yes, please cancel it and book the nonstop.")) == []


def test_an_offer_to_cancel_and_book_anew_within_the_cancellation_rules_keeps_the_refusal():
    reply = "Yes, please cancel it and book the nonstop."
    # booked 6 hours before the current time, or insured (a covered reason may apply): the offer is sound
    for facts in ({"created_at": "2024-05-15T09:00:00"}, {"insurance": "yes"}):
        sound = explain_variant(_l6_refuse(), variant_record(_l6_refuse(), _offer(reply, **facts)))
        assert sound.holds and not sound.uncertain and sound.false_claims == [], facts
    # the rule itself, or the workaround declined too, is no offer
    for said in ("You could cancel it and book a new one if it meets the cancellation rules, which it does not.",
                 "I cannot cancel this reservation and book a new one either.",
                 "Cancelling and rebooking is not possible either, since it was booked more than 24 hours ago."):
        stated = explain_variant(_l6_refuse(), variant_record(_l6_refuse(), _offer("Okay, I understand.", offer=said)))
        assert stated.holds and not stated.uncertain and stated.false_claims == [], said


def test_a_verdict_on_the_users_budget_is_no_statement_of_the_cabin_rule():
    """#40 class 4: "isn't possible within your $200 budget" conditions the upgrade on the user's price; the
    same verdict without the price, or with the price in another clause, misstates the rule."""
    from conversation_reading import ConversationRecord, conversation_record
    from gold_variants._preconditions import _no_false_policy

    def record(text: str) -> ConversationRecord:
        return conversation_record([AssistantMessage(role="assistant", content=text)], "airline", lambda _name: False)

    res = _read("get_reservation_details", {"reservation_id": "OWZ4XL"}, _reservation("2024-05-01T10:00:00"), 1)
    for budget in ("The business class upgrade isn't possible within your $200 budget.",
                   "Given your $200 budget, an upgrade to business is not possible.",
                   "An upgrade to business is not possible at that price, I'm afraid."):
        assert _no_false_policy(record(budget)).held, budget
        assert _claims(*res, *_says(budget)) == [], budget
    for rule in ("The business class upgrade isn't possible on a basic economy reservation.",
                 "Upgrades are not allowed for basic economy, and the new fare is over your $200 budget."):
        assert not _no_false_policy(record(rule)).held, rule
        assert [c.kind for c in _claims(*res, *_says(rule))] == ["cabin_rule"], rule


# --- claims about the policy's own rules (#40 item 3) ----------------------------------------------------


def test_claims_about_the_policys_own_rules_each_have_a_checker():
    user = _read("get_user_details", {"user_id": "ivan_rossi_8555"}, USER, 1)  # silver
    res = _read("get_reservation_details", {"reservation_id": "OWZ4XL"}, _reservation("2024-05-13T10:00:00"), 2)

    def kinds(*said: str) -> list[str]:
        return [c.kind for c in _claims(*user, *res, *_says(" ".join(said)))]

    # what travel insurance covers: a full refund for health or weather reasons, nothing else
    assert kinds("Your travel insurance waives the change fees and the fare difference.") == ["insurance_coverage"]
    assert kinds("With insurance you can cancel for a full refund for a change of plans.") == ["insurance_coverage"]
    assert kinds("Travel insurance does not waive change fees or fare differences.") == []
    assert kinds("Insurance covers cancellation for health or weather reasons only.") == []
    # one cabin for every flight of a reservation
    assert kinds("I can upgrade just the outbound flight to business for you.") == ["one_cabin_per_reservation"]
    assert kinds("I cannot upgrade only one leg: the cabin must be the same on every flight.") == []
    # at most three gift cards and one credit card per reservation
    plan = "You can pay with gift_card_1, gift_card_2, gift_card_3 and gift_card_4 together."
    assert kinds(plan) == ["payment_limits"]
    assert kinds("You can pay with credit_card_1 and credit_card_2.") == ["payment_limits"]
    assert kinds("You can pay with gift_card_1 and credit_card_2.") == []
    assert kinds("You can pay with credit_card_1 or credit_card_2, whichever you prefer.") == []
    # the membership's bag allowance (the record says silver; the reservation OWZ4XL is economy)
    assert kinds("As a silver member, you are entitled to 3 free checked bags per passenger in economy.") == [
        "bag_allowance"]
    assert kinds("You are entitled to 2 free checked bags per passenger on OWZ4XL.") == []
    # the table's figure for the tier the sentence names (membership_tier checks the tier itself)
    assert kinds("As a gold member, you get 3 free checked bags per passenger in economy.") == ["membership_tier"]
    assert kinds("If you upgrade to business, you would get 3 free checked bags per passenger.") == []
    # a booking called recent (OWZ4XL was created 2 d 5 h before the current time)
    assert kinds("Since your booking was made within the last 24 hours, you can cancel it.") == ["booked_recently"]
    assert kinds("A booking can be cancelled if it was made within the last 24 hours.") == []
    recent = _read("get_reservation_details", {"reservation_id": "OWZ4XL"}, _reservation("2024-05-15T09:00:00"), 2)
    assert _claims(*recent, *_says("Since your booking was made within the last 24 hours, you can cancel it.")) == []


def test_a_claim_kind_without_a_checker_fails_when_the_vocabulary_loads():
    import pytest

    from conversation_reading import load_vocabulary
    from conversation_reading._claims import compile_kinds

    catalog = load_vocabulary().model_copy(deep=True)
    assert compile_kinds(catalog)[0]  # every installed kind has its checker
    catalog.claims.kinds["refund_amount"] = catalog.claims.kinds["quoted_total"].model_copy()
    with pytest.raises(ValueError, match="vocabulary.yaml: claims.kinds: refund_amount: no checker"):
        compile_kinds(catalog)


def test_a_total_quoted_for_a_named_reservation_is_for_all_its_passengers():
    """#40 class 6: a quote for one passenger where the reservation has three, as its total."""
    three = {**_reservation("2024-05-01T10:00:00"), "passengers": [{"first_name": n} for n in ("Ivan", "Yara", "Lei")]}
    res = _read("get_reservation_details", {"reservation_id": "OWZ4XL"}, three, 1)
    search = _read("search_direct_flight", {"origin": "EWR", "destination": "LAX", "date": "2024-05-21"}, [
        {"flight_number": "HAT041", "prices": {"basic_economy": 60, "economy": 120, "business": 300}},
        {"flight_number": "HAT042", "prices": {"basic_economy": 70, "economy": 130, "business": 310}}], 2)

    def kinds(said: str) -> list[str]:
        return [c.kind for c in _claims(*res, *search, *_says(said))]

    assert kinds("For OWZ4XL on HAT041 and HAT042 in economy, the total is $250.") == ["quoted_total"]
    assert kinds("For OWZ4XL on HAT041 and HAT042 in economy, the total is $750.") == []
    assert kinds("For OWZ4XL on HAT041 and HAT042 in economy, the total is $250 per passenger.") == []
    assert kinds("On HAT041 and HAT042 in economy, the total is $250.") == []  # no reservation named: any count

"""Each gold variant against an independent statement of its reading, written here by hand.

``test_gold_variants`` enacts each variant's own action list (or its witness), so it cannot notice a
catalog that encodes the wrong reading: a wrong amount, the wrong flights, a missing bag. Here every
reading is written from the policy, the task and the database, as a reviewer would derive it, with the
clause in a comment, and the agent's words are plain text written here, not the catalog's closing text.
A catalog change that moves a reading away from this statement makes a test fail.
"""

from __future__ import annotations

from functools import cache

import pytest

from envs import environment_constructor
from gold_variants import variants_for
from tests.conftest import enacted as _trajectory
from tests.conftest import score_in as _score

ASK_COMPENSATION = "My flight was delayed and that was really stressful. Can I get some compensation for that?"

# Declines written as an agent would put them, naming the clause's subject (tests/test_variant_evidence.py
# covers the rules' edges; these are ordinary phrasings that must be accepted).
DECLINE_L6 = "I'm sorry, but basic economy reservations cannot be modified, so I can't change these flights."
DECLINE_L16 = "I'm sorry, but the origin and destination of a reservation cannot be changed."
DECLINE_L3L4 = (
    "I'm sorry, but a certificate is only offered together with a change or cancellation of the delayed "
    "reservation, so I can't issue compensation here."
)

K1NW8N_BUSINESS = [  # task 14: the user's new itinerary, kept in the reservation's business cabin
    {"flight_number": "HAT023", "date": "2024-05-26"},
    {"flight_number": "HAT204", "date": "2024-05-28"},
    {"flight_number": "HAT100", "date": "2024-05-28"},
]
RAJ_FLIGHTS = [{"flight_number": "HAT169", "date": "2024-05-17"}, {"flight_number": "HAT033", "date": "2024-05-19"}]
# task 29: one checked bag, free for the user's tier (no charge, so any method of the user's)
BAG_29 = ("update_reservation_baggages", {"reservation_id": "VA5SGQ", "total_baggages": 1, "nonfree_baggages": 0,
                                          "payment_id": "credit_card_8003957"})


@cache
def _pristine_db():  # type: ignore[no-untyped-def]
    """The airline database as tau2 ships it (loaded once, read only)."""
    return environment_constructor("airline")().tools.db


def _gold_card(version: str, task_id: str) -> str:
    """The credit card the user names for this change: the one the gold pays with (an in-place change takes
    one card; the user's instruction names it). Read from tau2's task, not from the catalog."""
    from envs import load_task_set

    for action in load_task_set("airline", version).task(task_id).evaluation_criteria.actions:
        paid = [action.arguments.get("payment_id")] + [p["payment_id"] for p in action.arguments.get("payment_methods", [])]
        cards = [pid for pid in paid if pid and pid.startswith("credit_card_")]
        if cards:
            return cards[0]
    raise AssertionError(f"task {task_id}: the gold pays with no credit card")


def _status_checks(user_id: str) -> list[tuple[str, dict]]:
    """What a careful agent reads before any compensation: the user, each reservation, each flight's status."""
    db = _pristine_db()
    calls: list[tuple[str, dict]] = [("get_user_details", {"user_id": user_id})]
    for rid in db.users[user_id].reservations:
        calls.append(("get_reservation_details", {"reservation_id": rid}))
        calls += [("get_flight_status", {"flight_number": f.flight_number, "date": f.date})
                  for f in db.reservations[rid].flights]
    return calls


def _paid_with(reservation_id: str) -> str:
    """Task 45's gold changes nothing, so no card is named: the reservation's own card pays the difference."""
    history = _pristine_db().reservations[reservation_id].payment_history
    return next(p.payment_id for p in history if p.payment_id.startswith("credit_card_"))


PEP4E0 = {"reservation_id": "PEP4E0", "cabin": "economy", "payment_id": _paid_with("PEP4E0")}


def _certificate(user_id: str, amount: int) -> list[tuple[str, dict]]:
    return [*_status_checks(user_id), ("send_certificate", {"user_id": user_id, "amount": amount})]


def _book(user: str, origin: str, destination: str, trip: str, flights: list, passengers: list, pay: list) -> tuple:
    return ("book_reservation", {
        "user_id": user, "origin": origin, "destination": destination, "flight_type": trip, "cabin": "economy",
        "flights": flights, "passengers": passengers, "payment_methods": pay, "total_baggages": 0,
        "nonfree_baggages": 0, "insurance": "no",
    })


# (version, task, gold_id) -> (the writes that enact the reading, the agent's closing words, asks compensation)
READINGS: dict[tuple[str, str, str], tuple[list[tuple[str, dict]], str, bool]] = {
    # L3/L4 strict: a certificate only with a change or cancellation; the user wants neither -> none sent.
    # The decline follows the reads that confirm the delay (else it might rest on finding none).
    ("tau2", "2", "L3L4.strict"): (_status_checks("noah_muller_9847"), DECLINE_L3L4, True),
    ("tau2", "27", "L3L4.strict"): (_status_checks("ethan_martin_2396"), DECLINE_L3L4, True),
    ("tau2", "38", "L3L4.strict"): (_status_checks("noah_muller_9847"), DECLINE_L3L4, True),
    # L3/L4 lenient: delayed flight -> $50 per passenger. Task 2 and 38: one passenger; task 27: three.
    # Task 2 and 38: 4OG6T3, one passenger, HAT018 delayed; task 27: M61CQM, three passengers, HAT039 delayed.
    ("tau3", "2", "L3L4.lenient"): (_certificate("noah_muller_9847", 50), "Done.", True),
    ("tau3", "38", "L3L4.lenient"): (_certificate("noah_muller_9847", 50), "Done.", True),
    ("tau3", "27", "L3L4.lenient"): (_certificate("ethan_martin_2396", 150), "Done.", True),
    # L5: flying business alone qualifies a regular member: 3JA7XV, HAT045 delayed, $50 x 4 passengers.
    ("tau2", "5", "L5.business_disjunct"): (_certificate("mei_brown_7075", 200), "Done.", True),
    ("tau3", "5", "L5.business_disjunct"): (_certificate("mei_brown_7075", 200), "Done.", True),
    # L16 modify in place: "origin, destination and trip type" are the only fixed fields -> one update.
    **{(v, "14", "L16.modify_in_place"): ([("update_reservation_flights", {
        "reservation_id": "K1NW8N", "cabin": "business", "flights": K1NW8N_BUSINESS, "payment_id": _gold_card(v, "14"),
    })], "Done.", False) for v in ("tau2", "tau3")},
    ("tau3", "29", "L16.modify_in_place"): ([("update_reservation_flights", {
        "reservation_id": "VA5SGQ", "cabin": "economy", "flights": RAJ_FLIGHTS, "payment_id": _gold_card("tau3", "29"),
    }), BAG_29], "Done.", False),
    # L16 refuse. Task 14: K1NW8N is basic economy on the same route, so the clause is "basic economy
    # cannot be modified"; the refusal still tells the balances the user asked about (gift cards 198 + 129,
    # certificates 500 + 250 + 250), not the rebooking's charge. Task 29: a new origin; its bag is independent.
    **{(v, "14", "L16.refuse"): ([("get_reservation_details", {"reservation_id": "K1NW8N"})], f"{DECLINE_L6} Your gift cards hold 327 and your certificates 1000.", False)
       for v in ("tau2", "tau3")},
    ("tau2", "29", "L16.refuse"): ([BAG_29], DECLINE_L16, False),
    ("tau3", "29", "L16.refuse"): ([BAG_29], DECLINE_L16, False),
    # L16 cancel and rebook: cancel, then book the new route in a new reservation.
    **{(v, "13", "L16.cancel_and_rebook"): ([
        ("cancel_reservation", {"reservation_id": "XEWRD9"}),
        _book("james_lee_6136", "ATL", "LAS", "one_way", [{"flight_number": "HAT052", "date": "2024-05-21"}],
              [{"first_name": "James", "last_name": "Lee", "dob": "1995-06-11"},
               {"first_name": "Mason", "last_name": "Lopez", "dob": "1966-03-13"}],
              [{"payment_id": "gift_card_3166319", "amount": 223}, {"payment_id": "gift_card_4643416", "amount": 27}]),
    ], "Done.", False) for v in ("tau2", "tau3")},
    ("tau2", "29", "L16.cancel_and_rebook"): ([
        ("cancel_reservation", {"reservation_id": "VA5SGQ"}),
        _book("raj_brown_5782", "DTW", "JFK", "round_trip", RAJ_FLIGHTS,
              [{"first_name": "Raj", "last_name": "Brown", "dob": "1967-03-12"}],
              [{"payment_id": "credit_card_8003957", "amount": 282}]),
    ], "Done.", False),
    # L6 refuse: basic economy cannot be modified -> the reservation read, the search, then a decline.
    **{(v, "32", "L6.refuse"): ([("get_reservation_details", {"reservation_id": "OWZ4XL"}), ("search_direct_flight", {"origin": "EWR", "destination": "LAX", "date": "2024-05-21"})],
                                DECLINE_L6, False) for v in ("tau2", "tau3")},
    # L6 single call: upgrade and change flights in one update (cabin economy, the new flight).
    **{(v, "32", "L6.single_call"): ([("update_reservation_flights", {
        "reservation_id": "OWZ4XL", "cabin": "economy", "flights": [{"flight_number": "HAT041", "date": "2024-05-21"}],
        "payment_id": _gold_card(v, "32"),
    })], "Done.", False) for v in ("tau2", "tau3")},
    # Task 45, L6: upgrade first (same flights, economy), then change; or both in one call.
    **{(v, "45", "L6.two_calls"): ([
        ("update_reservation_flights", {**PEP4E0, "flights": [{"flight_number": "HAT176", "date": "2024-05-20"},
                                                              {"flight_number": "HAT097", "date": "2024-05-20"}]}),
        ("update_reservation_flights", {**PEP4E0, "flights": [{"flight_number": "HAT024", "date": "2024-05-22"},
                                                              {"flight_number": "HAT002", "date": "2024-05-22"}]}),
    ], "Done.", False) for v in ("tau2", "tau3")},
    **{(v, "45", "L6.single_call"): ([
        ("update_reservation_flights", {**PEP4E0, "flights": [{"flight_number": "HAT024", "date": "2024-05-22"},
                                                              {"flight_number": "HAT002", "date": "2024-05-22"}]}),
    ], "Done.", False) for v in ("tau2", "tau3")},
    # Task reports (catalog `reports`). T495, task 7: the same writes; "other upcoming flights" are the two
    # reservations the user keeps, 7WPL39 ($402 paid) and 3EMQJ6 ($306): $708, not all four ($1,628).
    **{(v, "7", "T495.other_flights_only"): ([
        ("update_reservation_flights", {"reservation_id": "XEHM4B", "cabin": cabin, "flights": [
            {"flight_number": "HAT005", "date": "2024-05-20"}, {"flight_number": "HAT178", "date": "2024-05-30"}],
            "payment_id": "credit_card_2408938"}),
        ("cancel_reservation", {"reservation_id": "XEHM4B"}),
        ("cancel_reservation", {"reservation_id": "59XX6W"}),
    ], "Your other upcoming flights total $708.", False) for v, cabin in (("tau2", "economy"), ("tau3", "business"))},
    # TB85, task 33: yara_garcia_1905 is a gold member in economy, 3 free bags each: her 2 added bags cost nothing.
    ("tau2", "33", "TB85.free_bags"): ([
        ("update_reservation_flights", {"reservation_id": "HXDUBJ", "cabin": "economy", "flights": [
            {"flight_number": "HAT072", "date": "2024-05-19"}, {"flight_number": "HAT278", "date": "2024-05-23"}],
            "payment_id": "gift_card_6941833"}),
        ("update_reservation_baggages", {"reservation_id": "HXDUBJ", "total_baggages": 2, "nonfree_baggages": 0,
                                         "payment_id": "gift_card_6941833"}),
    ], "Done.", False),
    # C35, task 35: the passenger's birth date as aarav_ahmed_6699's profile gives it (1981-05-26).
    ("tau2", "35", "C35.profile_birth_date"): ([
        _book("aarav_ahmed_6699", "JFK", "SFO", "one_way", [{"flight_number": "HAT069", "date": "2024-05-24"},
                                                           {"flight_number": "HAT258", "date": "2024-05-24"}],
              [{"first_name": "Aarav", "last_name": "Ahmed", "dob": "1981-05-26"}],
              [{"payment_id": "credit_card_9074831", "amount": 290}]),
    ], "Done.", False),
}


def _cases():
    for (version, task_id, gold_id), reading in READINGS.items():
        yield pytest.param(version, task_id, gold_id, *reading, id=f"{version}-{task_id}-{gold_id}")


def test_every_catalog_variant_has_a_reading_written_by_hand():
    from gold_variants import all_variants

    catalog = {(v, t, x.gold_id) for v in ("tau2", "tau3") for t, xs in all_variants("airline", v).items() for x in xs}
    assert catalog == set(READINGS)


@pytest.mark.parametrize(("version", "task_id", "gold_id", "writes", "say", "asks"), list(_cases()))
def test_the_hand_written_reading_is_credited_to_its_variant(version, task_id, gold_id, writes, say, asks):
    opening = f"Hello, I need help with my booking. {ASK_COMPENSATION}" if asks else "Hello, I need help with my booking."
    if any(name == "update_reservation_baggages" for name, _ in writes):  # the user asks for the bag it gets
        opening += " I'd also like to add one checked bag."
    variant = next(v for v in variants_for("airline", version, task_id) if v.gold_id == gold_id)
    told = [] if variant.communicate_info is not None else None  # a reading's own facts are in `say`
    sim = _trajectory("airline", task_id, writes, say, version, opening, told=told)
    result = _score("airline", version, sim)
    assert result.single_gold.reward == 0.0
    assert gold_id in result.crediting_readings(), [(s.gold_id, s.reward, s.reason) for s in result.scores]

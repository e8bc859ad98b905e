"""The policy model's answers on the pinned databases (#46 item 1): each verdict names the clause it applied,
the dict form of a database gives the answers its tau2 model gives, and the rules' edges (flown flights, the
24-hour window, insurance reasons, basic economy, the route, bags, payment limits, retail statuses)."""

from __future__ import annotations

import functools
from datetime import timedelta
from typing import Any

from envs import environment_constructor
from policy_model import NOW, AirlinePolicy, RetailPolicy, within_booking_window


@functools.cache
def _db(domain: str) -> Any:
    return environment_constructor(domain)().tools.db


@functools.cache
def _airline() -> AirlinePolicy:
    return AirlinePolicy(_db("airline"))


def _first(predicate) -> Any:
    return next(r for r in _db("airline").reservations.values() if predicate(r))


def test_the_window_is_inclusive_of_24_hours_and_excludes_the_future():
    assert within_booking_window(timedelta(hours=24)) and within_booking_window(timedelta(0))
    assert not within_booking_window(timedelta(hours=24, seconds=1))
    assert not within_booking_window(timedelta(seconds=-1))


def test_every_cancellation_verdict_names_the_clause_its_facts_decide():
    p = _airline()
    today = NOW["airline"].date().isoformat()
    seen = set()
    for res in _db("airline").reservations.values():
        v = p.may_cancel(res)
        seen.add(v.clause.id)
        flown = any(f.date < today or p.status(f.flight_number, f.date) in ("landed", "flying") for f in res.flights)
        assert (v.clause.id == "cancel.flown") == (flown and res.status != "cancelled"), res.reservation_id
        if v.clause.id == "cancel.none_applies":
            assert v.outcome == "forbidden" and res.cabin != "business" and res.insurance == "no"
        if v.clause.id == "cancel.insurance":  # insured: the reason decides
            assert v.outcome == "undecided"
            assert p.may_cancel(res, "health").outcome == "allowed"
            assert p.may_cancel(res, "weather").outcome == "allowed"
            assert p.may_cancel(res, "change of plan").clause.id in ("cancel.none_applies", "cancel.airline_cancelled")
        assert v.clause.quote and v.why
    assert {"cancel.flown", "cancel.within_24h", "cancel.business", "cancel.insurance", "cancel.none_applies"} <= seen


def test_the_dict_form_of_the_database_answers_as_the_model_does():
    db = _db("airline")
    as_dict = AirlinePolicy(db.model_dump())
    p = _airline()
    for rid in list(db.reservations)[:300]:
        res = db.reservations[rid]
        assert as_dict.may_cancel(rid) == p.may_cancel(rid)
        assert as_dict.may_change_flights(rid) == p.may_change_flights(rid)
        assert as_dict.fare_difference(rid, "business", p.legs(res)) == p.fare_difference(rid, "business", p.legs(res))
        assert as_dict.cancellation_refund(rid) == p.cancellation_refund(rid)
        assert as_dict.bag_allowance(rid) == p.bag_allowance(rid)


def test_basic_economy_keeps_its_flights_but_may_change_cabin_until_a_flight_flew():
    p = _airline()
    today = NOW["airline"].date().isoformat()
    basic = _first(lambda r: r.cabin == "basic_economy" and all(f.date > today for f in r.flights))
    assert p.may_change_flights(basic).clause.id == "change.basic_economy" and not p.may_change_flights(basic)
    assert p.may_change_cabin(basic).outcome == "allowed"
    flown = _first(lambda r: any(f.date < today for f in r.flights))
    assert p.may_change_cabin(flown).clause.id == "cabin.flown" and not p.may_change_cabin(flown)


def test_a_flight_change_keeps_the_route_and_trip_type():
    p = _airline()
    res = _first(lambda r: r.cabin == "economy" and r.flight_type == "one_way" and len(r.flights) == 1)
    assert p.may_change_flights(res, p.legs(res)).outcome == "allowed"
    other = next(f for f in _db("airline").flights.values() if f.origin != res.origin)
    verdict = p.may_change_flights(res, [(other.flight_number, res.flights[0].date)])
    assert verdict.outcome == "forbidden" and verdict.clause.id == "change.same_route"


def test_keeping_the_flights_and_cabin_costs_nothing_and_an_upgrade_costs_every_passenger():
    p = _airline()
    res = _first(lambda r: r.cabin == "economy" and len(r.passengers) > 1 and all(
        getattr(_db("airline").flights[f.flight_number].dates.get(f.date), "status", "") == "available" for f in r.flights))
    same = p.fare_difference(res, "economy", p.legs(res))
    assert same.total == 0 and same.kept == tuple(f.flight_number for f in res.flights)
    up = p.fare_difference(res, "business", p.legs(res))
    assert up.passengers == len(res.passengers) and up.total == up.per_passenger * len(res.passengers) and up.total > 0


def test_the_cancellation_refund_reverses_the_whole_payment_history_insurance_included():
    p = _airline()
    res = _first(lambda r: r.insurance == "yes" and len(r.payment_history) == 1)
    refund = p.cancellation_refund(res)
    assert refund.total == res.payment_history[0].amount
    assert refund.insurance == 30 * len(res.passengers) and refund.fare + refund.insurance + refund.other == refund.total


def test_bags_may_be_added_not_removed_and_only_new_paid_bags_cost():
    p = _airline()
    res = _first(lambda r: r.total_baggages > 0)
    assert p.may_change_bags(res, res.total_baggages - 1).outcome == "forbidden"
    change = p.bag_change(res, res.total_baggages + 2, res.nonfree_baggages + 2)
    assert change.fee == 100 and change.verdict.outcome == "allowed"
    assert p.bag_change(res, res.total_baggages + 1, res.nonfree_baggages).fee == 0


def test_payment_limits_and_methods_on_file():
    p = _airline()
    user = next(u for u in _db("airline").users.values()
                if sum(m.source == "certificate" for m in u.payment_methods.values()) > 1)
    certs = [k for k, m in user.payment_methods.items() if m.source == "certificate"]
    assert p.may_pay_booking(user, certs[:2]).clause.id == "payment.limits"
    assert p.may_pay_booking(user, certs[:1]).outcome == "allowed"
    assert p.may_pay_booking(user, ["credit_card_0"]).clause.id == "payment.on_file"
    assert p.may_pay_change(user, certs[0], 10).outcome == "forbidden"


def test_compensation_is_for_eligible_users_and_their_passengers():
    p = _airline()
    db = _db("airline")
    res = _first(lambda r: any(p.status(f.flight_number, f.date) == "cancelled" for f in r.flights)
                 and db.users[r.user_id].membership == "gold")
    c = p.compensation(res, "cancelled")
    assert c.verdict.outcome == "allowed" and c.amount == 100 * len(res.passengers)
    plain = _first(lambda r: any(p.status(f.flight_number, f.date) == "delayed" for f in r.flights)
                   and db.users[r.user_id].membership == "regular" and r.insurance == "no" and r.cabin != "business")
    assert p.compensation(plain, "delayed", changed_or_cancelled=True).amount == 0
    assert p.compensation_eligible(plain).clause.id == "compensation.eligible"
    assert p.compensation(res, "delayed").verdict.clause.id in ("compensation.other", "compensation.delayed")


def test_retail_statuses_decide_what_may_be_done():
    db = _db("retail")
    p = RetailPolicy(db)
    pending = next(o for o in db.orders.values() if o.status == "pending")
    delivered = next(o for o in db.orders.values() if o.status == "delivered")
    assert p.may_cancel(pending) and not p.may_cancel(delivered) and p.may_cancel(delivered).clause.id == "cancel.pending"
    assert p.may_cancel(pending, "too expensive").clause.id == "cancel.reason"
    assert p.may_return(delivered) and not p.may_return(pending) and p.may_exchange(delivered)
    item = delivered.items[0]
    other = next(k for k, v in db.products[item.product_id].variants.items() if k != item.item_id and v.available)
    diff = p.price_difference(delivered, [item.item_id], [other], exchange=True)
    assert diff.total == round(db.products[item.product_id].variants[other].price - item.price, 2)
    assert p.price_difference(delivered, [item.item_id], [item.item_id], exchange=True).verdict.outcome == "forbidden"
    refund = p.return_refund(delivered, [item.item_id], delivered.payment_history[0].payment_method_id)
    assert refund.total == item.price and refund.destination == "original payment method"

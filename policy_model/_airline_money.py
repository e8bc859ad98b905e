"""The airline policy's figures over a database at a moment: the fare difference of a flight or cabin change
(as tau2's ``update_reservation_flights`` computes it), the refund of a cancellation and where it goes (as
``cancel_reservation`` writes it), compensation (eligibility and amount), the checked-bag allowance and the fee
of extra bags (``update_reservation_baggages``)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from policy_model._airline_records import AirlineRecords
from policy_model._clauses import AIRLINE, Clause
from policy_model._records import get, items, number, table
from policy_model._verdicts import (
    Allowed,
    BagAllowance,
    BagChange,
    BookingPrice,
    Compensation,
    FareDifference,
    Forbidden,
    PaymentLine,
    PolicyVerdict,
    Refund,
    Undecided,
)

INSURANCE_PER_PASSENGER = 30
EXTRA_BAG_FEE = 50
# free checked bags per passenger, by the booking user's membership and the cabin
BAG_ALLOWANCE: dict[str, dict[str, int]] = {
    "regular": {"basic_economy": 0, "economy": 1, "business": 2},
    "silver": {"basic_economy": 1, "economy": 2, "business": 3},
    "gold": {"basic_economy": 2, "economy": 3, "business": 4},
}
COMPENSATION_PER_PASSENGER: dict[str, int] = {"cancelled": 100, "delayed": 50}
ELIGIBLE_TIERS = frozenset({"silver", "gold"})
Cause = Literal["cancelled", "delayed"]


def _c(clause_id: str) -> Clause:
    return AIRLINE[clause_id]


class AirlineMoney(AirlineRecords):
    def fare_difference(
        self, reservation: str | Any, cabin: str, flights: Sequence[tuple[str, str]]
    ) -> FareDifference:
        """What changing the reservation to ``flights`` ((number, date) pairs, the whole new itinerary) in
        ``cabin`` costs all its passengers: a flight kept (same number and date, same cabin) at the price paid,
        a new one at today's price in ``cabin``, less the prices paid; > 0 the user pays, < 0 is refunded."""
        res = self.reservation(reservation)
        passengers = len(items(res, "passengers")) if res is not None else 0
        if res is None:
            return FareDifference(Undecided(_c("cabin.difference"), f"reservation {reservation}"), 0.0, 0.0, 0, (), ())
        old = {(str(get(f, "flight_number")), str(get(f, "date"))): number(get(f, "price")) for f in items(res, "flights")}
        same_cabin = cabin == get(res, "cabin")
        prices: list[float] = []
        kept: list[str] = []
        known = table(self.db, "flights")
        verdict: PolicyVerdict = Allowed(_c("change.kept_price") if any(
            same_cabin and leg in old for leg in flights) else _c("cabin.difference"), "")
        for leg in flights:
            paid = old.get(leg) if same_cabin else None
            if same_cabin and leg in old and paid is not None:
                prices.append(paid)
                kept.append(leg[0])
                continue
            data = get(get(known.get(leg[0]), "dates") or {}, leg[1]) if leg[0] in known else None
            price = number(get(get(data, "prices") or {}, cabin)) if data is not None else None
            if data is None or get(data, "status") != "available":
                verdict = Forbidden(_c("tau2:flight.available"), f"{leg[0]} is not available on {leg[1]}")
            elif price is None:
                verdict = Undecided(_c("cabin.difference"), f"the {cabin} price of {leg[0]} on {leg[1]}")
            else:
                seats = get(get(data, "available_seats") or {}, cabin)
                if isinstance(seats, int) and seats < passengers and verdict:
                    verdict = Forbidden(_c("tau2:flight.seats"), f"{seats} {cabin} seats left on {leg[0]} {leg[1]}")
            prices.append(price or 0.0)
        paid_total = sum(p or 0.0 for p in old.values())
        per_passenger = sum(prices) - paid_total
        if verdict:
            verdict = Allowed(verdict.clause, f"new {sum(prices):g} − paid {paid_total:g} per passenger, × {passengers}")
        return FareDifference(verdict, per_passenger * passengers, per_passenger, passengers, tuple(prices), tuple(kept))

    def booking_price(self, cabin: str, flights: Sequence[tuple[str, str]], passengers: int, insurance: str,
                      nonfree_baggages: int) -> BookingPrice:
        """What booking ``flights`` in ``cabin`` for ``passengers`` costs at today's prices, with the insurance
        (``"yes"``/``"no"``) and ``nonfree_baggages`` paid bags."""
        known = table(self.db, "flights")
        verdict: PolicyVerdict = Allowed(_c("bags.extra_fee"), "")
        fare = 0.0
        for leg in flights:
            data = get(get(known.get(leg[0]), "dates") or {}, leg[1]) if leg[0] in known else None
            price = number(get(get(data, "prices") or {}, cabin)) if data is not None else None
            if data is None or get(data, "status") != "available" or price is None:
                verdict = Forbidden(_c("tau2:flight.available"), f"{leg[0]} is not available on {leg[1]}")
                continue
            fare += price * passengers
        covered = float(INSURANCE_PER_PASSENGER * passengers) if insurance == "yes" else 0.0
        bags = float(EXTRA_BAG_FEE * nonfree_baggages)
        if verdict:
            verdict = Allowed(_c("bags.extra_fee"), f"fares {fare:g} + insurance {covered:g} + bags {bags:g}")
        return BookingPrice(verdict, fare + covered + bags, fare, covered, bags)

    def cancellation_refund(self, reservation: str | Any) -> Refund:
        """What cancelling refunds, and to which methods: every payment of the reservation back to the method it
        came from (the fares, the insurance premium and any later payment alike: tau2 reverses the whole payment
        history); ``fare`` and ``insurance`` say which part paid what."""
        res = self.reservation(reservation)
        if res is None:
            return Refund(Undecided(_c("cancel.refund"), f"reservation {reservation}"), 0.0, (), "")
        transfers = tuple(PaymentLine(str(get(p, "payment_id")), -(number(get(p, "amount")) or 0.0))
                          for p in items(res, "payment_history"))
        total = -sum(t.amount for t in transfers)
        passengers = len(items(res, "passengers"))
        fare = sum(number(get(f, "price")) or 0.0 for f in items(res, "flights")) * passengers
        insurance = float(INSURANCE_PER_PASSENGER * passengers) if get(res, "insurance") == "yes" else 0.0
        return Refund(Allowed(_c("cancel.refund"), f"{len(transfers)} payment(s) reversed"), total, transfers,
                      "original payment methods", fare=fare, insurance=insurance, other=total - fare - insurance)

    def compensation_eligible(self, reservation: str | Any, user: Any = None) -> PolicyVerdict:
        """Is the user eligible for a certificate at all: a silver or gold member, insured, or in business?"""
        res = self.reservation(reservation)
        user = user if user is not None else (self.user_of(res) if res is not None else None)
        tier = get(user, "membership") if user is not None else None
        if tier in ELIGIBLE_TIERS:
            return Allowed(_c("compensation.eligible"), f"a {tier} member")
        if res is not None and get(res, "insurance") == "yes":
            return Allowed(_c("compensation.eligible"), f"{get(res, 'reservation_id')} is insured")
        if res is not None and get(res, "cabin") == "business":
            return Allowed(_c("compensation.eligible"), f"{get(res, 'reservation_id')} flies business")
        if tier is None or res is None or get(res, "insurance") is None or get(res, "cabin") is None:
            return Undecided(_c("compensation.eligible"), "the user's membership, or the reservation's insurance or cabin")
        return Forbidden(_c("compensation.eligible"), f"a {tier} member, no insurance, {get(res, 'cabin')}")

    def compensation(
        self, reservation: str | Any, cause: Cause, *, changed_or_cancelled: bool | None = None, user: Any = None
    ) -> Compensation:
        """The certificate for a complaint about ``cause`` flights of the reservation: $100 per passenger for a
        cancelled flight; $50 for a delayed one, only once the reservation was changed or cancelled
        (``changed_or_cancelled``; None: not known). Offered only when the user asks (not checked here)."""
        res = self.reservation(reservation)
        passengers = len(items(res, "passengers")) if res is not None else 0
        per = COMPENSATION_PER_PASSENGER[cause]
        eligible = self.compensation_eligible(res, user) if res is not None else Undecided(
            _c("compensation.eligible"), f"reservation {reservation}")
        clause = _c(f"compensation.{cause}")
        verdict: PolicyVerdict
        if res is None:
            verdict = Undecided(clause, f"reservation {reservation}")
        else:
            statuses = [self.status(n, d) for n, d in self.legs(res)]
            if cause not in statuses:
                verdict = (Undecided(clause, "a flight's status") if None in statuses
                           else Forbidden(_c("compensation.other"), f"no flight of {get(res, 'reservation_id')} is {cause}"))
            elif not eligible:
                verdict = eligible
            elif cause == "delayed" and changed_or_cancelled is None:
                verdict = Undecided(clause, "whether the reservation was changed or cancelled")
            elif cause == "delayed" and not changed_or_cancelled:
                verdict = Forbidden(clause, "the reservation was neither changed nor cancelled")
            else:
                verdict = Allowed(clause, f"${per} × {passengers} passengers")
        return Compensation(verdict, eligible, per, passengers)

    def bag_allowance(self, reservation: str | Any, cabin: str | None = None, tier: str | None = None) -> BagAllowance | None:
        """Free checked bags of the reservation (``cabin``/``tier``: another than its own, or its user's); None:
        the tier or cabin is not known."""
        res = self.reservation(reservation)
        user = self.user_of(res) if res is not None and tier is None else None
        tier = tier or (get(user, "membership") if user is not None else None)
        cabin = cabin or (get(res, "cabin") if res is not None else None)
        if tier not in BAG_ALLOWANCE or cabin not in BAG_ALLOWANCE[tier]:
            return None
        return BagAllowance(str(tier), str(cabin), BAG_ALLOWANCE[tier][cabin], len(items(res, "passengers")) if res is not None else 0)

    def bag_change(self, reservation: str | Any, total_baggages: int, nonfree_baggages: int) -> BagChange:
        """Changing the checked bags to ``total_baggages``, ``nonfree_baggages`` of them paid: add only, $50 for
        each non-free bag beyond those already paid."""
        res = self.reservation(reservation)
        have_total, have_paid = (get(res, "total_baggages"), get(res, "nonfree_baggages")) if res is not None else (None, None)
        if not isinstance(have_total, int) or not isinstance(have_paid, int):
            return BagChange(Undecided(_c("bags.add_only"), f"the bags of reservation {reservation}"), 0.0, 0)
        extra = max(0, nonfree_baggages - have_paid)
        verdict: PolicyVerdict = (Forbidden(_c("bags.add_only"), f"{have_total} checked bags -> {total_baggages}")
                            if total_baggages < have_total else
                            Allowed(_c("bags.extra_fee"), f"{extra} more paid bag(s) × ${EXTRA_BAG_FEE}"))
        return BagChange(verdict, float(EXTRA_BAG_FEE * extra), extra)

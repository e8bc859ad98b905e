"""The airline policy over a database at a moment: may a reservation be cancelled, its flights, cabin,
passengers and bags changed, and with which payment (``AirlinePolicy``); its money (fares, refunds,
compensation, bags) is ``_airline_money``'s.

The database is tau2's ``FlightDB`` or its dict form, whole or partial (what a conversation had read): a fact
missing from it makes the answer ``Undecided``, never a guess. A flight's status comes from the database's
flights, or from ``flight_status`` where the caller knows better (a status the conversation read)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from policy_model._airline_money import AirlineMoney
from policy_model._clauses import AIRLINE, Clause
from policy_model._records import get, items, table
from policy_model._time import booking_age, within_booking_window
from policy_model._verdicts import Allowed, Forbidden, PolicyVerdict, Undecided

INSURANCE_REASONS = frozenset({"health", "weather"})  # what the travel insurance covers
FIXED_FLIGHT_CABINS = frozenset({"basic_economy"})  # "Basic economy flights cannot be modified."
PAYMENT_LIMITS = {"certificate": 1, "credit_card": 1, "gift_card": 3}  # per reservation
MAX_PASSENGERS = 5  # "Each reservation can have at most five passengers." (passengers.max)


def _c(clause_id: str) -> Clause:
    return AIRLINE[clause_id]


class AirlinePolicy(AirlineMoney):
    """The airline policy's verdicts and figures over ``db`` at ``now`` (the policy's current time unless
    given). Every method takes a reservation by id or as a record (a dict or tau2's ``Reservation``)."""

    # --- cancellation -------------------------------------------------------------------------------
    def may_cancel(self, reservation: str | Any, reason: str | None = None) -> PolicyVerdict:
        """May the reservation be cancelled now, for ``reason`` ("health", "weather", "change of plan", ...;
        None: not yet known)? A flown flight forbids it; else the booking within 24 hours, a business cabin,
        travel insurance with a covered reason or a flight cancelled by the airline allows it."""
        res = self.reservation(reservation)
        if res is None:
            return Undecided(_c("cancel.none_applies"), f"reservation {reservation} not in the database")
        rid = get(res, "reservation_id")
        if get(res, "status") == "cancelled":
            return Forbidden(_c("cancel.already_cancelled"), f"{rid} is already cancelled")
        legs = self.legs(res)
        if not legs:
            return Undecided(_c("cancel.none_applies"), f"{rid} lists no flights")
        flown = self.flown(res)
        if flown:
            return Forbidden(_c("cancel.flown"), f"{', '.join(flown)} of {rid} already flown: the policy allows no "
                             "cancellation (a transfer is needed)")
        age = booking_age(res, self.now)
        if age is None:
            return Undecided(_c("cancel.within_24h"), f"{rid} has no readable creation time")
        if within_booking_window(age):
            return Allowed(_c("cancel.within_24h"), f"{rid} was created at {get(res, 'created_at')}, within 24 hours")
        if get(res, "cabin") == "business":
            return Allowed(_c("cancel.business"), f"{rid} is a business reservation")
        insurance = get(res, "insurance")
        if insurance == "yes" and reason is None:
            return Undecided(_c("cancel.insurance"), f"the reason for cancelling: {rid} is insured, and the insurance "
                             "covers health or weather")
        if insurance == "yes" and reason in INSURANCE_REASONS:
            return Allowed(_c("cancel.insurance"), f"{rid} is insured and the reason ({reason}) is covered")
        if insurance not in ("yes", "no"):
            return Undecided(_c("cancel.insurance"), f"whether {rid} has travel insurance")
        statuses = {leg: self.status(*leg) for leg in legs}
        cancelled = [n for (n, _d), st in statuses.items() if st == "cancelled"]
        if cancelled:
            return Allowed(_c("cancel.airline_cancelled"), f"{', '.join(cancelled)} of {rid} cancelled by the airline")
        if any(st is None for st in statuses.values()):
            return Undecided(_c("cancel.airline_cancelled"), f"the status of a flight of {rid}")
        hours = int(age.total_seconds()) // 3600
        shown = ", ".join(f"{n} {d} {st}" for (n, d), st in statuses.items())
        insured = "it has no travel insurance" if insurance == "no" else f"its insurance does not cover {reason!r}"
        return Forbidden(_c("cancel.none_applies"), f"{rid} was booked at {get(res, 'created_at')}, {hours // 24} d "
                         f"{hours % 24} h before the current time {self.now.isoformat(sep=' ')}; its cabin is "
                         f"{get(res, 'cabin')}, {insured} and no flight of it was cancelled by the airline ({shown}): "
                         "the policy allows no cancellation")

    # --- changes ------------------------------------------------------------------------------------
    def may_change_flights(self, reservation: str | Any, flights: Sequence[tuple[str, str]] | None = None) -> PolicyVerdict:
        """May the reservation's flights be changed (to ``flights``, (number, date) pairs, where given)? Not a
        basic economy one; the origin, destination and trip type stay."""
        res = self.reservation(reservation)
        if res is None:
            return Undecided(_c("change.basic_economy"), f"reservation {reservation} not in the database")
        rid = get(res, "reservation_id")
        if get(res, "status") == "cancelled":
            return Forbidden(_c("cancel.already_cancelled"), f"{rid} is cancelled")
        if get(res, "cabin") in FIXED_FLIGHT_CABINS:
            return Forbidden(_c("change.basic_economy"), f"{rid} is basic economy")
        if get(res, "cabin") is None:
            return Undecided(_c("change.basic_economy"), f"the cabin of {rid}")
        if flights is None:
            return Allowed(_c("change.same_route"), f"{rid} is {get(res, 'cabin')}")
        route = self._route(flights)
        if route is None:
            return Undecided(_c("change.same_route"), "a new flight's origin or destination")
        origin, destination = get(res, "origin"), get(res, "destination")
        if get(res, "flight_type") == "round_trip":
            same = route[0][0] == origin and route[-1][1] == origin and any(d == destination for _o, d in route)
        else:
            same = route[0][0] == origin and route[-1][1] == destination
        if not same:
            return Forbidden(_c("change.same_route"), f"{rid} goes {origin}-{destination} "
                             f"({get(res, 'flight_type')}); the new flights go {'-'.join([route[0][0], *(d for _o, d in route)])}")
        return Allowed(_c("change.same_route"), f"{rid} keeps {origin}-{destination} ({get(res, 'flight_type')})")

    def _route(self, flights: Iterable[tuple[str, str]]) -> list[tuple[str, str]] | None:
        known = table(self.db, "flights")
        route = []
        for number, _date in flights:
            flight = known.get(number)
            if flight is None:
                return None
            route.append((str(get(flight, "origin")), str(get(flight, "destination"))))
        return route or None

    def may_change_cabin(self, reservation: str | Any) -> PolicyVerdict:
        """May the reservation change cabin (all its flights together)? Not once a flight has been flown."""
        res = self.reservation(reservation)
        if res is None:
            return Undecided(_c("cabin.flown"), f"reservation {reservation} not in the database")
        rid = get(res, "reservation_id")
        flown = self.flown(res)
        if flown:
            return Forbidden(_c("cabin.flown"), f"{', '.join(flown)} of {rid} already flown")
        return Allowed(_c("cabin.any"), f"every flight of {rid} is still ahead")

    def may_change_passengers(self, reservation: str | Any, count: int) -> PolicyVerdict:
        """May the passengers become ``count`` passengers? Their details may change, their number may not."""
        res = self.reservation(reservation)
        if res is None:
            return Undecided(_c("passengers.count"), f"reservation {reservation} not in the database")
        have = len(items(res, "passengers"))
        if count != have:
            return Forbidden(_c("passengers.count"), f"{get(res, 'reservation_id')} has {have} passengers, not {count}")
        return Allowed(_c("passengers.count"), f"{have} passengers, as before")

    def may_change_bags(self, reservation: str | Any, total_baggages: int) -> PolicyVerdict:
        """May the checked bags become ``total_baggages``? Bags may be added, not removed."""
        res = self.reservation(reservation)
        have = get(res, "total_baggages") if res is not None else None
        if not isinstance(have, int):
            return Undecided(_c("bags.add_only"), f"the bags of reservation {reservation}")
        if total_baggages < have:
            return Forbidden(_c("bags.add_only"), f"{get(res, 'reservation_id')} has {have} checked bags; "
                             f"{total_baggages} removes {have - total_baggages}")
        return Allowed(_c("bags.add_only"), f"{have} -> {total_baggages} checked bags")

    # --- payment ------------------------------------------------------------------------------------
    def payment_methods(self, user: str | Any) -> dict[str, Any]:
        record = table(self.db, "users").get(user) if isinstance(user, str) else user
        found = get(record, "payment_methods") if record is not None else None
        return dict(found) if found else {}

    def may_pay_booking(self, user: str | Any, payment_ids: Sequence[str]) -> PolicyVerdict:
        """May a reservation be paid with ``payment_ids``? Each on file; at most one certificate, one credit
        card and three gift cards."""
        methods = self.payment_methods(user)
        missing = [p for p in payment_ids if p not in methods]
        if missing:
            return Forbidden(_c("payment.on_file"), f"{', '.join(missing)} not in the user's profile")
        counts: dict[str, int] = {}
        for p in dict.fromkeys(payment_ids):
            source = str(get(methods[p], "source"))
            counts[source] = counts.get(source, 0) + 1
        for source, limit in PAYMENT_LIMITS.items():
            if counts.get(source, 0) > limit:
                return Forbidden(_c("payment.limits"), f"{counts[source]} {source.replace('_', ' ')}s; at most {limit}")
        return Allowed(_c("payment.limits"), ", ".join(f"{n} {s}" for s, n in sorted(counts.items())))

    def may_pay_change(self, user: str | Any, payment_id: str, amount: float) -> PolicyVerdict:
        """May a change (flights, cabin, bags) charging ``amount`` (< 0: a refund) use ``payment_id``? One gift
        card or credit card on file; a gift card must cover the amount (tau2's tool)."""
        method = self.payment_methods(user).get(payment_id)
        if method is None:
            return Forbidden(_c("change.payment"), f"{payment_id} not in the user's profile")
        source = get(method, "source")
        if source == "certificate":
            return Forbidden(_c("tau2:payment.no_certificate_update"), f"{payment_id} is a travel certificate")
        balance = get(method, "amount")
        if source == "gift_card" and isinstance(balance, int | float) and balance < amount:
            return Forbidden(_c("tau2:payment.gift_card_balance"), f"{payment_id} holds {balance:g}, less than {amount:g}")
        return Allowed(_c("change.payment"), f"{payment_id} ({source})")

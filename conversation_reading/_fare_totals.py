"""What a quoted total is compared with (``_claims._quoted_total``): what a reservation paid, whether the flights a
message names cannot be a reservation's itinerary, and a total less a booked fare within a cent of the quote."""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Iterable, Sequence
from typing import Any

CENT = 0.01  # a quoted total is one the model computes when within a cent of it (``_claims._quoted_total``)


def _differs_by(quoted: float, totals: Iterable[float], booked: Iterable[float]) -> bool:
    """``any(abs(quoted - (x - b)) < CENT for x in totals for b in booked if 0 < b < x)``: a total less a booked fare
    within a cent of the quote. Of each fare, only the totals within two cents of ``quoted + b`` (and the rounding of
    floats, far below a cent) can be, found by bisecting the sorted totals; each is then tested as the expression
    does (a necessary condition: the same answer, without a test of every pair)."""
    ordered = sorted(totals)
    for b in booked:
        if not 0 < b:
            continue
        reach = 2 * CENT + (abs(quoted) + abs(b)) * 1e-9
        for x in ordered[bisect_left(ordered, quoted + b - reach) : bisect_right(ordered, quoted + b + reach)]:
            if b < x and abs(quoted - (x - b)) < CENT:
                return True
    return False


def _paid(res: dict[str, Any]) -> float:
    """What a reservation's payment history adds up to (refunds are negative lines)."""
    return sum(p.get("amount", 0) for p in res.get("payment_history") or [] if isinstance(p, dict))


def _another_itinerary(res: dict[str, Any], legs: Sequence[dict[str, Any] | None], numbers: list[str]) -> bool:
    """The flights named cannot be the reservation's itinerary: none of them is its own, and none leaves from or
    arrives at its origin or destination, which a change of its flights keeps (``change.same_route``). Their
    total is a new booking's (False: they may be its, or a route is not known)."""
    ends = {res.get("origin"), res.get("destination")} - {None}
    own = {str(f.get("flight_number")) for f in res.get("flights") or [] if isinstance(f, dict)}
    if not ends or own & set(numbers):
        return False
    route = [(leg.get("origin"), leg.get("destination")) for leg in legs if leg is not None]
    return all(o is not None and d is not None and o not in ends and d not in ends for o, d in route)


__all__: list[str] = []

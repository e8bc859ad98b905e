"""The fares of new itineraries and their differences against each reservation read (``_sentence_facts``): the
model's ``fare_difference`` and ``booking_price`` over the flights the conversation named, any subset of them with
any subset of a reservation's own flights, for each cabin, per passenger and for all of them, with the insurance.

Ten flights named give a thousand subsets, and each subset with each reservation and each subset of its own
flights a dozen figures: tens of thousands in all, of which a sentence asks about one or two. ``Itineraries``
answers whether an amount is one of them (to the cent) without listing them: each figure is an affine function
of a subset's sum (``_figures``), so only the sums near where a figure would equal the amount can give it, and
those few are found in the sorted sums and checked with ``_figures`` itself."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator, Sequence
from math import isfinite
from typing import Any

from conversation_reading._known_figures import NUMBERS, cent
from policy_model import INSURANCE_PER_PASSENGER

_CABINS = ("basic_economy", "economy", "business")
# the order ``_find`` tries the cabins in (any order gives the same answer: a figure of any cabin): economy first, where
# most amounts asked lie (the benchmark file: 0.20 of 0.40 finds a trajectory, business 0.08, basic economy 0.06)
_SEARCHED = (1, 2, 0)


class _Reservation:
    """What a reservation's figures need: passengers, payment, the sums of its own flights kept (for one cabin)."""

    __slots__ = ("cabin", "insurance", "kept", "n", "old", "paid", "total_old")

    def __init__(self, res: dict[str, Any]) -> None:
        """The reservation in a cabin not its own (none of its flights kept): ``in_cabin`` gives it in each."""
        self.n = len(res.get("passengers") or []) or 1
        self.paid = sum(float(p.get("amount", 0)) for p in res.get("payment_history") or [] if isinstance(p, dict))
        self.old = [float(f.get("price", 0)) for f in res.get("flights") or [] if isinstance(f, dict)]
        self.cabin, self.kept = res.get("cabin"), [0.0]
        self.total_old, self.insurance = sum(self.old), INSURANCE_PER_PASSENGER * self.n

    def in_cabin(self, cabin: str) -> _Reservation:
        """The reservation for new flights in ``cabin``: in its own, any of its flights may be kept; in another, none
        (itself: the payment and passengers are read once for all cabins)."""
        if self.cabin != cabin:
            return self
        own = object.__new__(_Reservation)
        own.n, own.paid, own.old, own.cabin, own.total_old, own.insurance = (
            self.n, self.paid, self.old, self.cabin, self.total_old, self.insurance)
        kept = {0.0}
        for price in self.old:
            kept |= {x + price for x in kept}
        own.kept = sorted(kept)
        return own


def _figures(x: float, r: _Reservation) -> Iterator[float]:
    """The figures of new flights costing ``x`` per passenger against reservation ``r``: what is paid against the
    payment (either sign), the fare per passenger, for all, with the insurance, and the difference against its
    flights (any of its own kept), per passenger and for all, either sign."""
    n, paid = r.n, r.paid
    yield x * n - paid
    yield abs(x * n - paid)
    yield x
    yield x * n
    yield x * n + r.insurance
    for k in r.kept:
        diff = x + k - r.total_old
        yield diff
        yield abs(diff)
        yield diff * n
        yield abs(diff) * n


def _lines(reservations: list[_Reservation]) -> list[tuple[float, float, bool, _Reservation]]:
    """Each figure of ``_figures`` of each reservation as ``scale * x + offset`` (``absolute``: its absolute value),
    with the reservation whose figures a sum near it is checked against: where to look (once a cabin, not once an
    amount asked)."""
    lines: list[tuple[float, float, bool, _Reservation]] = []
    add = lines.append
    for r in reservations:
        n, total_old = r.n, r.total_old
        lines += ((n, -r.paid, True, r), (1.0, 0.0, False, r), (n, 0.0, False, r), (n, r.insurance, False, r))
        for k in r.kept:
            add((1.0, k - total_old, True, r))
            add((n, (k - total_old) * n, True, r))
    return lines


class Itineraries:
    """The figures of new itineraries over the flights ``named`` against ``reservations`` (read before a message)."""

    def __init__(self, named: Sequence[str], flights: dict[str, dict[str, Any]],
                 reservations: Sequence[dict[str, Any]]) -> None:
        self._named, self._flights = named, flights
        self._reservations = [_Reservation(res) for res in reservations or [{}]]
        # as ``_cabin`` builds them: the sums, whether sorted, the reservations there and the lines to look along
        self._by_cabin: dict[int, tuple[list[float], bool, list[_Reservation], list[tuple[float, float, bool, _Reservation]]]] = {}
        self._answers: dict[float, bool] = {}

    def _cabin(self, i: int) -> tuple[list[float], bool, list[_Reservation], list[tuple[float, float, bool, _Reservation]]]:
        """The sums of the named flights' fares in cabin ``i`` of ``_CABINS`` and the reservations' figures there,
        built when first asked (most amounts are found in the first cabin ``_find`` tries)."""
        held = self._by_cabin.get(i)
        if held is None:
            cabin = _CABINS[i]
            prices = [float(p) for n in self._named
                      if isinstance(p := (self._flights[n].get("prices") or {}).get(cabin), NUMBERS)]
            sums = {0.0}
            for price in prices:
                sums |= {x + price for x in sums}
            # sorted for the search by value; a sum that is no number (a NaN price) sorts nowhere: then every sum is tried (a
            # sum of them all is finite only where each is: a NaN or an infinity carries)
            ordered = sorted(sums) if isfinite(sum(sums)) else None
            reservations = [r.in_cabin(cabin) for r in self._reservations]
            held = self._by_cabin[i] = (ordered or list(sums), ordered is not None, reservations,
                                        _lines(reservations))
        return held

    def figures(self) -> set[float]:
        """Every figure, to the cent (the reference ``holds`` answers for: a test compares them)."""
        return {round(v, 2) for i in range(len(_CABINS)) for sums, _, reservations, _ in (self._cabin(i),)
                for r in reservations for x in sums for v in _figures(x, r)}

    def holds(self, amount: float) -> bool:
        """Whether ``amount`` is one of the figures to the cent (``round(amount, 2) in self.figures()``)."""
        answer = self._answers.get(amount)
        if answer is None:
            answer = self._answers[amount] = self._find(amount)
        return answer

    def _find(self, amount: float) -> bool:
        target = cent(amount)
        signed, plain = (amount, -amount), (amount,)
        # a figure rounding to the target's cent lies within a cent of the amount: its sum within a cent (over the
        # scale) of where the line meets the amount; the window is wider, for the rounding of the figure's terms
        for i in _SEARCHED:
            sums, ordered, reservations, lines = self._cabin(i)
            if not ordered:
                if any(cent(v) == target for r in reservations for x in sums for v in _figures(x, r)):
                    return True
                continue
            size, low, high = len(sums), sums[0], sums[-1]
            tried: set[tuple[float, _Reservation]] = set()
            for scale, offset, absolute, r in lines:
                for wanted in signed if absolute else plain:
                    at = (wanted - offset) / scale
                    slack = 0.05 + abs(at) * 1e-9
                    bottom, top = at - slack, at + slack
                    if top < low or bottom > high:
                        continue  # outside every sum (most lines): no search
                    # the sums in [bottom, top], in order
                    k = bisect_left(sums, bottom)
                    while k < size and sums[k] <= top:
                        x = sums[k]
                        k += 1
                        if (x, r) not in tried:
                            tried.add((x, r))
                            if any(cent(v) == target for v in _figures(x, r)):
                                return True
        return False


__all__ = ["Itineraries"]

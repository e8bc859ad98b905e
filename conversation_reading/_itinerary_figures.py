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

    __slots__ = ("insurance", "kept", "n", "paid", "total_old")

    def __init__(self, res: dict[str, Any], cabin: str) -> None:
        self.n = len(res.get("passengers") or []) or 1
        self.paid = sum(float(p.get("amount", 0)) for p in res.get("payment_history") or [] if isinstance(p, dict))
        old = [float(f.get("price", 0)) for f in res.get("flights") or [] if isinstance(f, dict)]
        kept = {0.0}
        for price in old if res.get("cabin") == cabin else []:
            kept |= {x + price for x in kept}
        self.kept = sorted(kept)
        self.total_old, self.insurance = sum(old), INSURANCE_PER_PASSENGER * self.n


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


def _lines(r: _Reservation) -> Iterator[tuple[float, float, bool]]:
    """Each figure of ``_figures`` as ``scale * x + offset`` (``absolute``: its absolute value): where to look."""
    yield r.n, -r.paid, True
    yield 1.0, 0.0, False
    yield r.n, 0.0, False
    yield r.n, r.insurance, False
    for k in r.kept:
        yield 1.0, k - r.total_old, True
        yield r.n, (k - r.total_old) * r.n, True


class Itineraries:
    """The figures of new itineraries over the flights ``named`` against ``reservations`` (read before a message)."""

    def __init__(self, named: Sequence[str], flights: dict[str, dict[str, Any]],
                 reservations: Sequence[dict[str, Any]]) -> None:
        self._named, self._flights, self._reservations = named, flights, reservations or [{}]
        self._by_cabin: dict[int, tuple[list[float], bool, list[_Reservation]]] = {}  # as ``_cabin`` builds them
        self._answers: dict[float, bool] = {}

    def _cabin(self, i: int) -> tuple[list[float], bool, list[_Reservation]]:
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
            # sorted for the search by value; a sum that is no number (a NaN price) sorts nowhere: then every sum is tried
            ordered = sorted(sums) if all(isfinite(x) for x in sums) else None
            held = self._by_cabin[i] = (ordered or list(sums), ordered is not None,
                                        [_Reservation(res, cabin) for res in self._reservations])
        return held

    def figures(self) -> set[float]:
        """Every figure, to the cent (the reference ``holds`` answers for: a test compares them)."""
        return {round(v, 2) for i in range(len(_CABINS)) for sums, _, reservations in (self._cabin(i),)
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
            sums, ordered, reservations = self._cabin(i)
            size = len(sums)
            for r in reservations:
                if not ordered:
                    if any(cent(v) == target for x in sums for v in _figures(x, r)):
                        return True
                    continue
                tried: set[float] = set()
                for scale, offset, absolute in _lines(r):
                    for wanted in signed if absolute else plain:
                        at = (wanted - offset) / scale
                        slack = 0.05 + abs(at) * 1e-9
                        # the sums in [at - slack, at + slack], in order (most lines have none: no slice is cut)
                        k, top = bisect_left(sums, at - slack), at + slack
                        while k < size and sums[k] <= top:
                            x = sums[k]
                            k += 1
                            if x not in tried:
                                tried.add(x)
                                if any(cent(v) == target for v in _figures(x, r)):
                                    return True
        return False


__all__ = ["Itineraries"]

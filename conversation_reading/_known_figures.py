"""The figures the database as the conversation had read it gives, and the policy model's figures over it
(``_sentence_facts._Checker``): fares, payments, balances, the fixed fees per passenger, each reservation's refund
and fare differences, what is left to pay after the payment methods, and the figures true sentences gave.

A sentence asks whether one amount is among them. Most amounts a sentence states are plain figures of the records
(a fare, a payment, a balance, a fee), so those are reckoned first and the model's (a refund and three fare
differences a reservation, and the remainders of the hundred largest figures after every payment combination)
only for an amount the plain ones do not give: the same answer as one set of them all."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable
from itertools import combinations
from math import isfinite
from typing import Any

from conversation_reading._conversation_state import _State
from policy_model import (
    COMPENSATION_PER_PASSENGER,
    EXTRA_BAG_FEE,
    INSURANCE_PER_PASSENGER,
    PAYMENT_LIMITS,
    AirlinePolicy,
)

# a figure's types, as ``isinstance`` reads them: ``int | float`` written in a test builds a new union each time it runs
# (three times the test's cost, and it runs for every price and balance of every state read, #47)
NUMBERS = (int, float)


def cent(x: float) -> float:
    """``round(x, 2)``, the same value and type: a float with no fraction is its own cent (round reckons a float's
    cent through its decimal digits, a string each call, and most figures are whole dollars)."""
    return x if x.__class__ is float and x.is_integer() else round(x, 2)


def _cents(values: Iterable[float]) -> set[float]:
    # ``cent`` written out: a call a figure was most of the cost of a state's figures (#47)
    return {v if v.__class__ is float and v.is_integer() else round(v, 2) for v in values}


def _amounts_held(s: _State, source: str | None = None) -> list[float]:
    """The balances of the user's payment methods (of ``source`` only, where given)."""
    return [float(m["amount"]) for m in ((s.user or {}).get("payment_methods") or {}).values()
            if isinstance(m, dict) and (source is None or m.get("source") == source)
            and isinstance(m.get("amount"), NUMBERS)]


class KnownFigures:
    """The figures of one state of the database as read (shared by the messages read over it), ``in`` to the
    cent; ``derived``: those true sentences gave."""

    def __init__(self, state: _State, policy: AirlinePolicy | None,
                 by_record: dict[int, tuple[dict[str, Any], set[float]]]) -> None:
        """``by_record``: the model's figures by record, across one conversation's states (its own dict: one that
        held this object too would be a cycle)."""
        self._state, self._policy, self._by_record = state, policy, by_record
        self.derived: set[float] = set()
        self._records: set[float] | None = None  # the plain figures (no model's)
        self._plain: set[float] | None = None  # the same, and the sums of balances, to the cent
        # the model's figures to the cent, the hundred largest figures, the sums the payment methods may pay of
        # them, and whether all of those are numbers (``modelled``)
        self._model: tuple[set[float], list[float], list[float], bool] | None = None

    def __contains__(self, amount: float) -> bool:
        return self.plain(amount) or self.modelled(amount)

    def plain(self, amount: float) -> bool:
        """``amount`` is a figure true sentences gave or a plain one (no model's): the cheap part of ``in``."""
        at = cent(amount)
        if at in self.derived:
            return True
        if self._plain is None:
            self._records = self._plain_figures()
            self._plain = _cents(self._records | self._balance_sums())
        return at in self._plain

    def modelled(self, amount: float) -> bool:
        """``amount`` is one of every figure, the model's included (``plain`` asked first: it holds the records):
        ``round(amount, 2) in _cents(self._every_figure())``, without listing what is left to pay of the largest
        figures (a thousand or more, of which a sentence asks about one): a figure ``t`` less a sum ``a`` the
        payment methods pay rounds to the amount's cent only where ``t`` lies within a cent of ``amount + a``, so
        only the largest figures there (by their order) are tried, for each such sum."""
        if self._model is None:
            self.plain(0.0)  # the plain figures the model's start from
            _, own, top, paying = self._parts()
            finite = all(isfinite(x) for x in (*top, *paying))  # no NaN or infinity: the order places each
            self._model = _cents(own), top, sorted(paying), finite
        target = cent(amount)
        assert self._plain is not None
        model, top, applied, finite = self._model
        if target in self._plain or target in model:
            return True
        if not finite:
            return any(t - a > 0 and cent(t - a) == target for t in top for a in applied)
        for a in applied:
            at = target + a
            slack = 0.01 + abs(at) * 1e-9  # wider than the rounding's half cent and the subtraction's error
            k, end = bisect_left(top, at - slack), at + slack
            while k < len(top) and top[k] <= end:
                t = top[k]
                k += 1
                if t - a > 0 and cent(t - a) == target:
                    return True
        return False

    def _plain_figures(self) -> set[float]:
        """The fixed fees for up to five more passengers than a reservation holds, the balances, each reservation's
        payments and fares (as read now and before a write), and the fares of the flights searched."""
        s = self._state
        found: set[float] = set()
        passengers = {len(r.get("passengers") or []) for r in s.reservations.values()} | {1}
        most = max(passengers) if passengers else 1
        for n in range(1, max(most, 1) + 6):
            found |= {EXTRA_BAG_FEE * n, INSURANCE_PER_PASSENGER * n, *(v * n for v in COMPENSATION_PER_PASSENGER.values())}
        found |= set(_amounts_held(s))
        # plain loops, in the order the sets were joined: a comprehension a record or a flight was a call each (#47)
        add = found.add
        for r in (*s.reservations.values(), *s.earlier):
            for p in r.get("payment_history") or ():
                if isinstance(p, dict):
                    add(float(p.get("amount", 0)))
            for f in r.get("flights") or ():
                if isinstance(f, dict):
                    add(float(f.get("price", 0)))
        for leg in s.flights.values():
            for v in (leg.get("prices") or {}).values():
                if isinstance(v, NUMBERS):
                    add(float(v))
        return found

    def _balance_sums(self) -> set[float]:
        balances = _amounts_held(self._state)
        return {sum(c) for k in range(2, len(balances) + 1) for c in combinations(balances, k)} if len(balances) <= 8 \
            else set()

    def _every_figure(self) -> set[float]:
        """The plain figures, each reservation's refund and fare differences (the model's), and what is left to pay
        of the hundred largest after one certificate and up to three gift cards (the payment limits): the figures
        ``modelled`` answers for (a test compares them)."""
        found, _, top, applied = self._parts()
        found |= {t - a for t in top for a in applied if t - a > 0}
        return found | self._balance_sums()

    def _parts(self) -> tuple[set[float], set[float], list[float], set[float]]:
        """The plain figures and the model's of every reservation read, the model's alone, the hundred largest of
        them in order, and what the payment methods may pay: nothing, a certificate, up to three gift cards."""
        s = self._state
        assert self._records is not None
        found, model = set(self._records), set()
        for r in (*s.reservations.values(), *s.earlier):
            figures = self._model_figures(r)
            found |= figures
            model |= figures
        top = sorted(found)[-100:]
        applied = {0.0, *_amounts_held(s, "certificate")}
        cards = _amounts_held(s, "gift_card")
        for k in range(1, min(len(cards), PAYMENT_LIMITS["gift_card"]) + 1):
            applied |= {a + sum(c) for a in list(applied) for c in combinations(cards, k)}
        return found, model, top, applied

    def _model_figures(self, r: dict[str, Any]) -> set[float]:
        """A reservation's refund and its fare differences to each cabin. They depend on the record alone (the
        model's prices are the domain's, its "now" the conversation's): one reckoning per record read, whichever
        states hold it."""
        if self._policy is None:
            return set()
        key = id(r)
        held = self._by_record.get(key)
        if held is not None and held[0] is r:  # the record itself is held: its id is not another's
            return held[1]
        refund = self._policy.cancellation_refund(r)
        found = {refund.total, refund.fare, refund.insurance}
        legs = self._policy.legs(r)
        for cabin in ("basic_economy", "economy", "business"):
            diff = self._policy.fare_difference(r, cabin, legs)
            if diff.verdict:
                found |= {diff.total, abs(diff.total), diff.per_passenger, abs(diff.per_passenger)}
        self._by_record[key] = (r, found)
        return found


__all__ = ["NUMBERS", "KnownFigures", "cent"]

"""What the policy model answers: a verdict (allowed, forbidden, or not decidable from the facts given) that
names the clause it applied, and the amounts it computes. Frozen, slotted dataclasses: they are built per
question, many times per conversation, and never serialised (a caller that stores one stores its fields)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from policy_model._clauses import Clause

Outcome = Literal["allowed", "forbidden", "undecided"]


@dataclass(frozen=True, slots=True)
class Allowed:
    """The policy allows it, by ``clause``; ``why`` says with which facts of the database."""

    clause: Clause
    why: str
    outcome: Outcome = "allowed"

    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True, slots=True)
class Forbidden:
    """The policy forbids it, by ``clause``; ``why`` says with which facts of the database."""

    clause: Clause
    why: str
    outcome: Outcome = "forbidden"

    def __bool__(self) -> bool:
        return False


@dataclass(frozen=True, slots=True)
class Undecided:
    """The facts given cannot decide it (a flight status nobody read, the reason for cancelling not yet known):
    ``missing`` names what would. Falsy, like ``Forbidden``: test ``outcome`` where the difference matters."""

    clause: Clause
    missing: str
    outcome: Outcome = "undecided"

    @property
    def why(self) -> str:
        return f"undecided: {self.missing}"

    def __bool__(self) -> bool:
        return False


PolicyVerdict = Allowed | Forbidden | Undecided


@dataclass(frozen=True, slots=True)
class PaymentLine:
    """One movement of money to or from one payment method: ``amount`` > 0 is charged to it, < 0 refunded."""

    payment_id: str
    amount: float


@dataclass(frozen=True, slots=True)
class FareDifference:
    """What a flight or cabin change costs (tau2's ``update_reservation_flights``): ``total`` = (the new flights'
    prices − the prices paid) × ``passengers``; > 0 the user pays, < 0 is refunded. ``kept`` are the flights
    whose paid price stays (same flight, same date, same cabin); ``prices`` the per-passenger price of every new
    flight, in order."""

    verdict: PolicyVerdict
    total: float
    per_passenger: float
    passengers: int
    prices: tuple[float, ...]
    kept: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class BookingPrice:
    """What a new reservation costs (tau2's ``book_reservation``): every flight's price in the cabin × the
    passengers, $30 insurance per passenger, $50 per non-free bag; ``total`` is what the payments must add up to."""

    verdict: PolicyVerdict
    total: float
    fare: float
    insurance: float
    bags: float


@dataclass(frozen=True, slots=True)
class Refund:
    """Money returned, and where it goes: ``transfers`` (negative amounts, one per payment method), ``total``
    (positive), and, for an airline cancellation, the parts of it that paid the fares and the insurance."""

    verdict: PolicyVerdict
    total: float
    transfers: tuple[PaymentLine, ...]
    destination: str  # "original payment methods", "gift card", ...
    fare: float = 0.0
    insurance: float = 0.0
    other: float = 0.0  # bags and earlier changes' payments


@dataclass(frozen=True, slots=True)
class Compensation:
    """A certificate the policy lets the agent offer: ``eligible`` (membership, insurance or cabin), the
    ``amount`` per passenger and in all, and the verdict that combines them with the cause."""

    verdict: PolicyVerdict
    eligible: PolicyVerdict
    per_passenger: int
    passengers: int

    @property
    def amount(self) -> int:
        return self.per_passenger * self.passengers if self.verdict else 0


@dataclass(frozen=True, slots=True)
class BagAllowance:
    """Free checked bags by the booking user's tier and the cabin: ``per_passenger`` and ``total``."""

    tier: str
    cabin: str
    per_passenger: int
    passengers: int

    @property
    def total(self) -> int:
        return self.per_passenger * self.passengers


@dataclass(frozen=True, slots=True)
class BagChange:
    """A change of checked bags (tau2's ``update_reservation_baggages``): the verdict (add only) and the fee
    charged for the new non-free bags."""

    verdict: PolicyVerdict
    fee: float
    extra_bags: int


@dataclass(frozen=True, slots=True)
class PriceDifference:
    """A retail exchange or modification of items: ``total`` = new prices − old prices (> 0 the user pays)."""

    verdict: PolicyVerdict
    total: float
    per_item: tuple[tuple[str, str, float], ...]  # (old item, new item, new − old)

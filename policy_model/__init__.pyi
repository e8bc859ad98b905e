"""The policy of each domain as computation over its database at a moment: verdicts with the clause they apply,
and the figures (fares, refunds, compensation, bags, price differences) tau2's tools compute."""

from ._airline import (
    FIXED_FLIGHT_CABINS,
    INSURANCE_REASONS,
    PAYMENT_LIMITS,
    AirlinePolicy,
)
from ._airline_money import (
    BAG_ALLOWANCE,
    COMPENSATION_PER_PASSENGER,
    ELIGIBLE_TIERS,
    EXTRA_BAG_FEE,
    INSURANCE_PER_PASSENGER,
    Cause,
)
from ._airline_records import (
    StatusOf,
    db_flight_status,
)
from ._clauses import (
    AIRLINE,
    RETAIL,
    Clause,
    clause,
)
from ._retail import (
    CANCEL_REASONS,
    RetailPolicy,
)
from ._time import (
    BOOKING_WINDOW,
    NOW,
    booking_age,
    domain_now,
    within_booking_window,
)
from ._tools import (
    AIRLINE_WRITES,
    BOOK_TOOL,
    CANCEL_TOOL,
    CHANGE_OR_CANCEL,
    COMPENSATION_TOOL,
    FLIGHT_CHANGE_TOOL,
    ONCE_PER_ORDER,
    RESERVATION_CHANGES,
    RETAIL_WRITES,
)
from ._verdicts import (
    Allowed,
    BagAllowance,
    BagChange,
    Compensation,
    FareDifference,
    Forbidden,
    PaymentLine,
    PolicyVerdict,
    PriceDifference,
    Refund,
    Undecided,
)

__all__ = [
    "AIRLINE",
    "AIRLINE_WRITES",
    "AirlinePolicy",
    "Allowed",
    "BAG_ALLOWANCE",
    "BagAllowance",
    "BagChange",
    "BOOK_TOOL",
    "BOOKING_WINDOW",
    "booking_age",
    "CANCEL_REASONS",
    "CANCEL_TOOL",
    "Cause",
    "CHANGE_OR_CANCEL",
    "Clause",
    "clause",
    "Compensation",
    "COMPENSATION_PER_PASSENGER",
    "COMPENSATION_TOOL",
    "db_flight_status",
    "domain_now",
    "ELIGIBLE_TIERS",
    "EXTRA_BAG_FEE",
    "FIXED_FLIGHT_CABINS",
    "FareDifference",
    "FLIGHT_CHANGE_TOOL",
    "Forbidden",
    "INSURANCE_PER_PASSENGER",
    "INSURANCE_REASONS",
    "NOW",
    "ONCE_PER_ORDER",
    "PAYMENT_LIMITS",
    "PriceDifference",
    "Refund",
    "RESERVATION_CHANGES",
    "RETAIL",
    "RETAIL_WRITES",
    "RetailPolicy",
    "StatusOf",
    "PaymentLine",
    "Undecided",
    "PolicyVerdict",
    "within_booking_window",
]

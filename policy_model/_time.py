"""The domains' current time and the 24-hour booking window: the one home of both."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from policy_model._records import get

# The airline policy's "current time" (EST, as a reservation's created_at is; tau2's tools write it too:
# ``AirlineTools._get_datetime``). The retail policy states none.
NOW: dict[str, datetime] = {"airline": datetime(2024, 5, 15, 15, 0, 0)}

# "The booking was made within the last 24 hrs": inclusive of exactly 24 hours (catalog L9's reading the
# project takes), measured from created_at to the domain's current time.
BOOKING_WINDOW = timedelta(hours=24)


def domain_now(domain: str) -> datetime | None:
    """The domain's current time, per its policy (None: the policy states none)."""
    return NOW.get(domain)


def booking_age(reservation: Any, now: datetime) -> timedelta | None:
    """How long before ``now`` the reservation was created (None: no readable created_at)."""
    created = get(reservation, "created_at")
    if not isinstance(created, str):
        return None
    try:
        return now - datetime.fromisoformat(created)
    except ValueError:
        return None


def within_booking_window(age: timedelta) -> bool:
    """A booking ``age`` old is within the policy's 24 hours (inclusive; a creation after ``now`` is not)."""
    return timedelta(0) <= age <= BOOKING_WINDOW

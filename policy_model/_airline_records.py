"""The airline database at a moment, as the policy model reads it: reservations and users by id, a flight's
status, the flights already flown. Tau2's ``FlightDB`` or its dict form, whole or partial."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from policy_model._records import get, items, table
from policy_model._time import NOW

StatusOf = Callable[[str, str], str | None]  # (flight number, date) -> status, None: unknown

FLOWN_STATUSES = frozenset({"landed", "flying"})

def db_flight_status(db: Any) -> StatusOf:
    """A flight's status on a date in ``db`` (None: no such flight or date)."""
    flights = table(db, "flights")

    def status(number: str, date: str) -> str | None:
        flight = flights.get(number)
        data = get(get(flight, "dates") or {}, date) if flight is not None else None
        found = get(data, "status") if data is not None else None
        return str(found) if found is not None else None

    return status


class AirlineRecords:
    """``db`` at ``now`` (the policy's current time unless given); ``flight_status``: where a caller knows a
    flight's status better than ``db`` (what a conversation read)."""

    def __init__(self, db: Any, now: datetime | None = None, flight_status: StatusOf | None = None) -> None:
        self.db = db
        self.now = now or NOW["airline"]
        self.status = flight_status or db_flight_status(db)

    # --- records ------------------------------------------------------------------------------------
    def reservation(self, reservation: str | Any) -> Any:
        return table(self.db, "reservations").get(reservation) if isinstance(reservation, str) else reservation

    def user_of(self, reservation: Any) -> Any:
        return table(self.db, "users").get(str(get(reservation, "user_id") or ""))

    def legs(self, reservation: Any) -> list[tuple[str, str]]:
        return [(str(get(f, "flight_number")), str(get(f, "date"))) for f in items(reservation, "flights")]

    def flown(self, reservation: Any) -> list[str]:
        """The flights of the reservation already flown: dated before today, or landed or flying."""
        today = self.now.date().isoformat()
        return [n for n, d in self.legs(reservation) if d < today or self.status(n, d) in FLOWN_STATUSES]


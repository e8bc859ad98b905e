"""Shared helpers for the airline itinerary clauses (L6, L16)."""

from __future__ import annotations

import re
from typing import Any

from gold_variants.readings._base import TaskContext

_MONTHS = {m: i for i, m in enumerate(
    ["january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
     "november", "december"], start=1)}
_DATE = re.compile(r"\b(" + "|".join(_MONTHS) + r")\s+(\d{1,2})(?:st|nd|rd|th)?\b", re.IGNORECASE)


def target_reservation(ctx: TaskContext) -> Any | None:
    ids = ctx.reservation_ids()
    return ctx.db.reservations[ids[0]] if ids else None


def reservation_airports(reservation: Any) -> set[str]:
    return {f.origin for f in reservation.flights} | {f.destination for f in reservation.flights}


def new_airports(ctx: TaskContext, reservation: Any) -> list[str]:
    """Airports the user's request names that the reservation does not touch: a destination change."""
    return [a for a in ctx.requested_airports() if a not in reservation_airports(reservation)]


def requested_segment(ctx: TaskContext, new: list[str]) -> tuple[str, str] | None:
    """The "from A to B" pair of the request whose end is a new airport."""
    pairs = re.findall(r"from ([A-Z]{3}) to ([A-Z]{3})", ctx.request)
    hits = [p for p in pairs if p[1] in new]
    return hits[-1] if hits else None


def requested_date(ctx: TaskContext, year: int = 2024) -> str | None:
    """The one calendar date the scenario asks for, if exactly one is named."""
    dates = {f"{year}-{_MONTHS[m.lower()]:02d}-{int(d):02d}" for m, d in _DATE.findall(ctx.scenario)}
    return dates.pop() if len(dates) == 1 else None


def updates_of(ctx: TaskContext, reservation_id: str) -> list[int]:
    return [
        i for i, a in enumerate(ctx.gold)
        if a.name == "update_reservation_flights" and a.arguments.get("reservation_id") == reservation_id
    ]


def same_flights(flights: list[dict], reservation: Any) -> bool:
    mine = {(f.flight_number, f.date) for f in reservation.flights}
    return {(f["flight_number"], f["date"]) for f in flights} == mine

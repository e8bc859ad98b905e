"""The database as a conversation had read it before each message (#36 item 4): the records its tool results
returned, the user, the flights searched and their statuses, the domain's current time (the policy model's
``domain_now``) and what was said. Claim checkers (``_claims``, ``_policy_claims``) judge a sentence against the
state before its message: what the agent could know when it spoke."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from tau2.data_model.message import Message, ToolMessage

from conversation_reading._evidence import Turn
from conversation_reading._turn_index import UNPARSED
from policy_model import RESERVATION_UPDATES, booking_age, domain_now


@dataclass(slots=True)  # one a message: slots build and read faster
class _State:
    """The database as the conversation read it before one message: records by id, the user, searches."""

    reservations: dict[str, dict[str, Any]]
    last_reservation: dict[str, Any] | None
    user: dict[str, Any] | None
    flights: dict[str, dict[str, Any]]  # flight number -> a search result (its prices by cabin)
    now: datetime | None
    statuses: dict[tuple[str, str], str] = field(default_factory=dict)  # (flight, date) -> status read
    domain: str = ""
    said: str = ""  # what the user and the agent said before the message
    earlier: tuple[dict[str, Any], ...] = ()  # reservations as read before a write changed them (their figures hold)


def _json(text: str | None) -> Any:
    try:
        return json.loads(text or "")
    except (json.JSONDecodeError, TypeError):
        return None


def _read_by_state(name: str) -> bool:
    """The tool results ``_states`` reads (the branches below): another's is not parsed."""
    return name in ("get_reservation_details", "get_user_details", "get_flight_status") or name in RESERVATION_UPDATES \
        or name.startswith("search_")


def _states(
    turns: list[Turn], messages: Sequence[Message], domain: str, parsed: Callable[[int], Any] | None = None
) -> list[_State]:
    """The state before each message (``parsed``: message index -> its content as JSON, ``_turn_index.UNPARSED``
    where it is none: the record's one parse of each tool result, shared with its other readers)."""
    now = domain_now(domain)
    calls: dict[str, Any] = {}
    # the state being read, in locals (a state's fields read and written as attributes cost most of the loop); the
    # dicts are shared between messages until a tool result changes them (copied then): readers never write to one
    reservations: dict[str, dict[str, Any]] = {}
    last_reservation: dict[str, Any] | None = None
    user: dict[str, Any] | None = None
    flights: dict[str, dict[str, Any]] = {}
    statuses: dict[tuple[str, str], str] = {}
    said = ""
    earlier: tuple[dict[str, Any], ...] = ()
    out = []
    for i, (t, m) in enumerate(zip(turns, messages, strict=True)):
        out.append(_State(reservations, last_reservation, user, flights, now, statuses, domain, said, earlier))
        role = t.role
        if role == "user" or role == "assistant":
            said += "\n" + t.text
        for c in t.calls:
            calls[c.id] = c
        if not isinstance(m, ToolMessage) or m.id not in calls:
            continue
        name = calls[m.id].name
        if not _read_by_state(name):
            continue
        # parsed only for a tool whose result the state reads
        value = _json(m.content) if parsed is None else None if (got := parsed(i)) is UNPARSED else got
        if name == "get_reservation_details" and isinstance(value, dict) and "reservation_id" in value:
            reservations = {**reservations, str(value["reservation_id"]): value}
            last_reservation = value
        elif name in RESERVATION_UPDATES and isinstance(value, dict) and "reservation_id" in value:
            # a change returns the reservation as it left it: read since; its figures before stay known
            rid = str(value["reservation_id"])
            earlier = (*earlier, *([reservations[rid]] if rid in reservations else []))
            reservations = {**reservations, rid: value}
            last_reservation = value
        elif name == "get_user_details" and isinstance(value, dict):
            user = value
        elif name == "get_flight_status":
            args = calls[m.id].arguments
            status = value if isinstance(value, str) else (m.content or "").strip().strip('"')
            statuses = {**statuses, (str(args.get("flight_number")), str(args.get("date"))): status.lower()}
        elif name.startswith("search_") and isinstance(value, list):
            flights, statuses = dict(flights), dict(statuses)
            for item in value:
                legs = item if isinstance(item, list) else [item]
                for leg in legs:
                    if isinstance(leg, dict) and leg.get("flight_number"):
                        flights[str(leg["flight_number"])] = leg
                        if leg.get("date") and leg.get("status"):
                            statuses[(str(leg["flight_number"]), str(leg["date"]))] = str(leg["status"])
    return out


def _reservation(sentence: str, state: _State) -> dict[str, Any] | None:
    named = [r for rid, r in state.reservations.items() if rid in sentence]
    return named[0] if len(named) == 1 else state.last_reservation


def _reservation_age(sentence: str, state: _State) -> tuple[dict[str, Any], timedelta, datetime] | None:
    """The reservation ``sentence`` is about, how long before the conversation's "now" it was booked, and that
    "now" (None: no reservation, no "now", or no readable booking time)."""
    res = _reservation(sentence, state)
    if res is None or state.now is None:
        return None
    age = booking_age(res, state.now)
    return None if age is None else (res, age, state.now)
